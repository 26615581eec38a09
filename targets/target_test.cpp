// On-target test program: one source, built for every target (x86-64, aarch64, Cortex-M7,
// Cortex-M4F). Checks talus's forward kinematics, CRBA, RNEA and ABA on solo12 (floating
// base, nv 18) and ur5 (fixed base, nv 6), and constrained forward dynamics of solo12 with
// its four feet in contact (12 rows; range-space and direct PartialPivLU methods, q̈ and λ),
// at the states of talus_target_reference.hpp, whose inputs and expected outputs the host
// computed in double at build time (targets/host/reference.cpp), then runs the rt loop runner
// for a few hundred periods. It also runs every other constrained solver (solvers_check.cpp:
// the other methods against range space, impulses and assembly by their residuals) and
// unilateral contact with friction on the four feet (contact_check.cpp: Lemke and PGS against
// the host's talus_target_contact_reference.hpp) and the floating-base state estimator
// (estimation_check.cpp: LeggedEstimator on solo12 with InvariantEkf and LegOdometryEkf over a
// 400-update input sequence — standing, a constant-rate base rotation, a foot lifting and
// landing — against the host's talus_target_estimation_reference.hpp and the sequence's
// analytic truth; a NaN or saturated IMU sample and an unknown foot refused). Exit
// status 0 only if every check passes. On Cortex-M it also
// reports (and bounds) the stack the constrained solves need: the ConstraintSet and the Data
// are in static storage, never on the stack.
//
// Output goes through talus::port::log_write only (no printf, hence no stdio buffers and no
// heap on bare metal); numbers are formatted by talus::rt::LogLine (Line, target_support.hpp).
//
// Built with TALUS_TARGET_BITS (executable talus_target_bits, test target_<name>_bits, double
// targets only) the same program is the bit test of the reproducible profile: talus and this
// file are compiled with talus::reproducible, the host's reference was too, and every output
// value must have exactly the host's bits (0 ulp). The loop checks are skipped there.
#include <talus/constraints.hpp>
#include <talus/models/solo12.hpp>
#include <talus/models/ur5.hpp>
#include <talus/rt/loop.hpp>
#include <talus/rt/port.hpp>
#include <talus/talus.hpp>

#include <cstdint>
#include <cstring>
#include <new>

#include "talus_target_reference.hpp"
#include "target_support.hpp"
#if !defined(TALUS_TARGET_BITS)
#include "contact_check.hpp"
#include "estimation_check.hpp"
#include "solvers_check.hpp"
#endif

// TALUS_TARGET_STACK_PAINT (bare-metal Cortex-M) and TALUS_TARGET_STACK_BUDGET: target_support.hpp

#ifndef TALUS_TARGET_SCALAR
#define TALUS_TARGET_SCALAR double
#endif
#ifndef TALUS_TARGET_NAME
#define TALUS_TARGET_NAME "unknown"
#endif
#ifndef TALUS_TARGET_LOOP_PERIOD_NS
#define TALUS_TARGET_LOOP_PERIOD_NS 2000000
#endif
#ifndef TALUS_TARGET_LOOP_ITERATIONS
#define TALUS_TARGET_LOOP_ITERATIONS 300
#endif
#ifndef TALUS_TARGET_LOOP_MAX_MISSES
#define TALUS_TARGET_LOOP_MAX_MISSES 0
#endif

using S = TALUS_TARGET_SCALAR;

#if defined(TALUS_TARGET_BITS)
// The bit test is meaningless outside the reproducible profile: refuse to build it.
#if !defined(TALUS_REPRODUCIBLE)
#error "TALUS_TARGET_BITS needs the reproducible profile (link talus::reproducible)"
#endif
#if defined(EIGEN_VECTORIZE)
#error "TALUS_TARGET_BITS needs EIGEN_DONT_VECTORIZE (talus::reproducible); Eigen vectorizes here"
#endif
#if defined(__FAST_MATH__)
#error "TALUS_TARGET_BITS: -ffast-math changes results; the reproducible profile excludes it"
#endif
static_assert(sizeof(S) == sizeof(double), "bit identity is claimed for double only (TALUS_TARGET_SCALAR=double)");
static_assert(talus_target_ref::reproducible,
              "the reference header was not computed with the reproducible profile (targets/host/CMakeLists.txt)");
#endif

