#pragma once
/// \file model.hpp
/// `Model<S, Tree, NumFrames>`: what does not change between control cycles.
///
/// The tree (joint types and parents) and the sizes are part of the type; the numbers
/// (placements, axes, inertias, limits) are runtime data, so a payload can be recalibrated
/// without recompiling. Units: SI (m, kg, s, rad, N, N·m). All frames are right-handed.
///
/// Frames:
/// - world: the inertial frame; gravity is expressed in it (default (0, 0, -9.81) m/s²).
/// - body i: the frame of the URDF link that carries body i (its joint's child frame).
/// - joint_placement[i]: joint frame of body i in its parent body frame (or in world for
///   a root body), i.e. URDF `<joint><origin>`.
/// - Frame (named operational frame): a frame rigidly attached to a body (or to the world,
///   body == -1): a URDF link merged by a fixed joint (a foot, a tool flange), or a body's
///   own link frame.
#include <cstring>

#include <talus/math/inertia.hpp>
#include <talus/model/joints.hpp>
#include <talus/model/tree.hpp>

namespace talus {

/// A named frame rigidly attached to body `body` (-1: the world) at `placement` (bodyMframe).
template <class S>
struct Frame {
  const char* name = "";
  int body = -1;
  Transform<S> placement;
};

template <class S, class TreeT, int NumFrames = 0>
struct Model {
  using Scalar = S;
  using Tree = TreeT;
  static constexpr int nb = Tree::nb;  ///< number of moving bodies
  static constexpr int nq = Tree::nq;  ///< configuration size
  static constexpr int nv = Tree::nv;  ///< velocity size (degrees of freedom)
  static constexpr int nframes = NumFrames;

  using ConfigVector = Eigen::Matrix<S, nq, 1>;
  using TangentVector = Eigen::Matrix<S, nv, 1>;
  using MatrixNV = Eigen::Matrix<S, nv, nv>;
  using Jacobian6 = Eigen::Matrix<S, 6, nv>;
  using Jacobian3 = Eigen::Matrix<S, 3, nv>;

  std::array<const char*, nb> body_name{};         ///< URDF link name of each body
  std::array<const char*, nb> joint_name{};        ///< URDF joint name of each body's joint
  std::array<Transform<S>, nb> joint_placement{};  ///< X_T: joint frame in parent body frame
  // clang-format off
  std::array<Vector3<S>, nb> axis = filled<Vector3<S>, nb>(Vector3<S>::Zero());          ///< unit axis (joint frame) of generic-axis joints
  // clang-format on
  std::array<Inertia<S>, nb> inertia{};  ///< body inertia in body frame (merged fixed links included)
  std::array<Frame<S>, (NumFrames > 0 ? NumFrames : 1)> frames{};  ///< named frames

  ConfigVector lower_position_limit = ConfigVector::Constant(S(-1e10));  ///< per q entry (quaternions: -1)
  ConfigVector upper_position_limit = ConfigVector::Constant(S(1e10));
  TangentVector velocity_limit = TangentVector::Constant(S(1e10));  ///< rad/s or m/s
  TangentVector effort_limit = TangentVector::Constant(S(1e10));    ///< N·m or N
  TangentVector damping = TangentVector::Zero();   ///< URDF `<dynamics damping>`; not applied by any algorithm
  TangentVector friction = TangentVector::Zero();  ///< URDF `<dynamics friction>`; not applied by any algorithm

  Vector3<S> gravity = Vector3<S>(S(0), S(0), S(-9.81));  ///< world frame, m/s²

  /// Index of the body called `name`, or -1 (also for a null name).
  int body_id(const char* name) const {
    if (name == nullptr) return -1;
    for (int i = 0; i < nb; ++i)
      if (body_name[i] && std::strcmp(body_name[i], name) == 0) return i;
    return -1;
  }
  /// Index of the frame called `name`, or -1 (also for a null name).
  int frame_id(const char* name) const {
    if (name == nullptr) return -1;
    for (int i = 0; i < NumFrames; ++i)
      if (frames[i].name && std::strcmp(frames[i].name, name) == 0) return i;
    return -1;
  }
  /// Total mass of the moving bodies (kg).
  S total_mass() const {
    S m = S(0);
    for (int i = 0; i < nb; ++i) m += inertia[i].mass;
    return m;
  }
  /// The same model with another scalar (e.g. double → float for a Cortex-M4F).
  template <class T>
  Model<T, Tree, NumFrames> cast() const {
    Model<T, Tree, NumFrames> m;
    m.body_name = body_name;
    m.joint_name = joint_name;
    for (int i = 0; i < nb; ++i) {
      m.joint_placement[i] = joint_placement[i].template cast<T>();
      m.axis[i] = axis[i].template cast<T>();
      m.inertia[i] = inertia[i].template cast<T>();
    }
    for (int i = 0; i < NumFrames; ++i)
      m.frames[i] = {frames[i].name, frames[i].body, frames[i].placement.template cast<T>()};
    m.lower_position_limit = lower_position_limit.template cast<T>();
    m.upper_position_limit = upper_position_limit.template cast<T>();
    m.velocity_limit = velocity_limit.template cast<T>();
    m.effort_limit = effort_limit.template cast<T>();
    m.damping = damping.template cast<T>();
    m.friction = friction.template cast<T>();
    m.gravity = gravity.template cast<T>();
    return m;
  }
};

/// Compile-time string equality, for frame lookup by name in constant expressions.
constexpr bool names_equal(const char* a, const char* b) {
  while (*a && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

}  // namespace talus
