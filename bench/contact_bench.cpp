// Contact benchmark (the contact issue): unilateral frictional contact solves against talus's
// bilateral range-space solve of the same contacts, talus only.
//
//   talus_contact_bench [--quick] [--table-only] [Google Benchmark flags]
//     --quick       short runs (min time 0.01 s, 3 repetitions): a smoke test, not a measurement
//     --table-only  no per-benchmark console output, only the final markdown table
// Defaults: --benchmark_repetitions=9 --benchmark_min_time=0.2
// --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true (flags
// given on the command line override them). The table uses the median CPU time per call.
//
// Robots and contacts (ground plane z-normal through each contact's current position, μ = 0.7):
//   solo12, anymal_c  4 feet (frame origins), standing in the SRDF "standing" posture
//   talos             2 soles × 4 corners = 8 point contacts, SRDF "half_sitting"; the sole is
//                     taken as 0.20 m × 0.13 m centred on the sole frame (assumed: the URDF has no
//                     sole box, its collision geometry is a mesh that is not in the repository)
// Methods: Lemke on 4-edge friction polygons (ContactSolver::lemke); PGS and ADMM on exact
// cones (ContactSolver::pgs / admm); default ContactOptions (cold start, no warm start).
// Works, each call from (q, v[, τ]) with kinematics, H, C, the factorization and the solve:
//   FD      talus::forward_dynamics_contact (acceleration level)
//   impact  talus::impulses_contact with v⁻ = v − 0.3 m/s along the base's vertical axis
//   step    talus::time_step_contact, h = 1 ms
//   and the baselines: talus::forward_dynamics_range_space and compute_impulse_range_space on a
//   ConstraintSet with the same contacts as bilateral 3-row point contacts (for talos also the
//   two soles welded, 2 × 6 rows: the 24 point rows are redundant, rank 12).
// States: the posture is fixed (the contacts are anchored there); 64 states: v uniform in
// [−0.05, 0.05] per entry, projected onto the null space of the contact points' Jacobian (the
// feet at rest, so ContactMode::classify finds every contact sticking; unprojected, the feet
// would slide at cm/s and the exact-cone solvers refuse a sliding contact at acceleration
// level), and a noise torque uniform on the joints (base 0) in ±0.1 (solo12), ±2 (anymal_c),
// ±4 (talos) N·m. Two torque sets on the same (q, v):
//   standing  τ = holding torques + noise: the holding torques balance gravity at v = 0 with the
//             least-norm contact forces (so the forces lie well inside the cones); every work
//   unheld    τ = the noise alone: the joints give way under gravity and the friction of most
//             contacts saturates (the hard case for the solvers); FD and step (an impact does
//             not depend on τ)
// The same states for every method. Each timed call takes the next state.
//
// Build layout: this file is compiled four times (TALUS_CONTACT_BENCH_PART): 1 = main and the
// report, 2 = solo12, 3 = anymal_c, 4 = talos; one robot per translation unit keeps each
// compilation short and lets a parallel build spread them. Undefined (or 0): everything.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#ifndef TALUS_CONTACT_BENCH_PART
#define TALUS_CONTACT_BENCH_PART 0
#endif
#define TALUS_CONTACT_BENCH_HAS(n) (TALUS_CONTACT_BENCH_PART == 0 || TALUS_CONTACT_BENCH_PART == (n))

#if TALUS_CONTACT_BENCH_PART != 1
#include <Eigen/QR>

#include <talus/constraints/constraint_quantities.hpp>
#include <talus/constraints/constraint_set.hpp>
#include <talus/contact.hpp>
#include <talus/solvers/forward_dynamics_constrained.hpp>
#include <talus/solvers/impulses.hpp>
#endif
#if TALUS_CONTACT_BENCH_HAS(2)
#include <talus/models/solo12.hpp>
#endif
#if TALUS_CONTACT_BENCH_HAS(3)
#include <talus/models/anymal_c.hpp>
#endif
#if TALUS_CONTACT_BENCH_HAS(4)
#include <talus/models/talos.hpp>
#endif

#if TALUS_CONTACT_BENCH_HAS(1)
#include "bench_main.hpp"

#include <fstream>
#include <sstream>
#endif

