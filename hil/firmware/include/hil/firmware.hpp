#pragma once
/// \file firmware.hpp
/// The HIL firmware's main loop, above talus/rt/port.hpp only (bare metal Cortex-M with UART0
/// as the link, or a POSIX process with two file descriptors): the same code on every target.
///
/// Each byte from port::link_read goes to the sensor-frame Parser (protocol.hpp). For every
/// accepted sensor frame (encoders, joint rates, IMU, contact switches: no base state):
///   1. the state estimator's update (talus/estimation/legged_estimator.hpp) turns the
///      measurements into the base's q and v; the feet in contact are the switches when the
///      frame has them, otherwise ContactDetector's (talus/estimation/contact_detection.hpp:
///      the controller's stance, and a lifted foot once the estimate sees it down and still),
///      from the previous period's estimate;
///   2. one controller step on the estimate (each stage timed with port::cycles());
///   3. one command frame echoing the sensor frame's sequence, with the torques, the
///      controller state, both stages' instruction counts, the estimate, the estimator's NIS
///      (innovation()) and velocity covariance, and the fault counters:
///   rx_rejected     frames the parser refused (bad COBS, CRC, length, type, version, repeated, stale)
///   rx_missed       sensor sequence numbers never received (gaps between accepted frames)
///   watchdog        times the link was silent for more than FirmwareConfig::watchdog_periods
///                   control periods (the controller then latches safe_damping). Two clocks:
///                   the sensor frames' own time stamps (a frame arriving more than N periods
///                   after the previous one: N periods were missed), exact in lockstep with an
///                   emulated CPU whose clock does not follow the plant's; and port::now_ns()
///                   (backstop_ns without any frame), for a link that never comes back
///   sensor_invalid  frames the controller refused (NaN, out of range)
///   talus           steps where a talus call returned a non-ok Status (damping commanded)
///   cone_fallback   steps where the friction-cone solver hit its cap (its last, in-cone iterate commanded)
///   estimator       frames the estimator refused (a NaN or saturated IMU sample, an encoder out of
///                   range): the controller is then given a frame it refuses (sensor_invalid), so
///                   it commands damping on the measured joint rates
///   restart         estimator restarts after a gap longer than its max_gap (a silent link)
/// A sensor frame with Request::request_end is answered, then the program ends (exit 0).
/// Nothing allocates; the parser and controller are static objects.
#include <hil/protocol.hpp>
#include <talus/control/balance_controller.hpp>
#include <talus/estimation/contact_detection.hpp>
#include <talus/estimation/legged_estimator.hpp>
#include <talus/rt/log.hpp>
#include <talus/rt/port.hpp>

