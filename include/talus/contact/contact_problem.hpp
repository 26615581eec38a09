#pragma once
/// \file contact_problem.hpp
/// `ContactProblem<Model, MaxContacts, MaxEdges, MaxLimits>`: the unilateral constraints of
/// a robot — point contacts with Coulomb friction against world planes, and joint limits —
/// added once at start-up and switched on and off every cycle without allocation, beside a
/// ConstraintSet that holds the bilateral constraints (loops, welded feet). The solves are in
/// contact_dynamics.hpp; docs/contact.md has the equations of every problem.
///
/// **A point contact** is a point p on body b (body frame, m) and a world plane through the
/// anchor o (world, m) with unit normal n (world; it points from the ground into the robot).
/// Its frame is (n, t₁, t₂): t₁ is the orientation of the friction polygon — a unit vector
/// ⟂ n chosen by default as n × e (e the world axis least aligned with n), rotated by
/// `orientation` (rad) about n —, t₂ = n × t₁. The contact force on the robot, in that frame, is
///
///     f = (f_n, f_t1, f_t2)   (N; impulses N·s at velocity level),   f_n ≥ 0 (it pushes),
///
/// and in world axes f_n n + f_t1 t₁ + f_t2 t₂, applied at p. Its gap is φ = nᵀ(p − o) (m;
/// > 0 apart, < 0 penetrating).
///
/// **Friction** (μ ≥ 0, dimensionless):
///   - `ConeModel::polygon` with k edges (k even, 4 ≤ k ≤ MaxEdges): the friction force lies
///     in the convex hull of μ f_n d_j, d_j = cos(2πj/k) t₁ + sin(2πj/k) t₂ (j = 0..k−1): a
///     polygon inscribed in the Coulomb circle, one vertex on t₁. Pushed along direction u,
///     the largest friction force it can resist is μ f_n max_j d_jᵀu (μ f_n along a vertex,
///     μ f_n cos(π/k) midway between two). Lemke's method (an LCP) needs polygons.
///   - `ConeModel::exact`: ‖(f_t1, f_t2)‖ ≤ μ f_n, for the iterative solvers (PGS, ADMM).
/// **Sliding** (acceleration level only): a contact whose tangential velocity
/// v_t = (I − n nᵀ) ṗ has ‖v_t‖ > ContactProblem::sliding_speed (default 1e-4 m/s) is
/// sliding when its mode is `ContactMode::classify` (the default); `sticking` and `sliding`
/// force the choice. A sliding contact's friction is f_t = −μ f_n v_t/‖v_t‖ (kinetic, in the
/// normal column: Drake's N − μQ; with the exact cone, PGS and ADMM solve that contact as a
/// normal-only unit, contact_dynamics.hpp cone_forces); a sticking one gets its cone (polygon,
/// with the complementarity of static friction, or circle). At velocity level (impacts, time stepping) every contact uses its
/// polygon (Anitescu–Potra): sliding follows from the solution.
///
/// **Joint limits**: add_joint_limits(model) adds, for every 1-dof joint (revolute,
/// prismatic) whose URDF limits are finite (|limit| < 1e9), a lower and an upper unilateral
/// row. A row takes part in a solve when the joint is within `limit_margin` (default 1e-3 rad
/// or m) of that limit (or beyond it): lower row q̈ᵢ ≥ 0 ⟂ fᵢ ≥ 0 with generalised force +fᵢ
/// on dof i; upper row −q̈ᵢ ≥ 0 with −fᵢ. f (N·m or N) ≥ 0 always.
///
/// **Targets** (Drake's kN, kL; set_target, set_limit_target; default 0): each contact normal
/// and each limit row may ask for more than "no approach". The row asks
///
///     n·p̈ ≥ a_target   (acceleration level, m/s²)      n·ṗ⁺ ≥ v_target   (impact, time step, m/s)
///
/// i.e. a_n − a_target ≥ 0 ⟂ f_n ≥ 0 and v_n⁺ − v_target ≥ 0 ⟂ f_n ≥ 0 (plus the level's own
/// terms: restitution and softening at an impact, the gap φ/h or erp·φ/h and cfm at a step,
/// contact_dynamics.hpp). Positive = separating: a plane moving along its normal n with
/// velocity v_p and acceleration a_p (set the anchor where it is now, set_contact_plane) is
/// set_target(i, v_p, a_p); a desired separation velocity after an impact, or restitution
/// written as a target (v_target = −e v_n⁻, any e ≥ 0), is v_target. A limit row's target is
/// along its own row: the lower row asks q̇ᵢ⁺ ≥ v (q̈ᵢ ≥ a), the upper row −q̇ᵢ⁺ ≥ v (−q̈ᵢ ≥ a).
/// Only the normal row moves: friction still acts on the robot's own tangential velocity (a
/// plane sliding along itself is not modelled).
///
/// Life cycle: add_contact / add_joint_limits at start-up (capacity_exceeded beyond
/// MaxContacts / MaxLimits; invalid_input for a bad body, point, normal, μ or edge count,
/// recorded in failure()), then between any two solves set_active, set_contact_plane,
/// set_friction, set_mode. Nothing allocates.
#include <array>
#include <cmath>

