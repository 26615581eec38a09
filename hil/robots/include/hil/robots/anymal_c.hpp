#pragma once
/// \file anymal_c.hpp
/// The HIL rig's ANYmal C (robot.hpp says what each entry means): 52.1 kg, 12 joints of 80 N·m
/// (anymal.urdf's effort limits), legs LF, LH, RF, RH in the model's order (the URDF tree's,
/// siblings by joint name; anymal.srdf lists LF, RF, LH, RH). The model is anymal_c_feet:
/// anymal.urdf with the four FOOT links kept as frames (talus_add_model FRAMES).
#include <hil/robots/robot.hpp>
#include <talus/models/anymal_c_feet.hpp>

namespace talus::hil::robots {

struct AnymalC {
  template <class S>
  using Model = talus::models::anymal_c_feet::Model<S>;
  template <class S>
  static Model<S> make_model() {
    return talus::models::anymal_c_feet::make_model<S>();
  }
  // clang-format off
  static constexpr RobotParams params = {
      "anymal_c",
      "anymal_c/anymal.urdf",
      {"LF_FOOT", "LH_FOOT", "RF_FOOT", "RH_FOOT"},
      // anymal.srdf "standing", per leg LF, LH, RF, RH: HAA, HFE, KFE (foot frames 0.532 m below the base)
      {-0.1, 0.7, -1.0, -0.1, -0.7, 1.0, 0.1, 0.7, -1.0, 0.1, -0.7, 1.0},
      // swing: hip and knee folded further (the foot 8.3 cm up, 1.6 cm further out)
      {-0.1, 0.9, -1.4, -0.1, -0.9, 1.4, 0.1, 0.9, -1.4, 0.1, -0.9, 1.4},
      // crouch: base at 0.26 m
      {-0.1, 1.2, -2.2, -0.1, -1.2, 2.2, 0.1, 1.2, -2.2, 0.1, -1.2, 2.2},
      0.562,  // the stance's 0.532 m + the foot radius
      0,      // the URDF's effort limits (80 N·m)
      3.0,    // Solo-12's 0.15 × the mass ratio
      // anymal.urdf's foot sphere (radius 3 cm, its centre 2.25 cm above the FOOT frame): here
      // centred on the frame, where the controller and the estimator put the point contact
      0.03,
      20.85,  // 52.13 kg / 2.50 kg: pushes of 20.9, 31.3, 41.7 N·s (0.4 to 0.8 m/s)
      0.54,
      0.37,
      150000};  // the M7's 0.25 ms at 1 kHz, as solo12's
  // clang-format on
};

}  // namespace talus::hil::robots