namespace talus_contact_bench {

constexpr int kStates = 64;  // a power of two: the timed loops cycle with a mask

/// One line of the table (one Google Benchmark run).
struct Row {
  std::string model, contacts, method, work;
  std::string bench;          ///< Google Benchmark name
  std::string baseline;       ///< bench name of the ratio's denominator ("": none)
  bool goal = false;          ///< an acceleration-level frictional solve: the 2× goal applies
  std::string counter;        ///< "pivots", "iterations" or ""
  int unknowns = 0;           ///< LCP size (Lemke) or 3 × units (PGS, ADMM); rows (bilateral)
  double counter_median = 0;  ///< over the states
  int counter_max = 0;
  int ok = 0, states = 0;
  std::string failures;  ///< "Status (reason) ×n" of the states that did not return ok
  int scenario = 0;      ///< 0: holding torques + noise; 1: noise only
  int guessed = 0;       ///< states whose sticking guess was the answer (ContactGuess::accepted)
};
inline Row make_row(std::string model, std::string contacts, std::string method, std::string work, std::string bench,
                    std::string baseline = "", bool goal = false, std::string counter = "") {
  Row r;
  r.model = std::move(model);
  r.contacts = std::move(contacts);
  r.method = std::move(method);
  r.work = std::move(work);
  r.bench = std::move(bench);
  r.baseline = std::move(baseline);
  r.goal = goal;
  r.counter = std::move(counter);
  return r;
}
std::vector<Row>& rows();
std::vector<std::string>& notes();  ///< lines printed under the table (setup checks, agreement)
void register_solo12();
void register_anymal_c();
void register_talos();

#if TALUS_CONTACT_BENCH_PART != 1
// ---- the robots' benchmarks (parts 2..4) ----------------------------------------------------
using talus::ConeModel;
using talus::ContactSolver;
using talus::Status;
using V3 = talus::Vector3<double>;

constexpr double kMu = 0.7;           // friction coefficient of every contact
constexpr double kStep = 1e-3;        // time step (s)
constexpr double kImpactSpeed = 0.3;  // downward base velocity added for the impact (m/s)
constexpr double kMaxSpeed = 0.05;    // |v_i| bound of the states
constexpr double kSoftening = 1e-6;   // the softened Lemke impact row (talos): ContactOptions::softening

/// A contact point: frame `frame`, offset (x, y, 0) in the frame's axes (m).
struct PointSpec {
  const char* frame;
  double x, y;
};

template <class ModelT, int NC>
struct Robot {
  using Config = typename ModelT::ConfigVector;
  using Tangent = typename ModelT::TangentVector;
  using CP = talus::ContactProblem<ModelT, NC, 4>;
  using Options = talus::ContactOptions<double, CP::max_lcp>;
  using Set = talus::ConstraintSet<ModelT, 3 * NC, NC>;
  using Set6 = talus::ConstraintSet<ModelT, 12, 2>;

