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
///   loop.stats().misses, loop.stats().exec.median(), ...
///
/// Quantiles are honest: TimeStats::quantile / median / p99 return a Quantile {ns,
/// lower_bound}. When the quantile falls in the histogram's overflow bin its value is not
/// known, only that it lies in [ns, max_ns]: lower_bound is true and it must be printed as
/// ">= ns" (Quantile::prefix()), never as a value (rt/log.hpp's LogLine prints a Quantile so).
///
/// Histogram defaults (LoopConfig::exec_bin_ns / latency_bin_ns = 0: automatic), with the
/// default 64 bins (2 × 256 bytes of counters):
///   - exec: period / 63 on every target (16 µs at 1 kHz): the regular bins cover one whole
///     period, so only an execution longer than the period (an overrun, counted anyway)
///     lands in the overflow bin.
///   - latency, Linux (__linux__): period / 63 as well. clock_nanosleep wakes tens of µs
///     late on a stock kernel, hundreds in the tail: 1 µs bins would put most wake-ups in
///     the overflow bin, where a quantile is only a lower bound.
///   - latency, bare metal: 1 µs bins (63 µs range). A busy-wait wakes within a few
///     instructions; anything later is an interrupt and worth resolving finely.
/// Set the widths explicitly for a finer resolution (e.g. targets/target_test.cpp: period /
/// 128), or use more bins (Loop<256>).
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

/// A quantile from the histogram. lower_bound false: ns is within bin_ns / 2 of the exact
/// value (exactly max_ns for the largest sample, the 1000 ‰ quantile). lower_bound true: the
/// quantile lies in the overflow bin; all that is known is ns ≤ value ≤ max_ns.
struct Quantile {
  std::uint64_t ns = 0;
  bool lower_bound = false;
  /// "" or ">= ": print prefix() then ns.
  const char* prefix() const { return lower_bound ? ">= " : ""; }
};

/// Min, max, mean and a fixed-bin histogram of durations in ns. Fixed size, no heap.
/// Bin k (0 ≤ k < Bins − 1) counts [k · bin_ns, (k + 1) · bin_ns); the last bin counts
/// everything ≥ (Bins − 1) · bin_ns (overflow; overflow_count()). Medians and percentiles
/// come from the histogram (quantile(): within bin_ns / 2, clamped to [min, max]), flagged
/// as lower bounds when they fall in the overflow bin.
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

  /// Samples in the overflow bin (≥ (Bins − 1) · bin_ns).
  std::uint64_t overflow_count() const { return histogram[Bins - 1]; }

  /// The duration of the sample of rank ⌈count · per_mille / 1000⌉ (500: median, 990: p99),
  /// from the histogram: the midpoint of its bin clamped to [min_ns, max_ns], or, in the
  /// overflow bin, the lower bound max((Bins − 1) · bin_ns, min_ns) with lower_bound set.
  /// The last sample (rank = count) is max_ns, exact. {0, false} without samples.
  Quantile quantile(unsigned per_mille) const {
    Quantile r;
    if (count == 0) return r;
    if (per_mille > 1000) per_mille = 1000;
    std::uint64_t rank = (count * per_mille + 999) / 1000;  // 1-based
    if (rank == 0) rank = 1;
    if (rank >= count) {
      r.ns = max_ns;
      return r;
    }
    std::uint64_t seen = 0;
    for (int k = 0; k < Bins - 1; ++k) {
      seen += histogram[k];
      if (seen >= rank) {
        std::uint64_t mid = std::uint64_t(k) * bin_ns + bin_ns / 2;
        if (mid < min_ns) mid = min_ns;
        if (mid > max_ns) mid = max_ns;
        r.ns = mid;
        return r;
      }
    }
    // overflow bin (or saturated counters): only a lower bound is known
    const std::uint64_t edge = std::uint64_t(Bins - 1) * bin_ns;
    r.ns = edge > min_ns ? edge : min_ns;
    if (r.ns > max_ns) r.ns = max_ns;
    r.lower_bound = true;
    return r;
  }
  Quantile median() const { return quantile(500); }
  Quantile p99() const { return quantile(990); }

  /// quantile(per_mille).ns alone: a lower bound shown as a value when the quantile is in the
  /// overflow bin (a median below the mean, a p99 below the maximum). Removed in the next release.
  /// \deprecated Use quantile(per_mille), which flags a lower bound (Quantile::lower_bound;
  /// print Quantile::prefix() and then Quantile::ns, or `LogLine << q`, rt/log.hpp).
  [[deprecated(
      "a lower bound shown as a value: use quantile(per_mille), which says so (Quantile::lower_bound, prefix())")]] std::
      uint64_t
      quantile_ns(unsigned per_mille) const {
    return quantile(per_mille).ns;
  }
  /// median().ns alone, with the same defect. Removed in the next release.
  /// \deprecated Use median() (or p99(), quantile()), which flags a lower bound.
  [[deprecated(
      "a lower bound shown as a value: use median(), which says so (Quantile::lower_bound, prefix())")]] std::uint64_t
  median_ns() const {
    return quantile(500).ns;
  }
};

