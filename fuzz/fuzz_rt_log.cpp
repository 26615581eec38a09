// fuzz_rt_log: talus::rt::LogLine (include/talus/rt/log.hpp), the printf-free text line of the
// targets' log channel, on arbitrary sequences of strings, characters, booleans, integers of
// every width, fixed(x, d), sci(x, n), plain doubles, hex(bits), loop quantiles and clear().
// Byte 0 chooses the capacity (2, 3, 8, 32 or 128 characters with the NUL); then each op is a
// kind byte and its operands (doubles raw or "nice" by the kind byte's top bit).
// Promises: nothing is written beyond the line's capacity (ASan: the line sits at the end of an
// allocation of exactly its size); after every op c_str() is NUL-terminated at size() and
// size() < Capacity; the text is the untruncated text's prefix and truncated() is true exactly
// when that text did not fit; fixed(x, d) of a finite x parses back (strtold) within one unit
// of its last decimal, or, for |x| ≥ 1.8e19 only, is sci(x, 9); sci(x, n) has n significant
// digits (a non-zero leading digit), a signed exponent of two or three digits, and parses back
// within one unit of its last digit; NaN prints "nan", ±inf "inf" / "-inf"; integers parse
// back to their value; hex(v) is "0x" and v's 16 lowercase digits; `line << x` for a double is
// fixed(x, 6); no heap.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

#include <talus/rt/log.hpp>

#include "fuzz_support.hpp"

