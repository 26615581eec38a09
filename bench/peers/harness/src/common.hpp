#pragma once
// What every library side of the harness shares: the robot as talus generated it (bodies,
// joints, frames, contacts) with the benchmark states in talus's convention, the timed cases
// each side registers, and the convention maps between talus and a peer's (q, v).
//
// talus convention (README of talus): free flyer q = [p, qw, qx, qy, qz], v = [ω; v] in the
// base frame, q̈ the base-frame spatial acceleration; 6D quantities [angular; linear].
#include <Eigen/Dense>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace peers {

enum class Work { crba, rnea, aba, jacobian, fd, impulse };
const char* work_name(Work w);

/// One moving body of the talus model (depth-first order, as talus numbers them).
struct BodyDesc {
  std::string body;   ///< URDF link name
  std::string joint;  ///< URDF joint name ("root_joint" for the free flyer)
  int parent = -1;
  int nq = 0, nv = 0, idx_q = 0, idx_v = 0;
  bool free = false;  ///< free flyer (nq 7, nv 6)
};

/// A talus frame: a URDF link merged into a moving body, placement in that body's frame.
struct FrameDesc {
  std::string name;
  int body = -1;
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d p = Eigen::Vector3d::Zero();
};

/// A contact of the constrained benchmarks: 3D point contact at a frame origin (world x, y, z
/// rows) or a 6D weld of a frame to the world placement `anchor_R, anchor_p` (the frame's
/// placement at state 0; talus rows in the anchor's axes, [angular; linear], about the frame
/// origin).
struct ContactDesc {
  FrameDesc frame;
  bool six_d = false;
  Eigen::Matrix3d anchor_R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d anchor_p = Eigen::Vector3d::Zero();
};

struct Robot {
  std::string name;  ///< talus model name
  std::string urdf;  ///< path of the URDF
  bool floating = false;
  int nq = 0, nv = 0;
  std::vector<BodyDesc> bodies;
  FrameDesc jac_frame;                ///< the frame of the Jacobian row
  std::vector<ContactDesc> contacts;  ///< empty: no constrained rows
  std::string contacts_text;          ///< "4 feet x 3D", ...
  // Benchmark states, talus convention (kStates of each).
  std::vector<Eigen::VectorXd> q, v, tau;
  /// v projected on the constraints' null space at each state (G v = 0, talus's G): states
  /// that satisfy the velocity constraints, where every formulation of the contact
  /// acceleration agrees (empty without contacts).
  std::vector<Eigen::VectorXd> v_consistent;
};

constexpr int kStates = 64;

/// Output of one evaluation, in talus's convention, by named parts (compared by name).
struct Output {
  std::vector<std::pair<std::string, Eigen::VectorXd>> parts;
  void add(const std::string& n, const Eigen::VectorXd& x) { parts.emplace_back(n, x); }
  void add(const std::string& n, const Eigen::MatrixXd& m) {
    parts.emplace_back(n, Eigen::Map<const Eigen::VectorXd>(m.data(), m.size()));
  }
};

/// One timed thing: `run(n)` makes n calls, the i-th on state (start + i) mod kStates, each
/// from scratch from the state (kinematics included). `eval` makes one call on a state given
/// in talus convention and returns its outputs in talus convention (not timed).
struct Case {
  Work work;
  std::string lib;      ///< "talus", "Pinocchio", "RBDL", "MuJoCo"
  std::string variant;  ///< method / option, "" if the library has one way
  std::function<void(long n)> run;
  std::function<Output(const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& tau)> eval;
  std::string note;  ///< what the call does, for the report
};

/// A library's side for one robot: owns its model/data; the cases point into it.
struct Side {
  virtual ~Side() = default;
  std::vector<Case> cases;
};

// Factories, one translation unit each. On failure: nullptr and err.
/// talus: also fills the robot description and the states (talus's generator and RNG).
std::unique_ptr<Side> make_talus_side(const std::string& name, const std::string& models_dir, Robot& robot,
                                      std::string& err);
std::unique_ptr<Side> make_pinocchio_side(const Robot& robot, std::string& err);
std::unique_ptr<Side> make_rbdl_side(const Robot& robot, std::string& err);
std::unique_ptr<Side> make_mujoco_side(const Robot& robot, std::string& err);
std::string pinocchio_version();
std::string rbdl_version();
std::string mujoco_version();

// ---- convention maps (common.cpp) ------------------------------------------------------------
/// Where a peer keeps talus body i's joint. 1-dof joints: q, v. Free flyer: position at q..q+2,
/// quaternion x, y, z at qx..qx+2 and w at qw; linear velocity at v..v+2, angular at w_v..w_v+2.
struct JointSlot {
  int q = -1, v = -1;
  int qx = -1, qw = -1, w_v = -1;
};
struct PeerLayout {
  int nq = 0, nv = 0;
  std::vector<JointSlot> slot;  ///< per talus body
  /// true: the free flyer's linear velocity is the world-frame velocity of the base origin
  /// (RBDL TranslationXYZ + Spherical, MuJoCo free joint); false: base frame (Pinocchio).
  bool world_linear = false;
};

Eigen::VectorXd to_peer_q(const Robot& r, const PeerLayout& L, const Eigen::VectorXd& q);
/// T with v_peer = T v_talus at q (orthogonal: a permutation with rotation blocks).
Eigen::MatrixXd velocity_map(const Robot& r, const PeerLayout& L, const Eigen::VectorXd& q);
/// Ṫ v: a_peer = T a_talus + Ṫ v (zero unless world_linear: R (ω × v_body) in the linear slots).
Eigen::VectorXd velocity_map_dot_v(const Robot& r, const PeerLayout& L, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& v);
/// Peer acceleration -> talus: Tᵀ (a − Ṫ v).
Eigen::VectorXd acc_to_talus(const Robot& r, const PeerLayout& L, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                             const Eigen::VectorXd& a_peer);
/// Peer bias b (H_peer a + b = τ_peer) -> talus C = Tᵀ (b + H_peer Ṫ v).
Eigen::VectorXd bias_to_talus(const Robot& r, const PeerLayout& L, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                              const Eigen::MatrixXd& H_peer, const Eigen::VectorXd& b_peer);

/// Rotation of a talus quaternion (w, x, y, z) at q[i..i+3].
Eigen::Matrix3d quat_wxyz_to_R(const Eigen::VectorXd& q, int i);

/// Keeps the compiler from dropping a computation whose result lands at p.
inline void escape(const void* p) { asm volatile("" : : "g"(p) : "memory"); }

}  // namespace peers
