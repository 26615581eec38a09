#pragma once
// Hand-written models for tests: what a user writes without the URDF generator.
#include <talus/talus.hpp>

namespace talus_test {

/// Planar double pendulum in the x-z plane: two revolute-Y joints, point-like links
/// (masses m1, m2 at distances l1, l2 along -z of each link, plus a small rotational
/// inertia about y so the closed form stays simple: I_c = diag(0, iy, 0) + tiny x/z terms).
using DoublePendulumTree = talus::Tree<talus::Body<talus::JointRevoluteY, -1>, talus::Body<talus::JointRevoluteY, 0>>;
template <class S = double>
using DoublePendulum = talus::Model<S, DoublePendulumTree, 1>;

struct PendulumParams {
  double m1 = 1.3, m2 = 0.7, l1 = 0.5, l2 = 0.35, i1 = 0.02, i2 = 0.01;
};

template <class S = double>
DoublePendulum<S> make_double_pendulum(const PendulumParams& p = {}) {
  DoublePendulum<S> m;
  m.body_name = {"link1", "link2"};
  m.joint_name = {"j1", "j2"};
  m.joint_placement[0] = talus::Transform<S>();
  m.joint_placement[1] = talus::Transform<S>(talus::Matrix3<S>::Identity(), talus::Vector3<S>(0, 0, S(-p.l1)));
  const talus::Matrix3<S> I1 = talus::Vector3<S>(S(p.i1), S(p.i1), S(p.i1)).asDiagonal();
  const talus::Matrix3<S> I2 = talus::Vector3<S>(S(p.i2), S(p.i2), S(p.i2)).asDiagonal();
  m.inertia[0] = talus::Inertia<S>(S(p.m1), talus::Vector3<S>(0, 0, S(-p.l1)), I1);
  m.inertia[1] = talus::Inertia<S>(S(p.m2), talus::Vector3<S>(0, 0, S(-p.l2)), I2);
  m.frames[0] =
      talus::Frame<S>{"tip", 1, talus::Transform<S>(talus::Matrix3<S>::Identity(), talus::Vector3<S>(0, 0, S(-p.l2)))};
  return m;
}

/// A 6-body chain that uses every joint type: free flyer, spherical, generic-axis revolute,
/// prismatic X, revolute Z, generic-axis prismatic; with a branch (body 5 hangs off body 2).
using ChainTree = talus::Tree<talus::Body<talus::JointFreeFlyer, -1>, talus::Body<talus::JointSpherical, 0>,
                              talus::Body<talus::JointRevolute, 1>, talus::Body<talus::JointPrismaticX, 2>,
                              talus::Body<talus::JointRevoluteZ, 3>, talus::Body<talus::JointPrismatic, 2>>;
template <class S = double>
using Chain = talus::Model<S, ChainTree, 2>;

template <class S = double>
Chain<S> make_chain() {
  Chain<S> m;
  m.body_name = {"base", "ball", "hinge", "slider", "wrist", "branch"};
  m.joint_name = {"root", "ball_joint", "hinge_joint", "slider_joint", "wrist_joint", "branch_joint"};
  talus::Random rng(42);
  for (int i = 0; i < 6; ++i) {
    const talus::Vector3<S> rv(S(rng.uniform(-1, 1)), S(rng.uniform(-1, 1)), S(rng.uniform(-1, 1)));
    m.joint_placement[i] = talus::Transform<S>(talus::axis_angle_rotation<S>(rv.normalized(), rv.norm()),
                                               talus::Vector3<S>(S(rng.uniform(-.3, .3)), S(rng.uniform(-.3, .3)),
                                                                 S(rng.uniform(-.3, .3))));
    const talus::Vector3<S> ax(S(rng.uniform(-1, 1)), S(rng.uniform(-1, 1)), S(rng.uniform(-1, 1)));
    m.axis[i] = ax.normalized();
    const talus::Vector3<S> d(S(rng.uniform(.01, .05)), S(rng.uniform(.01, .05)), S(rng.uniform(.01, .05)));
    // principal moments satisfying the triangle inequality, rotated randomly
    const talus::Matrix3<S> Rp = talus::axis_angle_rotation<S>(rv.normalized(), S(0.7));
    const talus::Vector3<S> moments(d.y() + d.z(), d.x() + d.z(), d.x() + d.y());
    m.inertia[i] =
        talus::Inertia<S>(S(rng.uniform(0.5, 2.0)),
                          talus::Vector3<S>(S(rng.uniform(-.1, .1)), S(rng.uniform(-.1, .1)), S(rng.uniform(-.1, .1))),
                          Rp * moments.asDiagonal() * Rp.transpose());
  }
  m.frames[0] = talus::Frame<S>{"tool", 4,
                                talus::Transform<S>(talus::axis_angle_rotation<S>(talus::Vector3<S>(0, 1, 0), S(0.3)),
                                                    talus::Vector3<S>(0.1, 0.02, -0.05))};
  m.frames[1] = talus::Frame<S>{"branch_tip", 5,
                                talus::Transform<S>(talus::Matrix3<S>::Identity(), talus::Vector3<S>(0, 0, 0.2))};
  // prismatic limits so random configurations stay moderate
  for (int k = 0; k < 7; ++k) {
    m.lower_position_limit[k] = S(-1);
    m.upper_position_limit[k] = S(1);
  }
  m.lower_position_limit[11] = S(-0.2);
  m.upper_position_limit[11] = S(0.2);
  m.lower_position_limit[13] = S(-0.2);
  m.upper_position_limit[13] = S(0.2);
  return m;
}

// The same face as a generated model namespace, so tests treat all models alike.
namespace double_pendulum {
template <class S = double>
using Model = DoublePendulum<S>;
template <class S = double>
Model<S> make_model() {
  return make_double_pendulum<S>();
}
constexpr int frame_id(const char* name) { return talus::names_equal(name, "tip") ? 0 : -1; }
}  // namespace double_pendulum
namespace chain {
template <class S = double>
using Model = Chain<S>;
template <class S = double>
Model<S> make_model() {
  return make_chain<S>();
}
constexpr int frame_id(const char* name) {
  return talus::names_equal(name, "tool") ? 0 : talus::names_equal(name, "branch_tip") ? 1 : -1;
}
}  // namespace chain

}  // namespace talus_test
