#pragma once
/// \file constraint_set.hpp
/// `ConstraintSet<Model, MaxRows>`: the constraints of a mechanism (contacts, kinematic
/// loops, user-defined kinds), added once at start-up, switched on and off every cycle, with
/// every workspace the solvers need held inside, sized at compile time. Nothing allocates.
///
/// Conventions (the same in every constraint function and solver):
///   - Every constraint contributes rows to the constraint Jacobian G (rows × nv) and to
///     γ, the acceleration-independent term, so that the constrained motion satisfies
///         G q̈ = γ   and   G q̇ = 0 (velocity level).
///   - Constraint forces enter the equations of motion as
///         H q̈ + C = τ + Gᵀ λ,
///     so λ is the force (N) or torque (N·m) the constraint applies to the mechanism along
///     each row; a foot standing on the ground with normal +z has λ_z > 0.
///   - Only *active* constraints contribute; their rows are packed in the order the
///     constraints were added. `row_offset(index)` gives where a constraint's rows start
///     in G, γ, λ and the errors (−1 when it is inactive).
///
/// Kinds:
///   contact  — a point p on body b (body frame, m) and 1 to 3 unit axes n_k in world
///              coordinates: row k is n_kᵀ ṗ = 0 (the point does not move along n_k). The
///              rows of one contact share one point Jacobian. Position error n_kᵀ (p − p₀),
///              with p₀ the contact's world anchor (default the world origin; set it with
///              set_contact_anchor, or anchor_contacts in constraint_quantities.hpp: where
///              the foot is now). add_contact takes a body and a point, or a frame id (its
///              body and origin are looked up in the model).
///   contact_6d — a frame F (placement bMf on body b) welded to a reference placement oMref
///              in the world (a sole flat on the ground; default: where F is when
///              anchor_contacts runs, or set_contact_placement): 6 rows, [angular; linear],
///              Pinocchio's two variants (ContactFrame6D):
///                local:               v_F = [Fᴿᵀ ω ; Fᴿᵀ ṗ_F]   (F's own axes)
///                local_world_aligned: v_F = [ω ; ṗ_F]           (world axes, at F's origin)
///              with ω the body's angular velocity and ṗ_F the velocity of F's origin (world).
///              γ is −d/dt(v_F) at q̈ = 0: local rows ask for zero spatial acceleration
///              [Fᴿᵀ ω̇ ; Fᴿᵀ (p̈_F − ω × ṗ_F)], local-world-aligned rows for zero classical
///              acceleration [ω̇ ; p̈_F]; both give the same q̈ when F is at rest. Position
///              error: local [log(refᴿᵀ Fᴿ) ; Fᴿᵀ (p_F − p_ref)], local_world_aligned
///              [refᴿ log(refᴿᵀ Fᴿ) ; p_F − p_ref] (rad, m). λ is the wrench on the robot in
///              the rows' axes ([torque; force] about F's origin): N·m and N.
///   loop     — a frame P on a predecessor body and a frame S on a successor body (either
///              may be the world, body −1); 1 to 6 spatial axes a_k = [angular; linear] in
///              P's coordinates. Row k is a_kᵀ of the velocity of S relative to P, in P's
///              axes, with the reference point at S's origin:
///                  [ Pᴿᵀ (ω_S − ω_P) ;  Pᴿᵀ (ṗ_S − ṗ_P − ω_P × (p_S − p_P)) ],
///              whose linear part is exactly the time derivative of S's origin in P.
///              Position error a_kᵀ [log(Pᴿᵀ Sᴿ) ; Pᴿᵀ (p_S − p_P)] (rotation vector, rad; m).
///              Each axis is flagged position-level and/or velocity-level: an axis that is
///              not position-level has zero position error (it constrains velocity only),
///              one that is not velocity-level has zero velocity error.
///              Optional Baumgarte stabilisation with time constant T (default 0.1 s):
///                  γ_k ← γ_k − 2α ė_k − β² e_k,   α = β = 1/T.
///   custom   — a user type deriving from CustomConstraint (below) that supplies its rows of
///              G, γ and errors. The set stores a non-owning pointer: the object must
///              outlive the set (a static or a member next to the set).
///
/// Life cycle: add_contact / add_contact_6d / add_loop / add_custom at start-up (each returns
/// a Status: capacity_exceeded when rows or constraints exceed the capacity; invalid_input,
/// with failure() naming the input, for a body id outside ModelT (body_out_of_range), a point
/// not finite or beyond input_limits::position (point_invalid), a normal with |‖n‖ − 1| > 1e-6
/// (normal_not_unit), a frame that is not a rigid transform (placement_invalid), a zero axis,
/// 0 or too many axes (axis_count), a Baumgarte T out of range, or when the set is already
/// bound: adding would change the rows a running controller reads, so it is refused; call
/// unbind() first). Every add checks what bind checks, at once: a refused add leaves the set
/// unchanged. bind(model) checks them again (and the model, and custom rows). Solvers refuse
/// a set that is not bound. set_active(index, on), set_contact_anchor, set_contact_placement and
/// set_loop_frames between any two calls: nothing is reallocated or rebound.
///
/// Failures say which and why: every refused add, bind and every constraint function or
/// solver that does not return ok records a ConstraintFailure (status, reason, constraint
/// index or −1, kind) in the set, read with failure() and printed with to_string(reason).
/// A call that returns ok clears it.
///
/// Reading results: λ of constraint i is lambda[row_offset(i) + k], but row_offset is −1 for
/// an inactive constraint: read it through force(i, f) (its rows, zero when inactive,
/// invalid_input for an unknown index), contact_force(i, f) (a point contact's force on the
/// robot, world axes) or constraint_wrenches (constraint_forces.hpp).
#include <initializer_list>

