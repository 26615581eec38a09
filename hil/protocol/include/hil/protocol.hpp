#pragma once
/// \file protocol.hpp
/// The HIL link: framed, checksummed messages between the plant (host harness) and the
/// controller firmware, one exchange per control period. Header-only, no heap, no exceptions;
/// builds for every talus target.
///
/// Frame on the wire:  COBS( version | type | sequence | payload | CRC-32 ) 0x00
///   version   u8    kVersion; a frame of another version is rejected (bad_version)
///   type      u8    MessageType; a type the receiver does not know is rejected (unknown_type)
///   sequence  u32   the sender's counter, +1 per frame sent; a command echoes the sequence of
///                   the sensor frame it answers
///   payload         fixed length per type (a frame of another length: bad_length)
///   CRC-32    u32   over version .. payload (crc32.hpp says why 32 bits)
/// All integers little-endian, whatever the host's order; measurements and τ as IEEE 754
/// binary32 (float): IMUs and drives resolve far less than float's 24 bits, and it halves the
/// frames, which matters on a serial link (and on the emulated board, whose UART0 moves one
/// byte per QEMU main-loop iteration, ~50 µs: a double-precision round trip took ~24 ms).
/// Sizes for solo12 (12 joints): sensor 157 bytes, command 168 bytes before COBS (+2 for COBS,
/// +1 delimiter). At 1 kHz with 10-bit UART characters that is 1.6 Mbit/s each way: a real board needs a fast UART (≥ 2 Mbaud), SPI or Ethernet for
/// 1 kHz; the emulated board's UART over TCP has no baud rate.
///
/// Receiving: Parser takes bytes as they arrive, resynchronises at every 0x00, and accepts a
/// frame only if it decodes, its CRC matches, its version, type and length are right, and its
/// sequence is newer than the last accepted one; every rejection is counted by reason
/// (ParserStats), as are sequence gaps (frames lost on the way).
#include <hil/cobs.hpp>
#include <hil/crc32.hpp>

#include <array>
#include <cstdint>
#include <cstring>