  std::string name;
  ModelT model;
  std::unique_ptr<talus::Data<ModelT>> data = std::make_unique<talus::Data<ModelT>>();
  std::unique_ptr<CP> poly = std::make_unique<CP>(), exact = std::make_unique<CP>();
  std::unique_ptr<Set> bil = std::make_unique<Set>();
  std::unique_ptr<Set6> bil6;  // humanoid: the soles welded (6D)
  Config q;
  std::vector<Tangent> v, v_minus;
  std::array<std::vector<Tangent>, 2> tau;  // [0]: holding torques + noise, [1]: noise only
  Tangent out = Tangent::Zero(), v_next = Tangent::Zero();
  Config q_next = Config::Zero();
  talus::ContactReport<double> report;
  Options lemke, pgs, admm, lemke_soft, lemke_cold;
};

[[noreturn]] inline void die(const std::string& what) {
  std::fprintf(stderr, "talus_contact_bench: %s\n", what.c_str());
  std::exit(1);
}

template <class R, class ModelT>
R* make_robot(const std::string& name, const ModelT& model, const typename R::Config& q,
              const std::vector<PointSpec>& points, const std::vector<const char*>& soles, double tau_max,
              std::uint64_t seed) {
  auto* r = new R();  // lives until exit, like the other bench setups
  r->name = name;
  r->model = model;
  r->q = q;
  r->lemke.solver = ContactSolver::lemke;
  r->pgs.solver = ContactSolver::pgs;
  r->admm.solver = ContactSolver::admm;
  r->lemke_soft.solver = ContactSolver::lemke;
  r->lemke_soft.softening = kSoftening;
  r->lemke_cold.solver = ContactSolver::lemke;
  r->lemke_cold.sticking_guess = false;
  if (talus::forward_kinematics(r->model, *r->data, q) != Status::ok) die(name + ": forward_kinematics");
  const V3 z = V3::UnitZ();
  for (const PointSpec& ps : points) {
    const int f = r->model.frame_id(ps.frame);
    if (f < 0 || r->model.frames[f].body < 0) die(name + ": no moving frame " + ps.frame);
    const auto& F = r->model.frames[f];
    const V3 p = F.placement.act_point(V3(ps.x, ps.y, 0));  // body frame
    const V3 anchor = r->data->oMi[F.body].act_point(p);    // world: the contact's current position
    if (r->poly->add_contact(F.body, p, z, kMu, 4, ConeModel::polygon, 0.0, anchor, ps.frame) != Status::ok ||
        r->exact->add_contact(F.body, p, z, kMu, 4, ConeModel::exact, 0.0, anchor, ps.frame) != Status::ok ||
        r->bil->add_contact(F.body, p, {z, V3::UnitX(), V3::UnitY()}, ps.frame) != Status::ok)
      die(name + ": add_contact " + ps.frame);
  }
  if (r->bil->bind(r->model) != Status::ok) die(name + ": bind");
  if (!soles.empty()) {
    r->bil6 = std::make_unique<typename R::Set6>();
    for (const char* s : soles) {
      const int f = r->model.frame_id(s);
      talus::Transform<double> oMf;
      if (f < 0 || talus::frame_placement(r->model, *r->data, f, oMf) != Status::ok ||
          r->bil6->add_contact_6d(r->model, f, talus::ContactFrame6D::local_world_aligned, oMf) != Status::ok)
        die(name + ": add_contact_6d " + s);
    }
    if (r->bil6->bind(r->model) != Status::ok) die(name + ": bind 6D");
  }
  // the contact points' Jacobian G (rows z, x, y per point) at q, and N = I − G⁺G
  constexpr int nv = ModelT::nv;
  typename R::Tangent zero = R::Tangent::Zero();
  if (talus::compute_constrained_system(r->model, *r->data, *r->bil, q, zero) != Status::ok)
    die(name + ": compute_constrained_system");
  const Eigen::MatrixXd G = r->bil->G;
  const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(G);
  const Eigen::MatrixXd N = Eigen::MatrixXd::Identity(nv, nv) - cod.pseudoInverse() * G;
  // holding torques: at v = 0, q̈ = 0, C = g(q) = τ + Gᵀλ; the base rows take λ of least norm
  // (the weight spread over the contacts), the joint rows then give τ.
  const Eigen::VectorXd g = r->bil->C;
  const Eigen::MatrixXd Gb = G.leftCols(6).transpose();
  const Eigen::VectorXd lambda = Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(Gb).solve(g.head(6));
  Eigen::VectorXd tau_hold = g - G.transpose() * lambda;
  const double base_residual = tau_hold.head(6).cwiseAbs().maxCoeff();
  tau_hold.head(6).setZero();
  double worst_friction = 0, min_normal = 1e300;  // ‖f_t‖ / f_n, f_n of the holding forces
  for (int c = 0; c < static_cast<int>(points.size()); ++c) {
    min_normal = std::min(min_normal, lambda[3 * c]);
    worst_friction = std::max(worst_friction, std::hypot(lambda[3 * c + 1], lambda[3 * c + 2]) / lambda[3 * c]);
  }
  talus::Random rng(seed);
  double feet_speed = 0, vmax = 0;
  for (int k = 0; k < kStates; ++k) {
    Eigen::VectorXd raw(nv);
    for (int i = 0; i < nv; ++i) raw[i] = rng.uniform(-kMaxSpeed, kMaxSpeed);
    Eigen::VectorXd v = N * raw;
    const double m = v.cwiseAbs().maxCoeff();
    if (m > kMaxSpeed) v *= kMaxSpeed / m;
    typename R::Tangent vt = v, noise = R::Tangent::Zero();
    for (int i = 6; i < nv; ++i) noise[i] = rng.uniform(-tau_max, tau_max);
    typename R::Tangent vm = vt;
    vm[5] -= kImpactSpeed;  // free flyer [ω; v] in the base frame; the base is level: −z world
    r->v.push_back(vt);
    r->v_minus.push_back(vm);
    r->tau[0].push_back(typename R::Tangent(tau_hold) + noise);
    r->tau[1].push_back(noise);
    feet_speed = std::max(feet_speed, (G * v).cwiseAbs().maxCoeff());
    vmax = std::max(vmax, v.cwiseAbs().maxCoeff());
  }
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s: %d contact points, contact Jacobian %d × %d of rank %d; states: max |v_i| = %.3f m/s or rad/s, "
                "max contact-point speed |G v| = %.1e m/s (sliding_speed 1e-4); holding torques: max |τ_i| = %.3g N·m, "
                "base residual %.1e, contact forces f_n ≥ %.3g N, max ‖f_t‖/f_n = %.3f (μ = %.1f)",
                name.c_str(), static_cast<int>(points.size()), static_cast<int>(G.rows()), nv,
                static_cast<int>(cod.rank()), vmax, feet_speed, tau_hold.cwiseAbs().maxCoeff(), base_residual,
                min_normal, worst_friction, kMu);
  notes().push_back(buf);
  return r;
}