struct LoopConfig {
  std::uint64_t period_ns = 1000000;  ///< release period (ns), > 0
  std::uint64_t deadline_ns = 0;      ///< relative deadline (ns); 0: the period
  Overrun overrun = Overrun::skip;    ///< see the file comment
  std::uint32_t max_catch_up = 4;     ///< Overrun::catch_up: late iterations in a row before skipping
  std::uint64_t exec_bin_ns = 0;      ///< histogram bin width of execution times; 0: period / (Bins − 1)
  std::uint64_t latency_bin_ns = 0;   ///< histogram bin width of wake-up latencies; 0: the target's
                                      ///< default (Linux: period / (Bins − 1), bare metal: 1 µs)
};

/// The bin widths a Loop<Bins> uses for `config` (the file comment says why): the width
/// given, or for 0 the default: ⌈period / (Bins − 1)⌉ (the regular bins cover one period),
/// or 1 µs for the latency on bare metal.
template <int Bins>
constexpr std::uint64_t exec_bin_width(const LoopConfig& config) {
  static_assert(Bins >= 2, "need at least one regular bin and the overflow bin");
  if (config.exec_bin_ns) return config.exec_bin_ns;
  return config.period_ns ? (config.period_ns + std::uint64_t(Bins - 2)) / std::uint64_t(Bins - 1) : 1;
}
template <int Bins>
constexpr std::uint64_t latency_bin_width(const LoopConfig& config) {
  if (config.latency_bin_ns) return config.latency_bin_ns;
#if defined(__linux__)
  LoopConfig c;
  c.period_ns = config.period_ns;
  return exec_bin_width<Bins>(c);
#else
  return 1000;
#endif
}

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
  std::uint64_t iteration = 0;     ///< 0, 1, 2, ... (body executions)
  std::uint64_t period_index = 0;  ///< n of release(n) = t0 + n · period (skipped periods included)
  std::uint64_t release_ns = 0;    ///< when this iteration was due to start
  std::uint64_t deadline_ns = 0;   ///< when it must end
  std::uint64_t start_ns = 0;      ///< when it started
};

template <int Bins = 64>
class Loop {
 public:
  explicit Loop(const LoopConfig& config = LoopConfig{}) : config_(config) { reset_stats(); }

  const LoopConfig& config() const { return config_; }
  const LoopStats<Bins>& stats() const { return stats_; }

  void reset_stats() {
    stats_ = LoopStats<Bins>{};
    stats_.exec.reset(exec_bin_width<Bins>(config_));
    stats_.latency.reset(latency_bin_width<Bins>(config_));
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
    std::uint64_t n = 0;              // period index of the next release
    std::uint32_t late_in_a_row = 0;  // catch_up: consecutive late releases
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