namespace {

// Tolerances (norm-wise relative error, see rel_err below).
//
// double: 1e-12. The host and the target evaluate the same expressions in IEEE double; they
//   differ by FMA contraction, operation order chosen by the compiler, and libm's sin/cos
//   (1 ulp), i.e. a few hundred to a few thousand ulp at worst (≈ 1e-13), well under 1e-12.
//
// float (Cortex-M4F): the reference is double, the target computes in float from inputs
//   rounded to float. With eps_f = 2^-23 (unit roundoff u = eps_f / 2):
//   - Kinematics, CRBA and RNEA are forward recursions over the tree: products of transforms
//     and sums along a chain of depth d ≤ 6 (ur5; solo12: 4 with the free flyer), each level
//     a few tens of flops per entry, plus sin/cos of angles |θ| ≤ π whose rounding costs up to
//     π·u each. The a-priori bound γ_n = n·u/(1 − n·u) with n ≈ 10 flops × 6 levels, plus
//     6·π·u for the angles, is ≈ 40·eps_f. Tolerance: 64·eps_f ≈ 7.6e-6.
//   - ABA solves H q̈ = τ − C by a recursive (Cholesky-like) block factorization. Its
//     forward error is the backward error amplified by the condition of H; for a symmetric
//     positive definite system solved this way the relevant number is κ₂ of the diagonally
//     scaled matrix D^-1/2 H D^-1/2 (D = diag H; van der Sluis), not κ₂(H) itself, which the
//     floating base's mass against light legs inflates to ~3e4 for solo12 while the scaled
//     one stays ≈ 20. Tolerance per state: 64·eps_f·κ₂(scaled H) (≤ 1.8e-4 here). κ₂ comes
//     from the host, per state, in the reference header.
//   The host's own float run (printed by talus_target_reference, copied at the end of the
//   generated header) sees at most ≈ 3.3·eps_f on every quantity, ≈ 0.35·eps_f·κ₂(scaled)
//   for ABA: the tolerances leave a margin of ~20 for a different compiler and libm.
//
// Constrained forward dynamics (solo12, four feet: K z = r with K = [H Gᵀ; G 0], 30 x 30,
// z = [q̈; −λ], r = [τ − C; γ]). The range-space and the direct (PartialPivLU) methods are
// each compared with the host's result of the same method.
//   double: 1e-12, as above: host and target build H, C, G, γ the same way up to a few ulp
//   (FMA contraction, SIMD summation order) and factorize them in the same order. Measured,
//   not proven: the first-order bound (a few ulp times κ below, κ up to 1.7e4) would allow
//   ≈ 1e-11 at the worst-conditioned state. Measured when this was written: x86-64 1.8e-14,
//   aarch64 and Cortex-M7 (both fuse multiply-adds) 3.1e-13, all at state 6 (a nearly
//   stretched front-left leg, the largest κ_λ): a margin of 3 there, ~50 elsewhere.
//   float (M4F): the solve amplifies the float errors of its inputs H, C, G, γ by the
//   condition numbers of the two blocks of the KKT solution (reference.cpp,
//   constrained_conds; per state in the reference header):
//     κ_q̈ = [‖P‖ (‖τ‖ + ‖C‖ + ‖H‖‖q̈‖ + ‖G‖‖λ‖) + ‖R‖ (‖γ‖ + ‖G‖‖q̈‖)] / ‖q̈‖,
//     κ_λ = [‖R‖ (‖τ‖ + ‖C‖ + ‖H‖‖q̈‖ + ‖G‖‖λ‖) + ‖Y⁻¹‖ (‖γ‖ + ‖G‖‖q̈‖)] / ‖λ‖,
//   with K⁻¹ = [P Rᵀ; R −Y⁻¹], Y = G H⁻¹ Gᵀ, 2-norms: to first order, relative 2-norm errors
//   ≤ ε in H, C, G, γ and τ give q̈ and λ a relative 2-norm error ≤ ε·κ, whichever method
//   factorizes K (its own backward error is a perturbation of the same kind). κ is large for
//   solo12 (here κ_q̈, κ_λ ≤ 1.7e4; κ₂(G H⁻¹ Gᵀ) alone is ≤ 90): talus's CRBA is the
//   world-frame one, so a light leg's entries of H (≈ 4e-4 kg·m²) are differences of m·|c|²
//   terms of the whole robot about the world origin (≈ 2.5), and a leg near a stretched pose
//   makes the constraint nearly singular. The host's float run measures ε ≤ 2.8 eps_f (header
//   comment: H 2.5, C 2.1, G 1.6, γ 2.8). With ε = 4 eps_f and √n ≤ 4.3 from the 2-norm
//   bound to the max-norm error measured here: 17·eps_f·κ; tolerance 32·eps_f·κ (≤ 0.066),
//   the factor 2 for second-order terms. The host's float run sees at most 0.34·eps_f·κ: a
//   margin of ~90. This error is the problem's, not the solver's: the host's float H, C, G, γ
//   solved exactly in double give the same error (≈ 3e-4 at the worst state, state 6).
constexpr bool is_float = sizeof(S) == sizeof(float);
constexpr double eps_f = 1.1920928955078125e-07;  // 2^-23
constexpr double tol_forward = is_float ? 64 * eps_f : 1e-12;
double tol_aba(double cond_scaled) { return is_float ? 64 * eps_f * cond_scaled : 1e-12; }
double tol_constrained(double cond) { return is_float ? 32 * eps_f * cond : 1e-12; }

// --- output without printf: talus_target::Line (target_support.hpp) ---------------------------

using talus_target::Line;

// --- checks ---------------------------------------------------------------------------------

talus_target::Tally g_tally;

/// max |x − r| / max |r| over the n entries (norm-wise relative error in the max norm).
[[maybe_unused]] double rel_err(const S* x, const double* r, int n) {
  double d = 0, s = 0;
  for (int k = 0; k < n; ++k) {
    const double e = static_cast<double>(x[k]) - r[k];
    const double ae = e < 0 ? -e : e;
    const double ar = r[k] < 0 ? -r[k] : r[k];
    if (!(ae <= d)) d = ae;  // also propagates NaN
    if (ar > s) s = ar;
  }
  return s > 0 ? d / s : d;
}

struct Worst {
  const char* what;
  double err = 0;
  double tol = 0;
  int state = -1;
};

[[maybe_unused]] void record(Worst& w, double err, double tol, int state, const char* model) {
  ++g_tally.checks;
  const bool ok = err <= tol;  // NaN fails
  if (!ok) {
    ++g_tally.failures;
    Line l;
    l << "FAIL " << model << " " << w.what << " state " << state << ": rel err ";
    l << talus::rt::sci(err) << " > tol ";
    (l << talus::rt::sci(tol)).write();
  }
  if (!(err <= w.err) || w.state < 0) {
    w.err = err;
    w.tol = tol;
    w.state = state;
  }
}

void status_check(talus::Status s, const char* what, const char* model, int state) {
  ++g_tally.checks;
  if (s != talus::Status::ok) {
    ++g_tally.failures;
    Line l;
    l << "FAIL " << model << " " << what << " state " << state << ": status " << talus::to_string(s);
    l.write();
  }
}

#if defined(TALUS_TARGET_BITS)
// --- bit comparison (reproducible profile) ----------------------------------------------------

std::uint64_t bits_of(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

/// Distance in units in the last place: doubles mapped to a monotonic unsigned scale
/// (+0 and −0 are 1 apart, so a sign-of-zero difference counts as a difference).
std::uint64_t ulp_distance(double x, double y) {
  auto ordered = [](std::uint64_t u) { return (u >> 63) ? ~u : u | (std::uint64_t(1) << 63); };
  const std::uint64_t a = ordered(bits_of(x)), b = ordered(bits_of(y));
  return a > b ? a - b : b - a;
}

struct Bits {
  std::uint64_t values = 0, differ = 0, around0 = 0, max_ulp = 0;  // max_ulp: pairs not around 0
  int state = -1;                                                  // of max_ulp
};
std::uint64_t g_bits_values = 0, g_bits_differ = 0;

void record_bits(const char* what, Bits& b, const double* x, const double* r, int n, int state, const char* model) {
  ++g_tally.checks;
  int differ = 0, around0 = 0, first = -1;
  std::uint64_t worst = 0;
  for (int k = 0; k < n; ++k) {
    if (bits_of(x[k]) == bits_of(r[k])) continue;
    ++differ;
    if (first < 0) first = k;
    // Around 0 (opposite signs, or one of them ±0: a tiny rounding residue where the other
    // side cancels exactly): counted apart, their ulp distance (up to 2^62) says nothing.
    if ((bits_of(x[k]) ^ bits_of(r[k])) >> 63 || x[k] == 0 || r[k] == 0) {
      ++around0;
      continue;
    }
    const std::uint64_t d = ulp_distance(x[k], r[k]);
    if (d > worst) worst = d;
  }
  b.values += static_cast<std::uint64_t>(n);
  b.differ += static_cast<std::uint64_t>(differ);
  b.around0 += static_cast<std::uint64_t>(around0);
  g_bits_values += static_cast<std::uint64_t>(n);
  g_bits_differ += static_cast<std::uint64_t>(differ);
  if (worst > b.max_ulp || b.state < 0) {
    b.max_ulp = worst;
    b.state = state;
  }
  if (differ) {
    ++g_tally.failures;
    Line l;
    l << "FAIL bits " << model << " " << what << " state " << state << ": " << differ << " of " << n
      << " values differ (" << around0 << " around 0), max " << worst << " ulp; first [" << first << "] target ";
    l << talus::rt::hex(bits_of(x[first])) << " host ";
    (l << talus::rt::hex(bits_of(r[first]))).write();
  }
}

/// True if the compiler fused a * b + c into one FMA in this translation unit (the profile
/// forbids it): with a = 1 + 2^-30, b = 1 − 2^-30, c = −1 the product rounds to 1, so the
/// unfused result is 0 and the fused one −2^-60. Inputs are volatile: no constant folding.
bool fma_contraction_seen() {
  volatile double va = 1 + 0x1p-30, vb = 1 - 0x1p-30, vc = -1;
  const double a = va, b = vb, c = vc;
  const double r = a * b + c;
  return r != 0;
}
#endif

#if defined(TALUS_TARGET_BITS)
void report(const char* model, const Worst* w, const Bits* b, int n) {
  for (int k = 0; k < n; ++k) {
    Line l;
    l << model << " " << w[k].what << ": " << b[k].values << " values, " << b[k].differ
      << " differ from the host's bits";
    if (b[k].differ)
      l << " (" << b[k].around0 << " around 0; elsewhere max " << b[k].max_ulp << " ulp, state " << b[k].state
        << ")  FAIL";
    l.write();
  }
}
#else
void report(const char* model, const Worst* w, int n) {
  for (int k = 0; k < n; ++k) {
    const Worst& x = w[k];
    Line l;
    l << model << " " << x.what << ": worst rel err ";
    l << talus::rt::sci(x.err) << " (state " << x.state << ", tol ";
    l << talus::rt::sci(x.tol) << ")" << (x.err <= x.tol ? "" : "  FAIL");
    l.write();
  }
}
#endif

/// One reference table's checks: per output, the worst relative error against its tolerance,
/// or, in the bit test, the values' bits against the host's.
template <int N>
struct Comparison {
  const char* model;
  Worst w[N];
#if defined(TALUS_TARGET_BITS)
  Bits b[N] = {};
  void compare(int k, const S* x, const double* r, int n, double, int s) {
    record_bits(w[k].what, b[k], x, r, n, s, model);
  }
  void report_all() const { report(model, w, b, N); }
#else
  void compare(int k, const S* x, const double* r, int n, double tol, int s) {
    record(w[k], rel_err(x, r, n), tol, s, model);
  }
  void report_all() const { report(model, w, N); }
#endif
};

/// State s of the reference (q, q̇, q̈, τ), in the target's scalar type.
template <class Ref, class CV, class TV>
void load_state(int s, CV& q, TV& v, TV& a, TV& tau) {
  for (int k = 0; k < Ref::nq; ++k) q[k] = static_cast<S>(Ref::q[s][k]);
  for (int k = 0; k < Ref::nv; ++k) {
    v[k] = static_cast<S>(Ref::v[s][k]);
    a[k] = static_cast<S>(Ref::a[s][k]);
    tau[k] = static_cast<S>(Ref::tau[s][k]);
  }
}

template <class ModelT, class Ref>
void check_model(const ModelT& model, talus::Data<ModelT>& data) {
  static_assert(ModelT::nq == Ref::nq && ModelT::nv == Ref::nv && ModelT::nb == Ref::nb,
                "reference does not match the model");
  constexpr int nv = ModelT::nv, nb = ModelT::nb;
  Comparison<7> checks{Ref::name,
                       {{"fk oMi.R"}, {"fk oMi.p"}, {"fk v"}, {"fk a"}, {"crba H"}, {"rnea tau"}, {"aba ddq"}}};
  for (int s = 0; s < Ref::nstates; ++s) {
    typename ModelT::ConfigVector q;
    typename ModelT::TangentVector v, a, tau, out;
    load_state<Ref>(s, q, v, a, tau);

    status_check(talus::forward_kinematics(model, data, q, v, a), "forward_kinematics", Ref::name, s);
    S R[9 * nb], p[3 * nb], bv[6 * nb], ba[6 * nb];
    for (int i = 0; i < nb; ++i) {
      for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) R[9 * i + 3 * c + r] = data.oMi[i].R(r, c);
      for (int r = 0; r < 3; ++r) p[3 * i + r] = data.oMi[i].p[r];
      for (int r = 0; r < 6; ++r) {
        bv[6 * i + r] = data.v[i][r];
        ba[6 * i + r] = data.a[i][r];
      }
    }
    checks.compare(0, R, Ref::fk_R[s], 9 * nb, tol_forward, s);
    checks.compare(1, p, Ref::fk_p[s], 3 * nb, tol_forward, s);
    checks.compare(2, bv, Ref::fk_v[s], 6 * nb, tol_forward, s);
    checks.compare(3, ba, Ref::fk_a[s], 6 * nb, tol_forward, s);

    status_check(talus::crba(model, data, q), "crba", Ref::name, s);
    checks.compare(4, data.H.data(), Ref::crba_H[s], nv * nv, tol_forward, s);  // column-major both

    status_check(talus::rnea(model, data, q, v, a, out), "rnea", Ref::name, s);
    checks.compare(5, out.data(), Ref::rnea_tau[s], nv, tol_forward, s);

    status_check(talus::aba(model, data, q, v, tau, out), "aba", Ref::name, s);
    checks.compare(6, out.data(), Ref::aba_ddq[s], nv, tol_aba(Ref::cond_scaled_H[s]), s);
  }
  checks.report_all();
}

// --- models and workspaces: static, never on the (small) stack --------------------------------

namespace solo = talus::models::solo12;
namespace ur5 = talus::models::ur5;
using Solo = solo::Model<S>;
using Ur5 = ur5::Model<S>;
const Solo g_solo = solo::make_model<S>();
const Ur5 g_ur5 = ur5::make_model<S>();
talus::Data<Solo> g_solo_data;
talus::Data<Ur5> g_ur5_data;

// --- constrained forward dynamics: solo12 on its four feet ------------------------------------

// Each foot a contact with the world axes x, y, z: 12 rows (as the host's reference.cpp).
constexpr const char* kFeet[4] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};
using FeetSet = talus::ConstraintSet<Solo, 12>;
// The set lives in static storage (tens of kB of fixed-capacity workspace: never on the
// stack), constructed in place once by setup_feet() and never destroyed. Not a plain static
// object because ConstraintSet is not trivially destructible (Eigen's FullPivLU,
// ColPivHouseholderQR and LDLT in its workspace): its destructor would be registered at
// start-up, through __cxa_atexit on Linux, which the no-heap check rightly refuses.
alignas(FeetSet) unsigned char g_feet_storage[sizeof(FeetSet)];
FeetSet* g_solo_feet = nullptr;

