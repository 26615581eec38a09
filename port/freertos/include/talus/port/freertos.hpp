#pragma once
/// \file freertos.hpp
/// talus under FreeRTOS (port/freertos): the control loop of rt/loop.hpp as a FreeRTOS task.
///
/// The port: <talus/rt/port.hpp> implemented over FreeRTOS (port/freertos/clock_freertos.cpp)
/// plus the family's own I/O and fault code (port/cortex-m or port/posix). now_ns() is the
/// kernel's tick count refined by SysTick (Cortex-M) or CLOCK_MONOTONIC (POSIX) within the
/// tick; wait_until() blocks in xTaskDelayUntil up to the tick that contains the release,
/// then spins for the rest (less than one tick; nothing when releases fall on ticks).
///
/// ControlTask runs one talus::rt::Loop in one static task. Its first release is on a tick
/// boundary, so with a period of whole ticks every release is a tick and the task never
/// spins: between periods it is blocked and lower priorities run.
///
///   // one task per robot controller, in static storage (it holds the stack: 4096 words)
///   static talus::rt::freertos::ControlTask<4096> control;
///   bool step(const talus::rt::Tick& t) { ...talus calls...; return true; }  // false: stop
///   talus::rt::LoopConfig cfg;  cfg.period_ns = 1'000'000;           // 1 kHz = 1 tick
///   control.start("control", configMAX_PRIORITIES - 1, cfg, 0, step);  // 0: run for ever
///   vTaskStartScheduler();
///
/// Priorities (port/README.md, "FreeRTOS"): the control task highest among tasks; interrupt
/// handlers that call FreeRTOS (…FromISR) must have a numerical priority at or above
/// configMAX_SYSCALL_INTERRUPT_PRIORITY (i.e. logically lower or equal); those above it are
/// never masked by the kernel or by talus's critical sections and must not call FreeRTOS.
///
/// Reentrancy: talus's algorithms are reentrant on distinct objects (Model is read-only;
/// Data, ConstraintSet and ContactProblem are per caller). Give each task its own Data and
/// sets; share a Model freely; share nothing else between tasks without a lock.
#include <cstddef>
#include <cstdint>

#include <talus/rt/loop.hpp>
#include <talus/rt/port.hpp>
#include <talus/status.hpp>

#include "FreeRTOS.h"
#include "task.h"

/// Put on every task function (xTaskCreateStatic's first argument). On 32-bit x86 the
/// IA32_flat kernel port starts a task with its stack 8 bytes off the 16-byte alignment the
/// i386 ABI promises at a call, and SSE code (aligned spills, movaps on 16-byte locals) needs
/// that alignment: the function realigns its stack on entry (force_align_arg_pointer).
/// Elsewhere empty.
#if defined(__i386__)
#define TALUS_FREERTOS_TASK_FUNCTION __attribute__((force_align_arg_pointer))
#else
#define TALUS_FREERTOS_TASK_FUNCTION
#endif

namespace talus::port::freertos {
/// The kernel tick period in ns (1e9 / configTICK_RATE_HZ).
std::uint64_t tick_ns();
}  // namespace talus::port::freertos

namespace talus::rt::freertos {

/// A talus control loop in a statically allocated FreeRTOS task. StackWords: the task's stack
/// in StackType_t words (compile time: it is a member array). Keep the object in static
/// storage and alive while the task runs.
template <std::size_t StackWords, int Bins = 64>
class ControlTask {
 public:
  using StepFunction = bool (*)(const Tick&);  ///< one period; return false to stop the loop

  /// Creates the task (xTaskCreateStatic); it runs `periods` periods of `config` (0: for
  /// ever), calling `step` once per period, then calls `on_done` (if any) from the task and
  /// suspends itself. invalid_input: a zero period, a null step, or start() called twice.
  Status start(const char* name, UBaseType_t priority, const LoopConfig& config, std::uint64_t periods,
               StepFunction step, void (*on_done)(ControlTask&) = nullptr) {
    if (handle_ != nullptr || step == nullptr || config.period_ns == 0) return Status::invalid_input;
    loop_ = Loop<Bins>(config);
    periods_ = periods;
    step_ = step;
    on_done_ = on_done;
    handle_ = xTaskCreateStatic(&ControlTask::entry, name, StackWords, this, priority, stack_, &tcb_);
    return handle_ != nullptr ? Status::ok : Status::invalid_input;
  }

  const Loop<Bins>& loop() const { return loop_; }  ///< statistics: misses, latency, exec
  Status status() const { return status_; }         ///< the loop's Status once done()
  bool done() const { return done_; }
  TaskHandle_t handle() const { return handle_; }
  static constexpr std::size_t stack_bytes() { return StackWords * sizeof(StackType_t); }
  const StackType_t* stack() const { return stack_; }  ///< the task's stack (lowest address)
  /// The deepest the task's stack has been, in bytes (uxTaskGetStackHighWaterMark).
  std::size_t stack_used_bytes() const {
    return handle_ ? (StackWords - uxTaskGetStackHighWaterMark(handle_)) * sizeof(StackType_t) : 0;
  }

 private:
  TALUS_FREERTOS_TASK_FUNCTION static void entry(void* self) { static_cast<ControlTask*>(self)->run(); }
  void run() {
    // First release: the tick after the next one, so the first period starts on a tick.
    const std::uint64_t tick = talus::port::freertos::tick_ns();
    const std::uint64_t start = (talus::port::now_ns() / tick + 2) * tick;
    const std::uint64_t n = periods_ ? periods_ : ~std::uint64_t(0);
    status_ = loop_.run_from(start, n, [this](const Tick& t) { return step_(t); });
    done_ = true;
    if (on_done_) on_done_(*this);
    vTaskSuspend(nullptr);  // a FreeRTOS task never returns
  }

  StaticTask_t tcb_{};
  StackType_t stack_[StackWords]{};
  Loop<Bins> loop_{};
  std::uint64_t periods_ = 0;
  StepFunction step_ = nullptr;
  void (*on_done_)(ControlTask&) = nullptr;
  TaskHandle_t handle_ = nullptr;
  Status status_ = Status::ok;
  volatile bool done_ = false;
};

}  // namespace talus::rt::freertos