namespace talus::hil {

struct FirmwareConfig {
  std::uint64_t period_ns = 1'000'000;        ///< control period (the plant's sensor rate)
  std::uint32_t watchdog_periods = 50;        ///< missed periods that trip the watchdog
  std::uint64_t backstop_ns = 2'000'000'000;  ///< port::now_ns() silence that trips it too
  // clang-format off
  std::uint32_t instructions_per_tick = 0; ///< port::cycles() tick → instructions (QEMU -icount: 40/2^shift); 0: not measured
  std::uint32_t ticks_per_instruction = 1; ///< divides that product: x86 under QEMU -icount shift=3, whose TSC counts virtual ns (8 per instruction)
  // clang-format on
};

/// The feet the controller stands on (bit k: foot k's contact switched on): the estimator's
/// contacts on a robot without foot switches.
template <class Controller>
unsigned controller_stance(const Controller& ctl) {
  unsigned mask = 0;
  for (int k = 0; k < Controller::num_feet; ++k)
    if (ctl.constraints().is_active(k)) mask |= 1u << k;
  return mask;
}

/// The period's normalised innovation squared: the sum over the measurements that corrected
/// and their rows (LegOdometryEkf: a foot's velocity, 3 rows, and height, 1 row; InvariantEkf:
/// a foot's position, 3 rows).
template <class S, int N>
void innovation(const LegOdometryReport<S, N>& r, double& nis, std::uint8_t& dof) {
  nis = 0;
  for (int j = 0; j < N; ++j) nis += static_cast<double>(r.nis[j]) + static_cast<double>(r.nis_height[j]);
  dof = static_cast<std::uint8_t>(4 * r.feet_in_contact);
}
template <class S, int N>
void innovation(const EstimatorReport<S, N>& r, double& nis, std::uint8_t& dof) {
  nis = 0;
  for (int j = 0; j < N; ++j) nis += static_cast<double>(r.nis[j]);
  dof = static_cast<std::uint8_t>(3 * r.feet_in_contact);
}

/// Stage 1: the sensor frame into the estimator. On a refusal the controller gets a frame it
/// refuses in turn (zero quaternion) with the measured joint rates, so it commands damping.
template <class Estimator, class Sensor>
Status estimate(Estimator& est, const Sensor& sensor, unsigned touching, double dt, typename Estimator::Config& q,
                typename Estimator::Tangent& v) {
  using S = typename Estimator::S;
  typename Estimator::Joints encoders, rates;
  for (int k = 0; k < Estimator::nj; ++k) {
    encoders[k] = static_cast<S>(sensor.encoder[static_cast<std::size_t>(k)] * kEncoderStep);
    rates[k] = static_cast<S>(sensor.joint_rate[static_cast<std::size_t>(k)]);
  }
  Vector3<S> gyro, accel;
  for (int k = 0; k < 3; ++k) {
    gyro[k] = static_cast<S>(sensor.gyro[static_cast<std::size_t>(k)]);
    accel[k] = static_cast<S>(sensor.accel[static_cast<std::size_t>(k)]);
  }
  const Status s = est.update(gyro, accel, encoders, rates, touching, static_cast<S>(dt));
  q = est.q();
  v = est.v();
  if (s != Status::ok) v.template tail<Estimator::nj>() = rates;
  return s;
}

template <class Controller, class Estimator>
[[noreturn]] void run_firmware(Controller& ctl, Estimator& est, const FirmwareConfig& cfg) {
  constexpr int nj = Controller::nj;
  static_assert(Estimator::nq == Controller::nq && Estimator::nv == Controller::nv,
                "run_firmware: the estimator and the controller must be of one model");
  using Sensor = SensorMessage<nj>;
  using Command = CommandMessage<nj>;
  static Parser<Sensor> parser;
  static ContactDetector<typename Controller::S, Controller::num_feet> detector;  // its default thresholds
  static Sensor sensor;
  static Command command;
  static std::uint8_t frame[max_frame_size<Command>()];
  std::uint32_t watchdog_trips = 0, estimator_refusals = 0;
  bool started = false, silent = false;
  std::uint64_t last_rx = port::now_ns(), last_plant_ns = 0;
  for (;;) {
    std::uint8_t bytes[64];
    const std::size_t n = port::link_read(bytes, sizeof bytes);
    for (std::size_t i = 0; i < n; ++i) {
      if (!parser.feed(bytes[i])) continue;
      parser.take(sensor);
      if (started && !silent && sensor.plant_time_ns - last_plant_ns > cfg.watchdog_periods * cfg.period_ns) {
        ++watchdog_trips;  // the link was silent for more than watchdog_periods periods
        ctl.enter_safe();
      }
      const double dt = started ? static_cast<double>(sensor.plant_time_ns - last_plant_ns) * 1e-9 : 0.0;
      started = true;
      silent = false;
      last_rx = port::now_ns();
      last_plant_ns = sensor.plant_time_ns;
      const unsigned touching =
          (sensor.flags & sensor_has_switches)
              ? sensor.contacts
              : detector.update(controller_stance(ctl), est.foot_heights(), est.foot_velocities());
      typename Controller::Config q;
      typename Controller::Tangent v;
      const double t = static_cast<double>(sensor.plant_time_ns) * 1e-9;
      const std::uint64_t c0 = port::cycles();
      const bool estimated = estimate(est, sensor, touching, dt, q, v) == Status::ok;
      if (!estimated) ++estimator_refusals;
      const std::uint64_t c1 = port::cycles();
      const typename Controller::Output out =
          ctl.step(static_cast<typename Controller::S>(t), q, v, sensor.request & 0x0Fu, touching);
      const std::uint64_t c2 = port::cycles();
#ifdef HIL_DEBUG_STATUS
      if (out.solver_iterations > 0) {
        talus::rt::LogLine<32> line;
        (line << out.solver_iterations + 1000 * static_cast<int>(sensor.plant_time_ns / 1000000)
              << (out.cone_fallback ? " cap" : " it"))
            .write();
      }
      if (out.status != Status::ok) {
        talus::rt::LogLine<32> line;
        (line << to_string(out.status)).write();
      }
#endif
      command.sequence = sensor.sequence;
      for (int k = 0; k < nj; ++k) command.tau[static_cast<std::size_t>(k)] = static_cast<double>(out.tau[k]);
      command.state = static_cast<std::uint8_t>(out.state);
      command.estimate_instructions =
          static_cast<std::uint32_t>((c1 - c0) * cfg.instructions_per_tick / cfg.ticks_per_instruction);
      command.step_instructions =
          static_cast<std::uint32_t>((c2 - c1) * cfg.instructions_per_tick / cfg.ticks_per_instruction);
      for (int k = 0; k < 3; ++k) command.position[static_cast<std::size_t>(k)] = static_cast<double>(q[k]);
      for (int k = 0; k < 4; ++k) command.orientation[static_cast<std::size_t>(k)] = static_cast<double>(q[3 + k]);
      const Vector3<typename Controller::S> v_world = est.filter().velocity();
      for (int k = 0; k < 3; ++k) command.velocity[static_cast<std::size_t>(k)] = static_cast<double>(v_world[k]);
      command.nis = 0;
      command.nis_dof = 0;
      if (estimated) innovation(est.filter().report(), command.nis, command.nis_dof);
      constexpr int iv = Estimator::Filter::iv;  // the ξ_v block of the filter's covariance
      const auto& P = est.filter().covariance();
      const int cov[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
      for (int k = 0; k < 6; ++k)
        command.velocity_covariance[static_cast<std::size_t>(k)] =
            static_cast<double>(P(iv + cov[k][0], iv + cov[k][1]));
      command.faults[fault_rx_rejected] = parser.stats().rejected();
      command.faults[fault_rx_missed] = parser.stats().missed;
      command.faults[fault_watchdog] = watchdog_trips;
      command.faults[fault_sensor_invalid] = ctl.sensor_invalid;
      command.faults[fault_talus] = ctl.talus_failures;
      command.faults[fault_cone_fallback] = ctl.cone_fallbacks;
      command.faults[fault_estimator] = estimator_refusals;
      command.faults[fault_restart] = est.restarts();
      const std::size_t len = encode_frame(command, frame, sizeof frame);
      (void)port::link_write(frame, len);
      if (sensor.request & request_end) port::exit(0);
    }
    if (n == 0 && started && !silent && port::now_ns() - last_rx > cfg.backstop_ns) {
      silent = true;  // one trip per silence; the next accepted frame re-arms it
      ++watchdog_trips;
      ctl.enter_safe();
    }
    if (n == 0) port::wait_until(port::now_ns() + 20'000);  // idle: let a POSIX host have the core
  }
}

}  // namespace talus::hil