void setup_feet() {
  g_solo_feet = ::new (static_cast<void*>(g_feet_storage)) FeetSet();
  using V3 = talus::Vector3<S>;
  for (const char* foot : kFeet) {
    const auto& F = g_solo.frames[solo::frame_id(foot)];
    status_check(g_solo_feet->add_contact(F.body, F.placement.p, {V3::UnitX(), V3::UnitY(), V3::UnitZ()}, foot),
                 "add_contact", "solo12", -1);
  }
  status_check(g_solo_feet->bind(g_solo), "bind", "solo12", -1);
}

#if defined(TALUS_TARGET_STACK_PAINT)
// Stack painting (port/cortex-m): the startup code paints the whole stack at reset because
// this image defines talus_stack_paint; talus_target::paint_below_sp() repaints below the live
// stack pointer before a measured call, stack_low_water() finds the lowest word written since
// (target_support.hpp; contact_check.cpp measures its solves the same way).
extern "C" __attribute__((used)) const char talus_stack_paint = 1;
using talus_target::paint_below_sp;
using talus_target::stack_low_water;
using talus_target::stack_pointer;
std::uint64_t g_stack_cfd[2] = {0, 0};  // deepest stack of one call: range space, direct
#endif

enum class CfdMethod { range_space, direct_lu };

