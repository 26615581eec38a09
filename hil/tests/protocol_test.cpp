// label: hil — the HIL link's framing (hil/protocol): round trips of both message types, every
// corruption class rejected and counted, resynchronisation, a parser fuzz run of 10⁶ frames that
// never accepts a frame other than one sent, no heap. Checked against independent facts: the
// CRC-32 check value of the standard, COBS's defined encodings, the sent messages themselves.
#include <gtest/gtest.h>

#include <hil/protocol.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "support/alloc_trap.hpp"

namespace {

using namespace talus::hil;
using Sensor = SensorMessage<12>;  // solo12
using Command = CommandMessage<12>;

struct Rng {  // xorshift64*: deterministic, no libc state
  std::uint64_t s = 0x9E3779B97F4A7C15ull;
  std::uint64_t next() {
    s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
    return s * 0x2545F4914F6CDD1Dull;
  }
  int index(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
  // A value exact in binary32 by construction (a 24-bit integer times 2^e, |x| < 2^(23+e)), not
  // by a double → float → double round trip: GCC 12.2 at -O3 drops that round trip when its
  // SLP vectorizer packs these loops (a miscompile; -fno-tree-slp-vectorize keeps it).
  double binary32(int e) {
    return std::ldexp(static_cast<double>(static_cast<std::int32_t>(next() >> 40) - (1 << 23)), e);
  }
};

Sensor random_sensor(Rng& r, std::uint32_t seq) {
  Sensor m;
  m.sequence = seq;
  m.plant_time_ns = r.next();
  // Values on the wire are binary32: round trips are exact for values that are floats.
  for (std::int32_t& x : m.encoder) x = static_cast<std::int32_t>(r.next());
  for (double& x : m.joint_rate) x = r.binary32(-18);
  for (double& x : m.gyro) x = r.binary32(-18);
  for (double& x : m.accel) x = r.binary32(-15);
  for (double& x : m.attitude) x = r.binary32(-23);
  m.flags = static_cast<std::uint8_t>(r.next());
  m.contacts = static_cast<std::uint8_t>(r.next());
  m.request = static_cast<std::uint8_t>(r.next());
  return m;
}
Command random_command(Rng& r, std::uint32_t seq) {
  Command m;
  m.sequence = seq;
  for (double& x : m.tau) x = r.binary32(-21);
  m.state = static_cast<std::uint8_t>(r.next());
  m.step_instructions = static_cast<std::uint32_t>(r.next());
  m.estimate_instructions = static_cast<std::uint32_t>(r.next());
  for (std::uint32_t& x : m.faults) x = static_cast<std::uint32_t>(r.next());
  for (double& x : m.position) x = r.binary32(-19);
  for (double& x : m.orientation) x = r.binary32(-23);
  for (double& x : m.velocity) x = r.binary32(-20);
  m.nis = r.binary32(-16);
  m.nis_dof = static_cast<std::uint8_t>(r.next());
  for (double& x : m.velocity_covariance) x = r.binary32(-30);
  return m;
}
bool same(const Sensor& a, const Sensor& b) {
  return a.sequence == b.sequence && a.plant_time_ns == b.plant_time_ns && a.encoder == b.encoder &&
         std::memcmp(a.joint_rate.data(), b.joint_rate.data(), sizeof a.joint_rate) == 0 &&
         std::memcmp(a.gyro.data(), b.gyro.data(), sizeof a.gyro) == 0 &&
         std::memcmp(a.accel.data(), b.accel.data(), sizeof a.accel) == 0 &&
         std::memcmp(a.attitude.data(), b.attitude.data(), sizeof a.attitude) == 0 && a.flags == b.flags &&
         a.contacts == b.contacts && a.request == b.request;
}
bool same(const Command& a, const Command& b) {
  return a.sequence == b.sequence && std::memcmp(a.tau.data(), b.tau.data(), sizeof a.tau) == 0 && a.state == b.state &&
         a.step_instructions == b.step_instructions && a.estimate_instructions == b.estimate_instructions &&
         a.faults == b.faults && std::memcmp(a.position.data(), b.position.data(), sizeof a.position) == 0 &&
         std::memcmp(a.orientation.data(), b.orientation.data(), sizeof a.orientation) == 0 &&
         std::memcmp(a.velocity.data(), b.velocity.data(), sizeof a.velocity) == 0 &&
         std::memcmp(&a.nis, &b.nis, sizeof a.nis) == 0 && a.nis_dof == b.nis_dof &&
         std::memcmp(a.velocity_covariance.data(), b.velocity_covariance.data(), sizeof a.velocity_covariance) == 0;
}
template <class Msg>
std::vector<std::uint8_t> frame(const Msg& m) {
  std::vector<std::uint8_t> f(max_frame_size<Msg>());
  const std::size_t n = encode_frame(m, f.data(), f.size());
  f.resize(n);
  return f;
}
template <class Msg>
int feed(Parser<Msg>& p, const std::vector<std::uint8_t>& bytes) {  // frames accepted
  int n = 0;
  for (std::uint8_t b : bytes) n += p.feed(b);
  return n;
}

TEST(HilProtocol, Crc32CheckValue) {
  const char* s = "123456789";
  EXPECT_EQ(crc32(reinterpret_cast<const std::uint8_t*>(s), 9), 0xCBF43926u);
  // in two pieces: the same
  EXPECT_EQ(crc32(reinterpret_cast<const std::uint8_t*>(s) + 4, 5, crc32(reinterpret_cast<const std::uint8_t*>(s), 4)),
            0xCBF43926u);
}

TEST(HilProtocol, CobsKnownEncodingsAndRoundTrips) {
  // Examples of the COBS paper / its common test vectors.
  const std::vector<std::pair<std::vector<std::uint8_t>, std::vector<std::uint8_t>>> cases = {
      {{0x00}, {0x01, 0x01}},
      {{0x00, 0x00}, {0x01, 0x01, 0x01}},
      {{0x11, 0x22, 0x00, 0x33}, {0x03, 0x11, 0x22, 0x02, 0x33}},
      {{0x11, 0x00, 0x00, 0x00}, {0x02, 0x11, 0x01, 0x01, 0x01}}};
  std::uint8_t enc[64], dec[64];
  for (const auto& [in, expect] : cases) {
    const std::size_t n = cobs_encode(in.data(), in.size(), enc, sizeof enc);
    EXPECT_EQ(std::vector<std::uint8_t>(enc, enc + n), expect);
    EXPECT_EQ(cobs_decode(enc, n, dec, sizeof dec), in.size());
  }
  Rng r;
  for (std::size_t len : {0, 1, 253, 254, 255, 508, 509, 700}) {
    for (int zeros : {0, 1, 50}) {
      std::vector<std::uint8_t> in(len), out(len + 1), e(cobs_max_encoded(len));
      for (auto& b : in) b = static_cast<std::uint8_t>(1 + r.index(255));
      for (int k = 0; k < zeros && len > 0; ++k) in[static_cast<std::size_t>(r.index(static_cast<int>(len)))] = 0;
      const std::size_t n = cobs_encode(in.data(), len, e.data(), e.size());
      ASSERT_GT(n, 0u);
      for (std::size_t k = 0; k < n; ++k) ASSERT_NE(e[k], 0) << "no zero in an encoding";
      ASSERT_EQ(cobs_decode(e.data(), n, out.data(), out.size()), len) << len;
      EXPECT_TRUE(std::equal(in.begin(), in.end(), out.begin())) << len;
    }
  }
}

TEST(HilProtocol, BothMessagesRoundTripBitExactly) {
  Rng r;
  Parser<Sensor> ps;
  Parser<Command> pc;
  for (std::uint32_t seq = 1; seq <= 200; ++seq) {
    Sensor s = random_sensor(r, seq), s2;
    if (seq == 7) s.gyro[2] = std::numeric_limits<double>::quiet_NaN();  // values are the receiver's to judge
    if (seq == 8) s.joint_rate[0] = -0.0;
    if (seq == 9) s.encoder[3] = std::numeric_limits<std::int32_t>::min();  // counts are signed
    const auto fs = frame(s);
    ASSERT_LE(fs.size(), max_frame_size<Sensor>());
    EXPECT_EQ(fs.back(), 0);
    ASSERT_EQ(feed(ps, fs), 1);
    ps.take(s2);
    EXPECT_TRUE(same(s, s2)) << seq;
    Command c = random_command(r, seq), c2;
    ASSERT_EQ(feed(pc, frame(c)), 1);
    pc.take(c2);
    EXPECT_TRUE(same(c, c2)) << seq;
  }
  EXPECT_EQ(ps.stats().accepted, 200u);
  EXPECT_EQ(ps.stats().rejected() + ps.stats().missed, 0u);
  EXPECT_EQ(Sensor::payload_size + kHeaderSize + kCrcSize, 157u);  // the sizes protocol.hpp states
  EXPECT_EQ(Command::payload_size + kHeaderSize + kCrcSize, 168u);
}

TEST(HilProtocol, ValuesTravelAsBinary32NaNIncluded) {
  Sensor m;
  m.sequence = 7;
  m.gyro[0] = 0.1;           // not a float: arrives rounded to the nearest float
  m.gyro[1] = std::nan("");  // a broken IMU's NaN must reach the estimator
  m.accel[0] = -std::numeric_limits<double>::infinity();
  m.accel[1] = 1e300;  // beyond float: arrives as +Inf (refused by the estimator)
  std::uint8_t frame[max_frame_size<Sensor>()];
  const std::size_t n = encode_frame(m, frame, sizeof frame);
  Parser<Sensor> p;
  bool got = false;
  for (std::size_t i = 0; i < n; ++i) got = p.feed(frame[i]) || got;
  ASSERT_TRUE(got);
  Sensor out;
  p.take(out);
  EXPECT_EQ(out.gyro[0], static_cast<double>(0.1f));
  EXPECT_TRUE(std::isnan(out.gyro[1]));
  EXPECT_EQ(out.accel[0], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(out.accel[1], std::numeric_limits<double>::infinity());
}

TEST(HilProtocol, EveryCorruptionClassIsRejectedAndCounted) {
  Rng r;
  std::uint32_t seq = 1;
  // A bit flip anywhere in the frame (delimiter excluded): never accepted; the next frame is.
  {
    const auto f = frame(random_command(r, 1));
    for (std::size_t bit = 0; bit < 8 * (f.size() - 1); ++bit) {
      Parser<Command> p;
      auto g = f;
      g[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
      ASSERT_EQ(feed(p, g), 0) << "bit " << bit;
      EXPECT_GE(p.stats().rejected(), 1u) << "bit " << bit;
      ASSERT_EQ(feed(p, frame(random_command(r, 2))), 1) << "resync after bit " << bit;
    }
  }
  Parser<Command> p;
  auto send = [&](std::uint32_t s) { return feed(p, frame(random_command(r, s))); };
  ASSERT_EQ(send(seq), 1);
  // truncated: the last bytes before the delimiter lost
  for (std::size_t cut : {1, 4, 30, 80}) {  // a command frame is 89 bytes on the wire
    auto g = frame(random_command(r, ++seq));
    g.erase(g.end() - 1 - static_cast<std::ptrdiff_t>(cut), g.end() - 1);
    EXPECT_EQ(feed(p, g), 0) << cut;
  }
  const ParserStats after_truncation = p.stats();
  EXPECT_EQ(after_truncation.rejected(), 4u);
  // duplicated, then delayed (older than the newest accepted)
  ASSERT_EQ(send(++seq), 1);
  EXPECT_EQ(send(seq), 0);
  EXPECT_EQ(p.stats().repeated, 1u);
  EXPECT_EQ(send(seq - 3), 0);
  EXPECT_EQ(p.stats().stale, 1u);
  // dropped: a gap of 5 counted as missed, the frame after it accepted
  const std::uint32_t missed_before = p.stats().missed;
  seq += 6;
  ASSERT_EQ(send(seq), 1);
  EXPECT_EQ(p.stats().missed - missed_before, 5u);
  // garbage (no delimiter inside, then one) before a frame: the garbage is one rejection, the frame accepted
  {
    std::vector<std::uint8_t> g(37);
    for (auto& b : g) b = static_cast<std::uint8_t>(1 + r.index(255));
    g.push_back(0);
    const std::uint32_t rej = p.stats().rejected();
    EXPECT_EQ(feed(p, g), 0);
    EXPECT_EQ(p.stats().rejected(), rej + 1);
    ASSERT_EQ(send(++seq), 1);
  }
  // too long (no delimiter for more than a frame's worth of bytes)
  {
    std::vector<std::uint8_t> g(Parser<Command>::encoded_capacity + 10, 0x55);
    g.push_back(0);
    EXPECT_EQ(feed(p, g), 0);
    EXPECT_EQ(p.stats().too_long, 1u);
  }
  // valid CRC but another version, another type, another length (built by hand)
  auto raw_frame = [&](std::uint8_t version, std::uint8_t type, std::size_t payload) {
    std::vector<std::uint8_t> raw(kHeaderSize + payload + kCrcSize, 0x5A);
    Writer w{raw.data()};
    w.u8(version);
    w.u8(type);
    w.u32(++seq);
    Writer c{raw.data() + raw.size() - kCrcSize};
    c.u32(crc32(raw.data(), raw.size() - kCrcSize));
    std::vector<std::uint8_t> enc(cobs_max_encoded(raw.size()) + 1);
    const std::size_t n = cobs_encode(raw.data(), raw.size(), enc.data(), enc.size());
    enc.resize(n);
    enc.push_back(0);
    return enc;
  };
  EXPECT_EQ(feed(p, raw_frame(kVersion + 1, 2, Command::payload_size)), 0);
  EXPECT_EQ(p.stats().bad_version, 1u);
  EXPECT_EQ(feed(p, raw_frame(kVersion, 9, Command::payload_size)), 0);
  EXPECT_EQ(feed(p, raw_frame(kVersion, static_cast<std::uint8_t>(MessageType::sensor), Command::payload_size)), 0);
  EXPECT_EQ(p.stats().unknown_type, 2u);  // a sensor frame is not what the firmware's side takes
  EXPECT_EQ(feed(p, raw_frame(kVersion, static_cast<std::uint8_t>(MessageType::sensor), Sensor::payload_size)), 0);
  EXPECT_EQ(p.stats().unknown_type, 3u);  // a real sensor frame (shorter than a command): its type
  // longer than any command frame (the sensor frame's length was, before version 4's covariance)
  EXPECT_EQ(feed(p, raw_frame(kVersion, 2, Parser<Command>::raw_size + 64)), 0);
  EXPECT_EQ(p.stats().too_long, 2u);
  EXPECT_EQ(feed(p, raw_frame(kVersion, 2, Command::payload_size - 1)), 0);
  EXPECT_EQ(p.stats().bad_length, 1u + after_truncation.bad_length);
  ASSERT_EQ(feed(p, raw_frame(kVersion, 2, Command::payload_size)), 1);  // the same, well formed
}

// 10⁶ frames through one parser, most of them mutated (bit flips, byte changes, insertions,
// deletions, truncations, duplicates, pure noise): the parser never crashes, never accepts a
// frame that differs from the one sent with its sequence number, and accepts exactly the
// untouched ones that are newer than the last accepted.
TEST(HilProtocol, FuzzMillionFramesNeverAcceptsACorruptedFrame) {
  Rng r;
  Parser<Command> p;
  constexpr int kFrames = 1000000;
  std::vector<std::uint8_t> buf(max_frame_size<Command>() + 64);
  int accepted_intact = 0, sent_intact = 0, wrong = 0;
  Command m, got;
  std::uint32_t newest = 0;
  Command templ = random_command(r, 0);
  for (int i = 1; i <= kFrames; ++i) {
    templ.sequence = static_cast<std::uint32_t>(i);
    templ.tau[static_cast<std::size_t>(i % 12)] = r.binary32(-21);  // binary32 on the wire
    m = templ;
    std::size_t n = encode_frame(m, buf.data(), buf.size());
    const std::vector<std::uint8_t> original(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
    const int kind = r.index(10);
    bool intact = false;
    switch (kind) {
      case 0:
        buf[static_cast<std::size_t>(r.index(static_cast<int>(n - 1)))] ^= static_cast<std::uint8_t>(1u << r.index(8));
        break;
      case 1:
        buf[static_cast<std::size_t>(r.index(static_cast<int>(n - 1)))] = static_cast<std::uint8_t>(r.next());
        break;
      case 2: {  // insert a byte
        const std::size_t at = static_cast<std::size_t>(r.index(static_cast<int>(n - 1)));
        std::memmove(&buf[at + 1], &buf[at], n - at);
        buf[at] = static_cast<std::uint8_t>(r.next() | 1);
        ++n;
        break;
      }
      case 3: {  // delete a byte
        const std::size_t at = static_cast<std::size_t>(r.index(static_cast<int>(n - 1)));
        std::memmove(&buf[at], &buf[at + 1], n - at - 1);
        --n;
        break;
      }
      case 4: n = 1 + static_cast<std::size_t>(r.index(static_cast<int>(n - 1))), buf[n - 1] = 0; break;  // truncated
      case 5:                                                                                             // pure noise
        for (std::size_t k = 0; k + 1 < n; ++k) buf[k] = static_cast<std::uint8_t>(r.next());
        buf[n - 1] = 0;
        break;
      default: intact = true; break;
    }
    // a mutation that happened to change nothing (a byte overwritten by its own value) is no corruption
    if (!intact && n == original.size() && std::equal(original.begin(), original.end(), buf.begin())) intact = true;
    if (intact) ++sent_intact;
    for (std::size_t k = 0; k < n; ++k)
      if (p.feed(buf[k])) {
        p.take(got);
        if (!intact || got.sequence != static_cast<std::uint32_t>(i) || !same(got, m)) ++wrong;
        else ++accepted_intact;
        newest = got.sequence;
      }
    if (kind == 9 && intact) {  // a duplicate of an intact frame: must be rejected as repeated
      const std::uint32_t rep = p.stats().repeated;
      for (std::size_t k = 0; k < n; ++k) wrong += p.feed(buf[k]);
      wrong += p.stats().repeated != rep + 1;
    }
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(accepted_intact, sent_intact);  // sequences only grow here: every intact frame is newer
  EXPECT_GT(newest, static_cast<std::uint32_t>(kFrames) - 100u);
  EXPECT_EQ(static_cast<int>(p.stats().accepted), sent_intact);
}

TEST(HilProtocol, NoHeap) {
  Rng r;
  Parser<Sensor> p;
  std::uint8_t buf[max_frame_size<Sensor>()];
  Sensor m = random_sensor(r, 1), got;
  const std::size_t calls = talus_test::heap_calls([&] {
    for (std::uint32_t s = 1; s < 100; ++s) {
      m.sequence = s;
      const std::size_t n = encode_frame(m, buf, sizeof buf);
      for (std::size_t k = 0; k < n; ++k)
        if (p.feed(buf[k])) p.take(got);
    }
  });
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(p.stats().accepted, 99u);
}

}  // namespace
