#pragma once
// What the reference tools (reference.cpp, contact_reference.cpp, estimation_reference.cpp)
// share: their command line (parse_arguments) and their output, the generated header's text
// (Writer: every double as a hexadecimal float, exact), written to its file only when that text
// changes, so an unchanged reference does not rebuild the targets that include it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace talus_target_ref_io {

/// The generated header's text: C++ arrays of exact doubles (and ints).
struct Writer {
  std::string text;
  void raw(const std::string& s) { text += s; }
  void number(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", x);
    text += buf;
  }
  /// static constexpr double name[rows][cols] = {{...}, ...};
  void array2(const std::string& name, const std::vector<std::vector<double>>& rows) {
    const std::size_t cols = rows.empty() ? 0 : rows[0].size();
    text += "  static constexpr double " + name + "[" + std::to_string(rows.size()) + "][" + std::to_string(cols) +
            "] = {\n";
    for (const auto& r : rows) {
      text += "    {";
      for (std::size_t k = 0; k < r.size(); ++k) {
        if (k) text += ", ";
        number(r[k]);
      }
      text += "},\n";
    }
    text += "  };\n";
  }
  /// static constexpr double name[n] = {...};
  void array1(const std::string& name, const std::vector<double>& v) {
    text += "  static constexpr double " + name + "[" + std::to_string(v.size()) + "] = {";
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (k) text += ", ";
      number(v[k]);
    }
    text += "};\n";
  }
  /// static constexpr int name[n] = {...};
  void array1i(const std::string& name, const std::vector<int>& v) {
    text += "  static constexpr int " + name + "[" + std::to_string(v.size()) + "] = {";
    for (std::size_t k = 0; k < v.size(); ++k) text += (k ? ", " : "") + std::to_string(v[k]);
    text += "};\n";
  }
};

/// Writes `text` to `path` unless the file already holds exactly it. False (with a message
/// naming `tool`) if it cannot be written.
inline bool write_if_changed(const char* path, const std::string& text, const char* tool) {
  std::string old;
  if (FILE* f = std::fopen(path, "rb")) {
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) old.append(buf, n);
    std::fclose(f);
  }
  if (old == text) return true;
  FILE* f = std::fopen(path, "wb");
  if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fclose(f) != 0) {
    std::fprintf(stderr, "%s: cannot write %s\n", tool, path);
    return false;
  }
  return true;
}

/// The tools' command line: --out <header> [--states N] [--seed S] [--verbose]; a tool
/// without states (the estimator's) refuses --states and --seed. False, after printing the
/// usage, on anything else or without --out.
struct Arguments {
  const char* out = nullptr;
  int states = 20;
  std::uint64_t seed = 20240601;  // the states' seed, the same in every tool
  bool verbose = false;
};
inline bool parse_arguments(int argc, char** argv, bool with_states, Arguments& a) {
  bool ok = true;
  for (int i = 1; ok && i < argc; ++i) {
    const bool value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--out") && value) a.out = argv[++i];
    else if (with_states && !std::strcmp(argv[i], "--states") && value) a.states = std::atoi(argv[++i]);
    else if (with_states && !std::strcmp(argv[i], "--seed") && value) a.seed = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--verbose")) a.verbose = true;
    else ok = false;
  }
  if (ok && a.out != nullptr && a.states >= 1) return true;
  std::fprintf(stderr, "usage: %s --out <header>%s [--verbose]\n", argv[0],
               with_states ? " [--states N] [--seed S]" : "");
  return false;
}

}  // namespace talus_target_ref_io
