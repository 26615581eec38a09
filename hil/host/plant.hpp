#pragma once
// The HIL plant: one of the rig's robots (hil/robots: solo12, anymal_c) in MuJoCo 2.2
// (libmujoco-dev), standing on a floor, driven by joint torques. Host only (heap, std::string).
//
// Model: the URDF through tests/support/mujoco_support (fixed links merged, a free joint on the
// base, inertias exactly talus's), a plane z = 0 and a sphere of radius foot_radius centred on
// each foot frame of the robot's description (the controller's contact points), foot–floor
// contacts only (the rest of the robot has no collision geometry). Contacts:
// condim 3, friction mu (above the controller's 0.6, so the controller's cones are inside the
// plant's), solref (5 ms, 1), solimp MuJoCo's defaults; Euler integrator, timestep 0.5 ms: two
// substeps per 1 ms control period (the soft contact needs timeconst ≥ 2 timesteps, and 2 ms
// timeconst at 1 ms steps rang on Solo-12's 7 g feet; 0.5 ms does not).
//
// A payload (PlantConfig) is folded into the base body's mass, CoM and inertia (parallel axes),
// so MuJoCo's model keeps its bodies and joints.
//
// State in talus's conventions (protocol.hpp): q = [p; quat (w, x, y, z); joints], v = [ω_body;
// v_body; joint rates], joints in the talus model's order (leg k = joints 3k..3k+2, HAA, HFE,
// KFE; solo12 FL, FR, HL, HR; anymal_c LF, LH, RF, RH), foot k = the description's feet[k].
#include <array>
#include <memory>
#include <string>

#include <Eigen/Core>

#include <hil/robots/robot.hpp>

namespace talus_hil {

/// The rig's robot called `name` (hil/robots: "solo12", "anymal_c"); nullptr if none.
const talus::hil::RobotParams* find_robot(const std::string& name);

struct PlantConfig {
  std::string robot = "solo12";  ///< hil/robots (find_robot)
  std::string urdf;              ///< that robot's URDF
  double timestep = 0.0005;      ///< s
  int substeps = 2;              ///< per control period (1 ms)
  double foot_radius = 0.01;     ///< m (the harness sets the robot's, RobotParams::foot_radius)
  double mu = 1.0;               ///< floor friction
  /// The robustness envelope's payload (none by default): a point mass of payload_fraction × the
  /// robot's total mass fixed to the base at payload_offset (m, base frame) from the base's CoM.
  /// The controller is not told: its model stays the unloaded robot's.
  double payload_fraction = 0;
  Eigen::Vector3d payload_offset = Eigen::Vector3d::Zero();
};

struct PlantState {
  Eigen::Matrix<double, 19, 1> q;
  Eigen::Matrix<double, 18, 1> v;
  std::uint8_t contacts = 0;                  ///< bit k: foot k touches the floor
  std::array<Eigen::Vector3d, 4> foot_pos;    ///< foot sphere centres (world, m)
  std::array<Eigen::Vector3d, 4> foot_force;  ///< floor force on each foot (world, N)
  Eigen::Vector3d com;                        ///< whole-body CoM (world, m)
  double time = 0;                            ///< s
};

class Plant {
 public:
  Plant();
  ~Plant();
  /// Loads the scene (config.robot's model); false and err on failure.
  bool load(const PlantConfig& config, std::string& err);
  /// Puts the robot at joint angles `joints` (talus order), level, at rest, its lowest foot
  /// sphere touching the floor, at time 0.
  void reset_standing_on_floor(const Eigen::Matrix<double, 12, 1>& joints);
  /// One control period: joint torques tau (N·m, talus order) and a force on the base (world,
  /// N, at the base's CoM), held for the period's substeps.
  void step(const Eigen::Matrix<double, 12, 1>& tau, const Eigen::Vector3d& push);
  PlantState state() const;
  double base_mass() const;
  double total_mass() const;
  double effort_limit() const;  ///< the model's largest joint effort limit (URDF, N·m)

  struct Impl;  ///< per robot model (plant.cpp)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace talus_hil
