#pragma once
/// \file balance_controller.hpp
/// A legged balance controller written on talus (`talus::BalanceController<Model, NumFeet>`):
/// whole-body inverse dynamics with the contact forces distributed inside friction cones.
/// Header-only, no heap, no exceptions, a bounded amount of work per step; a firmware runs it
/// once per sensor frame (hil/firmware is one such firmware).
///
/// **Robot.** A floating base (the model's first joint a free flyer; every other joint with
/// as many q as v entries) and NumFeet legs of three joints each: nv − 6 = 3 NumFeet
/// (static_assert). Leg k is joints 3k..3k+2 in the MODEL's joint order (v indices
/// 6+3k..6+3k+2, q indices 7+3k..7+3k+2), whatever order a README or an SRDF lists the legs
/// in (talus_urdf_gen orders bodies depth-first, siblings by joint name: anymal_c's legs are
/// LF, LH, RF, RH); foot k must hang below those three joints and below no other leg's (init()
/// checks it on the model's tree). The postures (stance, swing) and τ are in the same joint order.
/// Nothing robot-specific is built in: the torque limits and the joint ranges come from the
/// model (its URDF), the standing height and the postures from the caller (init()).
///
/// **Inputs** (talus conventions, model.hpp / joints.hpp): q = [base position (m, world);
/// base quaternion (w, x, y, z); joint angles (rad)], v = [ω (rad/s), v (m/s) of the base in
/// the BASE frame; joint velocities (rad/s)]. World z is up; gravity is the model's
/// (model.gravity, along −z). Feet are point contacts at the foot frames' origins (put the
/// frame at the centre of a spherical foot).
///
/// **One step** (balance), every quantity from talus on the measured state, from ONE sweep
/// over the tree at (q, q̇) (placements, world Jacobian columns, body velocities and
/// accelerations at q̈ = 0: what centroidal_momentum, frame_placement,
/// compute_constraint_gamma, point_jacobian and rnea would each compute again):
///   1. CoM c (m, world) and its velocity ċ (center_of_mass's kernel on the sweep).
///   2. foot positions (frame_placement), and the rows of the ConstraintSet of the feet
///      (compute_constraint_gamma's kernel; one 3-row contact per foot, rows z, x, y in world
///      axes, switched per foot with set_active): G (m × nv) and γ = −Ġ q̇ of the feet in contact.
///   3. a PD on the CoM (x, y: towards the centroid of the feet in contact; z: the base height
///      target) and on the base orientation (towards the yaw it started with, level) gives
///      the base acceleration a_b = [ω̇; v̇] (base frame, talus's tangent space):
///          p̈_des = Kp (c_des − c) − Kd ċ   (world; z uses the base height and velocity)
///          ω̇_des = Kp_R log(Rᵀ R_des) − Kd_R ω                          (base frame)
///   4. joint accelerations: a stance leg's so that its foot stays put, G q̈ = γ solved leg by
///      leg (each foot's 3 × 3 block of G on its own leg's joints); a swing leg's by a joint PD
///      to its swing posture (which is where the joint damping acts).
///   5. RNEA (q, v, q̈_des) = H q̈_des + C on the sweep's placements: its 6 base rows are the
///      wrench τ_b (base frame, about the base origin: gravity, Coriolis and the requested
///      acceleration) that the contacts must supply, its joint rows the joint torques without
///      contacts.
///   6. contact forces λ (N, world, on the robot) with G_bᵀ λ = τ_b, each foot's λ inside its
///      friction cone ‖λ_t‖ ≤ μ λ_z, from the cone problem (talus/contact, cone_solvers.hpp)
///          W = G_b Q G_bᵀ + ε I,  b = −G_b Q τ_b      (Q weighs the torque rows by 1/L²),
///      i.e. least squares on the wrench with a small (ε) penalty on the forces. Its sticking
///      solution W λ = −b (one Cholesky) is the regularised least-squares distribution; when
///      it is inside every cone it is the answer. Otherwise solve_cone_admm returns the
///      cone-feasible (sliding) answer, warm-started from the previous step's forces.
///   7. τ = (H q̈_des + C)_joints − G_jᵀ λ, each joint clamped to ± its torque limit.
/// With every foot sticking and no torque clamped, talus's own constrained forward dynamics
/// of (q, v, τ) gives back q̈_des and λ (tests/control_test.cpp checks that on solo12 and
/// anymal_c, hil/tests/controller_test.cpp in the HIL rig's configuration).
///
/// **States** (ControllerState): init until the first valid sensor frame; stand_up (the base
/// height target ramps from where it started to config.height in config.stand_up_time);
/// balance; three_feet (a foot is lifted on request: the CoM target moves to the centroid of
/// the other three, then the foot's contact is switched off and its leg follows the swing
/// posture; when the request ends the foot is lowered (a Cartesian PD through the foot's
/// Jacobian, from the sweep, towards where it lifted from, 1 cm below the ground) until the plant reports
/// it touching, its contact is re-anchored where it landed and switched on, and the CoM target
/// moves back);
/// safe_damping (latched: τ = −damping_safe · q̇_joints, entered by enter_safe(), e.g. the
/// firmware's link watchdog, or after too many invalid sensor frames or talus failures in a
/// row); fault (one step whose talus call did not return ok: the damping command for that
/// step, counted).
///
/// **Limits** (fixed by init(), read back with torque_limit(), joint_lower(), joint_upper()).
///   - torque, per joint (N·m): the model's effort_limit (URDF `<limit effort>`, v rows
///     6..nv−1). config.torque_limit > 0 caps every joint further (the smaller of the two), for
///     an actuator weaker than its URDF says or a cautious first run. A joint whose URDF has no
///     effort limit (the model's 1e10 "none", a non-positive or non-finite value) needs that
///     cap: without it init() refuses with invalid_input rather than command unbounded torque.
///   - joint range (rad): the model's lower/upper_position_limit (q rows 7..nq−1), widened by
///     config.joint_range_margin. The generator gives a continuous joint [−π, π] (a sampling
///     range, not a stop): wrap such an angle into it before step(), or widen the model's range.
///
/// **Bad input.** A sensor frame with a non-finite value, a joint angle outside its range, a
/// velocity beyond the sanity bounds of ControllerConfig or a quaternion off unit by more
/// than 1e-3 is refused: that step commands damping (its finite joint velocities only) and
/// counts sensor_invalid; max_invalid_in_row such steps in a row latch safe_damping.
#include <talus/algorithms/centroidal.hpp>
#include <talus/algorithms/jacobians.hpp>
#include <talus/algorithms/kinematics.hpp>
#include <talus/algorithms/rnea.hpp>
#include <talus/constraints/constraint_quantities.hpp>
#include <talus/constraints/constraint_set.hpp>
#include <talus/contact/cone_solvers.hpp>
#include <talus/linalg/cholesky.hpp>
#include <talus/math/quaternion.hpp>