#include <talus/algorithms/jacobians.hpp>
#include <talus/linalg/kkt_workspace.hpp>

namespace talus {

enum class ConstraintKind : unsigned char { contact, loop, custom, contact_6d };

/// The rows of a 6D contact (Pinocchio's LOCAL and LOCAL_WORLD_ALIGNED).
enum class ContactFrame6D : unsigned char {
  local,                ///< [ω ; ṗ_F] in the contact frame F's axes
  local_world_aligned,  ///< [ω ; ṗ_F] in world axes, at F's origin
};

/// Why a constraint call failed (ConstraintFailure::reason).
enum class FailureReason : unsigned char {
  none = 0,
  set_not_bound,            ///< a solve on a set that bind() has not accepted
  set_already_bound,        ///< add_* after bind(): call unbind() first
  too_many_rows,            ///< add_*: the set's MaxRows would be exceeded
  too_many_constraints,     ///< add_*: the set's MaxConstraints would be exceeded
  axis_count,               ///< add_*: 1–3 normals, 1–6 loop axes, 1–6 custom rows
  zero_axis,                ///< add_*: an axis or normal is zero or NaN
  frame_out_of_range,       ///< add_contact(model, frame, ...): not a frame of the model
  model_invalid,            ///< bind: check_model refused the model
  body_out_of_range,        ///< a body id outside the model (a contact needs a moving body)
  point_invalid,            ///< contact point or anchor not finite or beyond input_limits::position
  placement_invalid,        ///< a loop or 6D-contact frame is not a rigid transform within limits
  normal_not_unit,          ///< a contact normal with |‖n‖ − 1| > 1e-6
  axis_invalid,             ///< an axis beyond input_limits::magnitude
  loop_without_body,        ///< a loop between two world frames
  custom_rows_changed,      ///< a custom constraint's rows() differs from when it was added
  baumgarte_invalid,        ///< Baumgarte T outside [1e-6, 1e6] s
  index_out_of_range,       ///< set_active, set_contact_* with an unknown index or the wrong kind
  q_invalid,                ///< q: NaN/Inf, beyond limits, unnormalised quaternion
  input_invalid,            ///< another input (q̇, τ, weights, fext, options): NaN/Inf or beyond limits
  pivot_tolerance_invalid,  ///< cs.ws.pivot_tolerance outside [0, 1]
  kind_not_supported,       ///< the method does not handle this kind (Kokkevis: contacts only)
  custom_not_finite,        ///< a custom constraint returned a non-finite value
  custom_wrench_invalid,    ///< a custom constraint's wrenches() gave a count outside 0..2 or an unknown body
  singular,                 ///< redundant or inconsistent constraints, or H not positive definite
  not_converged,            ///< an iteration cap was reached
  overflow,                 ///< a result was not finite
};

/// Short name of a FailureReason, for logs ("body_out_of_range", ...).
constexpr const char* to_string(FailureReason r) {
  switch (r) {
    case FailureReason::none: return "none";
    case FailureReason::set_not_bound: return "set_not_bound";
    case FailureReason::set_already_bound: return "set_already_bound";
    case FailureReason::too_many_rows: return "too_many_rows";
    case FailureReason::too_many_constraints: return "too_many_constraints";
    case FailureReason::axis_count: return "axis_count";
    case FailureReason::zero_axis: return "zero_axis";
    case FailureReason::frame_out_of_range: return "frame_out_of_range";
    case FailureReason::model_invalid: return "model_invalid";
    case FailureReason::body_out_of_range: return "body_out_of_range";
    case FailureReason::point_invalid: return "point_invalid";
    case FailureReason::placement_invalid: return "placement_invalid";
    case FailureReason::normal_not_unit: return "normal_not_unit";
    case FailureReason::axis_invalid: return "axis_invalid";
    case FailureReason::loop_without_body: return "loop_without_body";
    case FailureReason::custom_rows_changed: return "custom_rows_changed";
    case FailureReason::baumgarte_invalid: return "baumgarte_invalid";
    case FailureReason::index_out_of_range: return "index_out_of_range";
    case FailureReason::q_invalid: return "q_invalid";
    case FailureReason::input_invalid: return "input_invalid";
    case FailureReason::pivot_tolerance_invalid: return "pivot_tolerance_invalid";
    case FailureReason::kind_not_supported: return "kind_not_supported";
    case FailureReason::custom_not_finite: return "custom_not_finite";
    case FailureReason::custom_wrench_invalid: return "custom_wrench_invalid";
    case FailureReason::singular: return "singular";
    case FailureReason::not_converged: return "not_converged";
    case FailureReason::overflow: return "overflow";
  }
  return "unknown";
}

/// Short name of a ConstraintKind.
constexpr const char* to_string(ConstraintKind k) {
  switch (k) {
    case ConstraintKind::contact: return "contact";
    case ConstraintKind::loop: return "loop";
    case ConstraintKind::custom: return "custom";
    case ConstraintKind::contact_6d: return "contact_6d";
  }
  return "unknown";
}

/// Which constraint or input made the last call on a set fail, and why. A small value:
/// no text, no heap. `index` is the constraint (−1: not one constraint: an input, the
/// model, the whole system); `kind` is meaningful when index ≥ 0.
struct ConstraintFailure {
  Status status = Status::ok;
  FailureReason reason = FailureReason::none;
  int index = -1;
  ConstraintKind kind = ConstraintKind::contact;
};

/// A user-defined constraint kind, 1 to 6 rows. The functions are called after the set has
/// run forward kinematics with (q, v, q̈ = 0) and the world-frame Jacobian columns: data.oMi,
/// data.v, data.a (velocity-product accelerations, body frames) and data.J are current.
/// Each writes the first rows() rows of its output.
template <class ModelT>
class CustomConstraint {
 public:
  using S = typename ModelT::Scalar;
  using Rows = Eigen::Matrix<S, 6, ModelT::nv>;
  using RowValues = Eigen::Matrix<S, 6, 1>;
  using ConfigVector = typename ModelT::ConfigVector;
  using TangentVector = typename ModelT::TangentVector;

