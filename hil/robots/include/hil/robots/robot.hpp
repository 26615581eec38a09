#pragma once
/// \file robot.hpp
/// What the HIL rig knows of a robot: one header per robot beside this one (solo12.hpp,
/// anymal_c.hpp), each a struct with the talus model type (`Model<S>`, `make_model<S>()`) and
/// its `params` (RobotParams, below). The firmware (firmware/main.cpp) is built for one robot
/// (HIL_ROBOT_ANYMAL_C selects anymal_c.hpp; without it solo12.hpp); the host's plant and
/// harness take both and choose at run time (`hil_harness --robot solo12|anymal_c`).
///
/// Units SI (m, rad, N·m, N·m·s/rad); joint vectors in the MODEL's joint order (talus_urdf_gen
/// orders bodies depth-first, siblings by joint name, so anymal_c's legs are LF, LH, RF, RH,
/// not the SRDF's LF, RF, LH, RH): leg k = joints 3k..3k+2 (HAA, HFE, KFE), foot k below it
/// (the controller's init() refuses feet in another order; the plant checks that leg k's joint
/// names start as foot k's name does). Heights are of the base frame's origin above the floor
/// (world z up), with the feet on it.
namespace talus::hil {

struct RobotParams {
  const char* name;     ///< "solo12", "anymal_c": --robot, the CSV header, the verdict
  const char* urdf;     ///< the URDF, relative to the models directory (TALUS_MODELS_DIR)
  const char* feet[4];  ///< foot frames, the model's leg order (foot 0 is the one three_feet lifts)
  double stance[12];    ///< standing posture (rad): the controller's stance, the short run's start
  double swing[12];     ///< a lifted leg's posture (rad): folded, the foot a few cm up
  double crouch[12];    ///< the full run's start (rad): legs folded, base low (stand_up rises from it)
  double height;        ///< base height standing (m): the controller's target (ControllerConfig::height)
  /// Cap on every joint's |τ| (N·m; ControllerConfig::torque_limit): the actuators' when they are
  /// weaker than the URDF's effort limits say; 0: the URDF's effort limits alone.
  double torque_limit;
  double damping_safe;  ///< safe mode's τ = −damping_safe q̇ (N·m·s/rad; ControllerConfig)
  double foot_radius;   ///< m: the plant's foot spheres, centred on the foot frames; the estimator's foot height
  /// Scenario pushes (N, 0.1 s) = Solo-12's (10, 15, 20 N; 1.0 to 2.0 N·s on 2.5 kg) × push_scale,
  /// the robot's mass over Solo-12's: the same velocity change (J / m) on any robot.
  double push_scale;
  double stood_min;  ///< verdict: the base at least this high (m) at the end of stand-up / the first stand
  double z_min;      ///< verdict: "stayed up" while the base is at least this high (m) (and tilt ≤ 20°)
  /// verdict, on an emulated board: estimator + controller ≤ this many instructions per period
  /// at the worst step; 0: reported, not judged (a robot the budget was not set for)
  double budget_instructions;
};

}  // namespace talus::hil