#include <talus/constraints/constraint_set.hpp>
#include <talus/contact/cone_solvers.hpp>
#include <talus/contact/lcp_lemke.hpp>

namespace talus {

/// Friction cone model of a contact.
enum class ConeModel : unsigned char {
  polygon,  ///< k-edge inscribed polygon (Lemke; linear complementarity)
  exact,    ///< circular Coulomb cone (PGS, ADMM)
};

/// How a contact's sticking or sliding is decided at acceleration level.
enum class ContactMode : unsigned char {
  classify,  ///< sliding if ‖v_t‖ > ContactProblem::sliding_speed, else sticking
  sticking,  ///< always static friction (the polygon's complementarity)
  sliding,   ///< always kinetic friction against v_t (a zero v_t: sticking)
};

/// Why a contact call failed (ContactFailure::reason).
enum class ContactFailureReason : unsigned char {
  none = 0,
  too_many_contacts,       ///< add_contact beyond MaxContacts
  too_many_limits,         ///< add_joint_limits beyond MaxLimits
  body_out_of_range,       ///< not a moving body of the model
  point_invalid,           ///< point or anchor NaN/Inf or beyond input_limits::position
  normal_invalid,          ///< normal zero, NaN or not unit (|‖n‖ − 1| > 1e-6)
  friction_invalid,        ///< μ < 0, NaN, > 1e3, or an edge count not even in 4..MaxEdges
  index_out_of_range,      ///< set_* with an unknown contact index
  q_invalid,               ///< q: NaN/Inf, beyond limits, unnormalised quaternion
  input_invalid,           ///< a value without a reason of its own (a set_target value), or the assembled
                           ///< problem PGS/ADMM refused (W, b beyond input_limits: extreme inputs together);
                           ///< q̇, τ, fext, h and the options each have their own reason below
  cone_not_supported,      ///< a contact's cone does not match the solver (polygon: Lemke; exact: PGS, ADMM)
  bilateral_failed,        ///< the bilateral set refused (its failure() says why)
  bilateral_inconsistent,  ///< no q̈ satisfies the bilateral rows
  singular,                ///< H not positive definite
  lcp_failed,              ///< the complementarity solve found no answer (its report says why)
  cone_solver_failed,      ///< PGS/ADMM refused the problem (its report says why: a singular block)
  not_converged,           ///< an iteration cap was reached
  overflow,                ///< a result was not finite
  v_invalid,               ///< q̇ (v⁻ of an impact): NaN/Inf or |x| > input_limits::magnitude
  tau_invalid,             ///< τ: NaN/Inf or |x| > input_limits::magnitude
  fext_invalid,            ///< an external force: NaN/Inf or |x| > input_limits::magnitude
  step_invalid,            ///< the time step h: not in (0, 10] s
  options_invalid,         ///< an option out of its range: ContactFailure::option says which
};

/// Which option a solve refused (ContactFailure::option, with ContactFailureReason::options_invalid).
enum class ContactOption : unsigned char {
  none = 0,
  solver,         ///< ContactOptions::solver not an enumerator
  cone,           ///< ContactOptions::cone (PGS/ADMM): cap < 1, a tolerance, ρ or relaxation out of range
  lcp,            ///< ContactOptions::lcp (Lemke): a tolerance, the pivot cap, the covering vector
  restitution,    ///< ContactOptions::restitution not in [0, 1]
  softening,      ///< ContactOptions::softening not in [0, 1e9]
  stiffness,      ///< ContactOptions::stiffness < 0 or NaN
  damping,        ///< ContactOptions::damping not in [0, 1e12]
  compliance,     ///< stiffness and damping with h: h k + b too small (cfm = 1/(h k + b) ≥ 1e12)
  margin,         ///< ContactOptions::margin < 0 or NaN
  sliding_speed,  ///< ContactProblem::sliding_speed not in [0, 1e3]
  limit_margin,   ///< ContactProblem::limit_margin not in [0, 1e3]
  proximal,       ///< ContactOptions::proximal (with bilateral_minimum_norm): μ ≤ 0, an accuracy < 0, cap < 1
};

constexpr const char* to_string(ContactOption o) {
  switch (o) {
    case ContactOption::none: return "none";
    case ContactOption::solver: return "solver";
    case ContactOption::cone: return "cone";
    case ContactOption::lcp: return "lcp";
    case ContactOption::restitution: return "restitution";
    case ContactOption::softening: return "softening";
    case ContactOption::stiffness: return "stiffness";
    case ContactOption::damping: return "damping";
    case ContactOption::compliance: return "compliance";
    case ContactOption::margin: return "margin";
    case ContactOption::sliding_speed: return "sliding_speed";
    case ContactOption::limit_margin: return "limit_margin";
    case ContactOption::proximal: return "proximal";
  }
  return "unknown";
}

constexpr const char* to_string(ContactFailureReason r) {
  switch (r) {
    case ContactFailureReason::none: return "none";
    case ContactFailureReason::too_many_contacts: return "too_many_contacts";
    case ContactFailureReason::too_many_limits: return "too_many_limits";
    case ContactFailureReason::body_out_of_range: return "body_out_of_range";
    case ContactFailureReason::point_invalid: return "point_invalid";
    case ContactFailureReason::normal_invalid: return "normal_invalid";
    case ContactFailureReason::friction_invalid: return "friction_invalid";
    case ContactFailureReason::index_out_of_range: return "index_out_of_range";
    case ContactFailureReason::q_invalid: return "q_invalid";
    case ContactFailureReason::input_invalid: return "input_invalid";
    case ContactFailureReason::cone_not_supported: return "cone_not_supported";
    case ContactFailureReason::bilateral_failed: return "bilateral_failed";
    case ContactFailureReason::bilateral_inconsistent: return "bilateral_inconsistent";
    case ContactFailureReason::singular: return "singular";
    case ContactFailureReason::lcp_failed: return "lcp_failed";
    case ContactFailureReason::cone_solver_failed: return "cone_solver_failed";
    case ContactFailureReason::not_converged: return "not_converged";
    case ContactFailureReason::overflow: return "overflow";
    case ContactFailureReason::v_invalid: return "v_invalid";
    case ContactFailureReason::tau_invalid: return "tau_invalid";
    case ContactFailureReason::fext_invalid: return "fext_invalid";
    case ContactFailureReason::step_invalid: return "step_invalid";
    case ContactFailureReason::options_invalid: return "options_invalid";
  }
  return "unknown";
}

struct ContactFailure {
  Status status = Status::ok;
  ContactFailureReason reason = ContactFailureReason::none;
  int index = -1;                              ///< the contact concerned, or −1
  ContactOption option = ContactOption::none;  ///< with options_invalid: which option
};

/// One point contact (see the file comment for every symbol).
template <class S>
struct UnilateralContact {
  const char* name = nullptr;
  int body = -1;
  Vector3<S> point = Vector3<S>::Zero();                          ///< p, body frame (m)
  Vector3<S> normal = Vector3<S>::UnitZ();                        ///< n, world, unit
  Vector3<S> anchor = Vector3<S>::Zero();                         ///< o, a point of the plane, world (m)
  Vector3<S> t1 = Vector3<S>::UnitX(), t2 = Vector3<S>::UnitY();  ///< polygon frame, world
  S mu = S(0);
  int edges = 4;
  ConeModel cone = ConeModel::polygon;
  ContactMode mode = ContactMode::classify;
  bool active = true;
  S target_velocity = S(0);      ///< v_target of the normal row (m/s; impact and time step), file comment
  S target_acceleration = S(0);  ///< a_target of the normal row (m/s²; acceleration level)
};

/// One joint-limit pair (a 1-dof joint with finite limits).
template <class S>
struct JointLimit {
  int idx_q = -1, idx_v = -1;
  S lower = S(0), upper = S(0);
  S target_velocity[2] = {S(0), S(0)};      ///< per side (lower, upper), along the row (rad/s or m/s)
  S target_acceleration[2] = {S(0), S(0)};  ///< per side, along the row (rad/s² or m/s²)
};

template <class ModelT, int MaxContacts, int MaxEdges = 8, int MaxLimits = 0>
class ContactProblem {
  static_assert(MaxContacts >= 1, "talus: ContactProblem needs MaxContacts >= 1");
  static_assert(MaxEdges >= 4 && MaxEdges % 2 == 0, "talus: MaxEdges must be even and >= 4");
  static_assert(MaxLimits >= 0, "talus: MaxLimits must be >= 0");