namespace talus::hil {

/// 4: the command carries the estimate's velocity covariance; 3: its NIS; 2: sensors only
/// (encoders, IMU, switches); 1 sent the plant's state
constexpr std::uint8_t kVersion = 4;
constexpr std::size_t kHeaderSize = 6;  ///< version, type, sequence
constexpr std::size_t kCrcSize = 4;

enum class MessageType : std::uint8_t { sensor = 1, command = 2 };

// ---- little-endian byte writer / reader ------------------------------------------------

struct Writer {
  std::uint8_t* p;
  void u8(std::uint8_t x) { *p++ = x; }
  void u16(std::uint16_t x) {
    u8(static_cast<std::uint8_t>(x));
    u8(static_cast<std::uint8_t>(x >> 8));
  }
  void u32(std::uint32_t x) {
    u16(static_cast<std::uint16_t>(x));
    u16(static_cast<std::uint16_t>(x >> 16));
  }
  void u64(std::uint64_t x) {
    u32(static_cast<std::uint32_t>(x));
    u32(static_cast<std::uint32_t>(x >> 32));
  }
  void f64(double x) {
    std::uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    u64(u);
  }
  void f32(double x) {  // rounded to binary32 (NaN and ±Inf stay what they are)
    const float f = static_cast<float>(x);
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    u32(u);
  }
};

struct Reader {
  const std::uint8_t* p;
  std::uint8_t u8() { return *p++; }
  std::uint16_t u16() {
    const std::uint16_t lo = u8();
    return static_cast<std::uint16_t>(lo | (u8() << 8));
  }
  std::uint32_t u32() {
    const std::uint32_t lo = u16();
    return lo | (static_cast<std::uint32_t>(u16()) << 16);
  }
  std::uint64_t u64() {
    const std::uint64_t lo = u32();
    return lo | (static_cast<std::uint64_t>(u32()) << 32);
  }
  double f64() {
    const std::uint64_t u = u64();
    double x;
    std::memcpy(&x, &u, sizeof x);
    return x;
  }
  double f32() {
    const std::uint32_t u = u32();
    float x;
    std::memcpy(&x, &u, sizeof x);
    return static_cast<double>(x);
  }
};

// ---- messages ----------------------------------------------------------------------------

/// Bits of SensorMessage::request: what the operator (the harness's scenario) asks.
enum Request : std::uint8_t {
  request_lift_foot0 = 1u << 0,  ///< bits 0..3: lift foot k (one at a time; the lowest set bit counts)
  request_end = 1u << 7,         ///< last frame of the run: answer it, then stop
};

/// Joint encoders: a joint angle is a signed count of kEncoderStep radians (an 18-bit
/// joint-side absolute encoder, 2π/2¹⁸ = 24 µrad per count, as on ANYmal's drives; Solo-12's
/// 5000-line motor encoders behind their 9:1 gear resolve 35 µrad).
constexpr double kEncoderStep = 6.283185307179586 / 262144.0;

/// Bits of SensorMessage::flags: which optional measurements the frame carries.
enum SensorFlags : std::uint8_t {
  sensor_has_attitude = 1u << 0,  ///< attitude holds the IMU's own orientation estimate
  sensor_has_switches = 1u << 1,  ///< contacts holds the feet's contact switches
};

/// Plant → firmware, once per period: what a legged robot's firmware measures, nothing more
/// (no base pose, no base velocity). NJ joints in the model's joint order.
///   encoder      joint angles, counts of kEncoderStep rad (quantised)
///   joint_rate   joint velocities from the drives (rad/s, noisy)
///   gyro         IMU angular rate (rad/s), IMU axes = the base frame B
///   accel        IMU specific force (m/s², B axes; +9.81 along B's z when level at rest)
///   attitude     the IMU's own orientation estimate (w, x, y, z; B in its world; yaw drifts),
///                valid when flags has sensor_has_attitude
///   contacts     bit k: foot k's contact switch, valid when flags has sensor_has_switches
///   request      Request bits
/// The IMU samples at the period (1 kHz): gyro and accel are the period's samples.
template <int NJ>
struct SensorMessage {
  static constexpr MessageType type = MessageType::sensor;
  static constexpr std::size_t payload_size = 8 + 4 * NJ + 4 * NJ + 4 * 3 + 4 * 3 + 4 * 4 + 3;
  std::uint32_t sequence = 0;
  std::uint64_t plant_time_ns = 0;
  std::array<std::int32_t, NJ> encoder{};
  std::array<double, NJ> joint_rate{};
  std::array<double, 3> gyro{};
  std::array<double, 3> accel{};
  std::array<double, 4> attitude{1, 0, 0, 0};
  std::uint8_t flags = 0;
  std::uint8_t contacts = 0;
  std::uint8_t request = 0;

