// Unilateral contact on the target (see contact_check.hpp): solo12 standing on its four feet
// FL, FR, HL, HR as unilateral point contacts against the ground plane (normal +z), μ = 0.7,
// forward_dynamics_contact at the acceleration level at the reference states (q, τ of
// talus_target_reference.hpp), in the three variants of targets/host/contact_reference.cpp:
//
//   rest    q̇ = 0 (sticking friction), 4-edge polygons, ContactSolver::lemke (LCP n = 24)
//   moving  q̇ of the state (every foot moving: kinetic friction), polygons, Lemke (n = 4)
//   pgs     q̇ = 0, exact cones, ContactSolver::pgs (default options: 100 sweeps, τ_r = √ε)
//
// Compared with the host's double results: the Status, Lemke's pivots / PGS's sweeps, q̈ and
// each foot's force (f_n, f_t1, f_t2). Which feet push, lift, stick or slip at each state is
// in the reference header's comment; over the 20 states the rest variant has every foot
// pushing (states 12, 13), feet lifted (all four at 10, 11, 14), sticking feet (1, 7, 15, 17,
// 18) and feet slipping along a polygon vertex or facet (most states); the moving variant has
// every foot pushing at 12 and 13 and none at 10, 11, 14.
//
// Tolerances (relative errors in the max norm as in target_test.cpp; forces relative to
// max(max |f_ref|, 1 mN), because where every foot lifts the reference forces are 0 up to
// rounding, 1e-30 N, and a relative error would compare rounding residues):
//
// Lemke (rest, moving): the LCP's answer, once it is known which feet push, stick or slip
//   (along which polygon vertex or facet), is the solution of a linear system with those rows
//   and force columns: K = [H −F_qᵀ; J_q 0] (contact_reference.cpp, active_set). Its normwise
//   condition numbers κ_q̈ and κ_f with respect to H, C, τ, the contact rows A and their bias
//   accelerations (per state in the reference header; up to 2.9e4 for q̈, 3.4e5 for f at a foot
//   carrying 0.23 N, state 9) bound the effect of the inputs' rounding, exactly as for the
//   bilateral feet (target_test.cpp, 32·eps_f·κ): A and the bias are the same Jacobian rows and
//   γ terms whose float errors the host measures at ≤ 2.8 eps_f; with ε = 4 eps_f, √n from the
//   2-norm to the max norm and a factor 2: tolerance 32·eps·κ. The answer is a continuous
//   function of the data, so a float perturbation that changes which way a nearly degenerate
//   foot goes (below) changes q̈ and f by the same order, not more.
//   double: the same 32·eps_d·κ (≤ 2.4e-9 at κ_f = 3.4e5), and at least 1e-12 (target_test's
//   measured margin). Measured (README): ≤ 6.6e-13 = 2.3e-17·κ (aarch64, M7: fused
//   multiply-adds), a margin of 300.
//   float: 32·eps_f·κ (≤ 0.11 for q̈ at state 6, where the bilateral solve needs 0.066 too),
//   at every state. The host's float run (with the active-set recovery) reaches 0.21·eps_f·κ_q̈
//   and 0.056·eps_f·κ_f in both Lemke variants (rest: 0.21, 0.050; without the recovery it was
//   73·eps_f·κ_q̈ and 43·eps_f·κ_f, state 7 beyond the tolerance).
// Lemke's pivots: equal to the host's in double at every state. In float only where the
//   answer cannot change its active set under the float perturbation (margin from degeneracy
//   > 32·eps_f·max(κ_q̈, κ_f), both in the reference header) and only for the moving variant:
//   in the rest variant the LCP is degenerate by construction (a lifted foot's Λ and a sticking
//   foot's β are not unique), so the lexicographic rule's ties, decided within float rounding
//   bounds, may take a different (equally valid) path: the host's own float run takes 19
//   instead of 21 pivots at state 10, where every foot lifts. Reported, not compared, there.
// Lemke in float: until the active-set recovery (talus/contact/active_set_recovery.hpp), the
//   float solve returned ok with a wrong answer at state 7 of the rest variant (4.4 % off in
//   q̈, 2.3× the tolerance; reported as KNOWN and not compared): its basis left one friction
//   β of a sticking foot out, and Lemke's check, whose scale carries the large non-unique Λ of
//   a lifted foot, let w = −10 through. The contact solve now refines every Lemke answer on the
//   physical system of its active rows, correcting the active set where a row goes negative,
//   so every state is compared (targets/README.md).
// PGS (exact cones): an iterative solver stopped by its residual check (τ_r = √ε).
//   double: the same sweeps as the host (checked), so the two runs differ only by rounding,
//   which the converging sweeps do not amplify: q̈ and f within 1e-9 (as solvers_check.cpp's
//   method-against-method tolerance). Status must equal the host's: state 15 does not converge
//   in 100 sweeps (not_converged, outputs zero) in double.
//   float: stops at τ_r = √eps_f = 3.5e-4 after fewer sweeps, so its answer is checked by its
//   backward error on the host's double problem (W = A P Aᵀ and b, in the reference header):
//   the primal, dual (De Saxcé) and complementarity residuals of cone_solvers.hpp's check,
//   each over its scale, evaluated in double with the target's float forces. Bound: its own
//   check (≤ √eps_f) plus the float inputs' error (W_f − W, b_f − b: the host measures ≤ 740
//   eps_f = 0.26·√eps_f, conditioned by H⁻¹), times 1 + μ for the dual residual's σ̃:
//   1.44·√eps_f; tolerance 2·√eps_f. The host's float run reaches 0.97·√eps_f. Status: ok where
//   the host's double is ok; at state 15 not_converged or ok.
#include "contact_check.hpp"