#include <cmath>
#include <cstdint>

namespace talus {

/// The controller's state, sent in the firmware's command frame (values fixed: a wire format).
enum class ControllerState : std::uint8_t {
  init = 0,
  stand_up = 1,
  balance = 2,
  three_feet = 3,
  safe_damping = 4,
  fault = 5
};

constexpr const char* to_string(ControllerState s) {
  switch (s) {
    case ControllerState::init: return "init";
    case ControllerState::stand_up: return "stand_up";
    case ControllerState::balance: return "balance";
    case ControllerState::three_feet: return "three_feet";
    case ControllerState::safe_damping: return "safe_damping";
    case ControllerState::fault: return "fault";
  }
  return "unknown";
}

/// Targets, gains and bounds (SI units). `height` has no default: init() refuses a config
/// whose height is not set (not finite and positive), since no value fits every robot.
/// The PD gains are acceleration gains (1/s², 1/s): they act through the whole-body inertia
/// (H q̈_des in step 5), so they do not depend on the robot's mass and the defaults suit any
/// size; they set the bandwidth, to be lowered for a robot whose legs are slow or compliant.
/// weight_length and damping_safe carry a unit of length and of torque: see their notes.
template <class S>
struct ControllerConfig {
  S height = S(0);                        ///< base height target when standing (m, world z): required, > 0
  S stand_up_time = S(1.0);               ///< duration of the stand-up ramp (s)
  S kp_xy = S(150), kd_xy = S(25);        ///< CoM horizontal PD (1/s², 1/s)
  S kp_z = S(300), kd_z = S(35);          ///< base height PD
  S kp_rot = S(250), kd_rot = S(30);      ///< base orientation PD
  S kp_swing = S(400), kd_swing = S(40);  ///< swing-leg joint PD (its kd is the swing leg's damping)
  S mu = S(0.6);                          ///< friction coefficient the distribution respects (below the floor's)
  // clang-format off
  S torque_limit = S(0);                  ///< optional cap on every joint's |τ| (N·m), below the model's effort_limit; 0: the model's alone
  S damping_safe = S(0.15);               ///< safe mode and invalid frames: τ = −damping_safe q̇ (N·m·s/rad); clamped to the torque limits, so safe on any robot, but weak on a heavy one: size it for yours
  // clang-format on
  S shift_time = S(0.5);  ///< CoM shift before a foot lifts / after it lands (s)
  S lift_time = S(0.3);   ///< swing posture blend time (s)
  /// L (m): the torque rows of the wrench are weighed by 1/L²; about the feet's distance from the CoM.
  S weight_length = S(0.2);
  S regularization = S(1e-7);  ///< ε relative to the largest diagonal entry of G_b Q G_bᵀ (sticking solve)
  S tangential_regularization = S(1e-7);  ///< ε_t relative, on the tangential rows (sticking solve)
  S cone_regularization = S(1e-3);        ///< ε of the friction-cone solve (when the sticking answer leaves a cone)
  S joint_range_margin = S(0);            ///< joint angles accepted this far (rad) outside the model's range
  // Sanity bounds on the sensor frame (a frame beyond them is a sensor fault, not a state to
  // balance from): far above what a legged robot reaches, so they do not depend on the robot.
  S max_joint_velocity = S(100), max_base_velocity = S(20), max_base_rate = S(50);  ///< rad/s, m/s, rad/s
  S max_position = S(100);                                                          ///< |base position| (m) accepted
  int max_invalid_in_row = 20;  ///< invalid frames (or talus failures) in a row before safe mode
  /// Cone solver cap per step (when the sticking answer leaves a cone): bounds the step's work.
  int solver_iterations = 6;
  /// The cone solver's check after every this many iterations and the last
  /// (ConeSolverOptions::check_interval): under a push most solves use all the iterations and
  /// end at the cap, and a check costs about as much as an iteration.
  int solver_check_interval = 3;
  /// ADMM's ρ update factor (ConeSolverOptions::rho_update_factor, ≥ 1). ρ adapts only after a
  /// checked iteration, so at most once per solver_check_interval iterations (each change
  /// refactors W + ρI, which costs more than an iteration), and is carried from step to step
  /// with the warm start. 1 fixes ρ at the solver's automatic start value: fewer instructions
  /// in a capped step, but a slower solve over steps, which the HIL envelope shows as larger
  /// tilts under noise and latency (hil/README.md).
  S solver_rho_update_factor = S(2);
  S solver_tolerance = S(1e-5);  ///< its relative tolerance (ConeSolverOptions::relative_tolerance)
};

/// The balance controller: see the file comment. One object per robot, statically allocated
/// (it holds its Data, ConstraintSet and cone workspace); init() once, then step() per frame.
template <class ModelT, int NumFeet = 4>
class BalanceController {
 public:
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  static constexpr int nq = ModelT::nq, nv = ModelT::nv, nj = ModelT::nv - 6;
  static constexpr int max_rows = 3 * NumFeet;
  static constexpr int num_feet = NumFeet;
  static_assert(NumFeet >= 1, "talus::BalanceController: at least one foot");
  static_assert(nj == 3 * NumFeet,
                "talus::BalanceController: a floating base and three joints per leg (nv = 6 + 3 NumFeet), "
                "leg k = joints 3k..3k+2");
  static_assert(Tree::joint_nq[0] == 7 && Tree::joint_nv[0] == 6 && Tree::parent[0] == -1,
                "talus::BalanceController: the model's first joint must be the floating base (free flyer)");
  static_assert(nq == nv + 1, "talus::BalanceController: every joint but the base has as many q as v entries");
  using Config = Eigen::Matrix<S, nq, 1>;
  using Tangent = Eigen::Matrix<S, nv, 1>;
  using Joints = Eigen::Matrix<S, nj, 1>;
  using Set = ConstraintSet<ModelT, max_rows>;
  using ConeWs = ConeSolverWorkspace<S, NumFeet>;