/// One constrained solve; on Cortex-M also the stack it used (bytes below the stack pointer
/// at the call), kept at its deepest in g_stack_cfd.
__attribute__((noinline)) talus::Status solve_constrained(CfdMethod m, const Solo::ConfigVector& q,
                                                          const Solo::TangentVector& v, const Solo::TangentVector& tau,
                                                          Solo::TangentVector& ddq) {
#if defined(TALUS_TARGET_STACK_PAINT)
  paint_below_sp();
  const std::uintptr_t sp = stack_pointer();
#endif
  const talus::Status st = m == CfdMethod::range_space
                               ? talus::forward_dynamics_range_space(g_solo, g_solo_data, *g_solo_feet, q, v, tau, ddq)
                               : talus::forward_dynamics_direct(g_solo, g_solo_data, *g_solo_feet, q, v, tau, ddq,
                                                                talus::KKTMethod::partial_piv_lu);
#if defined(TALUS_TARGET_STACK_PAINT)
  const std::uint64_t depth = sp - stack_low_water();
  std::uint64_t& deepest = g_stack_cfd[m == CfdMethod::range_space ? 0 : 1];
  if (depth > deepest) deepest = depth;
#endif
  return st;
}

template <class Ref>
void check_constrained() {
  static_assert(Ref::constrained && Ref::nc == FeetSet::max_rows && Ref::nv == Solo::nv,
                "reference does not match the feet");
  constexpr int nv = Solo::nv, nc = Ref::nc;
  Comparison<4> checks{
      Ref::name,
      {{"cfd range-space ddq"}, {"cfd range-space lambda"}, {"cfd direct-lu ddq"}, {"cfd direct-lu lambda"}}};
  for (int s = 0; s < Ref::nstates; ++s) {
    Solo::ConfigVector q;
    Solo::TangentVector v, a, tau, ddq;
    load_state<Ref>(s, q, v, a, tau);
    const double tol_ddq = tol_constrained(Ref::cfd_cond_ddq[s]), tol_lambda = tol_constrained(Ref::cfd_cond_lambda[s]);
    const double* ref_ddq[2] = {Ref::cfd_rs_ddq[s], Ref::cfd_lu_ddq[s]};
    const double* ref_lambda[2] = {Ref::cfd_rs_lambda[s], Ref::cfd_lu_lambda[s]};
    const CfdMethod methods[2] = {CfdMethod::range_space, CfdMethod::direct_lu};
    const char* names[2] = {"forward_dynamics_range_space", "forward_dynamics_direct"};
    for (int m = 0; m < 2; ++m) {
      status_check(solve_constrained(methods[m], q, v, tau, ddq), names[m], Ref::name, s);
      checks.compare(2 * m, ddq.data(), ref_ddq[m], nv, tol_ddq, s);
      ++g_tally.checks;
      if (g_solo_feet->lambda.size() != nc) {
        ++g_tally.failures;
        Line l;
        l << "FAIL " << Ref::name << " " << names[m] << " state " << s << ": "
          << static_cast<int>(g_solo_feet->lambda.size()) << " multipliers, expected " << nc;
        l.write();
        continue;
      }
      checks.compare(2 * m + 1, g_solo_feet->lambda.data(), ref_lambda[m], nc, tol_lambda, s);
    }
  }
  checks.report_all();
}