#include <talus/contact.hpp>
#include <talus/talus.hpp>

#include <cmath>
#include <cstdint>
#include <new>

#include "talus_target_contact_reference.hpp"
#include "talus_target_reference.hpp"
#include "target_support.hpp"

namespace talus_target {
namespace {

using S = Scalar;
using Model = SoloModel;
using Ref = talus_target_ref::solo12;
using CRef = talus_target_contact_ref::solo12;
constexpr int nv = Model::nv, nq = Model::nq;
constexpr bool is_float = sizeof(S) == sizeof(float);
constexpr double eps = is_float ? 1.1920928955078125e-07 : 2.220446049250313e-16;
constexpr double kForceFloor = 1e-3;  // N (contact_reference.cpp)

// --- the states are the reference's: proved at compile time ---------------------------------
static_assert(CRef::nstates == Ref::nstates && CRef::nq == Ref::nq && CRef::nv == Ref::nv && CRef::nv == nv,
              "contact reference does not match the reference states");
constexpr bool same_inputs() {
  for (int s = 0; s < Ref::nstates; ++s) {
    for (int k = 0; k < nq; ++k)
      if (!(CRef::q[s][k] == Ref::q[s][k])) return false;
    for (int k = 0; k < nv; ++k)
      if (!(CRef::v[s][k] == Ref::v[s][k] && CRef::tau[s][k] == Ref::tau[s][k])) return false;
  }
  return true;
}
static_assert(same_inputs(), "talus_target_contact_reference.hpp's states differ from talus_target_reference.hpp's");

constexpr const char* kFeet[4] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};
// 4 contacts, polygons of up to 4 edges: LCP capacity 4·(4 + 2) = 24, cone units 4
using Problem = talus::ContactProblem<Model, 4, 4>;
using Options = talus::ContactOptions<S, Problem::max_lcp>;
static_assert(CRef::feet == 4 && CRef::edges == 4, "contact reference: 4 feet, 4-edge polygons");

// The problem (workspace: every matrix of the solve) in static storage, constructed in place
// once (as target_test.cpp's ConstraintSet): never on the stack, no destructor registered.
alignas(Problem) unsigned char g_problem_storage[sizeof(Problem)];
Problem* g_problem = nullptr;

enum Variant { rest = 0, moving = 1, pgs = 2 };
constexpr int kVariants = 3;
const char* const kName[kVariants] = {"rest (lemke)", "moving (lemke)", "pgs (exact cones)"};
#if defined(TALUS_TARGET_STACK_PAINT)
std::uint64_t g_stack[kVariants] = {0, 0, 0};  // deepest stack of one solve (Cortex-M)
#endif

/// One contact solve; on Cortex-M also the stack it used (bytes below the stack pointer at
/// the call), kept at its deepest per variant.
__attribute__((noinline)) talus::Status solve(const Model& model, talus::Data<Model>& data, Variant var,
                                              const Model::ConfigVector& q, const Model::TangentVector& v,
                                              const Model::TangentVector& tau, Model::TangentVector& ddq,
                                              const Options& options, talus::ContactReport<S>& report) {
#if defined(TALUS_TARGET_STACK_PAINT)
  paint_below_sp();
  const std::uintptr_t sp = stack_pointer();
#endif
  const talus::Status st = talus::forward_dynamics_contact(model, data, *g_problem, q, v, tau, ddq, options, report);
#if defined(TALUS_TARGET_STACK_PAINT)
  const std::uint64_t depth = sp - stack_low_water();
  if (depth > g_stack[var]) g_stack[var] = depth;
#else
  (void)var;
#endif
  return st;
}

double rel_err(const S* x, const double* r, int n, double floor = 0) {
  double d = 0, s = floor;
  for (int k = 0; k < n; ++k) {
    const double e = std::fabs(static_cast<double>(x[k]) - r[k]);
    if (!(e <= d)) d = e;  // also propagates NaN
    if (std::fabs(r[k]) > s) s = std::fabs(r[k]);
  }
  return s > 0 ? d / s : d;
}

/// Backward error of forces f (4 feet, normal first) on the exact-cone problem (W, b) in
/// double: the largest of cone_solvers.hpp's primal, dual and complementarity residuals,
/// each over its scale (s_f, s_σ, s_f s_σ); contact_reference.cpp computes the same.
double cone_backward_error(const double* W, const double* b, const double* f, double mu) {
  constexpr int n = 12;
  double sigma[n], sf = 0, ss = 0;
  for (int k = 0; k < n; ++k) {
    double s = b[k], a = std::fabs(b[k]);
    for (int j = 0; j < n; ++j) {
      s += W[k + n * j] * f[j];  // column-major
      a += std::fabs(W[k + n * j]) * std::fabs(f[j]);
    }
    sigma[k] = s;
    if (a > ss) ss = a;
    if (std::fabs(f[k]) > sf) sf = std::fabs(f[k]);
  }
  double p = 0, d = 0, c = 0;
  for (int i = 0; i < 4; ++i) {
    const int k = 3 * i;
    const double sn = sigma[k] + mu * std::sqrt(sigma[k + 1] * sigma[k + 1] + sigma[k + 2] * sigma[k + 2]);
    const double ft = std::sqrt(f[k + 1] * f[k + 1] + f[k + 2] * f[k + 2]);
    const double pi = (ft - mu * f[k]) / std::sqrt(1 + mu * mu);
    if (pi > p) p = pi;
    // dist(σ̃, K*) = ‖proj_K(−σ̃)‖
    double m0 = -sn, m1 = -sigma[k + 1], m2 = -sigma[k + 2];
    const double t = std::sqrt(m1 * m1 + m2 * m2);
    if (!(t <= mu * m0 && m0 >= 0)) {
      if (mu * t <= -m0) {
        m0 = m1 = m2 = 0;
      } else {
        const double a = (m0 + mu * t) / (1 + mu * mu);
        m0 = a;
        m1 *= mu * a / t;
        m2 *= mu * a / t;
      }
    }
    const double di = std::sqrt(m0 * m0 + m1 * m1 + m2 * m2);
    if (di > d) d = di;
    const double ci = std::fabs(f[k] * sn + f[k + 1] * sigma[k + 1] + f[k + 2] * sigma[k + 2]);
    if (ci > c) c = ci;
  }
  const double vp = sf > 0 ? p / sf : p, vd = ss > 0 ? d / ss : d, vc = sf * ss > 0 ? c / (sf * ss) : c;
  double v = vp > vd ? vp : vd;
  if (vc > v) v = vc;
  return v == v ? v : 1e300;
}

struct Worst {
  const char* what;
  double err = 0, tol = 0;
  int state = -1;
};

struct Checker {
  Tally tally;
  void check(bool ok, const char* variant, const char* what, int s, const char* detail = "") {
    ++tally.checks;
    if (ok) return;
    ++tally.failures;
    Line l;
    l << "FAIL solo12 contact " << variant << " " << what << " state " << s << detail;
    l.write();
  }
  void record(Worst& w, const char* variant, double err, double tol, int s) {
    ++tally.checks;
    if (!(err <= tol)) {
      ++tally.failures;
      Line l;
      l << "FAIL solo12 contact " << variant << " " << w.what << " state " << s << ": rel err ";
      l << talus::rt::sci(err) << " > tol ";
      (l << talus::rt::sci(tol)).write();
    }
    if (!(err <= w.err) || w.state < 0) {
      w.err = err;
      w.tol = tol;
      w.state = s;
    }
  }
};

void report_worst(const char* variant, const Worst* w, int n) {
  for (int k = 0; k < n; ++k) {
    Line l;
    l << "solo12 contact " << variant << " " << w[k].what << ": worst rel err ";
    l << talus::rt::sci(w[k].err) << " (state " << w[k].state << ", tol ";
    l << talus::rt::sci(w[k].tol) << ")" << (w[k].err <= w[k].tol ? "" : "  FAIL");
    l.write();
  }
}

/// The reference arrays of one variant (the κ and margin arrays: Lemke only).
struct VariantRef {
  const int* status;
  const int* count;
  const double (*ddq)[CRef::nv];
  const double (*f)[12];
  const double* margin;
  const double* cond_ddq;
  const double* cond_f;
};
VariantRef variant_ref(Variant var) {
  switch (var) {
    case rest:
      return {CRef::rest_status, CRef::rest_count,    CRef::rest_ddq,   CRef::rest_f,
              CRef::rest_margin, CRef::rest_cond_ddq, CRef::rest_cond_f};
    case moving:
      return {CRef::moving_status, CRef::moving_count,    CRef::moving_ddq,   CRef::moving_f,
              CRef::moving_margin, CRef::moving_cond_ddq, CRef::moving_cond_f};
    default: return {CRef::pgs_status, CRef::pgs_count, CRef::pgs_ddq, CRef::pgs_f, nullptr, nullptr, nullptr};
  }
}

/// 32·eps·κ, and in double at least 1e-12 (see the file comment).
double tol_of(double cond) {
  const double k = cond > 1 ? cond : 1;  // every foot lifted: κ_f = 0 (forces 0 up to rounding)
  const double t = 32 * eps * k;
  return is_float || t > 1e-12 ? t : 1e-12;
}

}  // namespace