 public:
  using Model = ModelT;
  using S = typename ModelT::Scalar;
  static constexpr int nv = ModelT::nv;
  static constexpr int max_contacts = MaxContacts;
  static constexpr int max_edges = MaxEdges;
  static constexpr int max_limits = MaxLimits;
  /// Rows of the contact operator: (n, t₁, t₂) per contact, one per active limit side.
  static constexpr int max_rows = 3 * MaxContacts + 2 * MaxLimits;
  /// Unknowns of the largest LCP: f_n, k β and one Λ per contact, one f per limit side.
  static constexpr int max_lcp = MaxContacts * (MaxEdges + 2) + 2 * MaxLimits;
  /// Units of the largest exact-cone problem (PGS, ADMM): one per contact and per limit side.
  static constexpr int max_cone_units = MaxContacts + 2 * MaxLimits;
  using ContactForce = Vector3<S>;  ///< (f_n, f_t1, f_t2), contact frame

  /// Sliding threshold of ContactMode::classify (m/s; 0 … 1e3, else a solve returns invalid_input).
  S sliding_speed = S(1e-4);
  /// A limit row takes part within this distance of its limit (rad or m; 0 … 1e3).
  S limit_margin = S(1e-3);

  // ---- start-up ------------------------------------------------------------------------

  /// Point contact: point p_body (m, body frame) of `body` against the plane through
  /// `anchor` with unit normal `normal` (world), friction μ with a k-edge polygon whose
  /// first vertex is rotated `orientation` rad about n from the default t₁ (file comment).
  /// Returns the contact's index through `index` (optional).
  Status add_contact(int body, const Vector3<S>& p_body, const Vector3<S>& normal, S mu, int edges = 4,
                     ConeModel cone = ConeModel::polygon, S orientation = S(0),
                     const Vector3<S>& anchor = Vector3<S>::Zero(), const char* name = nullptr, int* index = nullptr) {
    if (count_ >= MaxContacts) return fail(Status::capacity_exceeded, ContactFailureReason::too_many_contacts, count_);
    if (body < 0 || body >= ModelT::nb)
      return fail(Status::invalid_input, ContactFailureReason::body_out_of_range, count_);
    if (!detail::point_valid(p_body)) return fail(Status::invalid_input, ContactFailureReason::point_invalid, count_);
    if (static_cast<unsigned>(cone) > 1u)
      return fail(Status::invalid_input, ContactFailureReason::friction_invalid, count_);
    UnilateralContact<S>& c = contacts_[count_];
    c = UnilateralContact<S>{};
    c.name = name;
    c.body = body;
    c.point = p_body;
    c.cone = cone;
    if (Status s = store_friction(count_, mu, edges); s != Status::ok) return s;
    if (Status s = store_plane(count_, normal, anchor, orientation); s != Status::ok) return s;
    if (index != nullptr) *index = count_;
    ++count_;
    return succeed();
  }
  /// Contact at the origin of model frame `frame` (its body and offset are looked up).
  Status add_contact(const ModelT& model, int frame, const Vector3<S>& normal, S mu, int edges = 4,
                     ConeModel cone = ConeModel::polygon, S orientation = S(0),
                     const Vector3<S>& anchor = Vector3<S>::Zero(), int* index = nullptr) {
    if (frame < 0 || frame >= ModelT::nframes || model.frames[frame].body < 0)
      return fail(Status::invalid_input, ContactFailureReason::body_out_of_range, count_);
    const auto& F = model.frames[frame];
    return add_contact(F.body, F.placement.p, normal, mu, edges, cone, orientation, anchor, F.name, index);
  }

