// A small bare-metal firmware image whose work is solo12 forward dynamics (ABA), for the
// footprint report (tools/footprint-report.sh): what a control program pays in flash and RAM
// for talus, and how deep its stack goes.
//
// The startup code paints the whole stack at reset (this image defines talus_stack_paint,
// see port/cortex-m); main() runs ABA on 100 random states (as a control loop would, one call
// per period, inputs from "sensors": here a random generator without libm), then prints the
// stack high-water mark since reset (startup, static constructors, main and ABA included)
// and how much of it lies above main's stack pointer (startup and main's own frame). It also
// times each step() with SysTick (as probe.cpp: interrupts masked, raw 24-bit current value;
// under QEMU -icount the ticks convert to instructions) and prints one "ticks" line per call
// and for an empty window.
//
// Built as talus_footprint_aba and, with TALUS_FOOTPRINT_BASELINE, talus_footprint_baseline:
// the same program with the ABA call replaced by a copy (same startup, port, generator and
// output), so that the difference of the two images is what talus (solo12 model, Data
// workspace, ABA code and the library functions it pulls in) costs. Both again at -Os (_os).
#include <talus/port/cortex_m.hpp>
#include <talus/rt/port.hpp>

#include <Eigen/Core>

#include "footprint.hpp"

#if !defined(TALUS_FOOTPRINT_BASELINE)
#include <talus/algorithms/aba.hpp>
#include <talus/models/solo12.hpp>
#endif

namespace {

constexpr int kCalls = 100;
#if defined(TALUS_FOOTPRINT_BASELINE)
constexpr int nq = 19, nv = 18;  // solo12
using Config = Eigen::Matrix<double, nq, 1>;
using Tangent = Eigen::Matrix<double, nv, 1>;
#else
namespace solo = talus::models::solo12;
using Model = solo::Model<double>;
using Config = Model::ConfigVector;
using Tangent = Model::TangentVector;
const Model g_model = solo::make_model<double>();
talus::Data<Model> g_data;
#endif

// One control step: inputs in, accelerations out.
__attribute__((noinline)) bool step(const Config& q, const Tangent& v, const Tangent& tau, Tangent& ddq) {
#if defined(TALUS_FOOTPRINT_BASELINE)
  (void)q;
  (void)v;
  ddq = tau;
  return true;
#else
  return talus::aba(g_model, g_data, q, v, tau, ddq) == talus::Status::ok;
#endif
}

}  // namespace

inline volatile std::uint32_t& syst_cvr() { return *reinterpret_cast<volatile std::uint32_t*>(0xE000E018u); }

// Ask the startup code to paint the stack at reset.
extern "C" __attribute__((used)) const char talus_stack_paint = 1;

int main() {
  footprint::Rng rng(7);
  Config q;
  Tangent v, a, tau, ddq;
  int failures = 0;
  double checksum = 0;
  const std::uintptr_t step_sp = footprint::stack_pointer();  // at the step() calls below
  static std::uint32_t ticks[kCalls];
  for (int k = 0; k < kCalls; ++k) {
    footprint::random_state(rng, q, v, a, tau);
    const talus::port::IrqState irq = talus::port::critical_enter();
    const std::uint32_t t0 = syst_cvr();
    const bool ok = step(q, v, tau, ddq);
    const std::uint32_t t1 = syst_cvr();
    talus::port::critical_exit(irq);
    ticks[k] = (t0 - t1) & 0x00FFFFFFu;
    if (!ok) ++failures;
    for (int i = 0; i < ddq.size(); ++i) checksum += ddq[i];
  }
  std::uint32_t empty;
  {
    const talus::port::IrqState irq = talus::port::critical_enter();
    const std::uint32_t t0 = syst_cvr();
    const std::uint32_t t1 = syst_cvr();
    talus::port::critical_exit(irq);
    empty = (t0 - t1) & 0x00FFFFFFu;
  }
  const std::size_t high_water = talus::port::cortex_m::stack_high_water();
  std::uint64_t bits;
  static_assert(sizeof bits == sizeof checksum, "double is 64-bit");
  __builtin_memcpy(&bits, &checksum, sizeof bits);

  footprint::Out o;
#if defined(TALUS_FOOTPRINT_BASELINE)
  o << "baseline image";
#else
  o << "aba image";
#endif
  o << ": " << kCalls << " calls, " << failures << " failed, checksum ";
  (o << talus::rt::hex(bits)).write();
  // The deepest point is inside step() (ABA), so below main's stack pointer lies ABA's share.
  const std::uintptr_t estack = reinterpret_cast<std::uintptr_t>(&footprint::_estack);
  o << "stack high-water since reset " << static_cast<std::uint64_t>(high_water) << " bytes of "
    << static_cast<std::uint64_t>(talus::port::cortex_m::stack_size()) << "; above main's stack pointer "
    << static_cast<std::uint64_t>(estack - step_sp) << " bytes";
  o.write();
  o << "ticks empty " << empty;
  o.write();
  for (int k = 0; k < kCalls; ++k) {
    o << "ticks step " << ticks[k];
    o.write();
  }
  return failures ? 1 : 0;
}