Tally run_contact_checks(const Model& model, talus::Data<Model>& data) {
  Checker chk;
  if (g_problem == nullptr) {
    g_problem = ::new (static_cast<void*>(g_problem_storage)) Problem();
    for (const char* foot : kFeet) {
      const bool ok = g_problem->add_contact(model, talus::models::solo12::frame_id(foot), talus::Vector3<S>::UnitZ(),
                                             static_cast<S>(CRef::mu), CRef::edges) == talus::Status::ok;
      chk.check(ok, "setup", "add_contact", -1);
    }
  }
  Problem& cp = *g_problem;
  Options lemke_options, pgs_options;
  pgs_options.solver = talus::ContactSolver::pgs;
  talus::ContactReport<S> report;

  for (int vi = 0; vi < kVariants; ++vi) {
    const Variant var = static_cast<Variant>(vi);
    const VariantRef R = variant_ref(var);
    const char* name = kName[vi];
    const bool lemke = var != pgs;
    for (int i = 0; i < 4; ++i)
      chk.check(cp.set_cone(i, lemke ? talus::ConeModel::polygon : talus::ConeModel::exact) == talus::Status::ok, name,
                "set_cone", -1);
    Worst w[3] = {{"ddq"}, {"forces"}, {"backward error"}};
    int status_ok = 0, count_same = 0, count_compared = 0, count_min = 1 << 30, count_max = 0, recovered = 0;
    for (int s = 0; s < Ref::nstates; ++s) {
      Model::ConfigVector q;
      Model::TangentVector v, tau, ddq;
      for (int k = 0; k < nq; ++k) q[k] = static_cast<S>(Ref::q[s][k]);
      for (int k = 0; k < nv; ++k) {
        v[k] = var == moving ? static_cast<S>(Ref::v[s][k]) : S(0);
        tau[k] = static_cast<S>(Ref::tau[s][k]);
      }
      const talus::Status st = solve(model, data, var, q, v, tau, ddq, lemke ? lemke_options : pgs_options, report);
      const int count = lemke ? report.lcp.pivots : report.cone.iterations;
      if (count < count_min) count_min = count;
      if (count > count_max) count_max = count;
      const int ref_status = R.status[s];
      status_ok += st == talus::Status::ok;
      recovered += lemke && report.recovery.applied;
      // forces, contact frame (zero unless ok)
      S f[12];
      double fd[12];
      for (int i = 0; i < 4; ++i) {
        Problem::ContactForce c;
        chk.check(cp.force(i, c) == talus::Status::ok, name, "force()", s);
        for (int j = 0; j < 3; ++j) {
          f[3 * i + j] = c[j];
          fd[3 * i + j] = static_cast<double>(c[j]);
        }
      }
      const double err_x = rel_err(ddq.data(), R.ddq[s], nv), err_f = rel_err(f, R.f[s], 12, kForceFloor);
      const double tol_x = lemke ? tol_of(R.cond_ddq[s]) : 1e-9, tol_f = lemke ? tol_of(R.cond_f[s]) : 1e-9;

      // Status
      bool status_ok_here = static_cast<int>(st) == ref_status;
      if (is_float && var == pgs && ref_status == static_cast<int>(talus::Status::not_converged))
        status_ok_here = st == talus::Status::not_converged || st == talus::Status::ok;
      ++chk.tally.checks;
      if (!status_ok_here) {
        ++chk.tally.failures;
        Line l;
        l << "FAIL solo12 contact " << name << " status state " << s << ": " << talus::to_string(st) << ", host "
          << talus::to_string(static_cast<talus::Status>(ref_status));
        l.write();
      }

      // pivots / sweeps: double everywhere; float only Lemke moving, away from degeneracy
      bool compare_count = !is_float && status_ok_here;
      if (is_float && var == moving) {
        const double k = R.cond_ddq[s] > R.cond_f[s] ? R.cond_ddq[s] : R.cond_f[s];
        compare_count = status_ok_here && R.margin[s] > 32 * eps * k;
      }
      if (compare_count) {
        ++count_compared;
        count_same += count == R.count[s];
        ++chk.tally.checks;
        if (count != R.count[s]) {
          ++chk.tally.failures;
          Line l;
          l << "FAIL solo12 contact " << name << " state " << s << ": " << count << (lemke ? " pivots" : " sweeps")
            << ", host " << R.count[s];
          l.write();
        }
      }
      if (!status_ok_here || st != talus::Status::ok) continue;

      // values
      if (lemke || !is_float) {
        const int before = chk.tally.failures;
        chk.record(w[0], name, err_x, tol_x, s);
        chk.record(w[1], name, err_f, tol_f, s);
        if (lemke && chk.tally.failures != before) {  // what Lemke returned, for the log
          Line l;
          l << "  lemke: " << count << " pivots (host " << R.count[s] << "), " << report.lcp.attempts
            << " attempt(s), residual ";
          l << talus::rt::sci(static_cast<double>(report.lcp.residual)) << ", rho ";
          (l << talus::rt::sci(static_cast<double>(report.lcp.regularization))).write();
          for (int i = 0; i < 4; ++i) {
            l << "  foot " << i << " f ";
            for (int j = 0; j < 3; ++j) l << talus::rt::sci(fd[3 * i + j]) << " ";
            l << " host ";
            for (int j = 0; j < 3; ++j) l << talus::rt::sci(R.f[s][3 * i + j]) << " ";
            l.write();
          }
        }
      } else {  // float PGS: backward error on the double problem
        chk.record(w[2], name, cone_backward_error(CRef::pgs_W[s], CRef::pgs_b[s], fd, CRef::mu), 2 * std::sqrt(eps),
                   s);
      }
    }
    if (lemke || !is_float) report_worst(name, w, 2);
    else report_worst(name, w + 2, 1);
    Line l;
    l << "solo12 contact " << name << ": " << status_ok << " of " << Ref::nstates << " ok, "
      << (lemke ? "pivots" : "sweeps") << " " << count_min << ".." << count_max << ", ";
    if (count_compared) l << count_same << " of " << count_compared << " compared equal to the host's";
    else l << "not compared (float)";
    if (lemke) l << ", active-set recovery applied at " << recovered;
    l.write();
  }
#if defined(TALUS_TARGET_STACK_PAINT)
  bool ok = true;
  for (int vi = 0; vi < kVariants; ++vi) ok = ok && g_stack[vi] > 0 && g_stack[vi] <= TALUS_TARGET_STACK_BUDGET;
  ++chk.tally.checks;
  if (!ok) ++chk.tally.failures;
  Line l;
  l << (ok ? "" : "FAIL ") << "stack: solo12 contact rest " << g_stack[rest] << " B, moving " << g_stack[moving]
    << " B, pgs " << g_stack[pgs] << " B per call (budget " << static_cast<std::uint64_t>(TALUS_TARGET_STACK_BUDGET)
    << " B)";
  l.write();
#endif
  Line z;
  z << "static storage: solo12 ContactProblem<4 feet, 4 edges> " << static_cast<std::uint64_t>(sizeof(Problem)) << " B";
  z.write();
  return chk.tally;
}

}  // namespace talus_target