  /// Number of rows, 1..6; constant after add_custom.
  virtual int rows() const = 0;
  /// The rows of G.
  virtual void jacobian(const ModelT& model, const Data<ModelT>& data, const ConfigVector& q, Rows& G) const = 0;
  /// γ = −Ġ q̇ (without Baumgarte; the set adds it when enabled for this constraint).
  virtual void gamma(const ModelT& model, const Data<ModelT>& data, const ConfigVector& q, const TangentVector& v,
                     RowValues& gamma) const = 0;
  /// Position errors (zero where the constraint is velocity-level only).
  virtual void position_errors(const ModelT& model, const Data<ModelT>& data, const ConfigVector& q,
                               RowValues& e) const = 0;
  /// Velocity errors; the default is G q̇.
  virtual void velocity_errors(const ModelT& model, const Data<ModelT>& data, const ConfigVector& q,
                               const TangentVector& v, RowValues& e) const {
    Rows G = Rows::Zero();
    jacobian(model, data, q, G);
    e = G * v;
  }
  /// Optional force resolution: the wrenches the constraint applies, for multipliers λ, as up
  /// to two (body, world-frame spatial force at the world origin) pairs. Returns how many
  /// (0: the constraint does not resolve its force onto bodies; only λ is reported).
  virtual int wrenches(const ModelT& /*model*/, const Data<ModelT>& /*data*/, const RowValues& /*lambda*/,
                       int /*body*/[2], Force<S> /*world_force*/[2]) const {
    return 0;
  }