#if defined(TALUS_TARGET_STACK_PAINT)
void check_stack() {
  const talus_target::StackRegion& r = talus_target::stack_region();
  const std::uint64_t size = reinterpret_cast<std::uintptr_t>(r.hi) - reinterpret_cast<std::uintptr_t>(r.lo);
  const std::uint64_t high = reinterpret_cast<std::uintptr_t>(r.hi) - stack_low_water();
  bool ok = true;
  for (int m = 0; m < 2; ++m) ok = ok && g_stack_cfd[m] > 0 && g_stack_cfd[m] <= TALUS_TARGET_STACK_BUDGET;
  ok = ok && high < size;
  ++g_tally.checks;
  if (!ok) ++g_tally.failures;
  Line l;
  l << (ok ? "" : "FAIL ") << "stack: solo12 cfd range-space " << g_stack_cfd[0] << " B, direct " << g_stack_cfd[1]
    << " B per call (budget " << static_cast<std::uint64_t>(TALUS_TARGET_STACK_BUDGET) << " B); high-water since reset "
    << high << " of " << size << " B";
  l.write();
  l << "static storage: solo12 ConstraintSet<12 rows> " << static_cast<std::uint64_t>(sizeof(FeetSet)) << " B, Data "
    << static_cast<std::uint64_t>(sizeof(g_solo_data)) << " B";
  l.write();
}
#endif

