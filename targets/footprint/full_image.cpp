// A bare-metal firmware image whose work is what a legged-robot controller runs on solo12
// (issue 13, footprint): forward kinematics (q, v, a), CRBA, RNEA, ABA, the frame Jacobians of
// the four feet, and the constrained forward dynamics on the four feet as 3D point contacts
// (ConstraintSet, forward_dynamics_range_space). For tools/footprint-report.sh: flash and RAM
// of the whole image, flash per algorithm (arm-none-eabi-nm: each algorithm is called from its
// own noinline function run_<alg>, so whatever GCC inlines lands in that function), and
// instructions per call of each algorithm (SysTick under QEMU -icount, as aba_image.cpp).
//
// Built as talus_footprint_full (the preset's -O2, the fast profile), talus_footprint_full_compact
// (talus::compact) and, with TALUS_FOOTPRINT_BASELINE, talus_footprint_full_baseline{,_compact}:
// the same program with every algorithm replaced by a copy (same startup, port, generator and
// output), for the difference.
//
// Output: "full image: ..." (calls, failures, checksum), "ticks empty <t>", then per state and
// algorithm "ticks <alg> <t>" (raw SysTick ticks of one call of run_<alg>, the call included).
#include <talus/port/cortex_m.hpp>
#include <talus/rt/port.hpp>

#include <Eigen/Core>
#include <new>

#include "footprint.hpp"

#if !defined(TALUS_FOOTPRINT_BASELINE)
#include <talus/algorithms/aba.hpp>
#include <talus/algorithms/crba.hpp>
#include <talus/algorithms/jacobians.hpp>
#include <talus/algorithms/kinematics.hpp>
#include <talus/algorithms/rnea.hpp>
#include <talus/constraints/constraint_set.hpp>
#include <talus/models/solo12.hpp>
#include <talus/solvers/forward_dynamics_constrained.hpp>
#endif

namespace {

constexpr int kCalls = 100;
constexpr int kAlgs = 6;
constexpr const char* kAlgName[kAlgs] = {"fk", "crba", "rnea", "aba", "jac", "cfd"};

#if defined(TALUS_FOOTPRINT_BASELINE)
constexpr int nq = 19, nv = 18;  // solo12
using Config = Eigen::Matrix<double, nq, 1>;
using Tangent = Eigen::Matrix<double, nv, 1>;
double g_sink[4 * 6 * nv];
#else
namespace solo = talus::models::solo12;
using Model = solo::Model<double>;
using Config = Model::ConfigVector;
using Tangent = Model::TangentVector;
const Model g_model = solo::make_model<double>();
talus::Data<Model> g_data;
Model::Jacobian6 g_jac[4];
constexpr const char* kFeet[4] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};
int g_foot_frame[4];
// Each foot a 3D point contact (world x, y, z): 12 rows. Static storage, constructed in place
// once and never destroyed (ConstraintSet is not trivially destructible; see target_test.cpp).
using FeetSet = talus::ConstraintSet<Model, 12>;
alignas(FeetSet) unsigned char g_feet_storage[sizeof(FeetSet)];
FeetSet* g_feet = nullptr;

__attribute__((noinline)) bool setup() {
  g_feet = ::new (static_cast<void*>(g_feet_storage)) FeetSet();
  using V3 = talus::Vector3<double>;
  for (int k = 0; k < 4; ++k) {
    g_foot_frame[k] = solo::frame_id(kFeet[k]);
    if (g_foot_frame[k] < 0) return false;
    const auto& F = g_model.frames[g_foot_frame[k]];
    if (g_feet->add_contact(F.body, F.placement.p, {V3::UnitX(), V3::UnitY(), V3::UnitZ()}, kFeet[k]) !=
        talus::Status::ok)
      return false;
  }
  return g_feet->bind(g_model) == talus::Status::ok;
}
#endif