 protected:
  CustomConstraint() = default;
  CustomConstraint(const CustomConstraint&) = default;
  CustomConstraint& operator=(const CustomConstraint&) = default;
  ~CustomConstraint() = default;  // not virtual and protected: never deleted through this type (no operator delete)
};

/// One axis of a loop constraint: a = [angular; linear] in the predecessor frame.
template <class S>
struct LoopAxis {
  Motion<S> axis = Motion<S>::Zero();
  bool position_level = true;
  bool velocity_level = true;
};

/// Baumgarte stabilisation of a loop or custom constraint.
template <class S>
struct Baumgarte {
  bool enabled = false;
  S time_constant = S(0.1);  ///< T (s); α = β = 1/T
  static Baumgarte on(S T = S(0.1)) { return Baumgarte{true, T}; }
};

/// One constraint: what was added. Read through ConstraintSet::constraint(index).
template <class ModelT>
struct ConstraintEntry {
  using S = typename ModelT::Scalar;
  ConstraintKind kind = ConstraintKind::contact;
  const char* name = nullptr;
  int user_id = -1;
  bool active = true;
  int rows = 0;
  // contact: body[0], point, axes[k].tail<3>() = normal k. loop: body[0] = predecessor,
  // body[1] = successor, frame[0] = predecessor frame in its body, frame[1] = successor frame.
  // contact_6d: body[0], frame[0] = bMf (F in the body), frame[1] = oMref (reference, world),
  // rows6d = local or local_world_aligned; axis[k] = e_k.
  int body[2] = {-1, -1};
  Vector3<S> point = Vector3<S>::Zero();
  Vector3<S> anchor = Vector3<S>::Zero();
  Transform<S> frame[2];
  Motion<S> axis[6] = {Motion<S>::Zero(), Motion<S>::Zero(), Motion<S>::Zero(),
                       Motion<S>::Zero(), Motion<S>::Zero(), Motion<S>::Zero()};
  bool position_level[6] = {true, true, true, true, true, true};
  bool velocity_level[6] = {true, true, true, true, true, true};
  ContactFrame6D rows6d = ContactFrame6D::local_world_aligned;
  Baumgarte<S> baumgarte;
  const CustomConstraint<ModelT>* custom = nullptr;
};

template <class ModelT, int MaxRows, int MaxConstraints = MaxRows>
class ConstraintSet {
  static_assert(MaxRows >= 1 && MaxConstraints >= 1, "ConstraintSet needs a positive capacity");

 public:
  using Model = ModelT;
  using S = typename ModelT::Scalar;
  static constexpr int nv = ModelT::nv;
  static constexpr int max_rows = MaxRows;
  static constexpr int max_constraints = MaxConstraints;
  using Workspace = SolverWorkspace<S, nv, MaxRows>;
  using RowVector = typename Workspace::RowVector;
  using JacobianMatrix = typename Workspace::GMatrix;
  using TangentVector = typename ModelT::TangentVector;
  using Entry = ConstraintEntry<ModelT>;
  using ConstraintForce = Eigen::Matrix<S, 6, 1>;  ///< one constraint's λ (its rows first, then zeros)

  // ---- start-up ------------------------------------------------------------------------

  /// Contact: point p_body (m, body frame) of `body`, 1–3 unit normals in world coordinates.
  Status add_contact(int body, const Vector3<S>& p_body, std::initializer_list<Vector3<S>> normals,
                     const char* name = nullptr, int user_id = -1) {
    return add_contact(body, p_body, normals.begin(), static_cast<int>(normals.size()), name, user_id);
  }
  /// Contact at the origin of model frame `frame` (its body and offset are looked up):
  /// invalid_input (frame_out_of_range) for an unknown frame or one fixed to the world.
  Status add_contact(const ModelT& model, int frame, std::initializer_list<Vector3<S>> normals,
                     const char* name = nullptr, int user_id = -1) {
    if (frame < 0 || frame >= ModelT::nframes || model.frames[frame].body < 0)
      return refuse(Status::invalid_input, FailureReason::frame_out_of_range, count_, ConstraintKind::contact);
    const auto& F = model.frames[frame];
    return add_contact(F.body, F.placement.p, normals.begin(), static_cast<int>(normals.size()),
                       name != nullptr ? name : F.name, user_id);
  }
  /// Contact from an array of n normals (n in 1..3).
  Status add_contact(int body, const Vector3<S>& p_body, const Vector3<S>* normals, int n, const char* name = nullptr,
                     int user_id = -1) {
    if (Status s = check_add(ConstraintKind::contact, n, 3); s != Status::ok) return s;
    Entry* e = new_entry(n);
    e->kind = ConstraintKind::contact;
    e->body[0] = body;
    e->point = p_body;
    for (int k = 0; k < n; ++k) e->axis[k].template tail<3>() = normals[k];
    return finish_entry(e, name, user_id);
  }