  void write(Writer& w) const {
    w.u64(plant_time_ns);
    for (std::int32_t x : encoder) w.u32(static_cast<std::uint32_t>(x));
    for (double x : joint_rate) w.f32(x);
    for (double x : gyro) w.f32(x);
    for (double x : accel) w.f32(x);
    for (double x : attitude) w.f32(x);
    w.u8(flags);
    w.u8(contacts);
    w.u8(request);
  }
  void read(Reader& r) {
    plant_time_ns = r.u64();
    for (std::int32_t& x : encoder) x = static_cast<std::int32_t>(r.u32());
    for (double& x : joint_rate) x = r.f32();
    for (double& x : gyro) x = r.f32();
    for (double& x : accel) x = r.f32();
    for (double& x : attitude) x = r.f32();
    flags = r.u8();
    contacts = r.u8();
    request = r.u8();
  }
};

/// The firmware's fault counters, sent with every command.
enum Fault : int {
  fault_rx_rejected,     ///< sensor frames the firmware's parser rejected (all reasons)
  fault_rx_missed,       ///< sensor sequence numbers never received (gaps)
  fault_watchdog,        ///< periods without a sensor frame in time
  fault_sensor_invalid,  ///< sensor frames with NaN or out-of-range values
  fault_talus,           ///< steps where a talus call returned a non-ok Status (damping commanded)
  fault_cone_fallback,   ///< steps where the friction-cone solver hit its iteration cap (its last iterate commanded)
  fault_estimator,       ///< frames the state estimator refused (the controller then commanded damping)
  fault_restart,         ///< estimator restarts after a gap in the samples
  fault_count
};

/// Firmware → plant, once per period: the joint torques (N·m, joint order of the model) that
/// answer the sensor frame `sequence`, the controller's state, the instruction counts of the
/// estimator's update and of the controller's step that produced them (QEMU -icount
/// instructions or DWT cycles on Cortex-M; 0 where not measured), the fault counters, and the
/// estimate the controller used (for the rig's log and verdict: base position (m) and
/// velocity (m/s) in the estimate's world frame, orientation (w, x, y, z)), and the estimator's
/// normalised innovation squared of this period's correction: the sum over the measurements
/// that corrected (nis, dimensionless) and their count of rows (nis_dof; 0: no correction), a
/// χ²(nis_dof) draw when the filter is consistent; and the covariance of the velocity's error
/// (the filter's ξ_v block, world axes, m²/s²: xx, xy, xz, yy, yz, zz), from which the rig
/// judges the estimate's consistency against the truth (NEES).
template <int NJ>
struct CommandMessage {
  static constexpr MessageType type = MessageType::command;
  static constexpr std::size_t payload_size = 4 * NJ + 1 + 4 + 4 + 4 * fault_count + 4 * 10 + 4 + 1 + 4 * 6;
  std::uint32_t sequence = 0;
  std::array<double, NJ> tau{};
  std::uint8_t state = 0;
  std::uint32_t step_instructions = 0;      ///< the controller's step
  std::uint32_t estimate_instructions = 0;  ///< the estimator's update
  std::array<std::uint32_t, fault_count> faults{};
  std::array<double, 3> position{};
  std::array<double, 4> orientation{1, 0, 0, 0};
  std::array<double, 3> velocity{};
  double nis = 0;
  std::uint8_t nis_dof = 0;
  std::array<double, 6> velocity_covariance{};

  void write(Writer& w) const {
    for (double x : tau) w.f32(x);
    w.u8(state);
    w.u32(step_instructions);
    w.u32(estimate_instructions);
    for (std::uint32_t x : faults) w.u32(x);
    for (double x : position) w.f32(x);
    for (double x : orientation) w.f32(x);
    for (double x : velocity) w.f32(x);
    w.f32(nis);
    w.u8(nis_dof);
    for (double x : velocity_covariance) w.f32(x);
  }
  void read(Reader& r) {
    for (double& x : tau) x = r.f32();
    state = r.u8();
    step_instructions = r.u32();
    estimate_instructions = r.u32();
    for (std::uint32_t& x : faults) x = r.u32();
    for (double& x : position) x = r.f32();
    for (double& x : orientation) x = r.f32();
    for (double& x : velocity) x = r.f32();
    nis = r.f32();
    nis_dof = r.u8();
    for (double& x : velocity_covariance) x = r.f32();
  }
};

/// Bytes of a message's frame on the wire, delimiter included (the most it can take).
template <class Msg>
constexpr std::size_t max_frame_size() {
  return cobs_max_encoded(kHeaderSize + Msg::payload_size + kCrcSize) + 1;
}

/// Writes m's frame (delimiter included) into out; returns its length, 0 if cap is too small.
template <class Msg>
std::size_t encode_frame(const Msg& m, std::uint8_t* out, std::size_t cap) {
  std::uint8_t raw[kHeaderSize + Msg::payload_size + kCrcSize];
  Writer w{raw};
  w.u8(kVersion);
  w.u8(static_cast<std::uint8_t>(Msg::type));
  w.u32(m.sequence);
  m.write(w);
  w.u32(crc32(raw, kHeaderSize + Msg::payload_size));
  if (cap == 0) return 0;
  const std::size_t n = cobs_encode(raw, sizeof raw, out, cap - 1);
  if (n == 0) return 0;
  out[n] = 0;
  return n + 1;
}

// ---- receiving ---------------------------------------------------------------------------

/// Why frames were rejected, and what was lost. rejected() is their sum.
struct ParserStats {
  std::uint32_t accepted = 0;
  std::uint32_t bad_cobs = 0;    ///< not a valid COBS encoding
  std::uint32_t too_long = 0;    ///< longer than any frame this parser takes
  std::uint32_t bad_length = 0;  ///< shorter than a header and CRC, or a payload of the wrong length
  std::uint32_t bad_crc = 0;
  std::uint32_t bad_version = 0;
  std::uint32_t unknown_type = 0;  ///< a type this parser was not told to expect
  std::uint32_t repeated = 0;      ///< the sequence of the last accepted frame again
  std::uint32_t stale = 0;         ///< an older sequence
  std::uint32_t missed = 0;        ///< sequence numbers skipped between accepted frames
  std::uint32_t rejected() const {
    return bad_cobs + too_long + bad_length + bad_crc + bad_version + unknown_type + repeated + stale;
  }
};

/// Streaming parser for frames of one message type Msg (what one side of the link receives).
/// feed() returns true when a frame has been accepted; take() then decodes it.
template <class Msg>
class Parser {
 public:
  static constexpr std::size_t raw_size = kHeaderSize + Msg::payload_size + kCrcSize;
  static constexpr std::size_t encoded_capacity = cobs_max_encoded(raw_size);