  /// Lower and upper limit rows of every 1-dof joint with finite URDF limits.
  Status add_joint_limits(const ModelT& model) {
    using Tree = typename ModelT::Tree;
    Status s = Status::ok;
    static_for<ModelT::nb>([&](auto i) {
      constexpr int I = decltype(i)::value;
      using J = typename Tree::template Joint<I>;
      if constexpr (J::nq == 1 && J::nv == 1) {
        const int iq = Tree::idx_q[I];
        const S lo = model.lower_position_limit[iq], hi = model.upper_position_limit[iq];
        using std::abs;
        if (s != Status::ok || !(abs(lo) < S(1e9) && abs(hi) < S(1e9) && lo <= hi)) return;
        if (limit_count_ >= MaxLimits) {
          s = fail(Status::capacity_exceeded, ContactFailureReason::too_many_limits, -1);
          return;
        }
        limits_[limit_count_++] = JointLimit<S>{iq, Tree::idx_v[I], lo, hi};
      }
    });
    return s == Status::ok ? succeed() : s;
  }

  // ---- every cycle ---------------------------------------------------------------------

  Status set_active(int index, bool on) {
    if (!valid_index(index)) return fail(Status::invalid_input, ContactFailureReason::index_out_of_range, index);
    contacts_[index].active = on;
    return succeed();
  }
  /// The contact's plane (anchor o, unit normal n) and polygon orientation (rad about n).
  Status set_contact_plane(int index, const Vector3<S>& normal, const Vector3<S>& anchor, S orientation = S(0)) {
    if (!valid_index(index)) return fail(Status::invalid_input, ContactFailureReason::index_out_of_range, index);
    return store_plane(index, normal, anchor, orientation);
  }
  /// μ and polygon edge count (even, 4..MaxEdges).
  Status set_friction(int index, S mu, int edges) {
    if (!valid_index(index)) return fail(Status::invalid_input, ContactFailureReason::index_out_of_range, index);
    return store_friction(index, mu, edges);
  }
  /// The friction model: polygon (solved by Lemke) or exact cone (PGS, ADMM).
  Status set_cone(int index, ConeModel cone) {
    if (!valid_index(index) || static_cast<unsigned>(cone) > 1u)
      return fail(Status::invalid_input, ContactFailureReason::index_out_of_range, index);
    contacts_[index].cone = cone;
    return succeed();
  }
  /// Target of contact `index`'s normal row (file comment, "Targets"): the row asks
  /// n·ṗ⁺ ≥ velocity (m/s) at an impact or a time step and n·p̈ ≥ acceleration (m/s²) at
  /// acceleration level; positive separates. invalid_input (input_invalid) for a value not
  /// finite or beyond input_limits::magnitude.
  Status set_target(int index, S velocity, S acceleration = S(0)) {
    if (!valid_index(index)) return fail(Status::invalid_input, ContactFailureReason::index_out_of_range, index);
    if (!target_valid(velocity) || !target_valid(acceleration))
      return fail(Status::invalid_input, ContactFailureReason::input_invalid, index);
    contacts_[index].target_velocity = velocity;
    contacts_[index].target_acceleration = acceleration;
    return succeed();
  }
  /// Target of limit `index`'s lower (side 0) or upper (side 1) row, along the row: the lower
  /// row asks q̇ᵢ⁺ ≥ velocity (q̈ᵢ ≥ acceleration), the upper one −q̇ᵢ⁺ ≥ velocity (−q̈ᵢ ≥
  /// acceleration); rad/s (rad/s²) or m/s (m/s²).
  Status set_limit_target(int index, int side, S velocity, S acceleration = S(0)) {
    if (!(index >= 0 && index < limit_count_ && (side == 0 || side == 1)))
      return fail(Status::invalid_input, ContactFailureReason::index_out_of_range, index);
    if (!target_valid(velocity) || !target_valid(acceleration))
      return fail(Status::invalid_input, ContactFailureReason::input_invalid, index);
    limits_[index].target_velocity[side] = velocity;
    limits_[index].target_acceleration[side] = acceleration;
    return succeed();
  }
  Status set_mode(int index, ContactMode mode) {
    if (!valid_index(index) || static_cast<unsigned>(mode) > 2u)
      return fail(Status::invalid_input, ContactFailureReason::index_out_of_range, index);
    contacts_[index].mode = mode;
    return succeed();
  }