  /// What a step produced (diagnostics for the log and the tests; tau is the command).
  struct Output {
    Joints tau = Joints::Zero();  ///< joint torques (N·m), model joint order
    ControllerState state = ControllerState::init;
    Status status = Status::ok;                                      ///< the first talus call that failed this step
    Tangent qdd_des = Tangent::Zero();                               ///< q̈ asked for (balance steps)
    Eigen::Matrix<S, 6, 1> wrench = Eigen::Matrix<S, 6, 1>::Zero();  ///< τ_b asked of the contacts
    // clang-format off
    Eigen::Matrix<S, max_rows, 1> lambda = Eigen::Matrix<S, max_rows, 1>::Zero();  ///< per foot (z, x, y), zero if inactive
    // clang-format on
    int solver_iterations = 0;
    bool cone_fallback = false;  ///< the cone solver hit its cap: its last (in-cone) iterate used
    int clamped = 0;             ///< joints at the torque limit
  };

  /// Binds the model, the feet (frame ids; foot k on leg k = joints 3k..3k+2 of the model),
  /// the stance and swing postures (joint angles, model joint order) and the config. Once per
  /// object. invalid_input, with the controller left unbound (step() then commands zero
  /// torque and returns invalid_input), if:
  ///   - a foot frame is unknown or on the world, or foot k's body does not hang below all
  ///     three joints of leg k or hangs below a joint of another leg (feet listed in another
  ///     order than the model's legs: every step would otherwise be singular or wrong);
  ///   - config.height is not set (finite, > 0), or another config entry is out of its
  ///     domain (a time, μ, L, iteration count or bound not positive, a cap or margin negative);
  ///   - a joint has no usable torque limit (no URDF effort limit and no config.torque_limit);
  ///   - a joint's range is empty, or the stance or swing posture is outside it.
  Status init(const ModelT& model, const int (&foot_frames)[NumFeet], const Joints& stance, const Joints& swing,
              const ControllerConfig<S>& config) {
    if (model_ != nullptr) return Status::invalid_input;  // bound already: once per object
    if (!config_valid(config)) return Status::invalid_input;
    for (int k = 0; k < NumFeet; ++k)
      if (!foot_on_leg(model, foot_frames[k], k)) return Status::invalid_input;
    Joints tau_max, lo, hi;
    for (int i = 0; i < nj; ++i) {
      const S e = model.effort_limit[6 + i];
      const bool has_effort = e > S(0) && e < no_limit;  // NaN: none
      if (config.torque_limit > S(0)) tau_max[i] = has_effort && e < config.torque_limit ? e : config.torque_limit;
      else if (has_effort) tau_max[i] = e;
      else return Status::invalid_input;
      lo[i] = model.lower_position_limit[7 + i] - config.joint_range_margin;
      hi[i] = model.upper_position_limit[7 + i] + config.joint_range_margin;
      if (!(lo[i] < hi[i])) return Status::invalid_input;
      if (!(stance[i] >= lo[i] && stance[i] <= hi[i] && swing[i] >= lo[i] && swing[i] <= hi[i]))
        return Status::invalid_input;
    }
    for (int k = 0; k < NumFeet; ++k) {
      const Vector3<S> n[3] = {Vector3<S>::UnitZ(), Vector3<S>::UnitX(), Vector3<S>::UnitY()};
      const Frame<S>& F = model.frames[foot_frames[k]];
      if (Status s = cs_.add_contact(F.body, F.placement.p, n, 3); s != Status::ok) return s;
      foot_frame_[k] = foot_frames[k];
    }
    if (Status s = cs_.bind(model); s != Status::ok) return s;
    cfg_ = config;
    stance_ = stance;
    swing_ = swing;
    tau_max_ = tau_max;
    q_lo_ = lo;
    q_hi_ = hi;
    state_ = ControllerState::init;
    model_ = &model;
    return Status::ok;
  }

