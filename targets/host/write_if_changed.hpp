#pragma once
// The reference tools' output (reference.cpp, contact_reference.cpp): a generated header is
// rewritten only when its text changes, so an unchanged reference does not rebuild the targets
// that include it.
#include <cstdio>
#include <string>

namespace talus_target_ref_io {

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

}  // namespace talus_target_ref_io