/// Runs `fn` once per state for the row's counters and statuses, then registers its benchmark.
/// fn(R&, int k) -> Status; `cp` (may be null) names the failure reason of a contact solve.
template <class R, class F>
void add_row(R* r, Row row, const typename R::CP* cp, F fn) {
  std::vector<int> counts;
  std::map<std::string, int> fails;
  row.states = kStates;
  for (int k = 0; k < kStates; ++k) {
    r->report = talus::ContactReport<double>{};
    const Status s = fn(*r, k);
    if (row.counter == "pivots") counts.push_back(r->report.lcp.pivots);
    if (row.counter == "iterations") counts.push_back(r->report.cone.iterations);
    row.guessed += r->report.guess == talus::ContactGuess::accepted;
    if (cp != nullptr) row.unknowns = std::max(row.unknowns, r->report.unknowns);
    if (s == Status::ok) {
      ++row.ok;
    } else {
      std::string why = talus::to_string(s);
      if (cp != nullptr) {
        why += std::string(" (") + talus::to_string(cp->failure().reason);
        if (row.counter == "pivots") why += std::string(", LcpExit::") + talus::to_string(r->report.lcp.exit);
        if (row.counter == "iterations")
          why += std::string(", ConeSolverExit::") + talus::to_string(r->report.cone.exit);
        why += ")";
      }
      ++fails[why];
    }
  }
  if (!counts.empty()) {
    std::sort(counts.begin(), counts.end());
    const std::size_t n = counts.size();
    row.counter_median = n % 2 ? counts[n / 2] : 0.5 * (counts[n / 2 - 1] + counts[n / 2]);
    row.counter_max = counts.back();
  }
  for (const auto& [why, n] : fails) {
    if (!row.failures.empty()) row.failures += ", ";
    row.failures += why + " ×" + std::to_string(n);
  }
  rows().push_back(row);
  benchmark::RegisterBenchmark(row.bench.c_str(), [r, fn](benchmark::State& state) {
    int k = 0;
    for (auto _ : state) {
      Status st = fn(*r, k);
      benchmark::DoNotOptimize(st);
      benchmark::DoNotOptimize(r->out.data());
      benchmark::DoNotOptimize(r->v_next.data());
      benchmark::ClobberMemory();
      k = (k + 1) & (kStates - 1);
    }
  })->Unit(benchmark::kNanosecond);
}

const char* const kScenario[2] = {"standing", "unheld"};