  /// Per-joint limits init() fixed (model joint order): |τ| (N·m), and the accepted range (rad).
  const Joints& torque_limit() const { return tau_max_; }
  const Joints& joint_lower() const { return q_lo_; }
  const Joints& joint_upper() const { return q_hi_; }

  /// Latches safe_damping (the firmware's watchdog calls it).
  void enter_safe() { safe_ = true; }
  bool safe() const { return safe_; }
  ControllerState state() const { return state_; }
  const Set& constraints() const { return cs_; }

  /// One control step at time t (s) on the measured (q, v); lift_request: bit k asks foot k
  /// to lift (one foot at a time; the lowest set bit counts). touching: bit k if the plant's
  /// foot k touches the ground (used only to know when a lowered foot has landed).
  /// Before a successful init(): zero torque, status invalid_input.
  Output step(S t, const Config& q_in, const Tangent& v_in, unsigned lift_request, unsigned touching) {
    Output out;
    if (model_ == nullptr) {
      out.status = Status::invalid_input;
      return out;
    }
    Config q = q_in;
    if (!sensor_valid(q, v_in)) {
      ++sensor_invalid;
      if (++bad_in_row_ >= cfg_.max_invalid_in_row) safe_ = true;
      return damping(out, v_in, safe_ ? ControllerState::safe_damping : state_);
    }
    if (safe_) return damping(out, v_in, ControllerState::safe_damping);
    Status s = balance(t, q, v_in, lift_request, touching, out);
    if (s == Status::ok && !out.tau.allFinite()) s = Status::overflow;  // `ok` only with a finite command
    if (s != Status::ok) {
      ++talus_failures;
      if (++bad_in_row_ >= cfg_.max_invalid_in_row) safe_ = true;
      out.status = s;
      return damping(out, v_in, safe_ ? ControllerState::safe_damping : ControllerState::fault);
    }
    bad_in_row_ = 0;
    return out;
  }

  std::uint32_t sensor_invalid = 0;  ///< refused sensor frames
  std::uint32_t talus_failures = 0;  ///< steps with a non-ok talus Status (damping commanded)
  std::uint32_t cone_fallbacks = 0;  ///< steps whose cone solve hit its cap (its last, in-cone iterate commanded)

 private:
  static bool finite(S x) { return std::isfinite(x); }

  /// The model's "no limit" (model.hpp's default for a limit the URDF does not give).
  static constexpr S no_limit = S(1e10);

  static bool positive(S x) { return x > S(0) && finite(x); }
  static bool non_negative(S x) { return x >= S(0) && finite(x); }

