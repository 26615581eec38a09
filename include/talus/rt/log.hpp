#pragma once
/// \file rt/log.hpp
/// Lines of text for the port's log channel (talus::port::log_write) without printf: strings,
/// integers of any width (64-bit too), numbers in fixed-point or scientific notation, bits in
/// hexadecimal, and the loop's quantiles (rt/loop.hpp). Header-only; no heap, no libc
/// formatting, no locale: the same text on every target.
///
///   talus::rt::LogLine<> line;
///   line << "solve " << talus::rt::fixed(dt_ns * 1e-3, 1) << " us, sum f_z " << talus::rt::fixed(fz, 3)
///        << " N, median " << loop.stats().exec.median() << " ns";
///   line.write();   // the line and '\n' through talus::port::log_write, then the line is empty
///
/// Why not printf on a bare-metal target: the Cortex-M toolchain files link newlib-nano
/// (--specs=nano.specs), whose printf formats no floating point (`%f` prints nothing) unless
/// the image is linked with `-u _printf_float`, which brings newlib's dtoa and malloc into
/// the image; and it has no `long long` (`%llu` prints "lu" and the arguments after it may
/// shift). printf also goes through newlib's stdio, which allocates its buffers with malloc.
///
/// Numbers: fixed(x, d) prints x's integer part and its fraction rounded half away from zero
/// to d decimals (d ≤ 9), within one unit of the last decimal (the last digit may differ by
/// one from printf's exact rounding of the binary value); |x| ≥ 1.8e19 falls back to
/// sci(x, 9). sci(x, n) prints n significant digits (1 ≤ n ≤ 9) and a signed exponent of at
/// least two digits. NaN and
/// infinities print as nan, inf, -inf. A line longer than its capacity is cut (truncated()).
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <talus/rt/loop.hpp>
#include <talus/rt/port.hpp>

namespace talus::rt {

/// x with `decimals` digits after the point (0 … 9): `line << fixed(x, 3)`.
struct Fixed {
  double value = 0;
  int decimals = 3;
};
/// x in scientific notation with `digits` significant digits (1 … 9): `line << sci(x)`.
struct Scientific {
  double value = 0;
  int digits = 3;
};
/// v as "0x" and 16 lowercase hex digits: the bits of a double, compared exactly (`line << hex(bits)`).
struct Hex {
  std::uint64_t value = 0;
};
constexpr Fixed fixed(double x, int decimals = 3) { return Fixed{x, decimals}; }
constexpr Scientific sci(double x, int digits = 3) { return Scientific{x, digits}; }
constexpr Hex hex(std::uint64_t v) { return Hex{v}; }

/// One line of at most Capacity − 1 characters, built in place (no heap) and written with
/// write(). `line << 1.5` prints fixed(1.5, 6), as printf's `%f` would.
template <std::size_t Capacity = 128>
class LogLine {
  static_assert(Capacity >= 2, "talus: LogLine needs room for one character");