/// All rows of one robot, for both torque sets (scenario 0: holding torques + noise, every work;
/// scenario 1: noise only, FD and step: an impact does not depend on τ). With welded soles
/// (bil6) the 6D baseline is timed too and is the ratio's denominator when the 3-row point
/// contacts do not solve on every state. `softened`: one more Lemke impact row with softening.
template <class R>
void register_robot(R* r, const std::string& contacts, bool softened) {
  using Tangent = typename R::Tangent;
  const std::string& m = r->name;
  const int nc = r->poly->size();
  for (int sc = 0; sc < 2; ++sc) {
    const std::string scen = kScenario[sc];
    auto name = [&](const std::string& method, const std::string& work) {
      return "contact/" + m + "/" + scen + "/" + method + "/" + work;
    };
    auto row = [&](const std::string& cts, const std::string& method, const std::string& work, const std::string& bench,
                   const std::string& baseline = "", bool goal = false, const std::string& counter = "") {
      Row x = make_row(m, cts, method, work, bench, baseline, goal, counter);
      x.scenario = sc;
      return x;
    };
    // baselines first (their statuses decide the ratio's denominator)
    const std::string bil_rows = std::to_string(nc) + " × 3D bilateral (" + std::to_string(3 * nc) + " rows)";
    add_row(r, row(bil_rows, "bilateral range-space", "FD", name("bilateral", "FD")), nullptr, [sc](R& x, int k) {
      return talus::forward_dynamics_range_space(x.model, *x.data, *x.bil, x.q, x.v[k], x.tau[sc][k], x.out);
    });
    const bool points_ok = rows().back().ok == kStates;
    bool impulses_ok = true;
    if (sc == 0) {
      add_row(r, row(bil_rows, "bilateral range-space", "impact", name("bilateral", "impact")), nullptr,
              [](R& x, int k) {
                return talus::compute_impulse_range_space(x.model, *x.data, *x.bil, x.q, x.v_minus[k], x.out);
              });
      impulses_ok = rows().back().ok == kStates;
    }
    std::string base_fd = name("bilateral", "FD"), base_imp = name("bilateral", "impact");
    if (r->bil6) {
      const std::string rows6 = "2 soles × 6D bilateral (12 rows)";
      add_row(r, row(rows6, "bilateral range-space", "FD", name("bilateral6d", "FD")), nullptr, [sc](R& x, int k) {
        return talus::forward_dynamics_range_space(x.model, *x.data, *x.bil6, x.q, x.v[k], x.tau[sc][k], x.out);
      });
      if (sc == 0)
        add_row(r, row(rows6, "bilateral range-space", "impact", name("bilateral6d", "impact")), nullptr,
                [](R& x, int k) {
                  return talus::compute_impulse_range_space(x.model, *x.data, *x.bil6, x.q, x.v_minus[k], x.out);
                });
      if (!points_ok) base_fd = name("bilateral6d", "FD");
      if (!impulses_ok) base_imp = name("bilateral6d", "impact");
    }

    struct Variant {
      const char* key;
      const char* label;
      ContactSolver solver;
    };
    const Variant variants[] = {{"lemke", "Lemke, 4-edge polygons", ContactSolver::lemke},
                                {"lemke_cold", "Lemke, 4-edge polygons, no sticking guess", ContactSolver::lemke},
                                {"pgs", "PGS, exact cones", ContactSolver::pgs},
                                {"admm", "ADMM, exact cones", ContactSolver::admm}};
    for (const Variant& var : variants) {
      const bool lemke = var.solver == ContactSolver::lemke;
      const bool cold = std::string(var.key) == "lemke_cold";
      const char* counter = lemke ? "pivots" : "iterations";
      const typename R::CP* cp = lemke ? r->poly.get() : r->exact.get();
      const auto opt = [s = var.solver, cold](R& x) -> const typename R::Options& {
        return cold ? x.lemke_cold : s == ContactSolver::lemke ? x.lemke : s == ContactSolver::pgs ? x.pgs : x.admm;
      };
      const auto prob = [lemke](R& x) -> typename R::CP& { return lemke ? *x.poly : *x.exact; };
      add_row(r, row(contacts, var.label, "FD", name(var.key, "FD"), base_fd, true, counter), cp,
              [opt, prob, sc](R& x, int k) {
                return talus::forward_dynamics_contact(x.model, *x.data, prob(x), x.q, x.v[k], x.tau[sc][k], x.out,
                                                       opt(x), x.report);
              });
      if (sc == 0)
        add_row(r, row(contacts, var.label, "impact", name(var.key, "impact"), base_imp, false, counter), cp,
                [opt, prob](R& x, int k) {
                  return talus::impulses_contact(x.model, *x.data, prob(x), x.q, x.v_minus[k], x.out, opt(x), x.report);
                });
      add_row(r, row(contacts, var.label, "step h = 1 ms", name(var.key, "step"), base_fd, false, counter), cp,
              [opt, prob, sc](R& x, int k) {
                return talus::time_step_contact(x.model, *x.data, prob(x), x.q, x.v[k], x.tau[sc][k], kStep, x.q_next,
                                                x.v_next, opt(x), x.report);
              });
    }
    if (softened && sc == 0) {
      char label[96];
      std::snprintf(label, sizeof label, "Lemke, 4-edge polygons, softening %g", kSoftening);
      add_row(r, row(contacts, label, "impact", name("lemke_soft", "impact"), base_imp, false, "pivots"), r->poly.get(),
              [](R& x, int k) {
                return talus::impulses_contact(x.model, *x.data, *x.poly, x.q, x.v_minus[k], x.out, x.lemke_soft,
                                               x.report);
              });
    }

    // agreement of the acceleration-level answers on the benchmark's states
    int inside = 0, ok6 = 0, ok3 = 0;
    double d_lemke_bil = 0, d_pgs_bil = 0, d_admm_bil = 0, d_pgs_lemke = 0, d_admm_pgs = 0;
    double d6[3] = {0, 0, 0};  // Lemke, PGS, ADMM vs the welded soles
    for (int k = 0; k < kStates; ++k) {
      const Tangent& tau = r->tau[sc][k];
      Tangent a_bil, a_l, a_p, a_a;
      const bool ok_bil = talus::forward_dynamics_range_space(r->model, *r->data, *r->bil, r->q, r->v[k], tau, a_bil) ==
                          Status::ok;
      ok3 += ok_bil;
      bool in = ok_bil;  // the bilateral forces push and lie inside 0.9 × the 4-edge polygon
      for (int c = 0; in && c < nc; ++c) {
        const double fz = r->bil->lambda(3 * c), fx = r->bil->lambda(3 * c + 1), fy = r->bil->lambda(3 * c + 2);
        in = fz > 0 && std::abs(fx) + std::abs(fy) < 0.9 * kMu * fz;
      }
      const bool ok_l = talus::forward_dynamics_contact(r->model, *r->data, *r->poly, r->q, r->v[k], tau, a_l, r->lemke,
                                                        r->report) == Status::ok;
      const bool ok_p = talus::forward_dynamics_contact(r->model, *r->data, *r->exact, r->q, r->v[k], tau, a_p, r->pgs,
                                                        r->report) == Status::ok;
      const bool ok_a = talus::forward_dynamics_contact(r->model, *r->data, *r->exact, r->q, r->v[k], tau, a_a, r->admm,
                                                        r->report) == Status::ok;
      if (r->bil6) {
        Tangent a6;
        if (talus::forward_dynamics_range_space(r->model, *r->data, *r->bil6, r->q, r->v[k], tau, a6) == Status::ok) {
          ++ok6;
          if (ok_l) d6[0] = std::max(d6[0], (a_l - a6).cwiseAbs().maxCoeff());
          if (ok_p) d6[1] = std::max(d6[1], (a_p - a6).cwiseAbs().maxCoeff());
          if (ok_a) d6[2] = std::max(d6[2], (a_a - a6).cwiseAbs().maxCoeff());
        }
      }
      if (ok_l && ok_p) d_pgs_lemke = std::max(d_pgs_lemke, (a_p - a_l).cwiseAbs().maxCoeff());
      if (ok_a && ok_p) d_admm_pgs = std::max(d_admm_pgs, (a_a - a_p).cwiseAbs().maxCoeff());
      if (!in) continue;
      ++inside;
      if (ok_l) d_lemke_bil = std::max(d_lemke_bil, (a_l - a_bil).cwiseAbs().maxCoeff());
      if (ok_p) d_pgs_bil = std::max(d_pgs_bil, (a_p - a_bil).cwiseAbs().maxCoeff());
      if (ok_a) d_admm_bil = std::max(d_admm_bil, (a_a - a_bil).cwiseAbs().maxCoeff());
    }
    char buf[768];
    std::snprintf(
        buf, sizeof buf,
        "%s, %s: FD agreement over the states where both returned ok (max |Δq̈|, m/s² or rad/s²): PGS vs Lemke "
        "%.1e (circle vs polygon: equal only where the answer lies inside the polygon), ADMM vs PGS %.1e (same "
        "cone); the 3-row bilateral solve returned ok on %d of %d states, and on %d of them its forces lie inside "
        "0.9 × the 4-edge polygon (there the frictional answer is the bilateral one): Lemke %.1e, PGS %.1e, "
        "ADMM %.1e from it",
        m.c_str(), scen.c_str(), d_pgs_lemke, d_admm_pgs, ok3, kStates, inside, d_lemke_bil, d_pgs_bil, d_admm_bil);
    notes().push_back(buf);
    if (r->bil6) {
      std::snprintf(buf, sizeof buf,
                    "%s, %s: FD against the soles welded (2 × 6D range-space, ok on %d states; equal to the frictional "
                    "answer when every corner sticks): max |Δq̈| Lemke %.1e, PGS %.1e, ADMM %.1e",
                    m.c_str(), scen.c_str(), ok6, d6[0], d6[1], d6[2]);
      notes().push_back(buf);
    }
  }
}