  static bool config_valid(const ControllerConfig<S>& c) {
    const S positive_entries[] = {c.height,
                                  c.stand_up_time,
                                  c.shift_time,
                                  c.lift_time,
                                  c.mu,
                                  c.weight_length,
                                  c.max_joint_velocity,
                                  c.max_base_velocity,
                                  c.max_base_rate,
                                  c.max_position,
                                  c.solver_tolerance,
                                  c.cone_regularization,
                                  c.solver_rho_update_factor};
    const S gains[] = {c.kp_xy, c.kd_xy, c.kp_z, c.kd_z, c.kp_rot, c.kd_rot, c.kp_swing, c.kd_swing};
    const S others[] = {c.torque_limit, c.damping_safe, c.regularization, c.tangential_regularization,
                        c.joint_range_margin};
    for (const S x : positive_entries)
      if (!positive(x)) return false;
    for (const S x : gains)
      if (!non_negative(x)) return false;
    for (const S x : others)
      if (!non_negative(x)) return false;
    return c.max_invalid_in_row >= 1 && c.solver_iterations >= 1 && c.solver_check_interval >= 1 &&
           c.solver_rho_update_factor >= S(1);
  }

  /// Foot frame `frame` hangs below the three joints of leg k (v indices 6+3k..6+3k+2) and
  /// below no joint of another leg: the leg's 3 × 3 block of G then holds the foot's own joints.
  static bool foot_on_leg(const ModelT& model, int frame, int k) {
    if (frame < 0 || frame >= ModelT::nframes) return false;
    const int body = model.frames[frame].body;
    if (body < 0 || body >= ModelT::nb) return false;
    for (int leg = 0; leg < NumFeet; ++leg)
      for (int d = 0; d < 3; ++d)
        if (Tree::supports(Tree::dof_body[6 + 3 * leg + d], body) != (leg == k)) return false;
    return true;
  }

  bool sensor_valid(Config& q, const Tangent& v) const {
    using std::abs;
    for (int i = 0; i < nq; ++i)
      if (!finite(q[i])) return false;
    for (int i = 0; i < nv; ++i)
      if (!finite(v[i])) return false;
    for (int i = 0; i < 3; ++i)
      if (abs(q[i]) > cfg_.max_position) return false;
    for (int i = 0; i < nj; ++i)
      if (!(q[7 + i] >= q_lo_[i] && q[7 + i] <= q_hi_[i]) || abs(v[6 + i]) > cfg_.max_joint_velocity) return false;
    if (v.template head<3>().norm() > cfg_.max_base_rate || v.template segment<3>(3).norm() > cfg_.max_base_velocity)
      return false;
    const S n = q.template segment<4>(3).norm();
    if (abs(n - S(1)) > S(1e-3)) return false;
    q.template segment<4>(3) /= n;  // within 1e-3 of unit: renormalised (sensor rounding)
    return true;
  }

  Output& damping(Output& out, const Tangent& v, ControllerState st) {
    for (int i = 0; i < nj; ++i) {
      const S w = v[6 + i];
      out.tau[i] = finite(w) ? -cfg_.damping_safe * w : S(0);
      if (!(std::abs(out.tau[i]) <= tau_max_[i]))
        out.tau[i] = std::isfinite(out.tau[i]) ? std::copysign(tau_max_[i], out.tau[i]) : S(0);
    }
    out.state = st;
    if (st == ControllerState::safe_damping) state_ = st;
    return out;
  }

  static S smooth(S x) {  // 0 → 1 with zero slope at both ends
    x = x < S(0) ? S(0) : (x > S(1) ? S(1) : x);
    return x * x * (S(3) - S(2) * x);
  }

  /// Phases of the three-feet manoeuvre.
  enum class Lift : std::uint8_t { none, shift, lift, hold, lower, unshift };

