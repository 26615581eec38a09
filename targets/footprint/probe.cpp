// Instruction-count probe (tools/footprint-report.sh): solo12 forward kinematics (q; q, v, a),
// CRBA, RNEA and ABA, one call per measurement window, on 100 random states after one warm-up
// call, plus calibration windows. The same source on every target; what counts the
// instructions depends on where it runs:
//
//   Cortex-M (QEMU -icount shift=N)  SysTick's current value, read directly around the call
//       with interrupts masked. Under -icount SysTick (25 MHz, 40 ns per tick) advances with
//       virtual time, 2^N ns per instruction: instructions = ticks · 40 / 2^N, exact after
//       rounding for N ≥ 7. 24-bit counter: the difference is taken modulo 2^24, fine for
//       windows shorter than 2^24 ticks (5.2 M instructions at N = 7). Printed as ticks.
//   x86 bare metal (QEMU -icount shift=0)  the TSC read around the call: it counts virtual
//       ns, one per instruction at shift 0. Printed as ticks (= instructions).
//   x86-64 under valgrind --tool=callgrind --collect-atstart=no
//       each window toggles collection on and off around the call and dumps (client
//       requests; no-ops when not under valgrind). Counted: Ir of the dumps.
//   anything else (aarch64 under qemu-aarch64 -singlestep -d exec,nochain)
//       the window is delimited by calls to talus_fp_begin() and talus_fp_end(); every
//       instruction executed in between is one "Trace" line of QEMU's log.
//
// Each window also runs the calling sequence (an indirect call and return); the "empty"
// window measures that overhead and the report subtracts it, and "nop1000" (exactly 1000
// nops) checks the whole chain: it must come out at 1000.
//
// Output (talus::port::log_write): one line per window, "win <index> <label> <state> <ticks>"
// (ticks only on Cortex-M and x86 bare metal, else "-"), and on Cortex-M "stack <label> <bytes>": the deepest
// stack one call used, over the label's windows (stack painted before each window; bytes
// from the stack pointer at the call down to the lowest word that changed).
#include <talus/models/solo12.hpp>
#include <talus/talus.hpp>

#include "footprint.hpp"
#include "measure.hpp"

namespace {

using S = TALUS_FP_SCALAR;
namespace solo = talus::models::solo12;
using Model = solo::Model<S>;
constexpr int kStates = 100;

const Model g_model = solo::make_model<S>();
talus::Data<Model> g_data;
Model::ConfigVector g_q[kStates];
Model::TangentVector g_v[kStates], g_a[kStates], g_tau[kStates], g_out;
volatile int g_bad = 0;  // calls that did not return ok

void note(talus::Status s) {
  if (s != talus::Status::ok) g_bad = g_bad + 1;
}

// The measured calls. noinline: one function per algorithm, called through a pointer.
__attribute__((noinline)) void run_empty(int) { asm volatile(""); }
__attribute__((noinline)) void run_nop1000(int) { asm volatile(".rept 1000\n\tnop\n\t.endr"); }
__attribute__((noinline)) void run_fk_q(int s) { note(talus::forward_kinematics(g_model, g_data, g_q[s])); }
__attribute__((noinline)) void run_fk_qva(int s) {
  note(talus::forward_kinematics(g_model, g_data, g_q[s], g_v[s], g_a[s]));
}
__attribute__((noinline)) void run_crba(int s) { note(talus::crba(g_model, g_data, g_q[s])); }
__attribute__((noinline)) void run_rnea(int s) { note(talus::rnea(g_model, g_data, g_q[s], g_v[s], g_a[s], g_out)); }
__attribute__((noinline)) void run_aba(int s) { note(talus::aba(g_model, g_data, g_q[s], g_v[s], g_tau[s], g_out)); }

using footprint::Fn;
using footprint::g_stack_max;
using footprint::g_window;
using footprint::kCounter;
using footprint::window;

/// One warm-up call ("cold", state 0), then one window per state ("warm").
void algorithm(const char* label, Fn f) {
  g_stack_max = 0;
  window(label, f, 0, 0, true);
  for (int s = 0; s < kStates; ++s) window(label, f, s, s);
#if defined(__arm__)
  footprint::Out st;
  st << "stack " << label << " " << g_stack_max;
  st.write();
#endif
}

}  // namespace

int main() {
#if !defined(__arm__)
  talus::port::init();
#endif
  footprint::Rng rng(20250101);
  for (int s = 0; s < kStates; ++s) footprint::random_state(rng, g_q[s], g_v[s], g_a[s], g_tau[s]);

  footprint::Out o;
  o << "probe target " << TALUS_FP_TARGET << " scalar " << (sizeof(S) == 8 ? "double" : "float") << " profile "
#if defined(TALUS_REPRODUCIBLE)
    << "reproducible"
#elif defined(TALUS_COMPACT)
    << "compact"
#else
    << "default"
#endif
    << " counter " << kCounter << " states " << kStates;
  o.write();

  for (int k = 0; k < 10; ++k) window("empty", run_empty, k, k);
  for (int k = 0; k < 3; ++k) window("nop1000", run_nop1000, k, k);
  algorithm("fk_q", run_fk_q);
  algorithm("fk_qva", run_fk_qva);
  algorithm("crba", run_crba);
  algorithm("rnea", run_rnea);
  algorithm("aba", run_aba);

  o << "done windows " << g_window << " bad_status " << g_bad;
  o.write();
  return g_bad ? 1 : 0;
}
