#pragma once
/// \file rt/loop.hpp
/// Fixed-rate loop runner and execution-time statistics. Header-only, no heap, no
/// exceptions; the only contact with the hardware or OS is through talus::port
/// (now_ns, wait_until; see rt/port.hpp), so it runs unchanged on every target.
///
///   talus::rt::LoopConfig cfg;
///   cfg.period_ns = 1'000'000;                       // 1 kHz
///   cfg.overrun = talus::rt::Overrun::skip;
///   static talus::rt::Loop<> loop(cfg);              // statistics live in the object
///   (void)loop.run(1000, [&](const talus::rt::Tick& t) { control_step(t); return true; });
///   loop.stats().misses, loop.stats().exec.median_ns(), ...
///
/// Timing model. Releases are absolute: release(n) = t0 + n · period, t0 = now + period
/// at the call of run() (or the `start_ns` given), so the loop never drifts. Each iteration
/// waits until its release, runs the body once and measures
///   - latency = start − release    (wake-up lateness, the jitter of the platform)
///   - exec    = end − start        (execution time of the body)
/// An iteration misses its deadline when end > release + deadline (deadline defaults to the
/// period). Misses are counted, never hidden.
///
/// Overrun policy: what happens when an iteration ends after the next release.
///   - Overrun::skip: the missed releases are dropped; the next iteration is released at the
///     first period boundary after the end (phase kept, rate kept, the number of dropped
///     periods is counted in `skipped`). For controllers that must stay phase-locked to
///     sensors and actuators and for which a stale step is worthless.
///   - Overrun::catch_up: no period is dropped: late releases run back to back, immediately,
///     until the loop is on time again; if it is still late after `max_catch_up` consecutive
///     late iterations it falls back to skip (counted in `skipped`) so a long stall cannot
///     make it run flat out for ever. For loops where every step counts (an integrator, a
///     logger, a filter with a fixed dt).
#include <cstdint>
#include <type_traits>

#include <talus/rt/port.hpp>
#include <talus/status.hpp>

namespace talus::rt {

enum class Overrun : unsigned char {
  skip,      ///< drop the missed releases, resume at the next period boundary
  catch_up,  ///< run the missed releases back to back (at most max_catch_up), then skip
};

/// Min, max, mean and a fixed-bin histogram of durations in ns. Fixed size, no heap.
/// Bin k (0 ≤ k < Bins − 1) counts [k · bin_ns, (k + 1) · bin_ns); the last bin counts
/// everything ≥ (Bins − 1) · bin_ns (overflow). Medians and percentiles come from the
/// histogram: exact to within one bin width, clamped to [min, max]; a quantile that falls
/// in the overflow bin is reported as max.
template <int Bins = 64>
struct TimeStats {
  static_assert(Bins >= 2, "need at least one regular bin and the overflow bin");
  static constexpr int bins = Bins;

  std::uint64_t count = 0;
  std::uint64_t min_ns = ~std::uint64_t(0);
  std::uint64_t max_ns = 0;
  std::uint64_t sum_ns = 0;
  std::uint64_t bin_ns = 1000;
  std::uint32_t histogram[Bins] = {};

  void reset(std::uint64_t bin_width_ns) {
    count = 0;
    min_ns = ~std::uint64_t(0);
    max_ns = 0;
    sum_ns = 0;
    bin_ns = bin_width_ns > 0 ? bin_width_ns : 1;
    for (int k = 0; k < Bins; ++k) histogram[k] = 0;
  }

  void add(std::uint64_t ns) {
    ++count;
    if (ns < min_ns) min_ns = ns;
    if (ns > max_ns) max_ns = ns;
    sum_ns += ns;
    const std::uint64_t k = ns / bin_ns;
    const int bin = k < std::uint64_t(Bins - 1) ? static_cast<int>(k) : Bins - 1;
    if (histogram[bin] != ~std::uint32_t(0)) ++histogram[bin];
  }

  std::uint64_t mean_ns() const { return count ? sum_ns / count : 0; }

  /// Duration below which `per_mille`/1000 of the samples fall (500: median, 990: p99).
  /// Bin midpoint, within bin_ns / 2 of the exact value, clamped to [min_ns, max_ns].
  std::uint64_t quantile_ns(unsigned per_mille) const {
    if (count == 0) return 0;
    if (per_mille > 1000) per_mille = 1000;
    // rank of the sample (1-based) that the quantile names
    std::uint64_t rank = (count * per_mille + 999) / 1000;
    if (rank == 0) rank = 1;
    std::uint64_t seen = 0;
    for (int k = 0; k < Bins; ++k) {
      seen += histogram[k];
      if (seen >= rank) {
        if (k == Bins - 1) return max_ns;
        std::uint64_t mid = std::uint64_t(k) * bin_ns + bin_ns / 2;
        if (mid < min_ns) mid = min_ns;
        if (mid > max_ns) mid = max_ns;
        return mid;
      }
    }
    return max_ns;
  }

