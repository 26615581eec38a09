#pragma once
// Link faults the harness injects, one per control period at most, in either direction
// (down: harness → firmware, sensor frames; up: firmware → harness, command frames). The
// harness is the link here: it corrupts a whole encoded frame (delimiter included) before the
// receiving side's parser sees it.
//   bitflip    one bit of one byte inside the frame flipped (never the delimiter, and never a
//              flip that makes a byte 0x00: that would be a delimiter error, i.e. a truncation
//              plus a garbage frame, counted twice by any receiver)
//   drop       the frame never arrives
//   duplicate  the frame arrives twice
//   truncate   the frame loses 1..len−1 bytes before its delimiter
//   delay      the frame arrives one period late (after the next period's frame is sent / before
//              the next period's reply is read)
// What each must do to the receiving side's counters (protocol.hpp ParserStats), and to the
// round trip, is what judge() in harness.cpp reconciles exactly.
#include <cstdint>
#include <random>
#include <vector>

namespace talus_hil {

enum class LinkFault : std::uint8_t { none, bitflip, drop, duplicate, truncate, delay, count };

inline const char* to_string(LinkFault f) {
  switch (f) {
    case LinkFault::none: return "";
    case LinkFault::bitflip: return "bitflip";
    case LinkFault::drop: return "drop";
    case LinkFault::duplicate: return "duplicate";
    case LinkFault::truncate: return "truncate";
    case LinkFault::delay: return "delay";
    case LinkFault::count: break;
  }
  return "?";
}

/// Corrupts an encoded frame (its last byte is the 0x00 delimiter) in place: bitflip, truncate.
inline void corrupt(std::vector<std::uint8_t>& frame, LinkFault f, std::mt19937_64& rng) {
  const std::size_t body = frame.size() - 1;  // bytes before the delimiter
  if (f == LinkFault::bitflip) {
    for (;;) {
      const std::size_t i = rng() % body;
      const std::uint8_t flipped = static_cast<std::uint8_t>(frame[i] ^ (1u << (rng() % 8)));
      if (flipped == 0) continue;
      frame[i] = flipped;
      return;
    }
  }
  if (f == LinkFault::truncate) {
    const std::size_t cut = 1 + rng() % (body - 1);
    frame.erase(frame.end() - 1 - static_cast<std::ptrdiff_t>(cut), frame.end() - 1);
  }
}

}  // namespace talus_hil
