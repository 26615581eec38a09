#pragma once
// Hand-built mechanisms for the constraint tests: what a user writes for a closed chain.
#include <talus/talus.hpp>
#include <talus/constraints.hpp>

namespace talus_test {
using talus::Inertia;
using talus::Matrix3;
using talus::Transform;
using talus::Vector3;

/// Inertia of a uniform slender rod of mass m and length l along its x axis, starting at
/// the body origin (rotational inertia about x: a small value so it stays positive definite).
inline Inertia<double> rod_x(double m, double l) {
  const double i = m * l * l / 12.0;
  return Inertia<double>(m, Vector3<double>(l / 2, 0, 0), Vector3<double>(1e-4 * m, i, i).asDiagonal());
}

inline Transform<double> at(double x, double y = 0, double z = 0) {
  return Transform<double>(Matrix3<double>::Identity(), Vector3<double>(x, y, z));
}

// ---- planar four-bar in the x-y plane, gravity −y ------------------------------------------
// crank (body 0, revolute z at the origin, length a), coupler (body 1, revolute z at the crank
// tip, length b), rocker (body 2, revolute z at (d, 0, 0), length c). Loop cut at the
// coupler tip / rocker tip: two rows, x and y in the coupler frame.
using FourBarTree = talus::Tree<talus::Body<talus::JointRevoluteZ, -1>, talus::Body<talus::JointRevoluteZ, 0>,
                                talus::Body<talus::JointRevoluteZ, -1>>;
using FourBar = talus::Model<double, FourBarTree, 1>;
struct FourBarParams {
  double a = 0.2, b = 0.5, c = 0.4, d = 0.45, m1 = 0.5, m2 = 0.9, m3 = 0.7;
};
inline FourBar make_four_bar(const FourBarParams& p = {}) {
  FourBar m;
  m.body_name = {"crank", "coupler", "rocker"};
  m.joint_name = {"j_crank", "j_coupler", "j_rocker"};
  m.joint_placement = {at(0), at(p.a), at(p.d)};
  m.inertia = {rod_x(p.m1, p.a), rod_x(p.m2, p.b), rod_x(p.m3, p.c)};
  m.frames[0] = talus::Frame<double>{"coupler_tip", 1, at(p.b)};
  m.gravity = Vector3<double>(0, -9.81, 0);
  return m;
}
template <int MaxRows = 6>
talus::Status add_four_bar_loop(const FourBarParams& p, talus::ConstraintSet<FourBar, MaxRows>& cs,
                                talus::Baumgarte<double> bg = {}) {
  using A = talus::LoopAxis<double>;
  A ax, ay;
  ax.axis << 0, 0, 0, 1, 0, 0;
  ay.axis << 0, 0, 0, 0, 1, 0;
  return cs.add_loop(1, at(p.b), 2, at(p.c), {ax, ay}, bg, "four_bar_loop", 7);
}
/// Parallelogram: b = d, c = a; then rocker angle = crank angle, coupler stays parallel.
inline FourBarParams parallelogram() {
  FourBarParams p;
  p.a = 0.3;
  p.c = 0.3;
  p.b = 0.6;
  p.d = 0.6;
  return p;
}

// ---- 3D slider-crank -------------------------------------------------------------------------
// crank (body 0, revolute z at the origin, radius r), rod (body 1, spherical at the crank tip,
// length l along its x), slider (body 2, prismatic x, its line offset by h along z). Loop:
// rod tip = slider origin, three linear rows.
using SliderCrankTree = talus::Tree<talus::Body<talus::JointRevoluteZ, -1>, talus::Body<talus::JointSpherical, 0>,
                                    talus::Body<talus::JointPrismaticX, -1>>;
using SliderCrank = talus::Model<double, SliderCrankTree, 1>;
struct SliderCrankParams {
  double r = 0.1, l = 0.4, h = 0.05, m1 = 0.4, m2 = 0.6, m3 = 1.1;
};
inline SliderCrank make_slider_crank(const SliderCrankParams& p = {}) {
  SliderCrank m;
  m.body_name = {"crank", "rod", "slider"};
  m.joint_name = {"j_crank", "j_rod", "j_slider"};
  m.joint_placement = {at(0), at(p.r), at(0, 0, p.h)};
  m.inertia = {rod_x(p.m1, p.r), rod_x(p.m2, p.l),
               Inertia<double>(p.m3, Vector3<double>::Zero(), Vector3<double>(1e-3, 1e-3, 1e-3).asDiagonal())};
  m.frames[0] = talus::Frame<double>{"rod_tip", 1, at(p.l)};
  m.gravity = Vector3<double>(0, -9.81, 0);
  return m;
}
template <int MaxRows = 6>
talus::Status add_slider_crank_loop(const SliderCrankParams& p, talus::ConstraintSet<SliderCrank, MaxRows>& cs,
                                    talus::Baumgarte<double> bg = {}) {
  using A = talus::LoopAxis<double>;
  A ax, ay, az;
  ax.axis << 0, 0, 0, 1, 0, 0;
  ay.axis << 0, 0, 0, 0, 1, 0;
  az.axis << 0, 0, 0, 0, 0, 1;
  return cs.add_loop(1, at(p.l), 2, at(0), {ax, ay, az}, bg, "slider_crank_loop");
}

// ---- two free-floating bodies (absolute coordinates of the double pendulum) ------------------
using TwoFreeBodiesTree = talus::Tree<talus::Body<talus::JointFreeFlyer, -1>, talus::Body<talus::JointFreeFlyer, -1>>;
using TwoFreeBodies = talus::Model<double, TwoFreeBodiesTree, 1>;

// ---- a free-floating box ---------------------------------------------------------------------
using BoxTree = talus::Tree<talus::Body<talus::JointFreeFlyer, -1>>;
using Box = talus::Model<double, BoxTree, 1>;
struct BoxParams {
  double mass = 2.0, lx = 0.4, ly = 0.3, lz = 0.2;
  Vector3<double> com = Vector3<double>(0.03, -0.02, 0.01);
};
inline Box make_box(const BoxParams& p = {}) {
  Box m;
  m.body_name = {"box"};
  m.joint_name = {"root"};
  const double k = p.mass / 12.0;
  m.inertia[0] = Inertia<double>(p.mass, p.com,
                                 Vector3<double>(k * (p.ly * p.ly + p.lz * p.lz), k * (p.lx * p.lx + p.lz * p.lz),
                                                 k * (p.lx * p.lx + p.ly * p.ly))
                                     .asDiagonal());
  m.frames[0] = talus::Frame<double>{"center", 0, at(0)};
  return m;
}

// ---- two wheels on vertical axes (a gear pair as a custom constraint) ------------------------
using TwoWheelsTree = talus::Tree<talus::Body<talus::JointRevoluteZ, -1>, talus::Body<talus::JointRevoluteZ, -1>>;
using TwoWheels = talus::Model<double, TwoWheelsTree, 1>;
using OneWheelTree = talus::Tree<talus::Body<talus::JointRevoluteZ, -1>>;
using OneWheel = talus::Model<double, OneWheelTree, 1>;
struct GearParams {
  double ratio = 2.5, i1 = 0.03, i2 = 0.11, m1 = 1.0, m2 = 2.0;
};
inline TwoWheels make_two_wheels(const GearParams& p = {}) {
  TwoWheels m;
  m.body_name = {"wheel1", "wheel2"};
  m.joint_name = {"j1", "j2"};
  m.joint_placement = {at(0), at(0.5)};
  // off-axis centres of mass and products of inertia: they load the bearings, not the motion
  m.inertia[0] = Inertia<double>(p.m1, Vector3<double>(0, 0, 0.1),
                                 (Matrix3<double>() << 0.02, 0.001, 0, 0.001, 0.025, 0, 0, 0, p.i1).finished());
  m.inertia[1] = Inertia<double>(p.m2, Vector3<double>(0, 0, -0.05),
                                 (Matrix3<double>() << 0.05, 0, 0.002, 0, 0.06, 0, 0.002, 0, p.i2).finished());
  m.frames[0] = talus::Frame<double>{"wheel2_rim", 1, at(0.1)};
  return m;
}
/// q₀ = r q₁ (wheel 1 turns r times as fast as wheel 2).
class GearConstraint : public talus::CustomConstraint<TwoWheels> {
 public:
  explicit GearConstraint(double ratio) : r_(ratio) {}
  int rows() const override { return 1; }
  void jacobian(const TwoWheels&, const talus::Data<TwoWheels>&, const ConfigVector&, Rows& G) const override {
    G(0, 0) = 1;
    G(0, 1) = -r_;
  }
  void gamma(const TwoWheels&, const talus::Data<TwoWheels>&, const ConfigVector&, const TangentVector&,
             RowValues& g) const override {
    g(0) = 0;
  }
  void position_errors(const TwoWheels&, const talus::Data<TwoWheels>&, const ConfigVector& q,
                       RowValues& e) const override {
    e(0) = q[0] - r_ * q[1];
  }

 private:
  double r_;
};

}  // namespace talus_test