  std::uint64_t median_ns() const { return quantile_ns(500); }
};

struct LoopConfig {
  std::uint64_t period_ns = 1000000;   ///< release period (ns), > 0
  std::uint64_t deadline_ns = 0;       ///< relative deadline (ns); 0: the period
  Overrun overrun = Overrun::skip;     ///< see the file comment
  std::uint32_t max_catch_up = 4;      ///< Overrun::catch_up: late iterations in a row before skipping
  std::uint64_t exec_bin_ns = 1000;    ///< histogram bin width of execution times
  std::uint64_t latency_bin_ns = 1000; ///< histogram bin width of wake-up latencies
};

template <int Bins = 64>
struct LoopStats {
  std::uint64_t iterations = 0;  ///< body executions
  std::uint64_t misses = 0;      ///< iterations that ended after release + deadline
  std::uint64_t overruns = 0;    ///< iterations that ended after the next release
  std::uint64_t skipped = 0;     ///< releases dropped (Overrun::skip, or catch_up's fallback)
  std::uint64_t caught_up = 0;   ///< iterations released late and run back to back (catch_up)
  TimeStats<Bins> exec;          ///< end − start of the body
  TimeStats<Bins> latency;       ///< start − release
};

/// What the body gets each iteration.
struct Tick {
  std::uint64_t iteration = 0;    ///< 0, 1, 2, ... (body executions)
  std::uint64_t period_index = 0; ///< n of release(n) = t0 + n · period (skipped periods included)
  std::uint64_t release_ns = 0;   ///< when this iteration was due to start
  std::uint64_t deadline_ns = 0;  ///< when it must end
  std::uint64_t start_ns = 0;     ///< when it started
};

template <int Bins = 64>
class Loop {
 public:
  explicit Loop(const LoopConfig& config = LoopConfig{}) : config_(config) { reset_stats(); }

  const LoopConfig& config() const { return config_; }
  const LoopStats<Bins>& stats() const { return stats_; }

  void reset_stats() {
    stats_ = LoopStats<Bins>{};
    stats_.exec.reset(config_.exec_bin_ns);
    stats_.latency.reset(config_.latency_bin_ns);
  }

  /// Run `body` for `iterations` iterations (or until it returns false, if it returns bool),
  /// the first released one period after now. Statistics accumulate across calls until
  /// reset_stats(). Returns invalid_input (and runs nothing) if the period is 0.
  template <class Body>
  Status run(std::uint64_t iterations, Body&& body) {
    return run_from(port::now_ns() + config_.period_ns, iterations, static_cast<Body&&>(body));
  }

  /// Same, with the first release at the absolute time start_ns (port::now_ns() clock).
  template <class Body>
  Status run_from(std::uint64_t start_ns, std::uint64_t iterations, Body&& body) {
    const std::uint64_t T = config_.period_ns;
    if (T == 0) return Status::invalid_input;
    const std::uint64_t D = config_.deadline_ns ? config_.deadline_ns : T;
    const std::uint64_t t0 = start_ns;
    std::uint64_t n = 0;             // period index of the next release
    std::uint32_t late_in_a_row = 0; // catch_up: consecutive late releases
    for (std::uint64_t it = 0; it < iterations; ++it) {
      Tick tick;
      tick.iteration = it;
      tick.period_index = n;
      tick.release_ns = t0 + n * T;
      tick.deadline_ns = tick.release_ns + D;
      port::wait_until(tick.release_ns);
      tick.start_ns = port::now_ns();
      bool go_on = true;
      if constexpr (std::is_same_v<decltype(body(tick)), void>) {
        body(tick);
      } else {
        go_on = static_cast<bool>(body(tick));
      }
      const std::uint64_t end = port::now_ns();

      ++stats_.iterations;
      stats_.exec.add(end - tick.start_ns);
      stats_.latency.add(tick.start_ns >= tick.release_ns ? tick.start_ns - tick.release_ns : 0);
      if (end > tick.deadline_ns) ++stats_.misses;

      ++n;
      const std::uint64_t next = t0 + n * T;
      if (end > next) {
        ++stats_.overruns;
        if (config_.overrun == Overrun::catch_up && late_in_a_row < config_.max_catch_up) {
          ++late_in_a_row;
          ++stats_.caught_up;
        } else {
          const std::uint64_t resume = (end - t0) / T + 1;  // first boundary after `end`
          stats_.skipped += resume - n;
          n = resume;
          late_in_a_row = 0;
        }
      } else {
        late_in_a_row = 0;
      }
      if (!go_on) break;
    }
    return Status::ok;
  }

 private:
  LoopConfig config_;
  LoopStats<Bins> stats_;
};

}  // namespace talus::rt
