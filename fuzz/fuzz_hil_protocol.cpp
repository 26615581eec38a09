// fuzz_hil_protocol: the HIL link's streaming parser (hil/protocol/include/hil/protocol.hpp) on
// arbitrary byte streams, for both message types (solo12's sizes). Byte 0 chooses the parser
// (bit 0: sensor or command); the rest is the stream, fed byte by byte.
// Promises: no crash or undefined behaviour; every accepted frame decodes to a message that,
// encoded again and fed to a fresh parser, is accepted and decodes to the same bits; accepted
// sequence numbers strictly increase (mod 2³², as the parser defines newer); the counters add
// up: accepted + rejected ≤ the non-empty delimited segments of the stream; no heap.
#include <cstring>

#include <hil/protocol.hpp>

#include "fuzz_support.hpp"

namespace {

using Sensor = talus::hil::SensorMessage<12>;
using Command = talus::hil::CommandMessage<12>;

template <class Msg>
bool same_bits(const Msg& a, const Msg& b) {
  std::uint8_t fa[talus::hil::max_frame_size<Msg>()], fb[talus::hil::max_frame_size<Msg>()];
  const std::size_t na = talus::hil::encode_frame(a, fa, sizeof fa), nb = talus::hil::encode_frame(b, fb, sizeof fb);
  return na == nb && std::memcmp(fa, fb, na) == 0;
}

template <class Msg>
void run(const std::uint8_t* data, std::size_t size) {
  using talus_fuzz::finding;
  const talus::Status ok = talus::Status::ok;
  talus::hil::Parser<Msg> p;
  Msg m, again;
  std::uint32_t segments = 0, last = 0;
  bool have_last = false;
  std::size_t segment_length = 0;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] != 0) ++segment_length;
    else if (segment_length > 0) {
      ++segments;
      segment_length = 0;
    }
    if (!p.feed(data[i])) continue;
    p.take(m);
    if (have_last && static_cast<std::int32_t>(m.sequence - last) <= 0)
      finding("hil::Parser", ok, "accepted a sequence that is not newer than the last accepted");
    have_last = true;
    last = m.sequence;
    std::uint8_t f[talus::hil::max_frame_size<Msg>()];
    const std::size_t n = talus::hil::encode_frame(m, f, sizeof f);
    talus::hil::Parser<Msg> fresh;
    int accepted = 0;
    for (std::size_t k = 0; k < n; ++k) accepted += fresh.feed(f[k]);
    if (accepted != 1) finding("hil::Parser", ok, "an accepted message does not survive its own round trip");
    fresh.take(again);
    if (!same_bits(m, again)) finding("hil::Parser", ok, "an accepted message changes bits on a round trip");
  }
  const auto& s = p.stats();
  if (s.accepted + s.rejected() > segments) finding("hil::Parser", ok, "more frames counted than were delimited");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  (void)talus_fuzz::no_heap("hil::Parser", [&] {
    if (data[0] & 1) run<Sensor>(data + 1, size - 1);
    else run<Command>(data + 1, size - 1);
    return talus::Status::ok;
  });
  return 0;
}
