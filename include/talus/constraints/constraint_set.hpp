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
///              set_contact_anchor: e.g. a point of the ground plane).
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
/// Life cycle: add_contact / add_loop / add_custom at start-up (each returns a Status:
/// capacity_exceeded when rows or constraints exceed the capacity, invalid_input for a zero
/// axis or too many axes), then bind(model) validates body ids and axes against the model.
/// Solvers refuse a set that is not bound. set_active(index, on) between any two calls.
#include <initializer_list>

#include <talus/algorithms/jacobians.hpp>
#include <talus/solvers/workspace.hpp>

namespace talus {

enum class ConstraintKind : unsigned char { contact, loop, custom };

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
  int body[2] = {-1, -1};
  Vector3<S> point = Vector3<S>::Zero();
  Vector3<S> anchor = Vector3<S>::Zero();
  Transform<S> frame[2];
  Motion<S> axis[6] = {Motion<S>::Zero(), Motion<S>::Zero(), Motion<S>::Zero(),
                       Motion<S>::Zero(), Motion<S>::Zero(), Motion<S>::Zero()};
  bool position_level[6] = {true, true, true, true, true, true};
  bool velocity_level[6] = {true, true, true, true, true, true};
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

  // ---- start-up ------------------------------------------------------------------------

  /// Contact: point p_body (m, body frame) of `body`, 1–3 unit normals in world coordinates.
  Status add_contact(int body, const Vector3<S>& p_body, std::initializer_list<Vector3<S>> normals,
                     const char* name = nullptr, int user_id = -1) {
    const int n = static_cast<int>(normals.size());
    if (n < 1 || n > 3) return Status::invalid_input;
    Entry* e = new_entry(n);
    if (e == nullptr) return Status::capacity_exceeded;
    e->kind = ConstraintKind::contact;
    e->body[0] = body;
    e->point = p_body;
    int k = 0;
    for (const Vector3<S>& nk : normals) e->axis[k++].template tail<3>() = nk;
    return finish_entry(e, name, user_id);
  }

  /// Loop: frame `pred_frame` on body `pred_body`, frame `succ_frame` on body `succ_body`
  /// (−1: the world), 1–6 axes in the predecessor frame.
  Status add_loop(int pred_body, const Transform<S>& pred_frame, int succ_body, const Transform<S>& succ_frame,
                  std::initializer_list<LoopAxis<S>> axes, Baumgarte<S> baumgarte = {}, const char* name = nullptr,
                  int user_id = -1) {
    const int n = static_cast<int>(axes.size());
    if (n < 1 || n > 6) return Status::invalid_input;
    Entry* e = new_entry(n);
    if (e == nullptr) return Status::capacity_exceeded;
    e->kind = ConstraintKind::loop;
    e->body[0] = pred_body;
    e->body[1] = succ_body;
    e->frame[0] = pred_frame;
    e->frame[1] = succ_frame;
    int k = 0;
    for (const LoopAxis<S>& a : axes) {
      e->axis[k] = a.axis;
      e->position_level[k] = a.position_level;
      e->velocity_level[k] = a.velocity_level;
      ++k;
    }
    e->baumgarte = baumgarte;
    return finish_entry(e, name, user_id);
  }

  /// Custom: `c` must outlive the set.
  Status add_custom(const CustomConstraint<ModelT>& c, Baumgarte<S> baumgarte = {}, const char* name = nullptr,
                    int user_id = -1) {
    const int n = c.rows();
    if (n < 1 || n > 6) return Status::invalid_input;
    Entry* e = new_entry(n);
    if (e == nullptr) return Status::capacity_exceeded;
    e->kind = ConstraintKind::custom;
    e->custom = &c;
    e->baumgarte = baumgarte;
    return finish_entry(e, name, user_id);
  }

  /// Validates the model (check_model) and every constraint against it: body ids in range
  /// (a contact needs a moving body; a loop needs at least one), points and anchors finite
  /// and within input_limits::position, loop frames rigid transforms (finite translation,
  /// RᵀR = 1, det +1), axes finite (|‖n‖ − 1| ≤ 1e-6 for contact normals; loop axes
  /// non-zero and within input_limits::magnitude), Baumgarte T in [1e-6, 1e6] s. The set is
  /// usable only after ok.
  Status bind(const ModelT& model) {
    bound_ = false;
    if (check_model(model) != Status::ok) return Status::invalid_input;
    for (int i = 0; i < count_; ++i)
      if (!entry_valid(entries_[i])) return Status::invalid_input;
    bound_ = true;
    update_rows();
    return Status::ok;
  }