/// Sets the joint called `joint` (1-dof) of q to `value`; dies on an unknown name.
template <class ModelT>
void set_joint(const ModelT& model, typename ModelT::ConfigVector& q, const char* joint, double value) {
  for (int i = 0; i < ModelT::nb; ++i)
    if (model.joint_name[i] && std::string(model.joint_name[i]) == joint) {
      q[ModelT::Tree::idx_q[static_cast<std::size_t>(i)]] = value;
      return;
    }
  die(std::string("no joint ") + joint);
}
#endif  // TALUS_CONTACT_BENCH_PART != 1

#if TALUS_CONTACT_BENCH_HAS(2)
void register_solo12() {
  namespace rm = talus::models::solo12;
  using R = Robot<rm::Model<double>, 4>;
  const auto model = rm::make_model<double>();
  R::Config q;
  talus::neutral(model, q);
  q[2] = 0.235;  // solo.srdf "standing"
  const char* legs[] = {"FL", "FR", "HL", "HR"};
  for (const char* l : legs) {
    const bool front = l[0] == 'F', left = l[1] == 'L';
    set_joint(model, q, (std::string(l) + "_HAA").c_str(), left ? 0.1 : -0.1);
    set_joint(model, q, (std::string(l) + "_HFE").c_str(), front ? 0.8 : -0.8);
    set_joint(model, q, (std::string(l) + "_KFE").c_str(), front ? -1.6 : 1.6);
  }
  R* r = make_robot<R>("solo12", model, q, {{"FL_FOOT", 0, 0}, {"FR_FOOT", 0, 0}, {"HL_FOOT", 0, 0}, {"HR_FOOT", 0, 0}},
                       {}, 0.1, 1201);
  register_robot(r, "4 feet", false);
}
#endif