  /// 6D contact: frame bMf of `body` welded to the reference placement oMref (world; set
  /// per cycle with set_contact_placement or anchor_contacts), rows per `rows`.
  Status add_contact_6d(int body, const Transform<S>& bMf, ContactFrame6D rows,
                        const Transform<S>& oMref = Transform<S>(), Baumgarte<S> baumgarte = {},
                        const char* name = nullptr, int user_id = -1) {
    if (Status s = check_add(ConstraintKind::contact_6d, 6, 6); s != Status::ok) return s;
    Entry* e = new_entry(6);
    e->kind = ConstraintKind::contact_6d;
    e->body[0] = body;
    e->frame[0] = bMf;
    e->frame[1] = oMref;
    e->rows6d = rows;
    for (int k = 0; k < 6; ++k) e->axis[k][k] = S(1);
    e->baumgarte = baumgarte;
    return finish_entry(e, name, user_id);
  }
  /// 6D contact on model frame `frame` (body and placement looked up).
  Status add_contact_6d(const ModelT& model, int frame, ContactFrame6D rows, const Transform<S>& oMref = Transform<S>(),
                        Baumgarte<S> baumgarte = {}, const char* name = nullptr, int user_id = -1) {
    if (frame < 0 || frame >= ModelT::nframes || model.frames[frame].body < 0)
      return refuse(Status::invalid_input, FailureReason::frame_out_of_range, count_, ConstraintKind::contact_6d);
    const auto& F = model.frames[frame];
    return add_contact_6d(F.body, F.placement, rows, oMref, baumgarte, name != nullptr ? name : F.name, user_id);
  }

  /// Loop: frame `pred_frame` on body `pred_body`, frame `succ_frame` on body `succ_body`
  /// (−1: the world), 1–6 axes in the predecessor frame.
  Status add_loop(int pred_body, const Transform<S>& pred_frame, int succ_body, const Transform<S>& succ_frame,
                  std::initializer_list<LoopAxis<S>> axes, Baumgarte<S> baumgarte = {}, const char* name = nullptr,
                  int user_id = -1) {
    return add_loop(pred_body, pred_frame, succ_body, succ_frame, axes.begin(), static_cast<int>(axes.size()),
                    baumgarte, name, user_id);
  }
  /// Loop with its axes from a std::array (any N in 1..6).
  template <std::size_t N>
  Status add_loop(int pred_body, const Transform<S>& pred_frame, int succ_body, const Transform<S>& succ_frame,
                  const std::array<LoopAxis<S>, N>& axes, Baumgarte<S> baumgarte = {}, const char* name = nullptr,
                  int user_id = -1) {
    static_assert(N >= 1 && N <= 6, "talus: a loop has 1 to 6 axes");
    return add_loop(pred_body, pred_frame, succ_body, succ_frame, axes.data(), static_cast<int>(N), baumgarte, name,
                    user_id);
  }
  /// Loop with n axes from a pointer (a span: data(), size()), n in 1..6.
  Status add_loop(int pred_body, const Transform<S>& pred_frame, int succ_body, const Transform<S>& succ_frame,
                  const LoopAxis<S>* axes, int n, Baumgarte<S> baumgarte = {}, const char* name = nullptr,
                  int user_id = -1) {
    if (Status s = check_add(ConstraintKind::loop, n, 6); s != Status::ok) return s;
    Entry* e = new_entry(n);
    e->kind = ConstraintKind::loop;
    e->body[0] = pred_body;
    e->body[1] = succ_body;
    e->frame[0] = pred_frame;
    e->frame[1] = succ_frame;
    for (int k = 0; k < n; ++k) {
      e->axis[k] = axes[k].axis;
      e->position_level[k] = axes[k].position_level;
      e->velocity_level[k] = axes[k].velocity_level;
    }
    e->baumgarte = baumgarte;
    return finish_entry(e, name, user_id);
  }

