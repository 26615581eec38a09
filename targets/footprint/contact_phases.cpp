// Instruction counts of the contact solve phase by phase, and of the exact-cone solve at its
// iteration caps with the accuracy each cap reaches (run by tools/contact_phases.py; not part
// of the footprint report). solo12 on its four feet as in contact_probe.cpp (FL, FR, HL, HR;
// normal +z, μ = 0.7, exact cones), forward_dynamics_contact at the acceleration level with
// q̇ = 0 and ContactSolver::pgs, on the 100 random states of probe.cpp.
//
// Phases: for each state and each phase of detail::contact_solve (contact_dynamics.hpp), the
// phases before it run outside the window, then the phase alone in its window:
//
//   ph_begin     the report, x and the problem's results reset (contact_solve's first lines)
//   ph_check     check_contact_inputs
//   ph_system    contact_system (one sweep: kinematics, rows, CRBA, RNEA; H = Lᵀ L)
//   ph_free      free_motion
//   ph_elim      eliminate_bilateral (no set: the rows' factor)
//   ph_delassus  delassus
//   ph_guess     sticking_guess alone (a part of ph_cone)
//   ph_assemble  cone_units and assemble_cone_problem alone (a part of ph_cone)
//   ph_cone      solve_cone_problem (the guess, the units, the PGS sweeps)
//   ph_recover   recover_contact
//   ph_whole     the whole forward_dynamics_contact call
//
// Caps: per state a reference solve first (PGS, τ_r = 1e-12, 20000 sweeps: the converged
// forces f*), then for each (τ_r, cap, sticking guess, check interval) of kCaps one window of the whole call; "cacc" lines give
// the status, the sweeps, the cone report's evidence (largest residual / tolerance) and the
// relative error max_i ‖f_i − f*_i‖ / max_i ‖f*_i‖ of the contact forces.
//
// Output: "win <index> <label> <field> <ticks>" (measure.hpp); after each ph_cone window
// "cinfo ph_cone <state> <status> <sweeps> 0 <unknowns>"; after each cap window
// "cacc <label> <state> <status> <sweeps> <evidence ×1e6> <relative error ×1e9> <ref status>".
#include <talus/contact.hpp>
#include <talus/models/solo12.hpp>
#include <talus/talus.hpp>

#include <new>

#include "footprint.hpp"
#include "measure.hpp"

namespace {

using S = TALUS_FP_SCALAR;
namespace solo = talus::models::solo12;
using Model = solo::Model<S>;
using Problem = talus::ContactProblem<Model, 4, 4>;
using Options = talus::ContactOptions<S, Problem::max_lcp>;
using Vec = Model::TangentVector;
constexpr int kStates = 100;
constexpr const char* kFeet[4] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};

const Model g_model = solo::make_model<S>();
talus::Data<Model> g_data;
Model::ConfigVector g_q[kStates];
Vec g_v[kStates], g_a[kStates], g_tau[kStates], g_zero, g_out;
alignas(Problem) unsigned char g_problem_storage[sizeof(Problem)];
Problem* g_cp = nullptr;
alignas(Options) unsigned char g_options_storage[sizeof(Options)];
Options* g_opt = nullptr;
talus::ContactReport<S> g_report;
talus::Status g_status = talus::Status::ok;
volatile int g_setup_bad = 0;

// The state between the phases (contact_solve's locals).
namespace d = talus::detail;
using Level = d::ContactLevel;
d::Compliance<S> g_k;
Problem::Workspace::RowsVector g_gap;
Vec g_C, g_b, g_x;
d::BilateralTargetOf<d::NoBilateral>::type g_g{};
talus::ContactFailure g_f;
d::NoBilateral* const g_none = nullptr;

__attribute__((noinline)) void run_empty(int) { asm volatile(""); }
__attribute__((noinline)) void run_nop1000(int) { asm volatile(".rept 1000\n\tnop\n\t.endr"); }

