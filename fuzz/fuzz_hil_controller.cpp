// fuzz_hil_controller: talus's balance controller (include/talus/control/balance_controller.hpp)
// in the HIL rig's solo12 configuration, on arbitrary sensor frames. Byte 0: bit 0 raw doubles (else "nice" values near the range a
// robot sees, with NaN/Inf/extremes), bit 1 start from Solo-12's standing state and perturb it
// (else the whole state from the input). Then up to 8 steps, each: time advance, lift request
// and contact bits, and either a perturbation or a full state from the input.
// Promises: no crash or undefined behaviour; every command finite and within its joint's
// torque limit (the controller's torque_limit()); a
// refused frame (non-finite, out of range) commands damping and is counted; a non-ok talus
// Status is counted and commands damping; the controller's counters never decrease; no heap.
#include <cmath>

#include <talus/control/balance_controller.hpp>
#include <talus/models/solo12.hpp>

#include "fuzz_support.hpp"

namespace {

namespace solo = talus::models::solo12;
using Model = solo::Model<double>;
using Controller = talus::BalanceController<Model>;
using talus_fuzz::finding;

const Model& model() {
  static const Model m = talus_fuzz::checked_model(solo::make_model<double>(), "solo12");
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  talus_fuzz::Reader in(data, size);
  const std::uint8_t mode = in.byte();
  in.set_raw(mode & 1);
  Controller& ctl = talus_fuzz::fresh_static<Controller>();  // a fresh controller per input
  Controller::Joints stance, swing;
  stance << 0.1, 0.8, -1.6, -0.1, 0.8, -1.6, 0.1, -0.8, 1.6, -0.1, -0.8, 1.6;
  swing << 0.1, 1.2, -2.4, -0.1, 1.2, -2.4, 0.1, -1.2, 2.4, -0.1, -1.2, 2.4;
  const int feet[4] = {solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
                       solo::frame_id("HR_FOOT")};
  talus::ControllerConfig<double> cfg;  // the HIL firmware's (hil/firmware/main.cpp)
  cfg.height = 0.24;
  cfg.torque_limit = 2.7;
  if (ctl.init(model(), feet, stance, swing, cfg) != talus::Status::ok)
    finding("BalanceController::init", talus::Status::ok, "refused solo12's feet");
  Controller::Config q = Controller::Config::Zero();
  Controller::Tangent v = Controller::Tangent::Zero();
  q[2] = 0.24;
  q[3] = 1;
  q.tail<12>() = stance;
  double t = 0;
  std::uint32_t invalid = 0, failures = 0;
  for (int step = 0; step < 8 && !in.empty(); ++step) {
    t += (in.byte() + 1) * 1e-3;
    const unsigned lift = in.byte() & 0x0F, touching = in.byte() & 0x0F;
    if (mode & 2) {                         // a perturbation of one entry
      const int i = in.byte() % (19 + 18);  // an entry of q or v
      (i < 19 ? q[i] : v[i - 19]) += in.scalar();
    } else {
      in.fill(q);
      in.fill(v);
    }
    Controller::Output out;
    (void)talus_fuzz::no_heap("BalanceController::step", [&] {
      out = ctl.step(t, q, v, lift, touching);
      return out.status;
    });
    for (int j = 0; j < 12; ++j)
      if (!std::isfinite(out.tau[j]) || std::abs(out.tau[j]) > ctl.torque_limit()[j])
        finding("BalanceController::step", out.status, "a command not finite or beyond the torque limit");
    const bool refused = ctl.sensor_invalid != invalid, failed = ctl.talus_failures != failures;
    if (ctl.sensor_invalid < invalid || ctl.talus_failures < failures)
      finding("BalanceController::step", out.status, "a counter decreased");
    if ((refused || failed) && out.state != talus::ControllerState::safe_damping &&
        out.state != talus::ControllerState::fault && !refused)
      finding("BalanceController::step", out.status, "a talus failure without the fault state");
    if (refused || failed || out.state == talus::ControllerState::safe_damping)
      for (int j = 0; j < 12; ++j) {
        const double w = v[6 + j];
        const double damp = std::isfinite(w) ? -cfg.damping_safe * w : 0.0;
        const double limit = ctl.torque_limit()[j];
        const double expect = std::isfinite(damp) && std::abs(damp) <= limit ? damp
                              : std::isfinite(damp)                          ? std::copysign(limit, damp)
                                                                             : 0.0;
        if (out.tau[j] != expect)
          finding("BalanceController::step", out.status, "a refused frame did not command damping");
      }
    invalid = ctl.sensor_invalid;
    failures = ctl.talus_failures;
  }
  return 0;
}