  /// Custom: `c` must outlive the set.
  Status add_custom(const CustomConstraint<ModelT>& c, Baumgarte<S> baumgarte = {}, const char* name = nullptr,
                    int user_id = -1) {
    const int n = c.rows();
    if (Status s = check_add(ConstraintKind::custom, n, 6); s != Status::ok) return s;
    Entry* e = new_entry(n);
    e->kind = ConstraintKind::custom;
    e->custom = &c;
    e->baumgarte = baumgarte;
    return finish_entry(e, name, user_id);
  }

  /// Validates the model (check_model) and every constraint against it: body ids in range
  /// (a contact needs a moving body; a loop needs at least one), points and anchors finite
  /// and within input_limits::position, loop and 6D-contact frames rigid transforms (finite
  /// translation, RᵀR = 1, det +1), axes finite (|‖n‖ − 1| ≤ 1e-6 for contact normals; loop
  /// axes non-zero and within input_limits::magnitude), Baumgarte T in [1e-6, 1e6] s. The set
  /// is usable only after ok; otherwise failure() names the first constraint refused and why.
  Status bind(const ModelT& model) {
    bound_ = false;
    if (check_model(model) != Status::ok) return refuse(Status::invalid_input, FailureReason::model_invalid, -1);
    for (int i = 0; i < count_; ++i)
      if (const FailureReason r = entry_check(entries_[i]); r != FailureReason::none)
        return refuse(Status::invalid_input, r, i, entries_[i].kind);
    bound_ = true;
    update_rows();
    return succeed();
  }
  /// Makes the set editable again (add_*); bind() again before the next solve.
  void unbind() { bound_ = false; }

  // ---- every cycle ---------------------------------------------------------------------

  /// Switch a constraint on or off (a foot lands, lifts off). No allocation, no rebind.
  Status set_active(int index, bool on) {
    if (index < 0 || index >= count_) return refuse(Status::invalid_input, FailureReason::index_out_of_range, index);
    entries_[index].active = on;
    update_rows();
    return Status::ok;
  }
  bool is_active(int index) const { return index >= 0 && index < count_ && entries_[index].active; }
  /// World anchor p₀ of a contact's position error (m): finite, within
  /// input_limits::position, else invalid_input and the anchor is unchanged.
  Status set_contact_anchor(int index, const Vector3<S>& p0) {
    if (index < 0 || index >= count_ || entries_[index].kind != ConstraintKind::contact)
      return refuse(Status::invalid_input, FailureReason::index_out_of_range, index);
    if (!detail::point_valid(p0))
      return refuse(Status::invalid_input, FailureReason::point_invalid, index, ConstraintKind::contact);
    entries_[index].anchor = p0;
    return Status::ok;
  }
  /// Reference placement oMref (world) of a 6D contact: a rigid transform within
  /// input_limits::position, else invalid_input and the placement is unchanged.
  Status set_contact_placement(int index, const Transform<S>& oMref) {
    if (index < 0 || index >= count_ || entries_[index].kind != ConstraintKind::contact_6d)
      return refuse(Status::invalid_input, FailureReason::index_out_of_range, index);
    if (!detail::transform_valid(oMref))
      return refuse(Status::invalid_input, FailureReason::placement_invalid, index, ConstraintKind::contact_6d);
    entries_[index].frame[1] = oMref;
    return Status::ok;
  }
  /// New frames of a loop (predecessor frame in its body, successor frame in its body; a
  /// side that is the world takes a world placement): e.g. a hand grasping a new handle.
  Status set_loop_frames(int index, const Transform<S>& pred_frame, const Transform<S>& succ_frame) {
    if (index < 0 || index >= count_ || entries_[index].kind != ConstraintKind::loop)
      return refuse(Status::invalid_input, FailureReason::index_out_of_range, index);
    if (!detail::transform_valid(pred_frame) || !detail::transform_valid(succ_frame))
      return refuse(Status::invalid_input, FailureReason::placement_invalid, index, ConstraintKind::loop);
    entries_[index].frame[0] = pred_frame;
    entries_[index].frame[1] = succ_frame;
    return Status::ok;
  }

  // ---- lookup ----------------------------------------------------------------------------