  Status balance(S t, const Config& q, const Tangent& v, unsigned lift_request, unsigned touching, Output& out) {
    const ModelT& model = *model_;
    // The one sweep (file comment), then 1. the CoM and its velocity from it.
    if (Status s = detail::check_constraint_inputs(model, cs_, q, v); s != Status::ok) return s;
    detail::kinematics_with_world_jacobian(model, data_, q, v, true);
    if (Status s = detail::com_from_kinematics<true>(model, data_); s != Status::ok) return s;
    const Vector3<S> c = data_.com, dc = data_.vcom;
    Vector3<S> foot[NumFeet];
    for (int k = 0; k < NumFeet; ++k) {
      Transform<S> oMf;
      if (Status s = frame_placement(model, data_, foot_frame_[k], oMf); s != Status::ok) return s;
      foot[k] = oMf.p;
    }
    const Eigen::Matrix<S, 4, 1> quat = q.template segment<4>(3);
    const Matrix3<S> R = quaternion_to_rotation<S>(quat[0], quat[1], quat[2], quat[3]);

    if (state_ == ControllerState::init || start_time_ < S(0)) {  // first valid frame
      start_time_ = t;
      z_start_ = q[2];
      using std::atan2;
      const S yaw =
          atan2(S(2) * (quat[0] * quat[3] + quat[1] * quat[2]), S(1) - S(2) * (quat[2] * quat[2] + quat[3] * quat[3]));
      q_des_ << std::cos(yaw / 2), S(0), S(0), std::sin(yaw / 2);
      for (int k = 0; k < NumFeet; ++k) (void)cs_.set_active(k, true);
      if (Status s = anchor_contacts(model, data_, cs_, q); s != Status::ok) return s;
      state_ = ControllerState::stand_up;
      lambda_prev_.setZero(0);
    }
    if (state_ == ControllerState::stand_up && t - start_time_ >= cfg_.stand_up_time) state_ = ControllerState::balance;

    // Three feet: the phase machine (lowest requested foot; one at a time).
    update_lift(t, lift_request, touching, q, foot);

    // 2. G and γ of the feet in contact, from the sweep (anchor_contacts above re-sweeps the
    // placements at the same q: the same values).
    if (!detail::constraint_rows(model, data_, cs_, q, v, detail::pass_jacobian | detail::pass_gamma))
      return Status::invalid_input;
    const int m = cs_.active_rows();

    // 3. Targets and the base acceleration.
    Vector3<S> support = Vector3<S>::Zero();
    int n_support = 0;
    for (int k = 0; k < NumFeet; ++k)
      if (k != lift_foot_ || lift_ == Lift::none) {
        support += foot[k];
        ++n_support;
      }
    support /= S(n_support);
    Vector3<S> all = Vector3<S>::Zero();
    for (int k = 0; k < NumFeet; ++k) all += foot[k];
    all /= S(NumFeet);
    Vector3<S> target = all + shift_blend_ * (support - all);
    const S z_des = state_ == ControllerState::stand_up
                        ? z_start_ + smooth((t - start_time_) / cfg_.stand_up_time) * (cfg_.height - z_start_)
                        : cfg_.height;
    const Vector3<S> v_world = R * v.template segment<3>(3);
    const Vector3<S> w = v.template head<3>();
    Vector3<S> acc;
    acc.x() = cfg_.kp_xy * (target.x() - c.x()) - cfg_.kd_xy * dc.x();
    acc.y() = cfg_.kp_xy * (target.y() - c.y()) - cfg_.kd_xy * dc.y();
    acc.z() = cfg_.kp_z * (z_des - q[2]) - cfg_.kd_z * v_world.z();
    // The feet can only push as much sideways as friction allows: keep the requested
    // horizontal acceleration inside the cone of the total force (μ margin 0.8), so that the
    // distribution usually has a sticking answer.
    const S g = -model.gravity.z();  // m/s² (world z is up: file comment)
    const S a_max = S(0.8) * cfg_.mu * (g + (acc.z() > -g ? acc.z() : -g));
    const S a_xy = std::sqrt(acc.x() * acc.x() + acc.y() * acc.y());
    if (a_xy > a_max) acc.template head<2>() *= a_max / a_xy;
    Eigen::Matrix<S, 4, 1> qc = quat;
    qc.template tail<3>() = -qc.template tail<3>();
    const Vector3<S> e_rot = quaternion_log<S>(quaternion_multiply<S>(qc, q_des_));  // base frame
    Tangent& qdd = out.qdd_des;
    qdd.template head<3>() = cfg_.kp_rot * e_rot - cfg_.kd_rot * w;
    qdd.template segment<3>(3) = R.transpose() * acc - w.cross(v.template segment<3>(3));

    // 4. Joint accelerations: stance legs keep their feet still, swing legs follow the PD.
    for (int k = 0; k < NumFeet; ++k) {
      const int r = cs_.row_offset(k), j = 6 + 3 * k;
      if (r < 0 && lift_ == Lift::lower) {
        // Lowering: the foot back to where it lifted from, 1 cm below the ground so that it
        // lands whatever the legs' posture, by a Cartesian PD through its leg's Jacobian.
        foot_jacobian(foot_frame_[k], foot[k]);
        const Vector3<S> p_land = lift_from_ - Vector3<S>(S(0), S(0), S(0.01));
        const Vector3<S> af = cfg_.kp_swing * (p_land - foot[k]) - cfg_.kd_swing * (Jf_ * v) -
                              Jf_.template leftCols<6>() * qdd.template head<6>();
        Matrix3<S> Ji;
        bool invertible = false;
        S det = S(0);
        Jf_.template block<3, 3>(0, j).computeInverseAndDetWithCheck(Ji, det, invertible, S(1e-9));
        if (!invertible) return Status::singular;
        qdd.template segment<3>(j) = Ji * af;
        continue;
      }
      if (r < 0) {  // lifting or lifted: a joint PD to the swing posture
        const Vector3<S> qs =
            stance_.template segment<3>(3 * k) + swing_blend_ * (swing_ - stance_).template segment<3>(3 * k);
        qdd.template segment<3>(j) =
            cfg_.kp_swing * (qs - q.template segment<3>(7 + 3 * k)) - cfg_.kd_swing * v.template segment<3>(j);
        continue;
      }
      const Matrix3<S> Gl = cs_.G.template block<3, 3>(r, j);
      const Vector3<S> rhs =
          cs_.gamma.template segment<3>(r) - cs_.G.template block<3, 6>(r, 0) * qdd.template head<6>();
      Matrix3<S> Gi;
      bool invertible = false;
      S det = S(0);
      // The threshold is on |det| (m³): far below a bent leg's of any legged robot (links of
      // a few cm give ~1e-4), so it catches a stretched or folded leg, or a foot on another
      // leg's joints (which init() refuses).
      Gl.computeInverseAndDetWithCheck(Gi, det, invertible, S(1e-9));
      if (!invertible) return Status::singular;
      qdd.template segment<3>(j) = Gi * rhs;
    }

    // 5. Inverse dynamics.
    detail::rnea_on_placements<2, false>(model, data_, v, qdd, nullptr);
    const Tangent tau_full = data_.tau;
    if (!all_finite(tau_full)) return Status::overflow;
    out.wrench = tau_full.template head<6>();

    // 6. Distribution inside the friction cones.
    Eigen::Matrix<S, 6, 1> weight;
    const S wl = S(1) / (cfg_.weight_length * cfg_.weight_length);
    weight << wl, wl, wl, S(1), S(1), S(1);
    // W = G_b Q G_bᵀ (its lower triangle, mirrored) and b = −G_b Q τ_b entry by entry: six
    // terms each, where a run-time-sized product would go through Eigen's general GEMM.
    W_.resize(m, m);
    b_.resize(m);
    for (int i = 0; i < m; ++i) {
      S gi[6];
      S bi = S(0);
      for (int r = 0; r < 6; ++r) {
        gi[r] = weight[r] * cs_.G(i, r);
        bi -= gi[r] * out.wrench[r];
      }
      b_[i] = bi;
      for (int j = 0; j <= i; ++j) {
        S wij = S(0);
        for (int r = 0; r < 6; ++r) wij += gi[r] * cs_.G(j, r);
        W_(i, j) = W_(j, i) = wij;
      }
    }
    // ε on the normal rows, a larger ε_t on the tangential ones: among the force sets that
    // give the wrench (nc feet in contact: a (3 nc − 6)-dimensional family) the one with the least friction, which
    // keeps more feet inside their cones without the iterative solve.
    const S wmax = W_.diagonal().maxCoeff();
    const S eps = cfg_.regularization * wmax;
    for (int i = 0; i < m; ++i) W_(i, i) += i % 3 == 0 ? eps : cfg_.tangential_regularization * wmax;
    mu_.setConstant(m / 3, cfg_.mu);
    // The sticking answer W λ = −b first: when it is inside every cone it is the cone
    // problem's solution (all cone multipliers zero), exact, and costs one Cholesky
    // (talus/linalg/cholesky.hpp: no heap; Eigen's LLT of a run-time-sized matrix references
    // malloc through its blocked path, which firmware images must not link).
    L_ = W_;
    if (cholesky_factor(L_, m) != Status::ok) return Status::singular;
    lambda_ = -b_;
    if (Status s = cholesky_solve(L_, m, lambda_); s != Status::ok) return s;
    bool inside = true;
    for (int i = 0; i < m / 3; ++i)
      inside = inside &&
               lambda_[3 * i + 1] * lambda_[3 * i + 1] + lambda_[3 * i + 2] * lambda_[3 * i + 2] <=
                   cfg_.mu * cfg_.mu * lambda_[3 * i] * lambda_[3 * i] &&
               lambda_[3 * i] >= S(0);
    if (!inside) {  // a foot would slide or pull: the friction-cone solver, warm-started
      // With ε ≈ 1e-9 the 3nc − 6 internal-force directions of W are nearly free and ADMM
      // crawls along them; a larger ε (1e-3) makes W well conditioned, at a 1e-3 relative
      // bias on the wrench, which a balance controller does not feel.
      for (int i = 0; i < m; ++i)
        W_(i, i) += cfg_.cone_regularization * wmax - (i % 3 == 0 ? eps : cfg_.tangential_regularization * wmax);
      ConeSolverOptions<S> opt;
      opt.max_iterations = cfg_.solver_iterations;
      opt.relative_tolerance = cfg_.solver_tolerance;
      opt.check_interval = cfg_.solver_check_interval;
      opt.rho_update_factor = cfg_.solver_rho_update_factor;
      opt.warm_start = lambda_prev_.size() == m;
      if (opt.warm_start) {
        lambda_ = lambda_prev_;
        opt.rho = rho_prev_;  // ADMM's penalty too
      }
      ConeSolverReport<S> report;
      const Status s = solve_cone_admm(W_, b_, mu_, lambda_, cone_ws_, opt, report);
      out.solver_iterations = report.iterations;
      rho_prev_ = report.rho;
      if (s == Status::not_converged) {
        // Iteration cap (the step's instruction budget): command ADMM's last iterate y, which
        // is inside every cone (a projection), and warm-start the next step from it, so the
        // solve goes on over the following steps (the problem changes little in 1 ms). Counted.
        ++cone_fallbacks;
        out.cone_fallback = true;
        lambda_ = cone_ws_.y.head(m);
      } else if (s != Status::ok) {
        lambda_prev_.setZero(0);
        return s;
      }
    }
    lambda_prev_ = lambda_;

    // 7. Joint torques.
    out.tau = tau_full.template tail<nj>() - cs_.G.rightCols(nj).transpose() * lambda_;
    for (int i = 0; i < nj; ++i)
      if (std::abs(out.tau[i]) > tau_max_[i]) {
        out.tau[i] = std::copysign(tau_max_[i], out.tau[i]);
        ++out.clamped;
      }
    for (int k = 0; k < NumFeet; ++k)
      if (const int r = cs_.row_offset(k); r >= 0)
        out.lambda.template segment<3>(3 * k) = lambda_.template segment<3>(r);
    out.state = state_;
    return Status::ok;
  }