  // ---- reading -------------------------------------------------------------------------

  int size() const { return count_; }
  int limits() const { return limit_count_; }
  bool valid_index(int index) const { return index >= 0 && index < count_; }
  bool is_active(int index) const { return valid_index(index) && contacts_[index].active; }
  const UnilateralContact<S>& contact(int index) const { return valid_index(index) ? contacts_[index] : none_; }
  const JointLimit<S>& limit(int index) const { return limits_[index >= 0 && index < limit_count_ ? index : 0]; }
  int find(const char* name) const {
    for (int i = 0; i < count_; ++i)
      if (same(contacts_[i].name, name)) return i;
    return -1;
  }

  /// Contact force (or impulse) of the last solve in the contact frame (f_n, f_t1, f_t2);
  /// zero for an inactive contact or after a failed solve; invalid_input for an unknown index.
  Status force(int index, ContactForce& f) const {
    f.setZero();
    if (!valid_index(index)) return fail(Status::invalid_input, ContactFailureReason::index_out_of_range, index);
    f = force_[index];
    return Status::ok;
  }
  /// The same force in world axes: f_n n + f_t1 t₁ + f_t2 t₂ (N, or N·s).
  Status world_force(int index, Vector3<S>& f) const {
    ContactForce l;
    const Status s = force(index, l);
    const auto& c = contacts_[valid_index(index) ? index : 0];
    f = s == Status::ok ? Vector3<S>(l[0] * c.normal + l[1] * c.t1 + l[2] * c.t2) : Vector3<S>::Zero();
    return s;
  }
  /// Whether the contact was treated as sliding in the last acceleration-level solve.
  bool sliding(int index) const { return valid_index(index) && sliding_[index]; }
  /// Force (N·m or N, ≥ 0) of limit `index`'s lower (side 0) or upper (side 1) row in the last solve.
  S limit_force(int index, int side) const {
    return index >= 0 && index < limit_count_ && (side == 0 || side == 1) ? limit_force_[index][side] : S(0);
  }