  bool feed(std::uint8_t byte) {
    if (byte != 0) {
      if (n_ < encoded_capacity) enc_[n_++] = byte;
      else overlong_ = true;
      return false;
    }
    const bool was_overlong = overlong_;
    const std::size_t n = n_;
    n_ = 0;
    overlong_ = false;
    if (was_overlong) return reject(stats_.too_long);
    if (n == 0) return false;  // back-to-back delimiters: nothing between them
    std::uint8_t raw[raw_size + 1];
    const std::size_t len = cobs_decode(enc_, n, raw, sizeof raw);
    if (len == static_cast<std::size_t>(-1)) return reject(stats_.bad_cobs);
    if (len < kHeaderSize + kCrcSize) return reject(stats_.bad_length);
    Reader crc_reader{raw + len - kCrcSize};
    if (crc_reader.u32() != crc32(raw, len - kCrcSize)) return reject(stats_.bad_crc);
    Reader r{raw};
    if (r.u8() != kVersion) return reject(stats_.bad_version);
    if (r.u8() != static_cast<std::uint8_t>(Msg::type)) return reject(stats_.unknown_type);
    if (len != raw_size) return reject(stats_.bad_length);
    const std::uint32_t seq = r.u32();
    if (have_sequence_) {
      const std::int32_t ahead = static_cast<std::int32_t>(seq - last_sequence_);  // wraps at 2³²
      if (ahead == 0) return reject(stats_.repeated);
      if (ahead < 0) return reject(stats_.stale);
      stats_.missed += static_cast<std::uint32_t>(ahead - 1);
    }
    have_sequence_ = true;
    last_sequence_ = seq;
    std::memcpy(frame_, raw, raw_size);
    ++stats_.accepted;
    return true;
  }

  /// The frame feed() last accepted.
  void take(Msg& m) const {
    Reader r{frame_ + 2};
    m.sequence = r.u32();
    m.read(r);
  }

  const ParserStats& stats() const { return stats_; }

 private:
  bool reject(std::uint32_t& counter) {
    ++counter;
    return false;
  }
  std::uint8_t enc_[encoded_capacity] = {};
  std::uint8_t frame_[raw_size] = {};
  std::size_t n_ = 0;
  bool overlong_ = false;
  bool have_sequence_ = false;
  std::uint32_t last_sequence_ = 0;
  ParserStats stats_;
};

}  // namespace talus::hil
