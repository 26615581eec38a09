#pragma once
// Constrained forward dynamics and impulses in the bench report (constrained_bench.cpp).
#include <functional>
#include <string>
#include <vector>

namespace talus_bench {
struct ConstrainedRow {
  std::string model, setup, work;
};
std::vector<ConstrainedRow>& constrained_rows();
/// Registers the constrained benchmarks (names "constrained/<model>/<work>").
void register_constrained_benchmarks(const std::string& models_dir);
/// Markdown table of the constrained rows, from the median times `get` returns.
std::string constrained_table(const std::function<bool(const std::string&, double&)>& get);
}  // namespace talus_bench
