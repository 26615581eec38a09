#pragma once
/// \file firmware.hpp
/// The HIL firmware's main loop, above talus/rt/port.hpp only (bare metal Cortex-M with UART0
/// as the link, or a POSIX process with two file descriptors): the same code on every target.
///
/// Each byte from port::link_read goes to the sensor-frame Parser (protocol.hpp). For every
/// accepted sensor frame: one controller step (timed with port::cycles()), then one command
/// frame echoing the sensor frame's sequence, with the torques, the controller state, the
/// step's instruction count and the fault counters:
///   rx_rejected     frames the parser refused (bad COBS, CRC, length, type, version, repeated, stale)
///   rx_missed       sensor sequence numbers never received (gaps between accepted frames)
///   watchdog        times the link was silent for more than FirmwareConfig::watchdog_periods
///                   control periods (the controller then latches safe_damping). Two clocks:
///                   the sensor frames' own time stamps (a frame arriving more than N periods
///                   after the previous one: N periods were missed), exact in lockstep with an
///                   emulated CPU whose clock does not follow the plant's; and port::now_ns()
///                   (backstop_ns without any frame), for a link that never comes back
///   sensor_invalid  frames the controller refused (NaN, out of range)
///   talus           steps where a talus call returned a non-ok Status (damping commanded)
///   cone_fallback   steps where the friction-cone solver hit its cap (its last, in-cone iterate commanded)
/// A sensor frame with Request::request_end is answered, then the program ends (exit 0).
/// Nothing allocates; the parser and controller are static objects.
#include <hil/protocol.hpp>
#include <talus/control/balance_controller.hpp>
#include <talus/rt/log.hpp>
#include <talus/rt/port.hpp>

namespace talus::hil {

struct FirmwareConfig {
  std::uint64_t period_ns = 1'000'000;        ///< control period (the plant's sensor rate)
  std::uint32_t watchdog_periods = 50;        ///< missed periods that trip the watchdog
  std::uint64_t backstop_ns = 2'000'000'000;  ///< port::now_ns() silence that trips it too
  // clang-format off
  std::uint32_t instructions_per_tick = 0; ///< port::cycles() tick → instructions (QEMU -icount: 40/2^shift); 0: not measured
  // clang-format on
};

template <class Controller>
[[noreturn]] void run_firmware(Controller& ctl, const FirmwareConfig& cfg) {
  constexpr int nq = Controller::nq, nv = Controller::nv, nj = Controller::nj;
  using Sensor = SensorMessage<nq, nv>;
  using Command = CommandMessage<nj>;
  static Parser<Sensor> parser;
  static Sensor sensor;
  static Command command;
  static std::uint8_t frame[max_frame_size<Command>()];
  std::uint32_t watchdog_trips = 0;
  bool started = false, silent = false;
  std::uint64_t last_rx = port::now_ns(), last_plant_ns = 0;
  for (;;) {
    std::uint8_t bytes[64];
    const std::size_t n = port::link_read(bytes, sizeof bytes);
    for (std::size_t i = 0; i < n; ++i) {
      if (!parser.feed(bytes[i])) continue;
      parser.take(sensor);
      if (started && !silent && sensor.plant_time_ns - last_plant_ns > cfg.watchdog_periods * cfg.period_ns) {
        ++watchdog_trips;  // the link was silent for more than watchdog_periods periods
        ctl.enter_safe();
      }
      started = true;
      silent = false;
      last_rx = port::now_ns();
      last_plant_ns = sensor.plant_time_ns;
      typename Controller::Config q;
      typename Controller::Tangent v;
      for (int k = 0; k < nq; ++k) q[k] = sensor.q[static_cast<std::size_t>(k)];
      for (int k = 0; k < nv; ++k) v[k] = sensor.v[static_cast<std::size_t>(k)];
      const double t = static_cast<double>(sensor.plant_time_ns) * 1e-9;
      const std::uint64_t c0 = port::cycles();
      const typename Controller::Output out = ctl.step(t, q, v, sensor.request & 0x0Fu, sensor.contacts);
      const std::uint64_t c1 = port::cycles();
#ifdef HIL_DEBUG_STATUS
      if (out.solver_iterations > 0) {
        talus::rt::LogLine<32> line;
        (line << out.solver_iterations + 1000 * static_cast<int>(sensor.plant_time_ns / 1000000)
              << (out.cone_fallback ? " cap" : " it"))
            .write();
      }
      if (out.status != Status::ok) {
        talus::rt::LogLine<32> line;
        (line << to_string(out.status)).write();
      }
#endif
      command.sequence = sensor.sequence;
      for (int k = 0; k < nj; ++k) command.tau[static_cast<std::size_t>(k)] = out.tau[k];
      command.state = static_cast<std::uint8_t>(out.state);
      command.step_instructions = static_cast<std::uint32_t>((c1 - c0) * cfg.instructions_per_tick);
      command.faults[fault_rx_rejected] = parser.stats().rejected();
      command.faults[fault_rx_missed] = parser.stats().missed;
      command.faults[fault_watchdog] = watchdog_trips;
      command.faults[fault_sensor_invalid] = ctl.sensor_invalid;
      command.faults[fault_talus] = ctl.talus_failures;
      command.faults[fault_cone_fallback] = ctl.cone_fallbacks;
      const std::size_t len = encode_frame(command, frame, sizeof frame);
      (void)port::link_write(frame, len);
      if (sensor.request & request_end) port::exit(0);
    }
    if (n == 0 && started && !silent && port::now_ns() - last_rx > cfg.backstop_ns) {
      silent = true;  // one trip per silence; the next accepted frame re-arms it
      ++watchdog_trips;
      ctl.enter_safe();
    }
    if (n == 0) port::wait_until(port::now_ns() + 20'000);  // idle: let a POSIX host have the core
  }
}

}  // namespace talus::hil