  /// Jf_ ← the linear velocity Jacobian (world axes) of the foot point at world position p on
  /// `frame`'s body, from the sweep's world Jacobian columns (point_jacobian's
  /// local_world_aligned rows, without its forward kinematics).
  void foot_jacobian(int frame, const Vector3<S>& p) {
    Jf_.setZero();
    detail::for_each_supporting_dof<ModelT>(model_->frames[frame].body, [&](int k) {
      Jf_.col(k) = detail::point_velocity_column<S>(data_.J.col(k), p);
    });
  }

  /// The lift sequence's next phase, from time t (s).
  void enter(Lift phase, S t) {
    lift_ = phase;
    phase_start_ = t;
  }

  void update_lift(S t, unsigned request, unsigned touching, const Config& q, const Vector3<S>* foot) {
    if (state_ == ControllerState::stand_up) return;
    int want = -1;
    for (int k = 0; k < NumFeet; ++k)
      if (request & (1u << k)) {
        want = k;
        break;
      }
    const S dt = t - phase_start_;
    switch (lift_) {
      case Lift::none:
        if (want >= 0) {
          lift_foot_ = want;
          state_ = ControllerState::three_feet;
          enter(Lift::shift, t);
        }
        break;
      case Lift::shift:
        shift_blend_ = smooth(dt / cfg_.shift_time);
        if (dt >= cfg_.shift_time) {
          (void)cs_.set_active(lift_foot_, false);
          lift_from_ = foot[lift_foot_];
          enter(Lift::lift, t);
        }
        break;
      case Lift::lift:
        swing_blend_ = smooth(dt / cfg_.lift_time);
        if (dt >= cfg_.lift_time) enter(Lift::hold, t);
        break;
      case Lift::hold:
        if (want != lift_foot_) enter(Lift::lower, t);
        break;
      case Lift::lower:
        if (touching & (1u << lift_foot_)) {
          (void)anchor_contacts(*model_, data_, cs_, q, lift_foot_);  // re-anchor where it landed
          (void)cs_.set_active(lift_foot_, true);
          swing_blend_ = S(0);
          enter(Lift::unshift, t);
        }
        break;
      case Lift::unshift:
        shift_blend_ = S(1) - smooth(dt / cfg_.shift_time);
        if (dt >= cfg_.shift_time) {
          shift_blend_ = S(0);
          lift_foot_ = -1;
          state_ = ControllerState::balance;
          enter(Lift::none, t);
        }
        break;
    }
  }