#if TALUS_CONTACT_BENCH_HAS(3)
void register_anymal_c() {
  namespace rm = talus::models::anymal_c;
  using R = Robot<rm::Model<double>, 4>;
  const auto model = rm::make_model<double>();
  R::Config q;
  talus::neutral(model, q);
  q[2] = 0.528;  // anymal.srdf "standing"
  const char* legs[] = {"LF", "RF", "LH", "RH"};
  for (const char* l : legs) {
    const bool left = l[0] == 'L', front = l[1] == 'F';
    set_joint(model, q, (std::string(l) + "_HAA").c_str(), left ? -0.1 : 0.1);
    set_joint(model, q, (std::string(l) + "_HFE").c_str(), front ? 0.7 : -0.7);
    set_joint(model, q, (std::string(l) + "_KFE").c_str(), front ? -1.0 : 1.0);
  }
  R* r = make_robot<R>("anymal_c", model, q,
                       {{"LF_FOOT", 0, 0}, {"RF_FOOT", 0, 0}, {"LH_FOOT", 0, 0}, {"RH_FOOT", 0, 0}}, {}, 2.0, 1202);
  register_robot(r, "4 feet", false);
}
#endif

#if TALUS_CONTACT_BENCH_HAS(4)
void register_talos() {
  namespace rm = talus::models::talos;
  using R = Robot<rm::Model<double>, 8>;
  const auto model = rm::make_model<double>();
  R::Config q;
  talus::neutral(model, q);
  q[2] = 1.01927;  // talos.srdf "half_sitting"
  const std::pair<const char*, double> half_sitting[] = {
      {"arm_left_1_joint", 0.25847},    {"arm_left_2_joint", 0.173046},   {"arm_left_3_joint", -0.0002},
      {"arm_left_4_joint", -0.525366},  {"arm_left_7_joint", 0.1},        {"arm_right_1_joint", -0.25847},
      {"arm_right_2_joint", -0.173046}, {"arm_right_3_joint", 0.0002},    {"arm_right_4_joint", -0.525366},
      {"arm_right_7_joint", 0.1},       {"leg_left_3_joint", -0.411354},  {"leg_left_4_joint", 0.859395},
      {"leg_left_5_joint", -0.448041},  {"leg_left_6_joint", -0.001708},  {"leg_right_3_joint", -0.411354},
      {"leg_right_4_joint", 0.859395},  {"leg_right_5_joint", -0.448041}, {"leg_right_6_joint", -0.001708},
      {"torso_2_joint", 0.006761}};
  for (const auto& [j, val] : half_sitting) set_joint(model, q, j, val);
  constexpr double hl = 0.10, hw = 0.065;  // half length, half width of the sole (assumed, see the file comment)
  std::vector<PointSpec> corners;
  for (const char* sole : {"left_sole_link", "right_sole_link"})
    for (const double sx : {hl, -hl})
      for (const double sy : {hw, -hw}) corners.push_back({sole, sx, sy});
  R* r = make_robot<R>("talos", model, q, corners, {"left_sole_link", "right_sole_link"}, 4.0, 1204);
  register_robot(r, "2 soles × 4 corners", true);
}
#endif

#if TALUS_CONTACT_BENCH_HAS(1)
// ---- main and the report (part 1) -----------------------------------------------------------
std::vector<Row>& rows() {
  static std::vector<Row> r;
  return r;
}
std::vector<std::string>& notes() {
  static std::vector<std::string> n;
  return n;
}
}  // namespace talus_contact_bench