  int size() const { return count_; }               ///< constraints added
  int rows() const { return total_rows_; }          ///< rows of all constraints
  int active_rows() const { return active_rows_; }  ///< rows of active constraints: size of G, γ, λ
  bool bound() const { return bound_; }
  bool valid_index(int index) const { return index >= 0 && index < count_; }
  /// The constraint `index` as added; an empty entry (0 rows, inactive) for an index out of
  /// range (check with valid_index).
  const Entry& constraint(int index) const { return valid_index(index) ? entries_[index] : none_; }
  /// Index of the constraint named `name`, or −1.
  int find(const char* name) const {
    if (name == nullptr) return -1;
    for (int i = 0; i < count_; ++i)
      if (entries_[i].name != nullptr && same(entries_[i].name, name)) return i;
    return -1;
  }
  /// Index of the constraint with user id `id`, or −1.
  int find_user_id(int id) const {
    for (int i = 0; i < count_; ++i)
      if (entries_[i].user_id == id) return i;
    return -1;
  }
  /// First row of an active constraint in G, γ, λ; −1 if inactive or out of range.
  int row_offset(int index) const { return valid_index(index) ? offset_[index] : -1; }

  /// λ of constraint `index` from the last solve: its rows in f[0 .. rows−1], zeros after.
  /// An inactive constraint reads zero (ok); an unknown index gives invalid_input (zero).
  Status force(int index, ConstraintForce& f) const {
    f.setZero();
    if (!valid_index(index)) return Status::invalid_input;
    const int r = offset_[index];
    if (r < 0 || lambda.size() != active_rows_) return Status::ok;
    for (int k = 0; k < entries_[index].rows; ++k) f[k] = lambda(r + k);
    return Status::ok;
  }
  /// Force (N, world axes) a point contact applies to the robot, Σ_k λ_k n_k; zero when
  /// inactive; invalid_input (zero) for an unknown index or a constraint that is not a contact.
  Status contact_force(int index, Vector3<S>& f) const {
    f.setZero();
    if (!valid_index(index) || entries_[index].kind != ConstraintKind::contact) return Status::invalid_input;
    ConstraintForce l;
    (void)force(index, l);
    for (int k = 0; k < entries_[index].rows; ++k) f += l[k] * entries_[index].axis[k].template tail<3>();
    return Status::ok;
  }

  /// Which constraint or input made the last call fail, and why (status ok after a success).
  const ConstraintFailure& failure() const { return failure_; }
  /// Records a failure (used by the constraint functions and solvers); returns `s`.
  Status record_failure(Status s, FailureReason reason, int index = -1,
                        ConstraintKind kind = ConstraintKind::contact) const {
    failure_ = ConstraintFailure{s, reason, index, kind};
    return s;
  }
  /// Clears the failure record; returns ok.
  Status succeed() const {
    failure_ = ConstraintFailure{};
    return Status::ok;
  }

  // ---- results and workspace (written by the constraint functions and solvers) ----------
  JacobianMatrix G;                         ///< constraint Jacobian, active rows × nv
  RowVector gamma;                          ///< γ (with Baumgarte where enabled), active rows
  RowVector lambda;                         ///< constraint forces / impulses of the last solve, active rows
  RowVector position_error;                 ///< last computed position errors, active rows
  RowVector velocity_error;                 ///< last computed velocity errors, active rows
  TangentVector C = TangentVector::Zero();  ///< bias forces C(q, q̇) (− Jᵀ f_ext) of the last solve
  /// Evidence of the last constrained solve (status.hpp; forward dynamics, impulses): the
  /// residual of its answer and the tolerance it was held to, per method in
  /// docs/constraints.md. Both 0 when the solve failed before an answer was checked.
  Residual<S> residual{};
  Workspace ws;  ///< solver workspace

