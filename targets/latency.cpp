// talus_latency: the wake-up latency of a fixed-rate loop on this Linux machine, measured the
// way cyclictest measures it, through talus's own loop runner and port (rt/loop.hpp,
// port/posix): rt_setup (mlockall, stack pre-faulting, CPU affinity, SCHED_FIFO; each refused
// step is reported and skipped), then `periods` releases of an empty body, each one's
// latency = start − release, and a histogram of them. Run it on the RT machine the firmware
// will run on, as root (or with CAP_SYS_NICE and CAP_IPC_LOCK), beside the load it will meet:
//
//   talus_latency [--period-us 1000] [--periods 60000] [--priority 80] [--cpu -1]
//                 [--bin-us 2] [--max-us 0] [--quiet]
//
// Output: the rt_setup steps, then min / mean / p50 / p99 / p99.9 / max latency (µs) and
// the histogram (bins of --bin-us, 255 of them, the last one the overflow), one line per
// non-empty bin. Exit code 0; 1 on bad arguments, a failed run or a histogram that does not
// add up to the count; 2 if --max-us is given and the worst latency exceeded it (for a
// user's acceptance run on the target machine).
#include <talus/port/posix.hpp>
#include <talus/rt/loop.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

struct Options {
  std::uint64_t period_us = 1000;
  std::uint64_t periods = 60000;
  int priority = 80;
  int cpu = -1;
  std::uint64_t bin_us = 2;
  std::uint64_t max_us = 0;
  bool quiet = false;
};

bool parse_number(const char* text, long long low, long long high, long long& out) {
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || value < low || value > high) return false;
  out = value;
  return true;
}

// Returns false (after printing why) on an unknown option or a value out of range.
bool parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const char* name = argv[i];
    if (std::strcmp(name, "--quiet") == 0) {
      o.quiet = true;
      continue;
    }
    long long value = 0;
    const bool has_value = i + 1 < argc;
    const char* text = has_value ? argv[i + 1] : "";
    bool ok = false;
    if (std::strcmp(name, "--period-us") == 0) {
      ok = parse_number(text, 10, 10000000, value);
      o.period_us = static_cast<std::uint64_t>(value);
    } else if (std::strcmp(name, "--periods") == 0) {
      ok = parse_number(text, 1, 100000000, value);
      o.periods = static_cast<std::uint64_t>(value);
    } else if (std::strcmp(name, "--priority") == 0) {
      ok = parse_number(text, 0, 99, value);
      o.priority = static_cast<int>(value);
    } else if (std::strcmp(name, "--cpu") == 0) {
      ok = parse_number(text, -1, 1023, value);
      o.cpu = static_cast<int>(value);
    } else if (std::strcmp(name, "--bin-us") == 0) {
      ok = parse_number(text, 1, 100000, value);
      o.bin_us = static_cast<std::uint64_t>(value);
    } else if (std::strcmp(name, "--max-us") == 0) {
      ok = parse_number(text, 0, 10000000, value);
      o.max_us = static_cast<std::uint64_t>(value);
    } else {
      std::fprintf(stderr, "talus_latency: unknown option %s\n", name);
      return false;
    }
    if (!ok) {
      std::fprintf(stderr, "talus_latency: %s needs a number in range (got \"%s\")\n", name, text);
      return false;
    }
    ++i;
  }
  return true;
}

constexpr int kBins = 256;
using Stats = talus::rt::TimeStats<kBins>;

void print_quantile(const char* name, const talus::rt::Quantile& q) {
  std::printf("  %-6s %s%.1f us\n", name, q.prefix(), static_cast<double>(q.ns) / 1000.0);
}

void print_histogram(const Stats& s) {
  std::printf("histogram (%llu us bins; count per bin, empty bins left out):\n",
              static_cast<unsigned long long>(s.bin_ns / 1000));
  for (int k = 0; k < kBins; ++k) {
    if (s.histogram[k] == 0) continue;
    const unsigned long long from = static_cast<unsigned long long>(k) * (s.bin_ns / 1000);
    if (k == kBins - 1) {
      std::printf("  >= %llu us: %u (overflow)\n", from, s.histogram[k]);
    } else {
      std::printf("  [%llu, %llu) us: %u\n", from, from + s.bin_ns / 1000, s.histogram[k]);
    }
  }
}

// The histogram must account for every sample (a saturated bin would not).
bool histogram_adds_up(const Stats& s) {
  std::uint64_t sum = 0;
  for (int k = 0; k < kBins; ++k) sum += s.histogram[k];
  return sum == s.count;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_options(argc, argv, o)) return 1;
  talus::port::init();
  talus::port::posix::RtConfig rt;
  rt.priority = o.priority;
  rt.cpu = o.cpu;
  rt.verbose = !o.quiet;
  const talus::port::posix::RtReport got = talus::port::posix::rt_setup(rt);

  talus::rt::LoopConfig config;
  config.period_ns = o.period_us * 1000;
  config.latency_bin_ns = o.bin_us * 1000;
  static talus::rt::Loop<kBins> loop(config);  // 2 × 1 KiB of counters: not on the stack
  if (loop.run(o.periods, [](const talus::rt::Tick&) {}) != talus::Status::ok) {
    std::fprintf(stderr, "talus_latency: the loop refused its configuration\n");
    return 1;
  }
  const Stats& s = loop.stats().latency;
  std::printf("talus_latency: %llu periods of %llu us; SCHED_FIFO %s, memory locked %s, pinned %s\n",
              static_cast<unsigned long long>(s.count), static_cast<unsigned long long>(o.period_us),
              got.fifo ? "yes" : "no", got.locked ? "yes" : "no", got.pinned ? "yes" : "no");
  std::printf("wake-up latency (start - release):\n");
  std::printf("  %-6s %.1f us\n", "min", static_cast<double>(s.min_ns) / 1000.0);
  std::printf("  %-6s %.1f us\n", "mean", static_cast<double>(s.mean_ns()) / 1000.0);
  print_quantile("p50", s.quantile(500));
  print_quantile("p99", s.quantile(990));
  print_quantile("p99.9", s.quantile(999));
  std::printf("  %-6s %.1f us\n", "max", static_cast<double>(s.max_ns) / 1000.0);
  std::printf("deadline misses (body ended after its period): %llu\n",
              static_cast<unsigned long long>(loop.stats().misses));
  if (!o.quiet) print_histogram(s);
  if (!histogram_adds_up(s) || s.count != o.periods) {
    std::fprintf(stderr, "talus_latency: the histogram does not account for every period\n");
    return 1;
  }
  if (o.max_us > 0 && s.max_ns > o.max_us * 1000) {
    std::printf("talus_latency: worst latency %.1f us exceeds --max-us %llu\n", static_cast<double>(s.max_ns) / 1000.0,
                static_cast<unsigned long long>(o.max_us));
    return 2;
  }
  return 0;
}