  const ContactFailure& failure() const { return failure_; }
  Status fail(Status s, ContactFailureReason reason, int index, ContactOption option = ContactOption::none) const {
    failure_ = ContactFailure{s, reason, index, option};
    return s;
  }
  Status succeed() const {
    failure_ = ContactFailure{};
    return Status::ok;
  }

  // ---- solver storage (contact_dynamics.hpp); a user reads it only to inspect a solve ----
  struct Workspace {
    using RowsMatrix = Eigen::Matrix<S, Eigen::Dynamic, nv, 0, max_rows, nv>;        ///< A: rows × nv
    using RowsTMatrix = detail::BoundedMatrix<S, nv, Eigen::Dynamic, nv, max_rows>;  ///< P Aᵀ (row-major for nv = 1)
    using RowsSquare = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, 0, max_rows, max_rows>;
    using RowsVector = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, max_rows, 1>;
    using LcpMatrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, 0, max_lcp, max_lcp>;
    using LcpVector = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, max_lcp, 1>;
    RowsMatrix A;             ///< unilateral rows: (n, t₁, t₂) of each active contact, then limit rows
    RowsVector bias;          ///< A's rows' acceleration at q̈ = 0 (m/s², rad/s²)
    RowsVector row_velocity;  ///< A q̇
    /// Y = L⁻ᵀ Aᵀ (H = Lᵀ L): each row through the factor, with its row's sparsity (a foot's
    /// row touches the base and its leg only; Featherstone's LTL), so A H⁻¹ Aᵀ = Yᵀ Y
    RowsTMatrix Y;
    int row_dof[max_rows];  ///< deepest dof of each row: its nonzeros lie on the λ chain from it
    /// P Aᵀ, P = H⁻¹ − H⁻¹Gᵀ(GH⁻¹Gᵀ)⁺GH⁻¹ (bilateral-reduced inverse inertia); formed (with
    /// xb) only where it is read: with active bilateral rows, or for Lemke's active-set recovery
    RowsTMatrix PAt;
    bool projected = false;  ///< PAt and xb hold this solve's values (x0 is always formed)
    RowsSquare D;            ///< A P Aᵀ (Delassus operator of the unilateral rows)
    RowsVector target;       ///< each row's target at this level (normals and limit rows; 0 on tangents)
    RowsVector free;         ///< rows' acceleration (or velocity) without unilateral force, minus the target
    RowsVector phi;          ///< packed row forces of the answer
    LcpMatrix M;
    LcpVector q, z, w;
    LcpWorkspace<S, max_lcp> lcp;
    typename ModelT::TangentVector x0, xb, t;
    typename ModelT::TangentVector y0;  ///< L⁻ᵀ b (b the free motion's right-hand side): x0 = L⁻¹ y0
    // exact-cone solves (PGS, ADMM): one 3-row unit per contact, and per limit row (its two
    // tangent rows are inert: W = I there, b = 0, μ = 0)
    using ConeStorage = ConeSolverWorkspace<S, max_cone_units>;
    typename ConeStorage::Matrix W;     ///< the units' Delassus matrix (3 units × 3 units)
    typename ConeStorage::Vector b, f;  ///< free velocity/acceleration; forces (normal first)
    Eigen::Matrix<S, Eigen::Dynamic, 1, 0, max_cone_units, 1> mu;
    ConeStorage cone;
    int unit_row[max_cone_units];  ///< first row of each unit in A; limit units have one row
    bool unit_limit[max_cone_units];
    ContactForce previous_force[MaxContacts];  ///< the last answer, for a warm start
    int contact_row[MaxContacts];              ///< row of each contact's normal in A, −1 inactive
    int limit_row[MaxLimits > 0 ? MaxLimits : 1][2];
    int rows = 0;
  };
  Workspace ws;