namespace {

using talus_fuzz::finding;
constexpr talus::Status ok = talus::Status::ok;

constexpr std::size_t kTextMax = 4096;  // the untruncated text of one input, at most
constexpr int kMaxOps = 24;

/// One op's text, unbounded (512 characters hold any single op), checked for its meaning.
using Wide = talus::rt::LogLine<512>;

void fail(const char* promise, const char* text) { finding("LogLine", ok, promise, text); }

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// "nan", "inf", "-inf" for the non-finite x; true if x was one.
bool check_special(double x, const char* text) {
  if (std::isnan(x)) {
    if (std::strcmp(text, "nan") != 0) fail("NaN does not print as nan", text);
    return true;
  }
  if (std::isinf(x)) {
    if (std::strcmp(text, x < 0 ? "-inf" : "inf") != 0) fail("an infinity does not print as inf / -inf", text);
    return true;
  }
  return false;
}

/// sci(x, n): [-]D[.D{n-1}]e(+|-)EE[E], D ≠ 0 unless x = 0, within one unit of the last digit.
void check_sci(double x, int n, const char* text) {
  if (check_special(x, text)) return;
  const char* p = text;
  if (*p == '-') ++p;
  if (!is_digit(*p)) return fail("sci: no leading digit", text);
  if (*p == '0' && x != 0) fail("sci: a leading zero of a non-zero value", text);
  ++p;
  int digits = 1;
  if (*p == '.') {
    ++p;
    while (is_digit(*p)) {
      ++p;
      ++digits;
    }
  }
  if (digits != n) fail("sci: not n significant digits", text);
  if (*p++ != 'e' || (*p != '+' && *p != '-')) return fail("sci: no signed exponent", text);
  ++p;
  int width = 0;
  while (is_digit(p[width])) ++width;
  if (p[width] != '\0' || width < 2 || width > 3) return fail("sci: the exponent is not two or three digits", text);
  const int e = std::atoi(p - 1);
  if ((width == 3) != (e <= -100 || e >= 100)) fail("sci: the exponent's width", text);
  if ((text[0] == '-') != std::signbit(x) && x != 0) fail("sci: the sign", text);
  const long double parsed = std::strtold(text, nullptr);
  const long double unit = std::pow(10.0L, static_cast<long double>(e - n + 1));
  if (std::fabs(parsed - static_cast<long double>(x)) > unit) fail("sci: more than one unit in the last digit", text);
}

/// fixed(x, d): [-]I[.D{d}] within one unit of the last decimal; sci(x, 9) beyond 1.8e19.
void check_fixed(double x, int decimals, const char* text) {
  if (check_special(x, text)) return;
  const int d = decimals < 0 ? 0 : decimals > 9 ? 9 : decimals;
  if (std::strchr(text, 'e') != nullptr) {
    if (std::fabs(x) < 1.8e19) fail("fixed: scientific fallback below 1.8e19", text);
    return check_sci(x, 9, text);
  }
  if (std::fabs(x) >= 1.8e19) fail("fixed: no scientific fallback at or beyond 1.8e19", text);
  const char* p = text;
  if (*p == '-') ++p;
  if (!is_digit(*p)) return fail("fixed: no integer digit", text);
  if (*p == '0' && is_digit(p[1])) fail("fixed: a leading zero", text);
  while (is_digit(*p)) ++p;
  int got = 0;
  if (*p == '.') {
    ++p;
    while (is_digit(*p)) {
      ++p;
      ++got;
    }
    if (d == 0) fail("fixed: a point without decimals", text);
  }
  if (*p != '\0' || got != d) return fail("fixed: not d decimals", text);
  const long double parsed = std::strtold(text, nullptr);
  const long double unit = std::pow(10.0L, static_cast<long double>(-d));
  if (std::fabs(parsed - static_cast<long double>(x)) > unit)
    fail("fixed: more than one unit in the last decimal", text);
  if (text[0] == '-' && !(x < 0)) fail("fixed: a minus sign on a non-negative value", text);
}

template <class I>
void check_integer(I v, const char* text) {
  char* end = nullptr;
  bool same;
  if constexpr (std::is_signed_v<I>) {
    same = std::strtoll(text, &end, 10) == static_cast<long long>(v);
  } else {
    same = text[0] != '-' && std::strtoull(text, &end, 10) == static_cast<unsigned long long>(v);
  }
  if (!same || end == text || *end != '\0') fail("an integer does not parse back to its value", text);
  const char* p = text[0] == '-' ? text + 1 : text;
  if (p[0] == '0' && p[1] != '\0') fail("an integer with a leading zero", text);
}

template <class I>
I integer(talus_fuzz::Reader& in) {
  std::uint64_t u = 0;
  for (std::size_t k = 0; k < sizeof(I); ++k) u |= static_cast<std::uint64_t>(in.byte()) << (8 * k);
  I v;
  std::memcpy(&v, &u, sizeof v);  // little-endian host: the low bytes
  return v;
}

/// Appends the integer of type I read from the input to the line, and (check) checks it.
template <class I, class Line>
void integer_op(talus_fuzz::Reader& in, Line& line, bool check) {
  const I v = integer<I>(in);
  (void)talus_fuzz::no_heap("operator<<(integer)", [&] {
    line << v;
    return ok;
  });
  if (check) check_integer(v, line.c_str());
}

/// The untruncated text since the last clear(), and what the line under test must show.
struct Expected {
  char text[kTextMax + 1] = {};
  std::size_t size = 0;
  void append(const char* s, std::size_t n) {
    for (std::size_t i = 0; i < n && size < kTextMax; ++i) text[size++] = s[i];
  }
};

/// One op appended to `wide`; with check (wide empty before, and wide enough for any op) its
/// text is checked for its meaning. False: the op is clear(), not applied.
template <class Line>
bool apply_op(talus_fuzz::Reader& in, Line& wide, bool check) {  // wide: the line written
  const std::uint8_t kind = in.byte();
  in.set_raw((kind & 0x80) != 0);
  auto put = [&](auto value, const char* function) {
    (void)talus_fuzz::no_heap(function, [&] {
      wide << value;
      return ok;
    });
  };
  switch (kind & 0x0F) {
    case 0: {  // a string of 0–63 bytes (no NUL), sometimes nullptr
      char s[64];
      const int n = in.byte() % 64;
      for (int i = 0; i < n; ++i) s[i] = static_cast<char>(in.byte() | 1);
      s[n] = '\0';
      const bool null = (kind & 0x40) != 0;
      put(null ? static_cast<const char*>(nullptr) : static_cast<const char*>(s), "operator<<(const char*)");
      if (check) {
        if (std::strcmp(wide.c_str(), null ? "(null)" : s) != 0) fail("a string is not copied", wide.c_str());
      }
      return true;
    }
    case 1: {
      const char c = static_cast<char>(in.byte() | 1);
      put(c, "operator<<(char)");
      if (check) {
        if (wide.size() != 1 || wide.c_str()[0] != c) fail("a character is not copied", wide.c_str());
      }
      return true;
    }
    case 2: {
      const bool b = in.bit();
      put(b, "operator<<(bool)");
      if (check) {
        if (std::strcmp(wide.c_str(), b ? "true" : "false") != 0) fail("a bool", wide.c_str());
      }
      return true;
    }
    case 3: {
      switch (in.byte() % 10) {
        case 0: integer_op<signed char>(in, wide, check); break;
        case 1: integer_op<unsigned char>(in, wide, check); break;
        case 2: integer_op<short>(in, wide, check); break;
        case 3: integer_op<unsigned short>(in, wide, check); break;
        case 4: integer_op<int>(in, wide, check); break;
        case 5: integer_op<unsigned>(in, wide, check); break;
        case 6: integer_op<long>(in, wide, check); break;
        case 7: integer_op<unsigned long>(in, wide, check); break;
        case 8: integer_op<long long>(in, wide, check); break;
        default: integer_op<unsigned long long>(in, wide, check); break;
      }
      return true;
    }
    case 4: {
      const double x = in.scalar();
      const int d = static_cast<std::int8_t>(in.byte());  // −128 … 127: clamped to 0 … 9
      put(talus::rt::fixed(x, d), "operator<<(Fixed)");
      if (check) {
        check_fixed(x, d, wide.c_str());
      }
      return true;
    }
    case 5: {
      const double x = in.scalar();
      const int n = static_cast<std::int8_t>(in.byte());
      put(talus::rt::sci(x, n), "operator<<(Scientific)");
      if (check) {
        check_sci(x, n < 1 ? 1 : n > 9 ? 9 : n, wide.c_str());
      }
      return true;
    }
    case 6: {  // a plain double is fixed(x, 6)
      const double x = in.scalar();
      put(x, "operator<<(double)");
      if (check) {
        Wide again;
        again << talus::rt::fixed(x, 6);
        if (std::strcmp(wide.c_str(), again.c_str()) != 0) fail("line << x is not fixed(x, 6)", wide.c_str());
        check_fixed(x, 6, wide.c_str());
      }
      return true;
    }
    case 7: {
      talus::rt::Quantile q;
      q.ns = integer<std::uint64_t>(in);
      q.lower_bound = in.bit();
      put(q, "operator<<(Quantile)");
      if (check) {
        const char* t = wide.c_str();
        if (q.lower_bound && std::strncmp(t, ">= ", 3) != 0) fail("a lower-bound quantile without >= ", t);
        check_integer(q.ns, q.lower_bound ? t + 3 : t);
      }
      return true;
    }
    case 8: return false;
    case 9: {  // bits in hexadecimal: "0x" and exactly 16 lowercase digits
      const std::uint64_t v = integer<std::uint64_t>(in);
      put(talus::rt::hex(v), "operator<<(Hex)");
      if (check) {
        const char* t = wide.c_str();
        bool digits = wide.size() == 18 && t[0] == '0' && t[1] == 'x';
        for (std::size_t i = 2; digits && i < 18; ++i) digits = is_digit(t[i]) || (t[i] >= 'a' && t[i] <= 'f');
        if (!digits || std::strtoull(t + 2, nullptr, 16) != v) fail("hex is not 0x and the 16 digits of v", t);
      }
      return true;
    }
    default: {  // the extremes of fixed and sci: 9 decimals / digits of a raw double
      const double x = in.raw_double();
      put(talus::rt::fixed(x, 9), "operator<<(Fixed)");
      if (check) {
        check_fixed(x, 9, wide.c_str());
      }
      return true;
    }
  }
}

/// The line under test after an op: NUL-terminated at size(), the expected text's prefix,
/// truncated() exactly when the expected text did not fit.
template <std::size_t Capacity>
void check_line(const talus::rt::LogLine<Capacity>& line, const Expected& e) {
  const std::size_t n = line.size();
  if (n >= Capacity) return fail("size() is not below the capacity", "");
  if (line.c_str()[n] != '\0' || std::strlen(line.c_str()) != n) fail("c_str() is not NUL-terminated at size()", "");
  const std::size_t fits = e.size < Capacity - 1 ? e.size : Capacity - 1;
  if (n != fits || std::memcmp(line.c_str(), e.text, n) != 0) fail("the line is not the text's prefix", line.c_str());
  if (line.truncated() != (e.size > Capacity - 1)) fail("truncated() is not exactly 'the text did not fit'", "");
}

template <std::size_t Capacity>
void run(talus_fuzz::Reader& in) {
  using Line = talus::rt::LogLine<Capacity>;
  // The line at the very end of an allocation of its exact size: a write past it is ASan's.
  void* storage = std::malloc(sizeof(Line));
  Line* line = new (storage) Line;
  Expected e;
  Wide wide;
  for (int op = 0; op < kMaxOps && !in.empty(); ++op) {
    talus_fuzz::Reader again = in;  // the same operands, for the line under test
    wide.clear();
    if (!apply_op(in, wide, true)) {
      (void)talus_fuzz::no_heap("clear", [&] {
        line->clear();
        return ok;
      });
      e.size = 0;
    } else {
      if (wide.truncated()) fail("one op does not fit 512 characters", wide.c_str());
      if (e.size + wide.size() > kTextMax) break;
      (void)apply_op(again, *line, false);
      e.append(wide.c_str(), wide.size());
    }
    check_line(*line, e);
  }
  line->~Line();
  std::free(storage);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  talus_fuzz::Reader in(data, size);
  switch (in.byte() % 5) {
    case 0: run<2>(in); break;
    case 1: run<3>(in); break;
    case 2: run<8>(in); break;
    case 3: run<32>(in); break;
    default: run<128>(in); break;
  }
  return 0;
}