 private:
  Status refuse(Status s, FailureReason reason, int index, ConstraintKind kind = ConstraintKind::contact) const {
    return record_failure(s, reason, index, kind);
  }
  /// Whether a constraint of `n` rows (at most max_axes) can be added now.
  Status check_add(ConstraintKind kind, int n, int max_axes) {
    if (bound_) return refuse(Status::invalid_input, FailureReason::set_already_bound, count_, kind);
    if (n < 1 || n > max_axes) return refuse(Status::invalid_input, FailureReason::axis_count, count_, kind);
    if (count_ >= MaxConstraints)
      return refuse(Status::capacity_exceeded, FailureReason::too_many_constraints, count_, kind);
    if (total_rows_ + n > MaxRows) return refuse(Status::capacity_exceeded, FailureReason::too_many_rows, count_, kind);
    return Status::ok;
  }
  Entry* new_entry(int n) {
    entries_[count_] = Entry{};
    entries_[count_].rows = n;
    return &entries_[count_];
  }
  /// Validates the new entry (built in the unused slot entries_[count_]) with bind's own
  /// checks before counting it: a refused add leaves the set as it was, and the reason names
  /// the input at the call that passed it, not at a later bind.
  Status finish_entry(Entry* e, const char* name, int user_id) {
    for (int k = 0; k < e->rows; ++k)
      if (!(e->axis[k].norm() > S(0)) && e->kind != ConstraintKind::custom)
        return refuse(Status::invalid_input, FailureReason::zero_axis, count_, e->kind);
    if (const FailureReason r = entry_check(*e); r != FailureReason::none)
      return refuse(Status::invalid_input, r, count_, e->kind);
    e->name = name;
    e->user_id = user_id;
    total_rows_ += e->rows;
    ++count_;
    update_rows();
    return succeed();
  }
  void update_rows() {
    int r = 0;
    for (int i = 0; i < count_; ++i) {
      offset_[i] = entries_[i].active ? r : -1;
      if (entries_[i].active) r += entries_[i].rows;
    }
    active_rows_ = r;
  }
  static Entry inactive_entry() {
    Entry e;
    e.active = false;
    return e;
  }
  /// FailureReason::none if the entry is valid for ModelT.
  static FailureReason entry_check(const Entry& e) {
    for (int k = 0; k < e.rows; ++k)
      if (!all_within(e.axis[k], input_limits::magnitude)) return FailureReason::axis_invalid;
    switch (e.kind) {
      case ConstraintKind::contact:
        if (e.body[0] < 0 || e.body[0] >= ModelT::nb) return FailureReason::body_out_of_range;
        if (!detail::point_valid(e.point) || !detail::point_valid(e.anchor)) return FailureReason::point_invalid;
        for (int k = 0; k < e.rows; ++k) {
          using std::abs;
          if (!(abs(e.axis[k].template tail<3>().norm() - S(1)) <= S(1e-6))) return FailureReason::normal_not_unit;
        }
        break;
      case ConstraintKind::contact_6d:
        if (e.body[0] < 0 || e.body[0] >= ModelT::nb) return FailureReason::body_out_of_range;
        if (!detail::transform_valid(e.frame[0]) || !detail::transform_valid(e.frame[1]))
          return FailureReason::placement_invalid;
        if (e.rows6d != ContactFrame6D::local && e.rows6d != ContactFrame6D::local_world_aligned)
          return FailureReason::axis_invalid;
        break;
      case ConstraintKind::loop:
        for (int j = 0; j < 2; ++j) {
          if (e.body[j] < -1 || e.body[j] >= ModelT::nb) return FailureReason::body_out_of_range;
          if (!detail::transform_valid(e.frame[j])) return FailureReason::placement_invalid;
        }
        if (e.body[0] < 0 && e.body[1] < 0) return FailureReason::loop_without_body;
        for (int k = 0; k < e.rows; ++k)
          if (!(e.axis[k].norm() > S(1e-12))) return FailureReason::zero_axis;
        break;
      case ConstraintKind::custom:
        if (e.custom == nullptr || e.custom->rows() != e.rows) return FailureReason::custom_rows_changed;
        break;
    }
    if (e.baumgarte.enabled && !(e.baumgarte.time_constant >= S(1e-6) && e.baumgarte.time_constant <= S(1e6)))
      return FailureReason::baumgarte_invalid;
    return FailureReason::none;
  }
  static bool same(const char* a, const char* b) {
    while (*a != '\0' && *a == *b) {
      ++a;
      ++b;
    }
    return *a == *b;
  }

  std::array<Entry, MaxConstraints> entries_{};
  Entry none_ = inactive_entry();  ///< returned for an unknown index
  std::array<int, MaxConstraints> offset_ = filled<int, MaxConstraints>(-1);
  int count_ = 0;
  int total_rows_ = 0;
  int active_rows_ = 0;
  bool bound_ = false;
  mutable ConstraintFailure failure_{};  ///< written by const observers too (constraint_wrenches)
};

}  // namespace talus