 public:
  LogLine& operator<<(const char* s) {
    if (s == nullptr) s = "(null)";
    while (*s) put(*s++);
    return *this;
  }
  LogLine& operator<<(char c) {
    put(c);
    return *this;
  }
  LogLine& operator<<(bool b) { return *this << (b ? "true" : "false"); }
  /// Any integer type, signed or unsigned, up to 64 bits (char prints as a character).
  template <class I,
            std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool> && !std::is_same_v<I, char>, int> = 0>
  LogLine& operator<<(I v) {
    if constexpr (std::is_signed_v<I>) {
      if (v < 0) {
        put('-');
        return put_unsigned(std::uint64_t(0) - static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
      }
    }
    return put_unsigned(static_cast<std::uint64_t>(v));
  }
  LogLine& operator<<(double x) { return *this << fixed(x, 6); }
  LogLine& operator<<(Fixed f) {
    const int d = f.decimals < 0 ? 0 : f.decimals > 9 ? 9 : f.decimals;
    double x = f.value;
    if (special(x)) return *this;
    const bool negative = x < 0;
    if (negative) x = -x;
    if (!(x < 1.8e19)) return *this << sci(f.value, 9);
    // The integer part and the fraction are exact in double; only the fraction is scaled, so
    // the rounding is to the decimals, not to x·10^d, whose double loses them beyond 2^53.
    const std::uint64_t scale = pow10(d);
    std::uint64_t whole = static_cast<std::uint64_t>(x);
    std::uint64_t decimals =
        static_cast<std::uint64_t>((x - static_cast<double>(whole)) * static_cast<double>(scale) + 0.5);
    if (decimals >= scale) {  // 0.9996 at d = 3 → 1.000
      decimals -= scale;
      ++whole;
    }
    if (negative && (whole != 0 || decimals != 0)) put('-');
    put_unsigned(whole);
    if (d > 0) {
      put('.');
      put_digits(decimals, d);
    }
    return *this;
  }
  LogLine& operator<<(Scientific s) {
    const int n = s.digits < 1 ? 1 : s.digits > 9 ? 9 : s.digits;
    double x = s.value;
    if (special(x)) return *this;
    if (x < 0) {
      put('-');
      x = -x;
    }
    int e = 0;
    if (x != 0) {
      while (x >= 10) {
        x /= 10;
        ++e;
      }
      while (x < 1) {
        x *= 10;
        --e;
      }
    }
    std::uint64_t m = static_cast<std::uint64_t>(x * static_cast<double>(pow10(n - 1)) + 0.5);
    if (m >= pow10(n)) {  // 9.995 → 10.0
      m /= 10;
      ++e;
    }
    const std::uint64_t lead = pow10(n - 1);
    put(static_cast<char>('0' + m / lead));
    if (n > 1) {
      put('.');
      put_digits(m % lead, n - 1);
    }
    put('e');
    put(e < 0 ? '-' : '+');
    put_digits(static_cast<std::uint64_t>(e < 0 ? -e : e), e <= -100 || e >= 100 ? 3 : 2);
    return *this;
  }
  LogLine& operator<<(Hex h) {
    *this << "0x";
    for (int shift = 60; shift >= 0; shift -= 4) {
      const unsigned d = static_cast<unsigned>(h.value >> shift) & 0xFu;
      put(static_cast<char>(d < 10 ? '0' + d : 'a' + (d - 10)));
    }
    return *this;
  }
  /// A loop quantile in ns: ">= " first when it is only a lower bound (Quantile::prefix()).
  LogLine& operator<<(const Quantile& q) { return *this << q.prefix() << q.ns; }

  const char* c_str() const { return buf_; }
  std::size_t size() const { return n_; }
  /// Characters were dropped because the line was full.
  bool truncated() const { return truncated_; }
  void clear() {
    n_ = 0;
    buf_[0] = '\0';
    truncated_ = false;
  }
  /// The line and a newline to talus::port::log_write; then the line is empty.
  void write() {
    port::log_write(buf_, n_);
    port::log_write("\n", 1);
    clear();
  }

 private:
  static constexpr std::uint64_t pow10(int k) {
    std::uint64_t p = 1;
    for (int i = 0; i < k; ++i) p *= 10;
    return p;
  }
  void put(char c) {
    if (n_ + 1 < Capacity) {
      buf_[n_++] = c;
      buf_[n_] = '\0';
    } else {
      truncated_ = true;
    }
  }
  LogLine& put_unsigned(std::uint64_t v) {
    char tmp[20];
    int k = 0;
    do {
      tmp[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (k > 0) put(tmp[--k]);
    return *this;
  }
  /// v with exactly `width` digits (leading zeros).
  void put_digits(std::uint64_t v, int width) {
    char tmp[20];
    for (int i = width - 1; i >= 0; --i) {
      tmp[i] = static_cast<char>('0' + v % 10);
      v /= 10;
    }
    for (int i = 0; i < width; ++i) put(tmp[i]);
  }
  /// NaN and ±inf, printed; true if x was one of them.
  bool special(double x) {
    if (x != x) {
      *this << "nan";
      return true;
    }
    if (x > 1.7976931348623157e308 || x < -1.7976931348623157e308) {
      *this << (x < 0 ? "-inf" : "inf");
      return true;
    }
    return false;
  }

  char buf_[Capacity] = {};
  std::size_t n_ = 0;
  bool truncated_ = false;
};

}  // namespace talus::rt