  // ---- every cycle ---------------------------------------------------------------------

  /// Switch a constraint on or off (a foot lands, lifts off). No allocation, no rebind.
  Status set_active(int index, bool on) {
    if (index < 0 || index >= count_) return Status::invalid_input;
    entries_[index].active = on;
    update_rows();
    return Status::ok;
  }
  bool is_active(int index) const { return index >= 0 && index < count_ && entries_[index].active; }
  /// World anchor p₀ of a contact's position error (m): finite, within
  /// input_limits::position, else invalid_input and the anchor is unchanged.
  Status set_contact_anchor(int index, const Vector3<S>& p0) {
    if (index < 0 || index >= count_ || entries_[index].kind != ConstraintKind::contact) return Status::invalid_input;
    if (!detail::point_valid(p0)) return Status::invalid_input;
    entries_[index].anchor = p0;
    return Status::ok;
  }

  // ---- lookup ----------------------------------------------------------------------------

  int size() const { return count_; }            ///< constraints added
  int rows() const { return total_rows_; }       ///< rows of all constraints
  int active_rows() const { return active_rows_; }  ///< rows of active constraints: size of G, γ, λ
  bool bound() const { return bound_; }
  /// The constraint `index` as added; an empty entry (0 rows, inactive) for an index out of range.
  const Entry& constraint(int index) const { return index >= 0 && index < count_ ? entries_[index] : none_; }
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
  int row_offset(int index) const { return index >= 0 && index < count_ ? offset_[index] : -1; }

  // ---- results and workspace (written by the constraint functions and solvers) ----------
  JacobianMatrix G;            ///< constraint Jacobian, active rows × nv
  RowVector gamma;             ///< γ (with Baumgarte where enabled), active rows
  RowVector lambda;            ///< constraint forces / impulses of the last solve, active rows
  RowVector position_error;    ///< last computed position errors, active rows
  RowVector velocity_error;    ///< last computed velocity errors, active rows
  TangentVector C = TangentVector::Zero();  ///< bias forces C(q, q̇) (− Jᵀ f_ext) of the last solve
  Workspace ws;                ///< solver workspace

 private:
  Entry* new_entry(int n) {
    if (count_ >= MaxConstraints || total_rows_ + n > MaxRows) return nullptr;
    entries_[count_] = Entry{};
    entries_[count_].rows = n;
    return &entries_[count_];
  }
  Status finish_entry(Entry* e, const char* name, int user_id) {
    for (int k = 0; k < e->rows; ++k)
      if (!(e->axis[k].norm() > S(0)) && e->kind != ConstraintKind::custom) return Status::invalid_input;
    e->name = name;
    e->user_id = user_id;
    total_rows_ += e->rows;
    ++count_;
    bound_ = false;
    update_rows();
    return Status::ok;
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
  static bool entry_valid(const Entry& e) {
    for (int k = 0; k < e.rows; ++k)
      if (!all_within(e.axis[k], input_limits::magnitude)) return false;
    switch (e.kind) {
      case ConstraintKind::contact:
        if (e.body[0] < 0 || e.body[0] >= ModelT::nb) return false;
        if (!detail::point_valid(e.point) || !detail::point_valid(e.anchor)) return false;
        for (int k = 0; k < e.rows; ++k) {
          using std::abs;
          if (!(abs(e.axis[k].template tail<3>().norm() - S(1)) <= S(1e-6))) return false;
        }
        break;
      case ConstraintKind::loop:
        for (int j = 0; j < 2; ++j)
          if (e.body[j] < -1 || e.body[j] >= ModelT::nb || !detail::transform_valid(e.frame[j])) return false;
        if (e.body[0] < 0 && e.body[1] < 0) return false;
        for (int k = 0; k < e.rows; ++k)
          if (!(e.axis[k].norm() > S(1e-12))) return false;
        break;
      case ConstraintKind::custom:
        if (e.custom == nullptr || e.custom->rows() != e.rows) return false;
        break;
    }
    return !e.baumgarte.enabled ||
           (e.baumgarte.time_constant >= S(1e-6) && e.baumgarte.time_constant <= S(1e6));
  }
  static bool same(const char* a, const char* b) {
    while (*a != '\0' && *a == *b) ++a, ++b;
    return *a == *b;
  }

  std::array<Entry, MaxConstraints> entries_{};
  Entry none_ = inactive_entry();  ///< returned for an unknown index
  std::array<int, MaxConstraints> offset_ = filled<int, MaxConstraints>(-1);
  int count_ = 0;
  int total_rows_ = 0;
  int active_rows_ = 0;
  bool bound_ = false;
};

}  // namespace talus