#if !defined(TALUS_TARGET_BITS)
// --- every other constrained solver (solvers_check.cpp) ---------------------------------------

/// The other methods against range space, impulses and assembly by their residuals, at every
/// reference state (tolerances in solvers_check.cpp). Not part of the bit test.
template <class Ref>
void check_all_solvers() {
  using talus_target::kSolverChecks;
  static talus_target::SolverCheck c[kSolverChecks];  // static: not on the stack
  Worst w[kSolverChecks] = {};
  int n = 0;
  for (int s = 0; s < Ref::nstates; ++s) {
    Solo::ConfigVector q;
    Solo::TangentVector v, a, tau;
    load_state<Ref>(s, q, v, a, tau);
    n = talus_target::run_all_solvers(g_solo, g_solo_data, *g_solo_feet, q, v, tau, Ref::cfd_cond_ddq[s],
                                      Ref::cfd_cond_lambda[s], c);
    for (int k = 0; k < n; ++k) {
      w[k].what = c[k].what;
      status_check(c[k].status, c[k].what, Ref::name, s);
      record(w[k], c[k].err, c[k].tol, s, Ref::name);
    }
  }
  report(Ref::name, w, n);
}
#endif

#if !defined(TALUS_TARGET_BITS)  // the bit test checks values only
// --- the loop runner --------------------------------------------------------------------------

