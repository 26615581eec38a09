#pragma once
/// \file solo12.hpp
/// The HIL rig's Solo-12 (robot.hpp says what each entry means): 2.5 kg, 12 joints, legs FL,
/// FR, HL, HR in the model's order.
#include <hil/robots/robot.hpp>
#include <talus/models/solo12.hpp>

namespace talus::hil::robots {

struct Solo12 {
  template <class S>
  using Model = talus::models::solo12::Model<S>;
  template <class S>
  static Model<S> make_model() {
    return talus::models::solo12::make_model<S>();
  }
  // clang-format off
  static constexpr RobotParams params = {
      "solo12",
      "solo12/solo12.urdf",
      {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"},
      // solo.srdf "standing", per leg FL, FR, HL, HR: HAA, HFE, KFE
      {0.1, 0.8, -1.6, -0.1, 0.8, -1.6, 0.1, -0.8, 1.6, -0.1, -0.8, 1.6},
      // swing: hip and knee folded further (about 5 cm of foot clearance)
      {0.1, 1.2, -2.4, -0.1, 1.2, -2.4, 0.1, -1.2, 2.4, -0.1, -1.2, 2.4},
      // crouch: base at 0.10 m
      {0.1, 1.3, -2.5, -0.1, 1.3, -2.5, 0.1, -1.3, 2.5, -0.1, -1.3, 2.5},
      0.24,
      2.7,   // the actuators: 0.025 N·m/A × 9 × 12 A (solo12.urdf's effort limit is a placeholder 1000 N·m)
      0.15,  // ControllerConfig's default
      0.01,
      1.0,
      0.22,
      0.16,
      150000};  // issue 28: 0.25 ms of a 600 MHz Cortex-M7 at 1 kHz
  // clang-format on
};

}  // namespace talus::hil::robots
