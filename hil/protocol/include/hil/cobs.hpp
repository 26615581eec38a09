#pragma once
/// \file cobs.hpp
/// Consistent Overhead Byte Stuffing (Cheshire and Baker, 1999): a frame's bytes re-coded so
/// that they contain no 0x00, which then delimits frames on the wire. A receiver that starts
/// mid-stream, or after garbage, is back in step at the next 0x00. Overhead: one byte per 254
/// bytes of data, plus one.
///
/// Encoding: groups of up to 254 non-zero bytes, each preceded by a code byte = 1 + the
/// group's length; a code below 0xFF means "a zero followed this group" (except at the end).
#include <cstddef>
#include <cstdint>

namespace talus::hil {

/// Largest encoding of n bytes (without the 0x00 delimiter).
constexpr std::size_t cobs_max_encoded(std::size_t n) { return n + n / 254 + 2; }

/// Encodes n bytes into out (capacity cap, no delimiter written). Returns the encoded length,
/// 0 if cap is too small.
inline std::size_t cobs_encode(const std::uint8_t* in, std::size_t n, std::uint8_t* out, std::size_t cap) {
  if (cap < cobs_max_encoded(n)) return 0;
  std::size_t o = 0, code_pos = o++;
  std::uint8_t code = 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (in[i] == 0) {  // close the group: its code says a zero follows
      out[code_pos] = code;
      code_pos = o++;
      code = 1;
      continue;
    }
    out[o++] = in[i];
    if (++code == 0xFF) {  // a full group of 254 bytes: no zero implied
      out[code_pos] = code;
      code_pos = o++;
      code = 1;
    }
  }
  out[code_pos] = code;
  return o;
}

/// Decodes n bytes (without the delimiter) into out (capacity cap). Returns the decoded
/// length, or SIZE_MAX if the input is not a valid encoding (a 0x00 inside, a group running
/// past the end) or does not fit.
inline std::size_t cobs_decode(const std::uint8_t* in, std::size_t n, std::uint8_t* out, std::size_t cap) {
  constexpr std::size_t bad = static_cast<std::size_t>(-1);
  std::size_t i = 0, o = 0;
  while (i < n) {
    const std::uint8_t code = in[i++];
    if (code == 0) return bad;
    for (int k = 1; k < code; ++k) {
      if (i >= n || in[i] == 0 || o >= cap) return bad;
      out[o++] = in[i++];
    }
    if (code < 0xFF && i < n) {
      if (o >= cap) return bad;
      out[o++] = 0;
    }
  }
  return o;
}

}  // namespace talus::hil