  // ---- a solve's results, written by the solves of contact_dynamics.hpp through these; a
  // user reads force(), world_force(), sliding() and limit_force() ----
  /// Forgets the last results (every force, sliding flag and limit force zero), keeping each
  /// contact's force in ws.previous_force for a warm start.
  void begin_results() {
    for (int i = 0; i < MaxContacts; ++i) ws.previous_force[i] = force_[static_cast<std::size_t>(i)];
    clear_results();
  }
  /// Every force, sliding flag and limit force zero (a failed solve leaves nothing behind).
  void clear_results() {
    for (auto& f : force_) f.setZero();
    for (auto& sl : sliding_) sl = false;
    for (auto& l : limit_force_) l = {S(0), S(0)};
  }
  /// invalid_input (index_out_of_range, nothing written) for an unknown contact, limit or side.
  Status store_force(int index, const ContactForce& f) {
    if (!valid_index(index)) return fail(Status::invalid_input, ContactFailureReason::index_out_of_range, index);
    force_[static_cast<std::size_t>(index)] = f;
    return Status::ok;
  }
  Status store_sliding(int index, bool sliding) {
    if (!valid_index(index)) return fail(Status::invalid_input, ContactFailureReason::index_out_of_range, index);
    sliding_[static_cast<std::size_t>(index)] = sliding;
    return Status::ok;
  }
  Status store_limit_force(int index, int side, S f) {
    if (!(index >= 0 && index < limit_count_ && (side == 0 || side == 1)))
      return fail(Status::invalid_input, ContactFailureReason::index_out_of_range, index);
    limit_force_[static_cast<std::size_t>(index)][static_cast<std::size_t>(side)] = f;
    return Status::ok;
  }