// 64 bins of period / 128: the histograms resolve the first half of the period;
// anything longer lands in the overflow bin (max is still exact).
talus::rt::Loop<64> g_loop([] {
  talus::rt::LoopConfig c;
  c.period_ns = TALUS_TARGET_LOOP_PERIOD_NS;
  c.overrun = talus::rt::Overrun::skip;
  c.exec_bin_ns = TALUS_TARGET_LOOP_PERIOD_NS / 128;
  c.latency_bin_ns = TALUS_TARGET_LOOP_PERIOD_NS / 128;
  return c;
}());

void check_loop() {
  using Ref = talus_target_ref::solo12;
  const std::uint64_t iterations = TALUS_TARGET_LOOP_ITERATIONS;
  int bad_status = 0;
  const talus::Status st = g_loop.run(iterations, [&](const talus::rt::Tick& t) {
    // One control step: solo12 forward dynamics at one of the reference states.
    const int s = static_cast<int>(t.iteration % Ref::nstates);
    Solo::ConfigVector q;
    Solo::TangentVector v, tau, ddq;
    for (int k = 0; k < Solo::nq; ++k) q[k] = static_cast<S>(Ref::q[s][k]);
    for (int k = 0; k < Solo::nv; ++k) {
      v[k] = static_cast<S>(Ref::v[s][k]);
      tau[k] = static_cast<S>(Ref::tau[s][k]);
    }
    if (talus::aba(g_solo, g_solo_data, q, v, tau, ddq) != talus::Status::ok) ++bad_status;
  });
  const auto& st_ = g_loop.stats();
  Line l;
  l << "loop: " << st_.iterations << " periods of " << static_cast<std::uint64_t>(TALUS_TARGET_LOOP_PERIOD_NS / 1000)
    << " us, misses " << st_.misses << " (allowed " << static_cast<std::uint64_t>(TALUS_TARGET_LOOP_MAX_MISSES) << ")"
    << ", overruns " << st_.overruns << ", skipped " << st_.skipped;
  l.write();
  // quantiles in the overflow bin are lower bounds: printed ">= x" (rt/loop.hpp)
  const talus::rt::Quantile em = st_.exec.median(), e99 = st_.exec.p99();
  const talus::rt::Quantile lm = st_.latency.median(), l99 = st_.latency.p99();
  l << "loop: exec (solo12 aba) min/median/p99/max " << st_.exec.min_ns << " / " << em.prefix() << em.ns << " / "
    << e99.prefix() << e99.ns << " / " << st_.exec.max_ns << " ns; wake-up latency min/median/p99/max "
    << st_.latency.min_ns << " / " << lm.prefix() << lm.ns << " / " << l99.prefix() << l99.ns << " / "
    << st_.latency.max_ns << " ns";
  l.write();
  l << "loop: exec histogram (" << st_.exec.bin_ns << " ns bins):";
  for (int k = 0; k < st_.exec.bins; ++k)
    if (st_.exec.histogram[k]) l << " [" << k << "]=" << static_cast<std::uint64_t>(st_.exec.histogram[k]);
  l.write();
  const bool ok = st == talus::Status::ok && st_.iterations == iterations &&
                  st_.misses <= TALUS_TARGET_LOOP_MAX_MISSES && st_.skipped <= TALUS_TARGET_LOOP_MAX_MISSES &&
                  bad_status == 0;
  ++g_tally.checks;
  if (!ok) {
    ++g_tally.failures;
    l << "FAIL loop: status " << talus::to_string(st) << ", aba failures " << bad_status;
    l.write();
  }
}

// Overrun accounting: iteration 5 of 20 runs for 2.5 periods.
//   skip:     it misses its deadline; releases 6 and 7 are dropped (skipped 2); 1 miss.
//   catch_up: releases 6 and 7 run late, back to back (caught_up 2); 5 and 6 miss (2 misses);
//             nothing skipped (max_catch_up is large).
// Exact under QEMU -icount (deterministic time); on an OS a stall can only add misses, so
// the counts are checked as lower bounds (and skipped == 0 for catch_up, which is exact).
talus::rt::Loop<8> g_overrun_loop;

void check_overrun(talus::rt::Overrun policy) {
  constexpr std::uint64_t P = 2000000;
  talus::rt::LoopConfig c;
  c.period_ns = P;
  c.overrun = policy;
  c.max_catch_up = 1000;
  g_overrun_loop = talus::rt::Loop<8>(c);
  auto& loop = g_overrun_loop;
  const talus::Status st = loop.run(20, [&](const talus::rt::Tick& t) {
    if (t.iteration == 5) talus::port::wait_until(t.release_ns + 5 * P / 2);
  });
  const auto& x = loop.stats();
  const bool skip = policy == talus::rt::Overrun::skip;
  bool ok = st == talus::Status::ok && x.iterations == 20;
  if (skip) ok = ok && x.misses >= 1 && x.skipped >= 2 && x.caught_up == 0;
  else ok = ok && x.misses >= 2 && x.caught_up >= 2 && x.skipped == 0;
  ++g_tally.checks;
  if (!ok) ++g_tally.failures;
  Line l;
  l << (ok ? "" : "FAIL ") << "loop overrun (" << (skip ? "skip" : "catch_up") << "): misses " << x.misses
    << ", overruns " << x.overruns << ", skipped " << x.skipped << ", caught up " << x.caught_up;
  l.write();
}