// One function per algorithm (noinline): what GCC inlines into it is that algorithm's code.
#if defined(TALUS_FOOTPRINT_BASELINE)
__attribute__((noinline)) bool run_fk(const Config& q, const Tangent& v, const Tangent& a) {
  g_sink[0] = q[0] + v[0] + a[0];
  return true;
}
__attribute__((noinline)) bool run_crba(const Config& q) {
  g_sink[1] = q[1];
  return true;
}
__attribute__((noinline)) bool run_rnea(const Config& q, const Tangent& v, const Tangent& a, Tangent& out) {
  out = v + a;
  g_sink[2] = q[2];
  return true;
}
__attribute__((noinline)) bool run_aba(const Config& q, const Tangent& v, const Tangent& tau, Tangent& out) {
  out = tau - v;
  g_sink[3] = q[3];
  return true;
}
__attribute__((noinline)) bool run_jac(const Config& q) {
  g_sink[4] = q[4];
  return true;
}
__attribute__((noinline)) bool run_cfd(const Config& q, const Tangent& v, const Tangent& tau, Tangent& out) {
  out = tau + v;
  g_sink[5] = q[5];
  return true;
}
#else
__attribute__((noinline)) bool run_fk(const Config& q, const Tangent& v, const Tangent& a) {
  return talus::forward_kinematics(g_model, g_data, q, v, a) == talus::Status::ok;
}
__attribute__((noinline)) bool run_crba(const Config& q) {
  return talus::crba(g_model, g_data, q) == talus::Status::ok;
}
__attribute__((noinline)) bool run_rnea(const Config& q, const Tangent& v, const Tangent& a, Tangent& out) {
  return talus::rnea(g_model, g_data, q, v, a, out) == talus::Status::ok;
}
__attribute__((noinline)) bool run_aba(const Config& q, const Tangent& v, const Tangent& tau, Tangent& out) {
  return talus::aba(g_model, g_data, q, v, tau, out) == talus::Status::ok;
}
/// The four feet's 6D Jacobians (world-aligned at the foot): all joint Jacobians once, then
/// each foot's from them.
__attribute__((noinline)) bool run_jac(const Config& q) {
  bool ok = talus::compute_joint_jacobians(g_model, g_data, q) == talus::Status::ok;
  for (int k = 0; k < 4; ++k)
    ok = ok && talus::frame_jacobian(g_model, g_data, g_foot_frame[k], talus::ReferenceFrame::local_world_aligned,
                                     g_jac[k]) == talus::Status::ok;
  return ok;
}
__attribute__((noinline)) bool run_cfd(const Config& q, const Tangent& v, const Tangent& tau, Tangent& out) {
  return talus::forward_dynamics_range_space(g_model, g_data, *g_feet, q, v, tau, out) == talus::Status::ok;
}
#endif

}  // namespace

inline volatile std::uint32_t& syst_cvr() { return *reinterpret_cast<volatile std::uint32_t*>(0xE000E018u); }

int main() {
  footprint::Out o;
#if !defined(TALUS_FOOTPRINT_BASELINE)
  if (!setup()) {
    o << "full image: setup failed";
    o.write();
    return 1;
  }
#endif
  footprint::Rng rng(7);
  Config q;
  Tangent v, a, tau, out;
  int failures = 0;
  double checksum = 0;
  static std::uint32_t ticks[kCalls][kAlgs];
  for (int k = 0; k < kCalls; ++k) {
    footprint::random_state(rng, q, v, a, tau);
    for (int alg = 0; alg < kAlgs; ++alg) {
      const talus::port::IrqState irq = talus::port::critical_enter();
      const std::uint32_t t0 = syst_cvr();
      bool ok = false;
      switch (alg) {
        case 0: ok = run_fk(q, v, a); break;
        case 1: ok = run_crba(q); break;
        case 2: ok = run_rnea(q, v, a, out); break;
        case 3: ok = run_aba(q, v, tau, out); break;
        case 4: ok = run_jac(q); break;
        default: ok = run_cfd(q, v, tau, out); break;
      }
      const std::uint32_t t1 = syst_cvr();
      talus::port::critical_exit(irq);
      ticks[k][alg] = (t0 - t1) & 0x00FFFFFFu;
      if (!ok) ++failures;
      if (alg == 2 || alg == 3 || alg == 5)
        for (int i = 0; i < out.size(); ++i) checksum += out[i];
    }
  }
  std::uint32_t empty;
  {
    const talus::port::IrqState irq = talus::port::critical_enter();
    const std::uint32_t t0 = syst_cvr();
    const std::uint32_t t1 = syst_cvr();
    talus::port::critical_exit(irq);
    empty = (t0 - t1) & 0x00FFFFFFu;
  }
  std::uint64_t bits;
  static_assert(sizeof bits == sizeof checksum, "double is 64-bit");
  __builtin_memcpy(&bits, &checksum, sizeof bits);
  o << "full image: " << kCalls << " states x " << kAlgs << " algorithms, " << failures << " failed, checksum ";
  (o << talus::rt::hex(bits)).write();
  o << "ticks empty " << empty;
  o.write();
  for (int k = 0; k < kCalls; ++k)
    for (int alg = 0; alg < kAlgs; ++alg) {
      o << "ticks " << kAlgName[alg] << " " << ticks[k][alg];
      o.write();
    }
  return failures ? 1 : 0;
}