namespace {

const char* cb_scenario(int sc) { return sc == 0 ? "standing" : "unheld"; }

std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace

int main(int argc, char** argv) {
  namespace cb = talus_contact_bench;
  namespace bm = talus_bench_main;
  // Repetitions interleaved at random across the benchmarks (Google Benchmark's
  // random_interleaving): on a shared machine a burst of load then spreads over every row's
  // repetitions instead of landing on a few rows.
  bm::Flags flags;
  if (!bm::parse_flags(argc, argv,
                       {"--benchmark_repetitions=9", "--benchmark_min_time=0.2",
                        "--benchmark_enable_random_interleaving=true", "--benchmark_report_aggregates_only=true"},
                       flags))
    return 1;
  const bool quick = flags.quick;

  cb::register_solo12();
  cb::register_anymal_c();
  cb::register_talos();

  const std::string load_before = load_average();
  bm::CollectingReporter reporter(bm::console_options());
  bm::run(flags, reporter);
  const std::string load_after = load_average();

  std::ostringstream o;
  o << "\n## Contact: frictional solves vs bilateral range-space (talus only)"
    << (quick ? " (--quick: smoke run, not a measurement)" : "") << "\n\n";
  o << "- CPU: " << bm::cpu_model() << " (" << sysconf(_SC_NPROCESSORS_ONLN) << " logical CPUs online); load average "
    << "(1, 5, 15 min) before the runs " << load_before << ", after " << load_after << "\n";
  o << bm::build_line();
  o << "- time: median CPU time per call (ns) over the repetitions (9 of ≥ 0.2 s by default, interleaved at random "
       "across the benchmarks), each call on the next of "
    << cb::kStates
    << " states (same states for every method); pivots (Lemke, LcpReport::pivots) / iterations (PGS sweeps, ADMM "
       "steps: ConeSolverReport::iterations): median and max over the states; guess k/64 = states whose sticking guess "
       "was the answer (ContactReport::guess, no pivot or iteration); ok = states that returned Status::ok; "
       "ratio = ns / ns of the bilateral range-space solve of the same level (FD and step rows: "
       "forward_dynamics_range_space; impact rows: compute_impulse_range_space)\n\n";
  const char* titles[2] = {"Standing: τ = holding torques + noise (every work)",
                           "Unheld: τ = the noise only (the joints give way; friction saturates): FD and step"};
  char buf[768];
  for (int sc = 0; sc < 2; ++sc) {
    o << "### " << titles[sc] << "\n\n";
    o << "| model | contacts | method | work | unknowns | ns per call | pivots / iterations, median (max) | ok | "
         "÷ bilateral |\n|---|---|---|---|---:|---:|---|---|---:|\n";
    for (const cb::Row& r : cb::rows()) {
      double t = 0, tb = 0;
      if (r.scenario != sc || !reporter.get(r.bench, t)) continue;  // other table, or filtered out
      const bool has_base = !r.baseline.empty() && reporter.get(r.baseline, tb);
      std::string counter = "-";
      if (!r.counter.empty()) {
        std::snprintf(buf, sizeof buf, "%g (%d) %s", r.counter_median, r.counter_max, r.counter.c_str());
        counter = buf;
        if (r.guessed > 0) counter += "; guess " + std::to_string(r.guessed) + "/" + std::to_string(r.states);
      }
      std::string ok = std::to_string(r.ok) + "/" + std::to_string(r.states);
      if (!r.failures.empty()) ok += ": " + r.failures;
      std::string ratio = "-";
      if (has_base) {
        std::snprintf(buf, sizeof buf, "%.2f", t / tb);
        ratio = buf;
      }
      const std::string unknowns = r.unknowns > 0 ? std::to_string(r.unknowns) : "-";
      std::snprintf(buf, sizeof buf, "| %s | %s | %s | %s | %s | %.0f | %s | %s | %s |\n", r.model.c_str(),
                    r.contacts.c_str(), r.method.c_str(), r.work.c_str(), unknowns.c_str(), t, counter.c_str(),
                    ok.c_str(), ratio.c_str());
      o << buf;
    }
    o << "\n";
  }
  o << "Goal (the contact issue): an acceleration-level frictional solve (FD rows) within 2× of the bilateral "
       "range-space solve of the same contacts:\n\n";
  for (int sc = 0; sc < 2; ++sc)
    for (const cb::Row& r : cb::rows()) {
      double t = 0, tb = 0;
      if (r.scenario != sc || !r.goal || !reporter.get(r.bench, t) || !reporter.get(r.baseline, tb)) continue;
      std::snprintf(buf, sizeof buf, "- %s, %s, %s: %.2f× %s%s\n", r.model.c_str(), cb_scenario(sc), r.method.c_str(),
                    t / tb, t / tb <= 2.0 ? "(within 2×)" : "(not within 2×)",
                    r.ok == r.states
                        ? ""
                        : (", but only " + std::to_string(r.ok) + "/" + std::to_string(r.states) + " states ok")
                              .c_str());
      o << buf;
    }
  o << "\nSetup checks and agreement:\n\n";
  for (const std::string& n : cb::notes()) o << "- " << n << "\n";
  std::fputs(o.str().c_str(), stdout);
  return 0;
}
#else
}  // namespace talus_contact_bench
#endif