  const ModelT* model_ = nullptr;
  Data<ModelT> data_;
  Set cs_;
  ConeWs cone_ws_;
  ControllerConfig<S> cfg_;
  Joints stance_ = Joints::Zero(), swing_ = Joints::Zero();
  Joints tau_max_ = Joints::Zero();                       ///< |τ| per joint (N·m), from init()
  Joints q_lo_ = Joints::Zero(), q_hi_ = Joints::Zero();  ///< accepted joint range (rad), from init()
  int foot_frame_[NumFeet] = {};
  ControllerState state_ = ControllerState::init;
  bool safe_ = false;
  int bad_in_row_ = 0;
  S start_time_ = S(-1), z_start_ = S(0);
  Eigen::Matrix<S, 4, 1> q_des_ = Eigen::Matrix<S, 4, 1>(S(1), S(0), S(0), S(0));
  Lift lift_ = Lift::none;
  int lift_foot_ = -1;
  S phase_start_ = S(0), shift_blend_ = S(0), swing_blend_ = S(0);
  Vector3<S> lift_from_ = Vector3<S>::Zero();                     ///< where the lifted foot was (world)
  Eigen::Matrix<S, 3, nv> Jf_ = Eigen::Matrix<S, 3, nv>::Zero();  ///< the lowered foot's Jacobian
  typename ConeWs::Matrix W_;
  typename ConeWs::Matrix L_;  ///< Cholesky factor of W (the sticking answer)
  S rho_prev_ = S(0);
  typename ConeWs::Vector b_, lambda_, lambda_prev_;
  Eigen::Matrix<S, Eigen::Dynamic, 1, 0, NumFeet, 1> mu_;
};

}  // namespace talus
