#pragma once
// The main of talus's benchmark programs (bench_dynamics.cpp, contact_bench.cpp), one copy:
// their flags (--quick, --table-only, then Google Benchmark's), the run with each benchmark's
// median collected by name, and the machine's description for the report's head. Each program
// registers its benchmarks between parse_flags() and run(), then prints its own table.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <map>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

// The build's flags and CMake build type, set by bench/CMakeLists.txt.
#ifndef TALUS_BENCH_FLAGS
#define TALUS_BENCH_FLAGS "?"
#endif
#ifndef TALUS_BENCH_BUILD_TYPE
#define TALUS_BENCH_BUILD_TYPE "?"
#endif

namespace talus_bench_main {

/// Console output as usual (or none) + the median CPU time of each benchmark, by name.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  explicit CollectingReporter(OutputOptions opts) : ConsoleReporter(opts) {}
  std::map<std::string, double> median_ns;  // name -> ns per call
  std::map<std::string, double> single_ns;  // without repetitions: the one run

  void ReportRuns(const std::vector<Run>& reports) override {
    for (const Run& r : reports) {
      if (r.error_occurred) continue;
      const std::string name = r.run_name.function_name;
      const double t = r.GetAdjustedCPUTime() * 1e9 / benchmark::GetTimeUnitMultiplier(r.time_unit);
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") median_ns[name] = t;
      else if (r.run_type == Run::RT_Iteration) single_ns[name] = t;
    }
    ConsoleReporter::ReportRuns(reports);
  }
  /// The median of `name` (or its one run without repetitions); false if it did not run.
  bool get(const std::string& name, double& t) const {
    for (const auto* m : {&median_ns, &single_ns}) {
      const auto it = m->find(name);
      if (it != m->end()) {
        t = it->second;
        return true;
      }
    }
    return false;
  }
};

struct Flags {
  bool quick = false;       // --quick: short runs, a smoke test, not a measurement
  bool table_only = false;  // --table-only: no per-benchmark console output
};

/// Hands Google Benchmark `defaults`, then --quick's shorter runs, then the user's own flags
/// (the last of a flag wins). False if a flag is not Google Benchmark's.
inline bool parse_flags(int argc, char** argv, const std::vector<std::string>& defaults, Flags& flags) {
  // Static: Google Benchmark keeps pointers into argv (the executable's name in its context).
  static std::vector<std::string> args_store;
  static std::vector<char*> args;
  args_store.assign(1, argv[0]);
  args_store.insert(args_store.end(), defaults.begin(), defaults.end());
  std::vector<std::string> user;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) flags.quick = true;
    else if (std::strcmp(argv[i], "--table-only") == 0) flags.table_only = true;
    else user.emplace_back(argv[i]);
  }
  if (flags.quick) {
    args_store.emplace_back("--benchmark_min_time=0.01");
    args_store.emplace_back("--benchmark_repetitions=3");
  }
  for (auto& u : user) args_store.push_back(u);  // after the defaults: the user's flags win
  args.clear();
  for (auto& a : args_store) args.push_back(a.data());
  int bargc = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&bargc, args.data());
  return !benchmark::ReportUnrecognizedArguments(bargc, args.data());
}

/// Runs every registered benchmark into `reporter` (silently with --table-only).
inline void run(const Flags& flags, CollectingReporter& reporter) {
  struct NullBuffer : std::streambuf {
    int overflow(int c) override { return c; }
  } null_buffer;
  std::ostream null_stream(&null_buffer);
  if (flags.table_only) {
    reporter.SetOutputStream(&null_stream);
    reporter.SetErrorStream(&null_stream);
  }
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
}

/// The console's colours when stdout is a terminal.
inline benchmark::ConsoleReporter::OutputOptions console_options() {
  return isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_Color : benchmark::ConsoleReporter::OO_None;
}

/// /proc/cpuinfo's first "model name", or "unknown".
inline std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const auto c = line.find(':');
      if (c != std::string::npos) return line.substr(c + 2);
    }
  return "unknown";
}

/// The report's line on the build: compiler, talus's flags, CMake build type.
inline std::string build_line() {
  return std::string("- compiler: ") + __VERSION__ + "; talus flags: " + TALUS_BENCH_FLAGS + " (CMake build type " +
         TALUS_BENCH_BUILD_TYPE + "), double precision, no -ffast-math\n";
}

}  // namespace talus_bench_main