 private:
  std::array<ContactForce, MaxContacts> force_{};
  std::array<bool, MaxContacts> sliding_{};
  std::array<std::array<S, 2>, (MaxLimits > 0 ? MaxLimits : 1)> limit_force_{};

  Status store_plane(int index, const Vector3<S>& normal, const Vector3<S>& anchor, S orientation) {
    using std::abs;
    using std::cos;
    using std::sin;
    if (!detail::point_valid(anchor)) return fail(Status::invalid_input, ContactFailureReason::point_invalid, index);
    if (!all_finite(normal) || !(abs(normal.norm() - S(1)) <= S(1e-6)) || !(abs(orientation) <= S(1e3)))
      return fail(Status::invalid_input, ContactFailureReason::normal_invalid, index);
    UnilateralContact<S>& c = contacts_[index];
    int k = 0;
    normal.cwiseAbs().minCoeff(&k);
    const Vector3<S> t0 = normal.cross(Vector3<S>::Unit(k)).normalized();
    const Vector3<S> s0 = normal.cross(t0);
    c.normal = normal;
    c.anchor = anchor;
    c.t1 = cos(orientation) * t0 + sin(orientation) * s0;
    c.t2 = normal.cross(c.t1);
    return succeed();
  }
  Status store_friction(int index, S mu, int edges) {
    if (!(mu >= S(0) && mu <= S(1e3)) || edges < 4 || edges > MaxEdges || edges % 2 != 0)
      return fail(Status::invalid_input, ContactFailureReason::friction_invalid, index);
    contacts_[index].mu = mu;
    contacts_[index].edges = edges;
    return succeed();
  }
  static bool target_valid(S x) {
    using std::abs;
    return abs(x) <= S(input_limits::magnitude);  // false for NaN and ±Inf
  }
  static bool same(const char* a, const char* b) {
    if (a == nullptr || b == nullptr) return false;
    for (; *a != '\0' && *a == *b; ++a) ++b;
    return *a == *b;
  }

  std::array<UnilateralContact<S>, MaxContacts> contacts_{};
  std::array<JointLimit<S>, (MaxLimits > 0 ? MaxLimits : 1)> limits_{};
  int count_ = 0, limit_count_ = 0;
  UnilateralContact<S> none_{};
  mutable ContactFailure failure_{};
};

}  // namespace talus