__attribute__((noinline)) void ph_begin(int) {
  g_report = talus::ContactReport<S>{};
  g_x.setZero();
  g_cp->ws.rows = 0;
  g_cp->ws.phi.setZero(0);
  g_cp->begin_results();
  g_C.setZero();
  g_b.setZero();
}
__attribute__((noinline)) void ph_check(int s) {
  g_f = d::check_contact_inputs(g_model, *g_cp, g_q[s], g_zero, g_tau[s], nullptr, S(1), Level::acceleration, *g_opt,
                                g_k);
}
__attribute__((noinline)) void ph_system(int s) {
  g_f = d::contact_system(g_model, g_data, *g_cp, g_none, g_q[s], g_zero, Level::acceleration, g_opt->margin, nullptr,
                          g_gap, g_C);
}
__attribute__((noinline)) void ph_free(int s) {
  g_b = d::free_motion(g_data, *g_cp, Level::acceleration, g_zero, g_tau[s], g_C, S(1));
}
__attribute__((noinline)) void ph_elim(int) { g_f = d::eliminate_bilateral(g_data, *g_cp, g_none, g_g, g_report); }
__attribute__((noinline)) void ph_delassus(int) { d::delassus(*g_cp, Level::acceleration); }
__attribute__((noinline)) void ph_guess(int) {
  (void)d::sticking_guess(*g_cp, Level::acceleration, *g_opt, S(1), g_k.cfm, g_k.erp, g_gap);
}
// the cone problem's assembly alone (a part of ph_cone): its units, W and b
d::ConeUnits<S, Problem::max_cone_units> g_units;
__attribute__((noinline)) void ph_assemble(int) {
  g_units = d::ConeUnits<S, Problem::max_cone_units>{};
  d::cone_units(*g_cp, Level::acceleration, g_units, g_report);
  d::assemble_cone_problem(*g_cp, Level::acceleration, S(1), g_k.cfm, g_k.erp, g_gap, *g_opt, g_units);
}
__attribute__((noinline)) void ph_cone(int) {
  g_f = d::solve_cone_problem(*g_cp, Level::acceleration, *g_opt, S(1), g_k, g_gap, g_report);
}
__attribute__((noinline)) void ph_recover(int) {
  g_f = d::recover_contact(g_data, *g_cp, g_none, *g_opt, g_b, g_g, g_report, g_x);
}
__attribute__((noinline)) void ph_whole(int s) {
  g_status = talus::forward_dynamics_contact(g_model, g_data, *g_cp, g_q[s], g_zero, g_tau[s], g_out, *g_opt, g_report);
}

struct Phase {
  const char* label;
  footprint::Fn fn;
};
// contact_solve's order; ph_guess and ph_assemble are measured before ph_cone, which repeats them
constexpr Phase kPhases[] = {{"ph_begin", ph_begin},    {"ph_check", ph_check},       {"ph_system", ph_system},
                             {"ph_free", ph_free},      {"ph_elim", ph_elim},         {"ph_delassus", ph_delassus},
                             {"ph_guess", ph_guess},    {"ph_assemble", ph_assemble}, {"ph_cone", ph_cone},
                             {"ph_recover", ph_recover}};
constexpr int kPhaseCount = sizeof(kPhases) / sizeof(kPhases[0]);

void set_pgs(S tolerance, int cap, bool guess = true, int check_interval = 1) {
  g_opt->solver = talus::ContactSolver::pgs;
  g_opt->cone.relative_tolerance = tolerance;
  g_opt->cone.max_iterations = cap;
  g_opt->cone.check_interval = check_interval;
  g_opt->sticking_guess = guess;
}

void phases() {
  set_pgs(std::sqrt(Eigen::NumTraits<S>::epsilon()), 100);  // the defaults
  footprint::window("cold_ph_whole", ph_whole, 0, 0, true);
  for (int s = 0; s < kStates; ++s) {
    for (int p = 0; p < kPhaseCount; ++p) {
      for (int before = 0; before < p; ++before)
        if (kPhases[before].fn != ph_guess && kPhases[before].fn != ph_assemble) kPhases[before].fn(s);
      footprint::window(kPhases[p].label, kPhases[p].fn, s, s);
      if (kPhases[p].fn == ph_cone) {
        footprint::Out o;
        o << "cinfo ph_cone " << s << " " << static_cast<int>(g_f.status) << " " << g_report.cone.iterations << " 0 "
          << g_report.unknowns;
        o.write();
      }
    }
    footprint::window("ph_whole", ph_whole, s, s);
  }
}