#endif

}  // namespace

#if !defined(TALUS_TARGET_BITS)
// One control step for the FreeRTOS loop test (freertos/loop_test.cpp, linked with these
// objects so that the solvers are compiled once per target): solo12's ABA and the constrained
// forward dynamics of its four feet (range space) at reference state s mod nstates. false if
// either is not ok. talus_target_control_setup() first (builds the feet's ConstraintSet).
void talus_target_control_setup() {
  if (!g_solo_feet) setup_feet();
}
namespace {
Solo::ConfigVector g_step_q;  // not function-local statics: those need __cxa_guard on Linux
Solo::TangentVector g_step_v, g_step_a, g_step_tau, g_step_ddq;
}  // namespace
bool talus_target_control_step(int s) {
  using Ref = talus_target_ref::solo12;
  load_state<Ref>(s % Ref::nstates, g_step_q, g_step_v, g_step_a, g_step_tau);
  const bool aba_ok = talus::aba(g_solo, g_solo_data, g_step_q, g_step_v, g_step_tau, g_step_ddq) == talus::Status::ok;
  return aba_ok &&
         solve_constrained(CfdMethod::range_space, g_step_q, g_step_v, g_step_tau, g_step_ddq) == talus::Status::ok;
}
#endif

// The whole test; main() calls it (target_main.cpp: bare metal, Linux), or a FreeRTOS task
// (freertos/test_main.cpp). Returns the exit code.
int talus_target_main() {
  Line l;
#if defined(TALUS_TARGET_BITS)
  l << "talus bit test (reproducible profile): " << TALUS_TARGET_NAME << " against the host reference ("
    << talus_target_ref::host << ")";
  l.write();
  ++g_tally.checks;
  if (fma_contraction_seen()) {
    ++g_tally.failures;
    l << "FAIL fp contraction: a * b + c was fused into an FMA (-ffp-contract=off missing)";
  } else {
    l << "fp contraction: off (a * b + c not fused)";
  }
  l.write();
  check_model<Solo, talus_target_ref::solo12>(g_solo, g_solo_data);
  check_model<Ur5, talus_target_ref::ur5>(g_ur5, g_ur5_data);
  setup_feet();
  check_constrained<talus_target_ref::solo12>();
  l << "bits: " << g_bits_values << " values compared, " << g_bits_differ << " differ"
    << (g_bits_differ ? "" : ": host == target, bit for bit");
  l.write();
#else
  l << "talus target test: " << TALUS_TARGET_NAME << ", scalar " << (is_float ? "float" : "double")
    << ", counter: " << talus::port::counter_name();
  l.write();

  const std::uint64_t t0 = talus::port::now_ns(), c0 = talus::port::cycles();
  check_model<Solo, talus_target_ref::solo12>(g_solo, g_solo_data);
  check_model<Ur5, talus_target_ref::ur5>(g_ur5, g_ur5_data);
  setup_feet();
  check_constrained<talus_target_ref::solo12>();
  check_all_solvers<talus_target_ref::solo12>();
  {
    // unilateral contact with friction (contact_check.cpp)
    g_tally += talus_target::run_contact_checks(g_solo, g_solo_data);
  }
  {
    // the floating-base state estimator (estimation_check.cpp)
    g_tally += talus_target::run_estimation_checks(g_solo);
  }
  const std::uint64_t t1 = talus::port::now_ns(), c1 = talus::port::cycles();
  l << "reference checks took " << (t1 - t0) / 1000 << " us, " << (c1 - c0) << " counter ticks";
  l.write();

#if defined(TALUS_TARGET_STACK_PAINT)
  check_stack();
#endif
  check_loop();
  check_overrun(talus::rt::Overrun::skip);
  check_overrun(talus::rt::Overrun::catch_up);

  static const char hello[] = "talus target test: link channel ok\n";
  const std::size_t sent = talus::port::link_write(hello, sizeof(hello) - 1);
  l << "link: " << static_cast<std::uint64_t>(sent) << " bytes written";
  l.write();
#endif

  l << (g_tally.failures ? "FAILED: " : "PASSED: ") << g_tally.failures << " of " << g_tally.checks << " checks failed";
  l.write();
  return g_tally.failures ? 1 : 0;
}
