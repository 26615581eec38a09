// Instruction-count probe of the contact solve (tools/footprint-report.sh): solo12 on its four
// feet as unilateral contacts (FL, FR, HL, HR; ground normal +z, μ = 0.7, 4-edge polygons or
// exact cones), forward_dynamics_contact at the acceleration level, as targets/contact_check.cpp
// checks it, in three variants:
//
//   c_rest    q̇ = 0 (sticking friction), ContactSolver::lemke, LCP of 24 unknowns
//   c_moving  q̇ of the state (every foot moving: kinetic friction), lemke, 4 unknowns
//   c_pgs     q̇ = 0, exact cones, ContactSolver::pgs (default options)
//
// one call per window on the 100 random states of probe.cpp (footprint::random_state, the same
// seed) after one warm-up call, and what bounds each solve's work, measured with a forced cap:
//
//   cap_rest, cap_moving  LcpOptions::max_pivots = k (k = 1..8, resp. 1..2) at the first ten
//                         states whose natural path is longer: every attempt stops at k pivots
//                         (not_converged), so instructions = fixed + per-pivot · (attempts · k);
//   cap_pgs               ConeSolverOptions::max_iterations = k (1..8), likewise per sweep.
//
// A separate program from probe.cpp so that adding the contact solves does not change how GCC
// compiles (inlines) the algorithms that probe measures. The measurement window is probe.cpp's
// (measure.hpp: SysTick under QEMU -icount on Cortex-M, callgrind client requests on x86-64,
// marker functions for a QEMU exec trace elsewhere); the report subtracts the "empty" window
// and checks "nop1000".
//
// Output (talus::port::log_write): "win <index> <label> <state> <ticks>" per window (ticks on
// Cortex-M only, else "-"); the state field of a cap window is 1000·k + state. After each
// contact window "cinfo <label> <state> <status> <count> <attempts> <unknowns>": the Status (as
// an int), pivots (Lemke) or sweeps (PGS), Lemke's attempts, the problem's unknowns. On
// Cortex-M "stack <label> <bytes>" per label, as probe.cpp.
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
constexpr int kStates = 100;
constexpr int kCapStates = 10;
constexpr const char* kFeet[4] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};

const Model g_model = solo::make_model<S>();
talus::Data<Model> g_data;
Model::ConfigVector g_q[kStates];
Model::TangentVector g_v[kStates], g_a[kStates], g_tau[kStates], g_zero, g_out;
// The problem (its workspace holds every matrix of the solve) and the options, in static
// storage, constructed in place at start-up (no destructor registered).
alignas(Problem) unsigned char g_problem_storage[sizeof(Problem)];
Problem* g_cp = nullptr;
alignas(Options) unsigned char g_options_storage[sizeof(Options)];
Options* g_opt = nullptr;
talus::ContactReport<S> g_report;
talus::Status g_status = talus::Status::ok;
volatile int g_setup_bad = 0;

// The measured calls. noinline: one function per variant, called through a pointer.
__attribute__((noinline)) void run_empty(int) { asm volatile(""); }
__attribute__((noinline)) void run_nop1000(int) { asm volatile(".rept 1000\n\tnop\n\t.endr"); }
__attribute__((noinline)) void run_rest(int s) {
  g_status = talus::forward_dynamics_contact(g_model, g_data, *g_cp, g_q[s], g_zero, g_tau[s], g_out, *g_opt, g_report);
}
__attribute__((noinline)) void run_moving(int s) {
  g_status = talus::forward_dynamics_contact(g_model, g_data, *g_cp, g_q[s], g_v[s], g_tau[s], g_out, *g_opt, g_report);
}

using footprint::Fn;
using footprint::g_stack_max;
using footprint::g_window;
using footprint::kCounter;
using footprint::window;

/// What the last contact solve did.
void info(const char* label, int field) {
  footprint::Out o;
  const bool lemke = g_opt->solver == talus::ContactSolver::lemke;
  o << "cinfo " << label << " " << field << " " << static_cast<int>(g_status) << " "
    << (lemke ? g_report.lcp.pivots : g_report.cone.iterations) << " " << g_report.lcp.attempts << " "
    << g_report.unknowns;
  o.write();
}

void print_stack(const char* label) {
#if defined(__arm__)
  footprint::Out st;
  st << "stack " << label << " " << g_stack_max;
  st.write();
#else
  (void)label;
#endif
}

void set_solver(bool pgs) {
  for (int i = 0; i < 4; ++i)
    if (g_cp->set_cone(i, pgs ? talus::ConeModel::exact : talus::ConeModel::polygon) != talus::Status::ok)
      g_setup_bad = 1;
  g_opt->solver = pgs ? talus::ContactSolver::pgs : talus::ContactSolver::lemke;
  g_opt->lcp.max_pivots = 0;         // the default cap, 10 n + 50
  g_opt->cone.max_iterations = 100;  // the default
}

/// One warm-up call ("cold", state 0), then one window per state; natural counts kept.
void variant(const char* label, Fn f, bool pgs, int (&count)[kStates]) {
  set_solver(pgs);
  g_stack_max = 0;
  window(label, f, 0, 0, true);
  for (int s = 0; s < kStates; ++s) {
    window(label, f, s, s);
    info(label, s);
    count[s] = pgs ? g_report.cone.iterations : g_report.lcp.pivots;
  }
  print_stack(label);
}

/// Forced caps k = 1..kmax at the first kCapStates states whose natural count exceeds kmax.
void caps(const char* label, Fn f, bool pgs, const int (&count)[kStates], int kmax) {
  set_solver(pgs);
  int done = 0;
  for (int s = 0; s < kStates && done < kCapStates; ++s) {
    if (count[s] <= kmax) continue;
    ++done;
    for (int k = 1; k <= kmax; ++k) {
      if (pgs) g_opt->cone.max_iterations = k;
      else g_opt->lcp.max_pivots = k;
      window(label, f, s, 1000 * k + s);
      info(label, 1000 * k + s);
    }
  }
}

int g_count_rest[kStates], g_count_moving[kStates], g_count_pgs[kStates];

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

  footprint::Out o;
  o << "contact probe target " << TALUS_FP_TARGET << " scalar " << (sizeof(S) == 8 ? "double" : "float") << " counter "
    << kCounter << " states " << kStates << " problem_bytes " << static_cast<std::uint64_t>(sizeof(Problem));
  o.write();

  for (int k = 0; k < 10; ++k) window("empty", run_empty, k, k);
  for (int k = 0; k < 3; ++k) window("nop1000", run_nop1000, k, k);
  variant("c_rest", run_rest, false, g_count_rest);
  variant("c_moving", run_moving, false, g_count_moving);
  variant("c_pgs", run_rest, true, g_count_pgs);
  caps("cap_rest", run_rest, false, g_count_rest, 8);
  caps("cap_moving", run_moving, false, g_count_moving, 2);
  caps("cap_pgs", run_rest, true, g_count_pgs, 8);

  // bad_status: the setup only (a contact solve that does not return ok is data: cinfo)
  o << "done windows " << g_window << " bad_status " << g_setup_bad;
  o.write();
  return g_setup_bad ? 1 : 0;
}