struct Cap {
  const char* label;
  double tolerance;
  int cap;
  bool guess;
  int check_interval;
};
// (τ_r, cap, sticking guess, check interval); the first is the default options
constexpr Cap kCaps[] = {
    {"cap_default", 1.4901161193847656e-08, 100, true, 1}, {"cap_t1e-3_n24", 1e-3, 24, true, 1},
    {"cap_t1e-3_n20_nog_c4", 1e-3, 20, false, 4},          {"cap_t1e-3_n24_nog_c4", 1e-3, 24, false, 4},
    {"cap_t1e-3_n28_nog_c4", 1e-3, 28, false, 4},          {"cap_t1e-4_n24_nog_c4", 1e-4, 24, false, 4},
    {"cap_t1e-2_n24_nog_c4", 1e-2, 24, false, 4},          {"cap_t1e-3_n24_nog_c1", 1e-3, 24, false, 1},
    {"cap_t1e-3_n100_nog_c4", 1e-3, 100, false, 4},
};

S force_error(const talus::Vector3<S> (&ref)[4]) {
  S num = S(0), den = S(0);
  for (int i = 0; i < 4; ++i) {
    talus::Vector3<S> f = talus::Vector3<S>::Zero();
    (void)g_cp->force(i, f);
    num = std::max(num, (f - ref[i]).norm());
    den = std::max(den, ref[i].norm());
  }
  return den > S(0) ? num / den : num;
}

void caps() {
  for (int s = 0; s < kStates; ++s) {
    set_pgs(S(1e-12), 20000);
    ph_whole(s);
    const int ref_status = static_cast<int>(g_status);
    talus::Vector3<S> ref[4];
    for (int i = 0; i < 4; ++i) (void)g_cp->force(i, ref[i]);
    for (const Cap& c : kCaps) {
      set_pgs(S(c.tolerance), c.cap, c.guess, c.check_interval);
      footprint::window(c.label, ph_whole, s, s);
      const S err = force_error(ref);
      footprint::Out o;
      o << "cacc " << c.label << " " << s << " " << static_cast<int>(g_status) << " " << g_report.cone.iterations << " "
        << static_cast<std::int64_t>(g_report.residual.value * S(1e6)) << " " << static_cast<std::int64_t>(err * S(1e9))
        << " " << ref_status;
      o.write();
    }
  }
}

}  // namespace

int main() {
#if !defined(__arm__)
  talus::port::init();
#endif
  footprint::Rng rng(20250101);  // probe.cpp's seed: the same states
  for (int s = 0; s < kStates; ++s) footprint::random_state(rng, g_q[s], g_v[s], g_a[s], g_tau[s]);
  g_zero.setZero();
  g_cp = ::new (static_cast<void*>(g_problem_storage)) Problem();
  g_opt = ::new (static_cast<void*>(g_options_storage)) Options();
  for (const char* foot : kFeet)
    if (g_cp->add_contact(g_model, solo::frame_id(foot), talus::Vector3<S>::UnitZ(), S(0.7), 4) != talus::Status::ok)
      g_setup_bad = 1;
  for (int i = 0; i < 4; ++i)
    if (g_cp->set_cone(i, talus::ConeModel::exact) != talus::Status::ok) g_setup_bad = 1;

  footprint::Out o;
  o << "contact phases target " << TALUS_FP_TARGET << " counter " << footprint::kCounter << " states " << kStates;
  o.write();
  for (int k = 0; k < 10; ++k) footprint::window("empty", run_empty, k, k);
  for (int k = 0; k < 3; ++k) footprint::window("nop1000", run_nop1000, k, k);
  phases();
  caps();
  o << "done windows " << footprint::g_window << " bad_status " << g_setup_bad;
  o.write();
  return g_setup_bad ? 1 : 0;
}
