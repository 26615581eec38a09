#pragma once
/// \file crc32.hpp
/// CRC-32 (IEEE 802.3 / zlib: reflected polynomial 0xEDB88320, initial value and final XOR
/// 0xFFFFFFFF; check value crc32("123456789") = 0xCBF43926), four bits at a time from a
/// 16-entry table (64 bytes of flash, two table lookups per byte).
///
/// Why CRC-32 and not CRC-16-CCITT: the HIL link corrupts frames on purpose, up to a few per
/// cent of ~300-byte frames at 1 kHz, i.e. thousands of corrupted frames per run. A 16-bit CRC
/// lets a random corruption through with probability 2⁻¹⁶ (one in 65 536 corrupted frames:
/// within reach of a long run); CRC-32's 2⁻³² is not, and it still detects every burst of up
/// to 32 bits and every error of up to 3 bits in frames of this length (Hamming distance 4
/// up to 91 607 bits).
#include <cstddef>
#include <cstdint>

namespace talus::hil {

/// Continues a CRC-32 over n more bytes (start with crc = 0).
inline std::uint32_t crc32(const std::uint8_t* p, std::size_t n, std::uint32_t crc = 0) {
  static constexpr std::uint32_t table[16] = {
      0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u, 0x4DB26158u, 0x5005713Cu,
      0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu, 0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu};
  crc = ~crc;
  for (std::size_t i = 0; i < n; ++i) {
    crc = (crc >> 4) ^ table[(crc ^ p[i]) & 0xFu];
    crc = (crc >> 4) ^ table[(crc ^ (static_cast<std::uint32_t>(p[i]) >> 4)) & 0xFu];
  }
  return ~crc;
}

}  // namespace talus::hil
