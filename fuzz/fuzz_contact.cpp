// fuzz_contact: the unilateral-contact API (talus/contact/contact_problem.hpp,
// contact_dynamics.hpp) on solo12 (ContactProblem<M, 4, 8, 12>, feet FL/FR/HL/HR_FOOT) and
// on the point-mass block of tests/contact/contact_test.cpp (three prismatic joints), with an
// optional ConstraintSet<M, 12, 4> of bilateral contacts beside it.
//
// An input decodes to: a state (q, q̇, τ, external forces), up to 5 add_contact calls (one
// beyond the capacity 4; by body and point or by frame id; any body/frame id, point, normal,
// μ, edge count, cone, orientation, and an anchor given raw or as a gap below the point's
// current position), set_mode after each, add_joint_limits (0–2 calls, on a copy of the model
// whose limits are fuzzed: URDF, near the current q on either side, odd: NaN, Inf, lo > hi),
// up to 6 calls of set_active / set_contact_plane / set_friction / set_mode / set_cone /
// set_target / set_limit_target (any index, side, value), the bilateral set (0–3 contacts by frame or by body, 0–3 normals, anchors, one
// toggle, bind), the options (restitution, softening, stiffness, damping, margin, h,
// sliding_speed, limit_margin, the LCP options incl. a covering vector, and the solver and
// the cone-solver options when ContactOptions has them), then one group of solves:
// forward_dynamics_contact, impulses_contact, time_step_contact, or the sequence
// forward, impulses, step, forward, impulses, step on the same problem, Data and set (each
// solve of the second half must give the same bits as the first: no state leaks from one
// solve into the next, except the documented cone warm start).
//
// Byte 0: bit 0 model (solo12, block), bits 1..2 group (forward, impulses, time step,
// sequence), bit 3 with the bilateral ConstraintSet (the overloads that take one), bit 4 with
// external forces (forward, step), bit 5 with a bilateral velocity target w (impulses with the
// set: G v⁺ = w; decoded last, sometimes one entry too many). Byte 1: flags, bit 0 raw doubles, bit 1 normalise the
// quaternions of q, bit 2 contact options, bit 3 LCP options, bit 4 solver and cone options,
// bit 5 add_joint_limits, bit 6 sliding_speed and limit_margin, bit 7 add_joint_limits twice.
// Then the state, the contacts, the limits, the operations, the bilateral set, the options.
//
// Promises checked (fuzz/README.md): no crash or sanitizer report; no heap inside any talus
// call (the problem is built and solved with the hook armed); same bits on two runs with
// fresh, 0xFF-poisoned ContactProblem, Data and ConstraintSet (default-initialised in the
// poisoned storage, as a stack object is: a read of storage no call wrote shows); every
// add/set call's status and failure() predicted here from the documented rules (NaN, μ < 0
// or > 1e3, an edge count not even in 4..8, a normal not unit, a point beyond 1e6 m, an
// unknown body, frame or index, a mode or cone outside the enumerators, capacity), a
// refused call leaves the contact as it was, the polygon frame (t₁ ⟂ n, unit, t₂ = n × t₁,
// rotated by the orientation from n × e), the limit list; every solve: refused with
// invalid_input for an invalid q, q̇, τ, f_ext, h or option, a cone that does not match the
// solver, not ok for invalid LCP / cone options; outputs (q̈ or v⁺, q⁺, forces, world forces,
// limit forces, λ, contact_generalized_force) zero unless ok, failure() consistent with the
// status; when ok, every output finite and, recomputed here with crba / rnea / point
// Jacobians / forward kinematics and the set's own G, γ, errors:
//   - H q̈ + C = τ + Σ Jᵢᵀ fᵢ + limit forces + Gᵀλ, G q̈ = γ (acceleration level),
//     H (v⁺ − v⁻) = Σ Jᵢᵀ pᵢ + … + GᵀΛ, G v⁺ = 0 (impact),
//     H (v⁺ − v) = h (τ − C) + … , G v⁺ = −(erp/h) e, q⁺ = q ⊕ h v⁺ (time step),
//     contact_generalized_force = Σ Jᵢᵀ fᵢ + limit forces, world_force = f_n n + f_t1 t₁ + f_t2 t₂;
//   - every row's complementarity quantity is taken less its target (set_target,
//     set_limit_target: a_n − a_target, v_n⁺ − v_target; along a limit's row);
//   - polygon contacts (Lemke): f_n ≥ 0, the friction inside the k-gon, each row's
//     acceleration / velocity w_n (with the level's restitution, softening, gap and cfm
//     terms) ≥ 0 and f_n w_n = 0, maximum dissipation f_t·w_t = μ f_n min_j d_jᵀw_t (so
//     w_t = 0 when the friction is inside the polygon), sliding contacts f_t = −μ f_n v̂_t and
//     the sliding classification; limit rows f ≥ 0, w ≥ 0, f w = 0; contacts and limit rows
//     that do not take part (inactive, gap > margin at a step, beyond limit_margin) have
//     zero force and the report counts the ones that do;
//   - exact-cone contacts (PGS, ADMM): f in the cone, the De Saxcé-corrected σ̃ in the dual
//     cone, f·σ̃ = 0, to the cone solver's tolerances.
// Complementarity tolerances are those of the solver (lcp_lemke.hpp: τ_c s_z s_w with
// s_z = the largest force, s_w = the largest free term + n max|M| s_z; cone_solvers.hpp:
// τ_a + τ_r s), with s_z, s_w, |M| bounded here from the recomputed quantities (|Dᵢⱼ| ≤
// ‖Aᵢ‖‖Aⱼ‖/λmin(H)) plus a rounding allowance 64 (nv + rows) ε; the equations use
// 1e-9 + 1e-14 κ, κ the condition number of H (or [H Gᵀ; G 0]) computed when the tight
// tolerance fails, and nothing is asked when κ ε > 1e-4.
#include <algorithm>
#include <array>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <talus/constraints.hpp>
#include <talus/contact.hpp>
#include <talus/models/solo12.hpp>

#include "fuzz_support.hpp"

namespace talus_fuzz {
namespace {

using V3 = talus::Vector3<double>;
using talus::ConeModel;
using talus::ContactFailureReason;
using talus::ContactMode;

// ---- the block: a point mass m = 2 kg on prismatic x, y, z (tests/contact/contact_test.cpp) ----
using BlockTree = talus::Tree<talus::Body<talus::JointPrismaticX, -1>, talus::Body<talus::JointPrismaticY, 0>,
                              talus::Body<talus::JointPrismaticZ, 1>>;
using Block = talus::Model<double, BlockTree, 1>;
Block make_block() {
  Block m;
  m.body_name = {"bx", "by", "block"};
  m.joint_name = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) m.joint_placement[static_cast<std::size_t>(i)] = talus::Transform<double>();
  m.inertia[0] = talus::Inertia<double>(0.0, V3::Zero(), talus::Matrix3<double>::Zero());
  m.inertia[1] = talus::Inertia<double>(0.0, V3::Zero(), talus::Matrix3<double>::Zero());
  m.inertia[2] = talus::Inertia<double>(2.0, V3::Zero(), talus::Matrix3<double>::Identity() * 1e-3);
  m.frames[0] = talus::Frame<double>{"point", 2, talus::Transform<double>()};
  return m;
}
using Solo = talus::models::solo12::Model<double>;

template <class M>
struct Feet;
template <>
struct Feet<Solo> {
  static int frame(int k) {
    namespace s = talus::models::solo12;
    static constexpr int f[4] = {s::frame_id("FL_FOOT"), s::frame_id("FR_FOOT"), s::frame_id("HL_FOOT"),
                                 s::frame_id("HR_FOOT")};
    return f[k % 4];
  }
};
template <>
struct Feet<Block> {
  static int frame(int) { return 0; }
};

// ---- the solver field of ContactOptions (added beside this target) --------------------------
// ContactOptions::solver (ContactSolver lemke / pgs / admm), ContactOptions::cone
// (ConeSolverOptions), ContactReport::cone and ContactProblem::set_cone are used when the
// headers have them (detected here, so this file builds before and after they land); without
// them the input's solver bytes are decoded and ignored (every solve is Lemke's).
template <class O, class = void>
struct has_solver : std::false_type {};
template <class O>
struct has_solver<O, std::void_t<decltype(std::declval<O&>().solver), decltype(std::declval<O&>().cone)>>
    : std::true_type {};
template <class R, class = void>
struct has_cone_report : std::false_type {};
template <class R>
struct has_cone_report<R, std::void_t<decltype(std::declval<R&>().cone.iterations)>> : std::true_type {};
template <class P, class = void>
struct has_set_cone : std::false_type {};
template <class P>
struct has_set_cone<P, std::void_t<decltype(std::declval<P&>().set_cone(0, ConeModel::polygon))>> : std::true_type {};

enum SolverCode : unsigned { lemke = 0, pgs = 1, admm = 2 };

template <class O>
void set_solver(O& o, unsigned solver, const talus::ConeSolverOptions<double>& cone) {
  if constexpr (has_solver<O>::value) {
    o.solver = static_cast<std::decay_t<decltype(o.solver)>>(solver);
    o.cone = cone;
  } else {
    (void)o, (void)solver, (void)cone;
  }
}
template <class P>
Status call_set_cone(P& cp, int index, unsigned cone) {
  if constexpr (has_set_cone<P>::value) return cp.set_cone(index, static_cast<ConeModel>(cone));
  (void)cp, (void)index, (void)cone;
  return Status::ok;
}

/// Constructs T in storage filled with 0xFF bytes, default-initialised (as a stack object):
/// members without an initializer keep the poison, so a read of storage no call wrote gives
/// NaN (or an impossible index), and a run on fresh objects is still deterministic.
template <class T>
class Poisoned {
 public:
  Poisoned() {
    void* m = ::operator new(sizeof(T), std::align_val_t(alignof(T)));
    std::memset(m, 0xFF, sizeof(T));
    p_ = ::new (m) T;
  }
  ~Poisoned() {
    p_->~T();
    ::operator delete(static_cast<void*>(p_), std::align_val_t(alignof(T)));
  }
  Poisoned(const Poisoned&) = delete;
  Poisoned& operator=(const Poisoned&) = delete;
  T& operator*() { return *p_; }

 private:
  T* p_;
};

/// failure() of a call, in 8-byte fields (no padding: records are compared with memcmp).
struct FailRec {
  std::int64_t status_, reason, index;
  Status status() const { return static_cast<Status>(status_); }
};
template <class F>
FailRec fail_rec(const F& f) {
  return FailRec{static_cast<std::int64_t>(f.status), static_cast<std::int64_t>(f.reason), f.index};
}

bool near_boundary(double x, double bound, double slack) { return std::fabs(x - bound) <= slack; }

template <class M>
struct ContactFuzz {
  static constexpr int MC = 4, ME = 8, ML = 12, MR = 12, MCS = 4, MaxOps = 6, MaxSolves = 6;
  static constexpr int nq = M::nq, nv = M::nv, nb = M::nb, nframes = M::nframes;
  using CP = talus::ContactProblem<M, MC, ME, ML>;
  using CS = talus::ConstraintSet<M, MR, MCS>;
  using D = talus::Data<M>;
  using Q = typename M::ConfigVector;
  using V = typename M::TangentVector;
  using Fext = talus::ExternalForces<M>;
  using Opt = talus::ContactOptions<double, CP::max_lcp>;
  using Rep = talus::ContactReport<double>;
  using J3 = Eigen::Matrix<double, 3, nv>;
  enum Level { acc = 0, imp = 1, step = 2 };

  // ---- decoded input --------------------------------------------------------------------------
  struct AddSpec {
    bool by_frame = false;
    int body = 0, frame = 0;
    V3 point = V3::Zero(), normal = V3::UnitZ(), anchor = V3::Zero();
    double mu = 0, orientation = 0;
    int edges = 4;
    unsigned cone = 0, mode = 0;  // mode: 0 none (classify), else set_mode(mode − 1)
    double tv = 0, ta = 0;        // the normal row's target (set_target)
  };
  struct OpSpec {
    int kind = 0, index = 0;
    bool on = false;
    V3 normal = V3::UnitZ(), anchor = V3::Zero();
    double orientation = 0, mu = 0;
    int edges = 4;
    unsigned value = 0;
    int side = 0;           // set_limit_target
    double tv = 0, ta = 0;  // set_target, set_limit_target
  };
  struct BilSpec {
    bool by_frame = true;
    int frame = 0, body = 0, count = 3;
    V3 point = V3::Zero();
    std::array<V3, 3> normals{};
    bool set_anchor = false;
    V3 anchor = V3::Zero();
  };
  struct In {
    int group = 0;
    bool bilateral = false, with_f = false;
    Q q;
    V v, tau;
    Fext f{};
    int nadd = 0;
    std::array<AddSpec, MC + 1> adds{};
    int limit_calls = 0;
    M lim_model;
    int nops = 0;
    std::array<OpSpec, MaxOps> ops{};
    int nbil = 0;
    std::array<BilSpec, 3> bil{};
    int toggle = -1;
    bool toggle_on = false;
    Opt opt;
    double h = 1e-3;
    bool set_speeds = false;
    double sliding_speed = 1e-4, limit_margin = 1e-3;
    unsigned solver = lemke;
    talus::ConeSolverOptions<double> cone{};
    int covering_size = 0;
    bool bil_target = false;  // impulses_contact(…, w, …) with the bilateral set
    int bil_extra = 0;        // 1: w one entry longer than the set's rows (refused)
    std::array<double, MR + 1> bil_w{};
  };

  const M& model;
  Reader& r;
  std::unique_ptr<In> in;
  std::array<V3, MC + 1> add_world{};  // each add's point in world at q (for relative anchors)
  bool q_fk = false;

  ContactFuzz(const M& m, Reader& reader) : model(m), r(reader), in(std::make_unique<In>()) {}

  V3 vec3() {
    V3 x;
    r.fill(x);
    return x;
  }
  V3 unit_or_raw() {
    V3 x = vec3();
    if (r.bit()) {
      const double n = x.norm();
      x = std::isfinite(n) && n > 1e-100 ? V3(x / n) : V3::UnitZ();
    }
    return x;
  }
  double mu_code() {
    const std::uint8_t b = r.byte();
    return b < 200 ? (b % 100) / 50.0 : r.scalar();  // mostly 0..1.98, else raw (negative, NaN, 1e200)
  }
  int edges_code() {
    const std::uint8_t b = r.byte();
    static constexpr int odd[8] = {0, 3, 5, 10, 2, -4, 1 << 30, std::numeric_limits<int>::min()};
    return b < 240 ? 4 + 2 * (b % 3) : odd[b % 8];
  }
  /// World position of a point of `body` at q (zero when q or the body is unusable).
  V3 world_point(D& d, int body, const V3& p) {
    V3 w = V3::Zero();
    if (q_fk && body >= 0 && body < nb && talus::point_position(model, d, body, p, w) != Status::ok) w.setZero();
    return w;
  }

  void decode(std::uint8_t b0) {
    In& I = *in;
    const std::uint8_t flags = r.byte();
    r.set_raw(flags & 1);
    I.group = (b0 >> 1) & 3;
    I.bilateral = (b0 >> 3) & 1;
    I.with_f = (b0 >> 4) & 1;
    I.bil_target = I.bilateral && ((b0 >> 5) & 1);
    r.fill(I.q);
    if (flags & 2) normalize_quaternions<M>(I.q);
    r.fill(I.v);
    r.fill(I.tau);
    if (I.with_f)
      for (auto& x : I.f) r.fill(x);
    auto d = std::make_unique<D>();
    q_fk = talus::forward_kinematics(model, *d, I.q) == Status::ok;

    // contacts
    I.nadd = r.byte() % (MC + 2);
    for (int i = 0; i < I.nadd; ++i) {
      AddSpec& a = I.adds[static_cast<std::size_t>(i)];
      const std::uint8_t k = r.byte();
      a.by_frame = k & 1;
      const bool anchor_rel = (k & 2) != 0;
      const unsigned cone_code = (k >> 2) & 3;
      a.cone = cone_code < 2 ? 0u : 1u;  // polygon, exact; code 3 reads a byte: ≥ 240 a value outside the enumerators
      if (cone_code == 3) {
        const std::uint8_t c = r.byte();
        if (c >= 240) a.cone = c;
      }
      a.mode = (k >> 4) & 3;               // 0 none, 1..3 set_mode(0..2)
      if (k >= 240) a.mode = 4 + (k & 3);  // set_mode with a value outside
      if (a.by_frame) {
        const std::uint8_t f = r.byte();
        a.frame = f < 128 ? Feet<M>::frame(f) : r.index(nframes);
        const bool fv = a.frame >= 0 && a.frame < nframes && model.frames[static_cast<std::size_t>(a.frame)].body >= 0;
        a.body = fv ? model.frames[static_cast<std::size_t>(a.frame)].body : -1;
        a.point = fv ? model.frames[static_cast<std::size_t>(a.frame)].placement.p : V3::Zero();
      } else {
        a.body = r.index(nb);
        a.point = vec3();
      }
      a.normal = unit_or_raw();
      a.mu = mu_code();
      a.edges = edges_code();
      a.orientation = r.bit() ? r.scalar() : 0.0;
      add_world[static_cast<std::size_t>(i)] = world_point(*d, a.body, a.point);
      if (anchor_rel) {  // the plane `gap` below the point's current position (gap in cm steps)
        const double gap = r.scalar() * 0.01;
        a.anchor = add_world[static_cast<std::size_t>(i)] - gap * a.normal;
      } else {
        a.anchor = vec3();
      }
    }
    // joint limits on a copy of the model
    I.lim_model = model;
    if (flags & 32) {
      I.limit_calls = (flags & 128) ? 2 : 1;
      for_each_1dof([&](int iq, int) {
        const std::uint8_t b = r.byte();
        const double qi = std::isfinite(I.q[iq]) ? I.q[iq] : 0.0;
        double& lo = I.lim_model.lower_position_limit[iq];
        double& hi = I.lim_model.upper_position_limit[iq];
        if (b < 96) return;  // the model's own
        if (b < 144) {       // near the lower limit, within ±2 mm / mrad (beyond it for d < 0)
          lo = qi - (static_cast<int>(b) - 120) / 24.0 * 2e-3;
          hi = qi + 1;
        } else if (b < 192) {
          lo = qi - 1;
          hi = qi + (static_cast<int>(b) - 168) / 24.0 * 2e-3;
        } else if (b < 224) {  // both sides near
          const double dd = (b - 192) / 32.0 * 2e-3;
          lo = qi - dd;
          hi = qi + dd;
        } else {
          static constexpr double nan = std::numeric_limits<double>::quiet_NaN(),
                                  inf = std::numeric_limits<double>::infinity();
          switch (b % 8) {
            case 0: lo = nan; break;
            case 1: hi = inf; break;
            case 2: lo = qi + 1, hi = qi - 1; break;  // lo > hi
            case 3: lo = hi = qi; break;
            case 4: lo = -1e9; break;  // not < 1e9: no limit
            case 5: lo = qi - 1e-300, hi = qi + 1e-300; break;
            case 6: lo = r.scalar(), hi = r.scalar(); break;
            default: lo = -9.99e8, hi = 9.99e8; break;
          }
        }
      });
    }
    // operations
    I.nops = r.byte() % (MaxOps + 1);
    for (int i = 0; i < I.nops; ++i) {
      OpSpec& o = I.ops[static_cast<std::size_t>(i)];
      const std::uint8_t k = r.byte();
      o.kind = k % 7;
      o.index = r.index(std::min(I.nadd, MC));
      const auto target = [&] {  // m/s or m/s²: mostly small, both signs; raw: NaN, Inf, beyond 1e9
        const std::uint8_t b = r.byte();
        return b < 200 ? (static_cast<int>(b % 21) - 10) * 0.1 : r.scalar();
      };
      switch (o.kind) {
        case 0: o.on = (k & 8) != 0; break;
        case 1: {
          o.normal = unit_or_raw();
          o.orientation = r.bit() ? r.scalar() : 0.0;
          if (k & 8) {  // relative to the point of the add with that index
            const double gap = r.scalar() * 0.01;
            const int j = o.index >= 0 && o.index <= MC ? o.index : 0;
            o.anchor = add_world[static_cast<std::size_t>(j)] - gap * o.normal;
          } else {
            o.anchor = vec3();
          }
          break;
        }
        case 2:
          o.mu = mu_code();
          o.edges = edges_code();
          break;
        case 3: {
          const std::uint8_t b = r.byte();
          o.value = b < 240 ? b % 3 : b;
          break;
        }
        case 4: {
          const std::uint8_t b = r.byte();
          o.value = b < 240 ? b % 2 : b;
          break;
        }
        case 5:
          o.tv = target();
          o.ta = target();
          break;
        default:
          o.index = r.index(ML);
          o.side = (k >> 3) % 3;  // 2: no such side
          o.tv = target();
          o.ta = target();
          break;
      }
    }
    // bilateral set
    if (I.bilateral) {
      I.nbil = r.byte() % 4;
      for (int i = 0; i < I.nbil; ++i) {
        BilSpec& b = I.bil[static_cast<std::size_t>(i)];
        const std::uint8_t k = r.byte();
        b.by_frame = (k & 1) == 0;
        const int nc = (k >> 1) & 3;
        if (b.by_frame) {
          const std::uint8_t f = r.byte();
          b.frame = f < 128 ? Feet<M>::frame(f) : r.index(nframes);
        } else {
          b.body = r.index(nb);
          b.point = vec3();
        }
        if (nc < 3) {  // 3 (z, x, y), 1 (z) or 2 (z, x) world axes: a welded or sliding foot
          b.count = nc == 0 ? 3 : nc;
          b.normals = {V3::UnitZ(), V3::UnitX(), V3::UnitY()};
        } else {  // raw normals, 0..3 of them
          b.count = r.byte() % 4;
          for (auto& n : b.normals) n = unit_or_raw();
        }
        const std::uint8_t a = r.byte();
        b.set_anchor = a < 128;
        if (b.set_anchor) {  // current position + offset (cm steps), or raw
          const V3 off = vec3();
          V3 p = V3::Zero();
          if (b.by_frame && b.frame >= 0 && b.frame < nframes &&
              model.frames[static_cast<std::size_t>(b.frame)].body >= 0)
            p = world_point(*d, model.frames[static_cast<std::size_t>(b.frame)].body,
                            model.frames[static_cast<std::size_t>(b.frame)].placement.p);
          else if (!b.by_frame) p = world_point(*d, b.body, b.point);
          b.anchor = (a & 1) ? V3(off) : V3(p + 0.01 * off);
        }
      }
      const std::uint8_t t = r.byte();
      if (t >= 200) {
        I.toggle = r.index(I.nbil);
        I.toggle_on = t & 1;
      }
    }
    // options
    Opt& o = I.opt;
    if (flags & 4) {
      std::uint8_t b = r.byte();
      o.restitution = b < 200 ? (b % 11) / 10.0 : r.scalar();
      b = r.byte();
      o.softening = b < 128 ? 0.0 : b < 200 ? (b - 128) * 1e-3 : r.scalar();
      b = r.byte();
      o.stiffness = b < 128   ? std::numeric_limits<double>::infinity()
                    : b < 224 ? std::pow(10.0, (b - 128) % 12)
                              : r.scalar() * 1e3;
      b = r.byte();
      o.damping = b < 128 ? 0.0 : b < 224 ? std::pow(10.0, (b - 128) % 8 - 2) : r.scalar();
      b = r.byte();
      o.margin = b < 128   ? 0.01
                 : b < 200 ? (b - 128) * 1e-3
                 : b < 224 ? std::numeric_limits<double>::infinity()
                           : r.scalar() * 0.01;
    }
    if (I.group >= 2) {
      const std::uint8_t b = r.byte();
      static constexpr double hs[8] = {1e-3, 2e-3, 5e-3, 1e-2, 1e-4, 0.1, 1.0, 10.0};
      I.h = b < 224 ? hs[b % 8] : r.scalar() * 1e-3;  // raw: 0, negative, NaN, > 10
    }
    if (flags & 64) {
      std::uint8_t b = r.byte();
      I.set_speeds = true;
      I.sliding_speed = b < 200 ? (b % 50) * 2e-3 : r.scalar();
      b = r.byte();
      I.limit_margin = b < 200 ? (b % 50) * 2e-4 : r.scalar();
    }
    if (flags & 8) {
      std::uint8_t b = r.byte();
      o.lcp.regularize = static_cast<talus::LcpRegularization>(b < 240 ? b % 3 : 3 + b % 8);
      b = r.byte();
      if (b >= 128) o.lcp.max_pivots = static_cast<int>(b) - 136;
      b = r.byte();
      if (b >= 128) o.lcp.check_tolerance = b < 224 ? std::pow(10.0, -static_cast<int>(b % 14)) : r.scalar() * 1e-10;
      b = r.byte();
      if (b >= 128) o.lcp.pivot_tolerance = b < 224 ? std::pow(10.0, -static_cast<int>(b % 16)) : r.scalar() * 1e-12;
      b = r.byte();
      if (b >= 224) {  // a covering vector of 0..7 entries (right only when it has the LCP's size)
        I.covering_size = b % 8;
        o.lcp.covering.resize(I.covering_size);
        for (int i = 0; i < I.covering_size; ++i) o.lcp.covering(i) = r.scalar();
      }
    }
    if (flags & 16) {
      std::uint8_t b = r.byte();
      I.solver = b < 240 ? b % 3 : b;
      auto& c = I.cone;
      b = r.byte();
      if (b >= 128) c.max_iterations = b < 224 ? 1 + (b % 32) * 20 : static_cast<int>(b) - 240;
      b = r.byte();
      if (b >= 128) c.absolute_tolerance = b < 224 ? std::pow(10.0, -static_cast<int>(b % 14)) : r.scalar();
      b = r.byte();
      if (b >= 128) c.relative_tolerance = b < 224 ? std::pow(10.0, -static_cast<int>(b % 14)) : r.scalar();
      b = r.byte();
      if (b >= 128) c.over_relaxation = b < 224 ? 0.1 + (b % 19) * 0.1 : r.scalar();
      b = r.byte();
      if (b >= 128) c.rho = b < 224 ? std::pow(10.0, static_cast<int>(b % 10) - 5) : r.scalar();
      b = r.byte();
      if (b >= 128) {
        c.rho_update_factor = b < 224 ? 1.0 + (b % 8) * 0.5 : r.scalar();
        c.rho_update_ratio = b < 224 ? 1.0 + (b % 16) : r.scalar();
      }
      c.warm_start = r.bit();
    }
    set_solver(o, I.solver, I.cone);
    if (I.bil_target) {  // last, so the inputs before it decode as they did without it
      I.bil_extra = r.byte() >= 224 ? 1 : 0;
      for (auto& w : I.bil_w) {
        const std::uint8_t b = r.byte();
        w = b < 128 ? 0.0 : b < 224 ? (static_cast<int>(b % 21) - 10) * 0.1 : r.scalar();
      }
    }
  }

  template <class F>
  static void for_each_1dof(F&& f) {
    using Tree = typename M::Tree;
    talus::static_for<nb>([&](auto i) {
      constexpr int Ib = decltype(i)::value;
      using J = typename Tree::template Joint<Ib>;
      if constexpr (J::nq == 1 && J::nv == 1) f(Tree::idx_q[Ib], Tree::idx_v[Ib]);
    });
  }

  // ---- building (inside the heap hook: fixed-size storage only) ------------------------------
  struct Snap {  // 8-byte fields: no padding
    const char* name;
    std::int64_t body, edges;
    V3 point, normal, anchor, t1, t2;
    double mu, tv, ta;
    std::int64_t cone, mode, active;
  };
  static Snap snap(const talus::UnilateralContact<double>& c) {
    Snap s;
    s.name = c.name;
    s.body = c.body;
    s.edges = c.edges;
    s.point = c.point;
    s.normal = c.normal;
    s.anchor = c.anchor;
    s.tv = c.target_velocity;
    s.ta = c.target_acceleration;
    s.t1 = c.t1;
    s.t2 = c.t2;
    s.mu = c.mu;
    s.cone = static_cast<unsigned>(c.cone);
    s.mode = static_cast<unsigned>(c.mode);
    s.active = c.active;
    return s;
  }
  static bool same_snap(const Snap& a, const Snap& b) { return std::memcmp(&a, &b, sizeof(Snap)) == 0; }

  struct BuildOut {
    std::array<Status, MC + 1> add, mode;
    std::array<int, MC + 1> add_index;
    std::array<FailRec, MC + 1> add_fail, mode_fail;
    std::array<Status, 2> lim;
    std::array<FailRec, 2> lim_fail;
    std::array<int, 2> lim_count;
    std::array<Status, MaxOps> op;
    std::array<FailRec, MaxOps> op_fail;
    std::array<bool, MaxOps> op_unchanged;
    std::array<Snap, MaxOps> op_before;
    int size, limits;
    std::array<Snap, MC> contacts;
    Snap bad_contact;
    std::array<talus::JointLimit<double>, ML> limit;
    std::array<int, MC> find;
    int find_null;
    std::array<Status, 3> bil_add, bil_anchor;
    Status bil_toggle, bil_bind;
  };

  void build(D& d, CP& cp, CS& cs, BuildOut& o) const {
    (void)d;
    const In& I = *in;
    for (int i = 0; i < I.nadd; ++i) {
      const AddSpec& a = I.adds[static_cast<std::size_t>(i)];
      int index = -7;
      const ConeModel cone = static_cast<ConeModel>(a.cone);
      const Status s =
          a.by_frame ? cp.add_contact(model, a.frame, a.normal, a.mu, a.edges, cone, a.orientation, a.anchor, &index)
                     : cp.add_contact(a.body, a.point, a.normal, a.mu, a.edges, cone, a.orientation, a.anchor, nullptr,
                                      &index);
      o.add[static_cast<std::size_t>(i)] = s;
      o.add_index[static_cast<std::size_t>(i)] = index;
      o.add_fail[static_cast<std::size_t>(i)] = fail_rec(cp.failure());
      o.mode[static_cast<std::size_t>(i)] = Status::ok;
      o.mode_fail[static_cast<std::size_t>(i)] = fail_rec(cp.failure());
      if (s == Status::ok && a.mode != 0) {
        o.mode[static_cast<std::size_t>(i)] = cp.set_mode(index, static_cast<ContactMode>(a.mode - 1));
        o.mode_fail[static_cast<std::size_t>(i)] = fail_rec(cp.failure());
      }
    }
    for (int k = 0; k < 2; ++k) {
      o.lim[static_cast<std::size_t>(k)] = Status::ok;
      o.lim_fail[static_cast<std::size_t>(k)] = fail_rec(cp.failure());
      if (k < I.limit_calls) {
        o.lim[static_cast<std::size_t>(k)] = cp.add_joint_limits(I.lim_model);
        o.lim_fail[static_cast<std::size_t>(k)] = fail_rec(cp.failure());
      }
      o.lim_count[static_cast<std::size_t>(k)] = cp.limits();
    }
    for (int i = 0; i < I.nops; ++i) {
      const OpSpec& p = I.ops[static_cast<std::size_t>(i)];
      const Snap before = snap(cp.contact(p.index));
      Status s = Status::ok;
      switch (p.kind) {
        case 0: s = cp.set_active(p.index, p.on); break;
        case 1: s = cp.set_contact_plane(p.index, p.normal, p.anchor, p.orientation); break;
        case 2: s = cp.set_friction(p.index, p.mu, p.edges); break;
        case 3: s = cp.set_mode(p.index, static_cast<ContactMode>(p.value)); break;
        case 4: s = call_set_cone(cp, p.index, p.value); break;
        case 5: s = cp.set_target(p.index, p.tv, p.ta); break;
        default: s = cp.set_limit_target(p.index, p.side, p.tv, p.ta); break;
      }
      o.op[static_cast<std::size_t>(i)] = s;
      o.op_fail[static_cast<std::size_t>(i)] = fail_rec(cp.failure());
      o.op_before[static_cast<std::size_t>(i)] = before;
      o.op_unchanged[static_cast<std::size_t>(i)] = same_snap(before, snap(cp.contact(p.index)));
    }
    if (I.set_speeds) {
      cp.sliding_speed = I.sliding_speed;
      cp.limit_margin = I.limit_margin;
    }
    o.size = cp.size();
    o.limits = cp.limits();
    for (int i = 0; i < MC; ++i) o.contacts[static_cast<std::size_t>(i)] = snap(cp.contact(i));
    o.bad_contact = snap(cp.contact(MC + 3));
    for (int i = 0; i < ML; ++i) o.limit[static_cast<std::size_t>(i)] = cp.limit(i);
    for (int i = 0; i < MC; ++i) o.find[static_cast<std::size_t>(i)] = cp.find(cp.contact(i).name);
    o.find_null = cp.find(nullptr);
    o.bil_add.fill(Status::ok);
    o.bil_anchor.fill(Status::ok);
    o.bil_toggle = Status::ok;
    o.bil_bind = Status::ok;
    if (I.bilateral) {
      build_bilateral(cs, o);
    }
  }

  Status add_bilateral(CS& cs, const BilSpec& b) const {
    const auto& N = b.normals;
    if (b.by_frame) {
      switch (b.count) {
        case 0: return cs.add_contact(model, b.frame, {});
        case 1: return cs.add_contact(model, b.frame, {N[0]});
        case 2: return cs.add_contact(model, b.frame, {N[0], N[1]});
        default: return cs.add_contact(model, b.frame, {N[0], N[1], N[2]});
      }
    }
    switch (b.count) {
      case 0: return cs.add_contact(b.body, b.point, {});
      case 1: return cs.add_contact(b.body, b.point, {N[0]});
      case 2: return cs.add_contact(b.body, b.point, {N[0], N[1]});
      default: return cs.add_contact(b.body, b.point, {N[0], N[1], N[2]});
    }
  }
  void build_bilateral(CS& cs, BuildOut& o) const {
    const In& I = *in;
    int added = 0;
    std::array<int, 3> index{};
    for (int i = 0; i < I.nbil; ++i) {
      const Status s = add_bilateral(cs, I.bil[static_cast<std::size_t>(i)]);
      o.bil_add[static_cast<std::size_t>(i)] = s;
      if (s == Status::ok) index[static_cast<std::size_t>(i)] = added++;
      else index[static_cast<std::size_t>(i)] = -1;
    }
    for (int i = 0; i < I.nbil; ++i)
      if (I.bil[static_cast<std::size_t>(i)].set_anchor && index[static_cast<std::size_t>(i)] >= 0)
        o.bil_anchor[static_cast<std::size_t>(i)] =
            cs.set_contact_anchor(index[static_cast<std::size_t>(i)], I.bil[static_cast<std::size_t>(i)].anchor);
    o.bil_bind = cs.bind(model);
    if (I.toggle != -1) o.bil_toggle = cs.set_active(I.toggle, I.toggle_on);
  }

  // ---- solving ---------------------------------------------------------------------------------
  struct SolveRec {
    int level;
    Status s;
    FailRec fail;
    V x, tau_c;
    Q qn;
    std::array<V3, MC> f, wf;
    std::array<Status, MC> fs, wfs;
    std::array<bool, MC> sliding;
    std::array<std::array<double, 2>, ML> limf;
    Status bad_force;
    V3 bad_f;
    int unknowns, contacts, nsliding, limit_rows, bilateral_rank, lcp_pivots, cone_iterations;
    unsigned lcp_exit, cone_exit;
    double res_value, res_tolerance;  // ContactReport::residual
    int m;
    std::array<double, MR> lambda;
    bool lambda_zero, lambda_finite;
    bool with_w, w_ok;  // impulses with a bilateral velocity target: w as passed
    int w_rows;
    std::array<double, MR + 1> w;
  };
  struct Out {
    BuildOut build;
    int nsolves;
    std::array<SolveRec, MaxSolves> solves;
  };

  static constexpr std::array<Level, MaxSolves> sequence{acc, imp, step, acc, imp, step};

  void solve(D& d, CP& cp, CS& cs, Level level, SolveRec& o) const {
    const In& I = *in;
    Rep rep;
    V x;
    Q qn;
    qn.setConstant(-3.0);
    x.setConstant(-3.0);
    const Fext* fp = I.with_f ? &I.f : nullptr;
    Status s = Status::ok;
    o.with_w = false;  // Out is poisoned: every field is written by every solve
    o.w_ok = true;
    o.w_rows = 0;
    o.w.fill(0.0);
    if (I.bilateral) {
      switch (level) {
        case acc: s = talus::forward_dynamics_contact(model, d, cp, cs, I.q, I.v, I.tau, x, I.opt, rep, fp); break;
        case imp:
          if (I.bil_target) {
            o.w_rows = std::min(cs.active_rows() + I.bil_extra, MR + 1);
            Eigen::Matrix<double, Eigen::Dynamic, 1, 0, MR + 1, 1> w(o.w_rows);
            o.w_ok = o.w_rows == cs.active_rows();
            for (int i = 0; i < o.w_rows; ++i) {
              w(i) = o.w[static_cast<std::size_t>(i)] = I.bil_w[static_cast<std::size_t>(i)];
              o.w_ok = o.w_ok && std::fabs(w(i)) <= 1e9;
            }
            o.with_w = true;
            s = talus::impulses_contact(model, d, cp, cs, I.q, I.v, w, x, I.opt, rep);
          } else {
            s = talus::impulses_contact(model, d, cp, cs, I.q, I.v, x, I.opt, rep);
          }
          break;
        default: s = talus::time_step_contact(model, d, cp, cs, I.q, I.v, I.tau, I.h, qn, x, I.opt, rep, fp); break;
      }
    } else {
      switch (level) {
        case acc: s = talus::forward_dynamics_contact(model, d, cp, I.q, I.v, I.tau, x, I.opt, rep, fp); break;
        case imp: s = talus::impulses_contact(model, d, cp, I.q, I.v, x, I.opt, rep); break;
        default: s = talus::time_step_contact(model, d, cp, I.q, I.v, I.tau, I.h, qn, x, I.opt, rep, fp); break;
      }
    }
    o.level = level;
    o.s = s;
    o.fail = fail_rec(cp.failure());  // before the readers below (force(−1) records a failure)
    o.x = x;
    o.qn = level == step ? qn : Q::Zero();
    talus::contact_generalized_force(cp, o.tau_c);
    for (int i = 0; i < MC; ++i) {
      o.f[static_cast<std::size_t>(i)].setConstant(-5.0);
      o.wf[static_cast<std::size_t>(i)].setConstant(-5.0);
      o.fs[static_cast<std::size_t>(i)] = cp.force(i, o.f[static_cast<std::size_t>(i)]);
      o.wfs[static_cast<std::size_t>(i)] = cp.world_force(i, o.wf[static_cast<std::size_t>(i)]);
      o.sliding[static_cast<std::size_t>(i)] = cp.sliding(i);
    }
    for (int l = 0; l < ML; ++l)
      for (int side = 0; side < 2; ++side)
        o.limf[static_cast<std::size_t>(l)][static_cast<std::size_t>(side)] = cp.limit_force(l, side);
    o.bad_f.setConstant(-5.0);
    o.bad_force = cp.force(-1, o.bad_f);
    o.unknowns = rep.unknowns;
    o.contacts = rep.contacts;
    o.nsliding = rep.sliding;
    o.limit_rows = rep.limit_rows;
    o.bilateral_rank = rep.bilateral_rank;
    o.lcp_pivots = rep.lcp.pivots;
    o.lcp_exit = static_cast<unsigned>(rep.lcp.exit);
    o.cone_iterations = 0;
    o.cone_exit = 0;
    o.res_value = rep.residual.value;
    o.res_tolerance = rep.residual.tolerance;
    if constexpr (has_cone_report<Rep>::value) {
      o.cone_iterations = rep.cone.iterations;
      o.cone_exit = static_cast<unsigned>(rep.cone.exit);
    }
    o.lambda.fill(0.0);
    o.m = I.bilateral ? static_cast<int>(cs.lambda.size()) : 0;
    o.lambda_zero = I.bilateral ? all_zero(cs.lambda) : true;
    o.lambda_finite = I.bilateral ? finite(cs.lambda) : true;
    for (int i = 0; i < o.m && i < MR; ++i) o.lambda[static_cast<std::size_t>(i)] = cs.lambda[i];
  }

  void run(D& d, CP& cp, CS& cs, Out& o) const {
    build(d, cp, cs, o.build);
    const int g = in->group;
    o.nsolves = g == 3 ? MaxSolves : 1;
    for (int k = 0; k < o.nsolves; ++k)
      solve(d, cp, cs, g == 3 ? sequence[static_cast<std::size_t>(k)] : static_cast<Level>(g),
            o.solves[static_cast<std::size_t>(k)]);
  }

  // ---- the shadow: what every add/set call must do (the documented rules) -----------------------
  struct Shadow {
    std::array<AddSpec, MC> c{};
    std::array<bool, MC> active{};
    int n = 0;
    std::array<std::array<double, 2>, ML> ltv{}, lta{};  // each limit row's target (set_limit_target)
  };
  static bool target_ok(double x) { return std::fabs(x) <= 1e9; }  // input_limits::magnitude; NaN fails
  static bool point_ok(const V3& p) { return (p.array().abs() <= 1e6).all(); }
  static bool mu_ok(double mu, int edges) {
    return mu >= 0 && mu <= 1e3 && edges >= 4 && edges <= ME && edges % 2 == 0;
  }
  static bool plane_ok(const V3& n, const V3& anchor, double o) {
    return point_ok(anchor) && talus::all_finite(n) && std::fabs(n.norm() - 1) <= 1e-6 && std::fabs(o) <= 1e3;
  }

  static void expect_status(const char* fn, Status got, Status want, const FailRec& f, const char* what) {
    char buf[200];
    if (got != want) {
      std::snprintf(buf, sizeof buf, "%s: expected %s", what, talus::to_string(want));
      finding(fn, got, "wrong status", buf);
    }
    if (got == Status::ok && (f.status() != Status::ok || f.reason != 0))
      finding(fn, got, "ok but failure() records a failure", what);
    if (got != Status::ok && (f.status() != got || f.reason == 0)) {
      std::snprintf(buf, sizeof buf, "%s: failure() says %s / %s", what, talus::to_string(f.status()),
                    talus::to_string(static_cast<ContactFailureReason>(f.reason)));
      finding(fn, got, "not ok but failure() does not record it", buf);
    }
  }

  void check_build(const BuildOut& o, Shadow& sh) const {
    const In& I = *in;
    char buf[640];
    for (int i = 0; i < I.nadd; ++i) {
      const AddSpec& a = I.adds[static_cast<std::size_t>(i)];
      const char* fn = a.by_frame ? "ContactProblem::add_contact(frame)" : "ContactProblem::add_contact(body)";
      Status want = Status::ok;
      ContactFailureReason why = ContactFailureReason::none;
      if (a.by_frame && a.body < 0) want = Status::invalid_input, why = ContactFailureReason::body_out_of_range;
      else if (sh.n >= MC) want = Status::capacity_exceeded, why = ContactFailureReason::too_many_contacts;
      else if (a.body < 0 || a.body >= nb) want = Status::invalid_input, why = ContactFailureReason::body_out_of_range;
      else if (!point_ok(a.point)) want = Status::invalid_input, why = ContactFailureReason::point_invalid;
      else if (a.cone > 1)
        want = Status::invalid_input, why = ContactFailureReason::friction_invalid;  // cone outside the enumerators
      else if (!mu_ok(a.mu, a.edges)) want = Status::invalid_input, why = ContactFailureReason::friction_invalid;
      else if (!point_ok(a.anchor)) want = Status::invalid_input, why = ContactFailureReason::point_invalid;
      else if (!plane_ok(a.normal, a.anchor, a.orientation))
        want = Status::invalid_input, why = ContactFailureReason::normal_invalid;
      const Status got = o.add[static_cast<std::size_t>(i)];
      std::snprintf(buf, sizeof buf, "add %d (body %d, mu %.3g, edges %d, cone %u, |n| %.17g)", i, a.body, a.mu,
                    a.edges, a.cone, a.normal.norm());
      expect_status(fn, got, want, o.add_fail[static_cast<std::size_t>(i)], buf);
      if (got != Status::ok && why != ContactFailureReason::none &&
          o.add_fail[static_cast<std::size_t>(i)].reason != static_cast<std::int64_t>(why) && want != Status::ok)
        finding(fn, got, "failure() names another reason",
                talus::to_string(static_cast<ContactFailureReason>(o.add_fail[static_cast<std::size_t>(i)].reason)));
      if (got == Status::ok && o.add_index[static_cast<std::size_t>(i)] != sh.n)
        finding(fn, got, "index is not the contact's");
      if (got != Status::ok && o.add_index[static_cast<std::size_t>(i)] != -7)
        finding(fn, got, "not ok but index was written");
      if (got != Status::ok) continue;
      AddSpec c = a;
      c.mode = 0;
      const int k = sh.n++;
      sh.active[static_cast<std::size_t>(k)] = true;
      if (a.mode != 0) {
        const bool ok = a.mode - 1 <= 2;
        expect_status("ContactProblem::set_mode", o.mode[static_cast<std::size_t>(i)],
                      ok ? Status::ok : Status::invalid_input, o.mode_fail[static_cast<std::size_t>(i)], "after add");
        if (ok) c.mode = a.mode - 1;
      }
      sh.c[static_cast<std::size_t>(k)] = c;
    }
    // limits
    int expected = 0;
    std::array<talus::JointLimit<double>, 2 * ML> want{};
    int nwant = 0;
    for (int k = 0; k < I.limit_calls; ++k) {
      Status s = Status::ok;
      for_each_1dof([&](int iq, int iv) {
        const double lo = I.lim_model.lower_position_limit[iq], hi = I.lim_model.upper_position_limit[iq];
        if (s != Status::ok || !(std::fabs(lo) < 1e9 && std::fabs(hi) < 1e9 && lo <= hi)) return;
        if (expected >= ML) {
          s = Status::capacity_exceeded;
          return;
        }
        want[static_cast<std::size_t>(nwant++)] = talus::JointLimit<double>{iq, iv, lo, hi};
        ++expected;
      });
      expect_status("ContactProblem::add_joint_limits", o.lim[static_cast<std::size_t>(k)], s,
                    o.lim_fail[static_cast<std::size_t>(k)], "");
      if (o.lim_count[static_cast<std::size_t>(k)] != expected)
        finding("ContactProblem::add_joint_limits", o.lim[static_cast<std::size_t>(k)],
                "limits() is not the number of finite limits");
    }
    if (o.limits != expected) finding("ContactProblem::limits", Status::ok, "wrong count");
    for (int l = 0; l < std::min(expected, ML); ++l) {
      const auto& a = o.limit[static_cast<std::size_t>(l)];
      const auto& b = want[static_cast<std::size_t>(l)];
      if (a.idx_q != b.idx_q || a.idx_v != b.idx_v || !(a.lower == b.lower) || !(a.upper == b.upper))
        finding("ContactProblem::add_joint_limits", Status::ok, "a limit row is not the model's joint limit");
    }
    // operations
    for (int i = 0; i < I.nops; ++i) {
      const OpSpec& p = I.ops[static_cast<std::size_t>(i)];
      const bool idx = p.index >= 0 && p.index < sh.n;
      AddSpec* c = idx ? &sh.c[static_cast<std::size_t>(p.index)] : nullptr;
      Status want_s = idx ? Status::ok : Status::invalid_input;
      static const char* names[7] = {"ContactProblem::set_active",      "ContactProblem::set_contact_plane",
                                     "ContactProblem::set_friction",    "ContactProblem::set_mode",
                                     "ContactProblem::set_cone",        "ContactProblem::set_target",
                                     "ContactProblem::set_limit_target"};
      ContactFailureReason why = idx ? ContactFailureReason::none : ContactFailureReason::index_out_of_range;
      if (p.kind == 4 && !has_set_cone<CP>::value) continue;
      switch (p.kind) {
        case 0:
          if (idx) sh.active[static_cast<std::size_t>(p.index)] = p.on;
          break;
        case 1:
          if (idx && !plane_ok(p.normal, p.anchor, p.orientation)) want_s = Status::invalid_input;
          if (want_s == Status::ok) c->normal = p.normal, c->anchor = p.anchor, c->orientation = p.orientation;
          break;
        case 2:
          if (idx && !mu_ok(p.mu, p.edges)) want_s = Status::invalid_input;
          if (want_s == Status::ok) c->mu = p.mu, c->edges = p.edges;
          break;
        case 3:
          if (p.value > 2) want_s = Status::invalid_input;
          if (want_s == Status::ok) c->mode = p.value;
          break;
        case 4:
          if (p.value > 1) want_s = Status::invalid_input;
          if (want_s == Status::ok) c->cone = p.value;
          break;
        case 5:
          if (idx && !(target_ok(p.tv) && target_ok(p.ta)))
            want_s = Status::invalid_input, why = ContactFailureReason::input_invalid;
          if (want_s == Status::ok) c->tv = p.tv, c->ta = p.ta;
          break;
        default: {
          const bool lidx = p.index >= 0 && p.index < std::min(expected, ML) && p.side >= 0 && p.side <= 1;
          want_s = lidx ? Status::ok : Status::invalid_input;
          why = lidx ? ContactFailureReason::none : ContactFailureReason::index_out_of_range;
          if (lidx && !(target_ok(p.tv) && target_ok(p.ta)))
            want_s = Status::invalid_input, why = ContactFailureReason::input_invalid;
          if (want_s == Status::ok) {
            sh.ltv[static_cast<std::size_t>(p.index)][static_cast<std::size_t>(p.side)] = p.tv;
            sh.lta[static_cast<std::size_t>(p.index)][static_cast<std::size_t>(p.side)] = p.ta;
          }
          break;
        }
      }
      if (p.kind >= 5 && want_s != Status::ok &&
          o.op_fail[static_cast<std::size_t>(i)].reason != static_cast<std::int64_t>(why))
        finding(names[p.kind], o.op[static_cast<std::size_t>(i)], "failure() names another reason",
                talus::to_string(static_cast<ContactFailureReason>(o.op_fail[static_cast<std::size_t>(i)].reason)));
      std::snprintf(buf, sizeof buf, "operation %d, index %d", i, p.index);
      expect_status(names[p.kind], o.op[static_cast<std::size_t>(i)], want_s, o.op_fail[static_cast<std::size_t>(i)],
                    buf);
      if (o.op[static_cast<std::size_t>(i)] != Status::ok && !o.op_unchanged[static_cast<std::size_t>(i)])
        finding(names[p.kind], o.op[static_cast<std::size_t>(i)], "refused but the contact changed");
    }
    for (int l = 0; l < std::min(expected, ML); ++l)
      for (int side = 0; side < 2; ++side)
        if (!(o.limit[static_cast<std::size_t>(l)].target_velocity[side] ==
              sh.ltv[static_cast<std::size_t>(l)][static_cast<std::size_t>(side)]) ||
            !(o.limit[static_cast<std::size_t>(l)].target_acceleration[side] ==
              sh.lta[static_cast<std::size_t>(l)][static_cast<std::size_t>(side)]))
          finding("ContactProblem::limit", Status::ok, "a limit row's target is not what set_limit_target made it");
    // the final contacts
    if (o.size != sh.n) finding("ContactProblem::size", Status::ok, "not the number of contacts added");
    if (o.bad_contact.body != -1)
      finding("ContactProblem::contact", Status::ok, "an unknown index gives a contact with a body");
    if (o.find_null != -1) finding("ContactProblem::find", Status::ok, "find(nullptr) is not -1");
    for (int i = 0; i < sh.n; ++i) {
      const AddSpec& c = sh.c[static_cast<std::size_t>(i)];
      const Snap& s = o.contacts[static_cast<std::size_t>(i)];
      const char* fn = "ContactProblem::contact";
      if (s.body != c.body || s.point != c.point || s.normal != c.normal || s.anchor != c.anchor || !(s.mu == c.mu) ||
          s.edges != c.edges || s.cone != c.cone || s.mode != c.mode ||
          s.active != sh.active[static_cast<std::size_t>(i)] || !(s.tv == c.tv) || !(s.ta == c.ta))
        finding(fn, Status::ok, "a contact is not what the calls made it");
      // the polygon frame: t1 = cos(o) t0 + sin(o) n x t0, t0 = n x e / |n x e| (e the axis least aligned with n)
      int k = 0;
      c.normal.cwiseAbs().minCoeff(&k);
      const V3 t0 = c.normal.cross(V3::Unit(k)).normalized();
      const V3 t1 = std::cos(c.orientation) * t0 + std::sin(c.orientation) * c.normal.cross(t0);
      const double dn = std::fabs(c.normal.norm() - 1);  // the normal is accepted 1e-6 from unit
      if (!((s.t1 - t1).cwiseAbs().maxCoeff() <= 1e-12 * (1 + std::fabs(c.orientation)) + 4 * dn) ||
          !(std::fabs(s.t1.dot(c.normal)) <= 1e-12) || !(std::fabs(s.t1.norm() - 1) <= 1e-12 + 4 * dn) ||
          !((s.t2 - c.normal.cross(s.t1)).cwiseAbs().maxCoeff() <= 1e-15)) {
        std::snprintf(
            buf, sizeof buf,
            "contact %d: n (%.17g %.17g %.17g) orientation %.17g: t1 (%.17g %.17g %.17g), expected (%.17g %.17g %.17g)",
            i, c.normal.x(), c.normal.y(), c.normal.z(), c.orientation, s.t1.x(), s.t1.y(), s.t1.z(), t1.x(), t1.y(),
            t1.z());
        finding(fn, Status::ok, "the polygon frame is not (n, t1, n x t1) as documented", buf);
      }
      int first = -1;
      for (int j = 0; j < sh.n && first < 0; ++j)
        if (s.name && o.contacts[static_cast<std::size_t>(j)].name &&
            std::strcmp(s.name, o.contacts[static_cast<std::size_t>(j)].name) == 0)
          first = j;
      if (o.find[static_cast<std::size_t>(i)] != first)
        finding("ContactProblem::find", Status::ok, "not the first contact of that name");
    }
  }

  // ---- the checks of one solve ---------------------------------------------------------------------
  /// Harness-side reference of a solve: H, C, the bilateral G, γ, e from a set built again,
  /// each contact's point Jacobian, position, velocity, gap.
  struct Ref {
    bool ok = false;
    Eigen::Matrix<double, nv, nv> H;
    V C;
    Eigen::MatrixXd G;
    Eigen::VectorXd gamma, err;
    int m = 0;
    double ps = 1, lmin = 0;
    std::array<J3, MC> J{};
    std::array<V3, MC> p{}, vp{};
    std::array<double, MC> gap{};
    bool c_ok = false;        // C = rnea(q, v, 0 [, f_ext]) evaluated (f_ext may be invalid: impulses ignore it)
    std::array<V3, MC> a0{};  // each contact point's acceleration at q̈ = 0 (world)
  };

  void reference(Ref& R, const BuildOut& b) const {
    const In& I = *in;
    auto d = std::make_unique<D>();
    R.ok = false;
    if (talus::crba(model, *d, I.q) != Status::ok) return;
    R.H = d->H;
    const V zero = V::Zero();
    const Status sc = I.with_f ? talus::rnea(model, *d, I.q, I.v, zero, I.f, R.C)
                               : talus::rnea(model, *d, I.q, I.v, zero, R.C);
    R.c_ok = sc == Status::ok;
    if (talus::forward_kinematics(model, *d, I.q, I.v, zero) != Status::ok) return;
    for (int i = 0; i < b.size; ++i)
      (void)talus::point_acceleration(model, *d, b.contacts[static_cast<std::size_t>(i)].body,
                                      b.contacts[static_cast<std::size_t>(i)].point, talus::ReferenceFrame::world,
                                      R.a0[static_cast<std::size_t>(i)]);
    R.ps = position_scale(*d);
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, nv, nv>> es(R.H, Eigen::EigenvaluesOnly);
    R.lmin = es.eigenvalues()(0);
    for (int i = 0; i < b.size; ++i) {
      const Snap& c = b.contacts[static_cast<std::size_t>(i)];
      auto& J = R.J[static_cast<std::size_t>(i)];
      if (talus::point_jacobian(model, *d, I.q, c.body, c.point, talus::ReferenceFrame::world, J) != Status::ok) return;
      if (talus::point_position(model, *d, c.body, c.point, R.p[static_cast<std::size_t>(i)]) != Status::ok) return;
      R.vp[static_cast<std::size_t>(i)] = J * I.v;
      R.gap[static_cast<std::size_t>(i)] = c.normal.dot(R.p[static_cast<std::size_t>(i)] - c.anchor);
    }
    R.m = 0;
    if (I.bilateral) {
      auto cs = std::make_unique<CS>();
      BuildOut tmp;
      build_bilateral(*cs, tmp);
      auto d2 = std::make_unique<D>();
      if (talus::compute_constrained_system(model, *d2, *cs, I.q, I.v) != Status::ok) return;
      R.m = static_cast<int>(cs->G.rows());
      R.G = cs->G;
      R.gamma = cs->gamma;
      R.err = cs->position_error;
    }
    R.ok = true;
  }

  /// κ of H, or of [H Gᵀ; G 0] with bilateral rows (SVD).
  static double condition(const Ref& R) {
    const int m = R.m;
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(nv + m, nv + m);
    K.topLeftCorner(nv, nv) = R.H;
    if (m) {
      K.topRightCorner(nv, m) = R.G.transpose();
      K.bottomLeftCorner(m, nv) = R.G;
    }
    if (!finite(K)) return std::numeric_limits<double>::infinity();
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(K);
    const auto& sv = svd.singularValues();
    return sv[0] / sv[sv.size() - 1];
  }
  struct Tol {
    const Ref& R;
    double kappa = -1;
    double get() {
      if (kappa < 0) kappa = condition(R);
      return kappa;
    }
  };
  /// Worst value / bound of each check family in this input (printed by TALUS_FUZZ_TRACE: how
  /// close the answers come to the tolerances).
  struct Margins {
    double eq = 0, normal = 0, friction = 0, cone = 0, limit = 0;
  };
  static Margins& margins() {
    static Margins m;
    return m;
  }
  static void note(double& worst, double value, double bound) {
    if (bound > 0 && value == value) worst = std::max(worst, value / bound);
  }
  static void check_eq(const char* fn, const char* what, double err, double scale, double base, Tol& t) {
    note(margins().eq, err, base * scale);
    if (err <= base * scale) return;
    const double k = t.get();
    if (!(k * 2.2e-16 <= 1e-4)) return;  // hopeless: nothing asked
    const double tol = base + 1e-14 * k;
    if (!(err <= tol * scale)) {
      char buf[220];
      std::snprintf(buf, sizeof buf, "%s residual %.3g > %.3g (base %.1g + 1e-14 x kappa %.3g) x scale %.3g", what, err,
                    tol * scale, base, k, scale);
      finding(fn, Status::ok, "ok but the equations do not hold", buf);
    }
  }

  static bool options_valid(const Opt& o) {
    return o.restitution >= 0 && o.restitution <= 1 && o.softening >= 0 && o.softening <= 1e9 && o.stiffness >= 0 &&
           o.damping >= 0 && o.damping <= 1e12 && o.margin >= 0;  // NaN fails every comparison
  }
  bool lcp_options_valid() const {
    const auto& o = in->opt.lcp;
    return o.pivot_tolerance >= 0 && o.pivot_tolerance <= 1 && o.check_tolerance >= 0 && o.check_tolerance <= 1 &&
           o.max_pivots >= 0 && static_cast<unsigned>(o.regularize) <= 2;
  }
  bool covering_valid(int unknowns) const {
    const auto& c = in->opt.lcp.covering;
    if (c.size() == 0) return true;
    if (c.size() != unknowns) return false;
    for (int i = 0; i < c.size(); ++i)  // a 0 is valid where the LCP's qᵢ ≥ 0, which is not known here
      if (!(c(i) >= 0 && c(i) <= 1e9)) return false;
    return true;
  }
  bool cone_options_valid() const {
    const auto& o = in->cone;
    const double mag = 1e9;
    return o.max_iterations >= 1 && o.absolute_tolerance >= 0 && o.absolute_tolerance <= mag &&
           o.relative_tolerance >= 0 && o.relative_tolerance <= 1 && o.over_relaxation > 0 && o.over_relaxation < 2 &&
           o.rho >= 0 && o.rho <= mag && o.rho_update_ratio >= 1 && o.rho_update_ratio <= mag &&
           o.rho_update_factor >= 1 && o.rho_update_factor <= mag;
  }
  unsigned solver() const { return has_solver<Opt>::value ? in->solver : static_cast<unsigned>(lemke); }

  static const char* level_name(int level, bool bil) {
    static const char* n[2][3] = {
        {"forward_dynamics_contact", "impulses_contact", "time_step_contact"},
        {"forward_dynamics_contact(bilateral)", "impulses_contact(bilateral)", "time_step_contact(bilateral)"}};
    return n[bil ? 1 : 0][level];
  }

  void check_solve(const SolveRec& o, const BuildOut& b, const Ref& R) const {
    const In& I = *in;
    const Level level = static_cast<Level>(o.level);
    const char* fn = level_name(level, I.bilateral);
    const Status s = o.s;
    const bool ok = s == Status::ok;
    char buf[300];
    // promise 3 / 2 on every output
    check_output(fn, s, o.x);
    if (level == step) check_output(fn, s, o.qn);
    check_output("contact_generalized_force", s, o.tau_c);
    if (ok && !(o.res_value >= 0 && o.res_value <= o.res_tolerance))
      finding(fn, s, "ok with report.residual above its tolerance (or negative, or NaN)");
    for (int i = 0; i < MC; ++i) {
      const bool valid = i < b.size;
      if (o.fs[static_cast<std::size_t>(i)] != (valid ? Status::ok : Status::invalid_input))
        finding("ContactProblem::force", o.fs[static_cast<std::size_t>(i)], "wrong status for the index");
      if (o.wfs[static_cast<std::size_t>(i)] != o.fs[static_cast<std::size_t>(i)])
        finding("ContactProblem::world_force", o.wfs[static_cast<std::size_t>(i)], "not the status of force()");
      // after a failed solve (s) or for an unknown index (invalid_input): zero
      const Status fs = !valid ? Status::invalid_input : s;
      check_output("ContactProblem::force", fs, o.f[static_cast<std::size_t>(i)]);
      check_output("ContactProblem::world_force", fs, o.wf[static_cast<std::size_t>(i)]);
      if (!valid && o.sliding[static_cast<std::size_t>(i)])
        finding("ContactProblem::sliding", s, "true for an unknown index");
    }
    for (int l = 0; l < ML; ++l)
      for (int side = 0; side < 2; ++side) {
        const double f = o.limf[static_cast<std::size_t>(l)][static_cast<std::size_t>(side)];
        if ((!ok || l >= b.limits) && f != 0.0)
          finding("ContactProblem::limit_force", s, "not zero after a failed solve or for an unknown limit");
        if (ok && !std::isfinite(f)) finding("ContactProblem::limit_force", s, "ok but not finite");
      }
    if (o.bad_force != Status::invalid_input || !all_zero(o.bad_f))
      finding("ContactProblem::force", o.bad_force, "index -1 not refused with a zero force");
    if (I.bilateral) {
      if (!ok && !o.lambda_zero) finding(fn, s, "not ok but lambda is not zero");
      if (ok && !o.lambda_finite) finding(fn, s, "ok but lambda is not finite");
    }
    // failure()
    if (ok && (o.fail.status() != Status::ok || o.fail.reason != 0))
      finding(fn, s, "ok but failure() records a failure");
    if (!ok && (o.fail.status() != s || o.fail.reason == 0)) finding(fn, s, "not ok but failure() does not record it");

    // ---- refusals the inputs call for ----
    const bool q_ok = talus::check_configuration(model, I.q) == Status::ok;
    const bool v_ok = (I.v.array().abs() <= 1e9).all();
    const bool tau_ok = level == imp || (I.tau.array().abs() <= 1e9).all();
    bool f_ok = true;
    if (I.with_f && level != imp)
      for (const auto& x : I.f) f_ok = f_ok && (x.array().abs() <= 1e9).all();
    const double h = level == step ? I.h : 1.0;
    const bool h_ok = h > 0 && h <= 10;
    const Opt& op = I.opt;
    const unsigned sol = solver();
    bool cone_match = true;
    for (int i = 0; i < b.size; ++i)
      if (b.contacts[static_cast<std::size_t>(i)].active &&
          (b.contacts[static_cast<std::size_t>(i)].cone == 0) != (sol == lemke))
        cone_match = false;
    const bool rigid = op.stiffness > 1e30;
    const double cfm = rigid ? 0.0 : 1.0 / (h * op.stiffness + op.damping);
    const double erp = rigid ? 1.0 : h * op.stiffness * cfm;
    const bool step_ok = level != step || (cfm == cfm && cfm < 1e12 && erp == erp);
    const bool w_ok = !o.with_w || o.w_ok;  // impulses_contact(…, w, …): refused before anything else
    if (!w_ok &&
        (s != Status::invalid_input || o.fail.reason != static_cast<std::int64_t>(ContactFailureReason::input_invalid)))
      finding(
          fn, s,
          "a bilateral velocity target of the wrong size or beyond 1e9 not refused with invalid_input / input_invalid");
    const bool early_invalid = !w_ok || !q_ok || !v_ok || !tau_ok || !f_ok || !options_valid(op) || sol > 2 || !h_ok ||
                               !cone_match || !step_ok;
    if (early_invalid && s != Status::invalid_input) {
      std::snprintf(buf, sizeof buf, "q %d v %d tau %d fext %d options %d solver %u h %d (%.3g) cones %d step %d", q_ok,
                    v_ok, tau_ok, f_ok, options_valid(op), sol, h_ok, h, cone_match, step_ok);
      finding(fn, s, "invalid input not refused with invalid_input", buf);
    }
    if (I.bilateral && b.bil_bind != Status::ok && s == Status::ok)
      finding(fn, s, "ok with a bilateral set that is not bound");
    if (sol == lemke && !lcp_options_valid() && ok) finding(fn, s, "ok with invalid LCP options");
    if (sol == lemke && ok && !covering_valid(o.unknowns))
      finding(fn, s, "ok with a covering vector that does not fit the LCP");
    if ((sol == pgs || sol == admm) && !cone_options_valid() && ok)
      finding(fn, s, "ok with invalid cone-solver options");
    if (!ok) return;
    if (!R.ok || (level != imp && !R.c_ok)) {
      finding(fn, s, "ok but the harness could not evaluate the state (crba/rnea/jacobians refused it)");
      return;
    }

    // ---- which contacts and limit rows take part ----
    const double eps = 2.2204460492503131e-16;
    const double margin = op.margin;
    std::array<int, MC> part{};  // 1 takes part, 0 not, −1 cannot tell (gap at the margin)
    int n_part = 0, n_unknown = 0, n_sliding = 0;
    double mu_max = 0;
    for (int i = 0; i < b.size; ++i) {
      const Snap& c = b.contacts[static_cast<std::size_t>(i)];
      int pt = c.active ? 1 : 0;
      if (c.active && level == step) {
        const double g = R.gap[static_cast<std::size_t>(i)];
        const double slack =
            64 * eps *
            (R.p[static_cast<std::size_t>(i)].cwiseAbs().maxCoeff() + c.anchor.cwiseAbs().maxCoeff() + std::fabs(g));
        pt = near_boundary(g, margin, slack) ? -1 : g <= margin ? 1 : 0;
      }
      part[static_cast<std::size_t>(i)] = pt;
      n_part += pt == 1;
      n_unknown += pt == -1;
      if (pt != 0) mu_max = std::max(mu_max, c.mu);
      n_sliding += o.sliding[static_cast<std::size_t>(i)];
      if (pt == 0 && !all_zero(o.f[static_cast<std::size_t>(i)])) {
        std::snprintf(buf, sizeof buf, "contact %d (active %d, gap %.3g, margin %.3g)", i, static_cast<int>(c.active),
                      R.gap[static_cast<std::size_t>(i)], margin);
        finding(fn, s, "a contact that does not take part has a force", buf);
      }
      if (pt == 0 && o.sliding[static_cast<std::size_t>(i)])
        finding(fn, s, "a contact that does not take part is sliding");
    }
    if (o.contacts < n_part || o.contacts > n_part + n_unknown) {
      std::snprintf(buf, sizeof buf, "report.contacts %d, expected %d (+%d at the margin)", o.contacts, n_part,
                    n_unknown);
      finding(fn, s, "the report does not count the contacts that take part", buf);
    }
    if (o.nsliding != n_sliding) finding(fn, s, "report.sliding is not the number of sliding() contacts");
    if (level != acc && n_sliding)
      finding(fn, s, "a contact slides at velocity level (only the acceleration level classifies)");
    const double lthr = level == step ? std::max(margin, in_limit_margin()) : in_limit_margin();
    std::array<std::array<int, 2>, ML> lpart{};
    int nl_part = 0, nl_unknown = 0;
    for (int l = 0; l < b.limits; ++l) {
      const auto& L = b.limit[static_cast<std::size_t>(l)];
      for (int side = 0; side < 2; ++side) {
        const double g = side == 0 ? I.q[L.idx_q] - L.lower : L.upper - I.q[L.idx_q];
        const double slack = 8 * eps * (std::fabs(I.q[L.idx_q]) + std::fabs(side == 0 ? L.lower : L.upper));
        const int pt = near_boundary(g, lthr, slack) ? -1 : g <= lthr ? 1 : 0;
        lpart[static_cast<std::size_t>(l)][static_cast<std::size_t>(side)] = pt;
        nl_part += pt == 1;
        nl_unknown += pt == -1;
        const double f = o.limf[static_cast<std::size_t>(l)][static_cast<std::size_t>(side)];
        if (pt == 0 && f != 0.0) finding(fn, s, "a limit row that does not take part has a force");
      }
    }
    if (o.limit_rows < nl_part || o.limit_rows > nl_part + nl_unknown)
      finding(fn, s, "the report does not count the limit rows that take part");

    // ---- forces, world forces, generalized force ----
    const J3* Jc = R.J.data();
    V sum_jf = V::Zero(), abs_jf = V::Zero();
    for (int i = 0; i < b.size; ++i) {
      const Snap& c = b.contacts[static_cast<std::size_t>(i)];
      const V3& f = o.f[static_cast<std::size_t>(i)];
      const V3 wf = f[0] * c.normal + f[1] * c.t1 + f[2] * c.t2;
      const V3& got = o.wf[static_cast<std::size_t>(i)];
      if (!((got - wf).cwiseAbs().maxCoeff() <= 4 * eps * f.cwiseAbs().sum() * 2))
        finding("ContactProblem::world_force", s, "not f_n n + f_t1 t1 + f_t2 t2");
      sum_jf += Jc[i].transpose() * got;
      abs_jf += Jc[i].cwiseAbs().transpose() * got.cwiseAbs();
    }
    for (int l = 0; l < b.limits; ++l) {
      const auto& L = b.limit[static_cast<std::size_t>(l)];
      const double fl = o.limf[static_cast<std::size_t>(l)][0] - o.limf[static_cast<std::size_t>(l)][1];
      sum_jf[L.idx_v] += fl;
      abs_jf[L.idx_v] +=
          std::fabs(o.limf[static_cast<std::size_t>(l)][0]) + std::fabs(o.limf[static_cast<std::size_t>(l)][1]);
    }
    const double ps2 = R.ps * R.ps;
    {
      const double e = max_abs((o.tau_c - sum_jf).eval()), sc = 1 + max_abs(abs_jf);
      if (!(e <= 1e-12 * ps2 * sc)) {
        std::snprintf(buf, sizeof buf, "residual %.3g, scale %.3g", e, sc);
        finding("contact_generalized_force", s, "not the sum of J^T f over contacts and limits", buf);
      }
    }

    // ---- the equations of motion ----
    Tol t{R};
    const int m = R.m;
    Eigen::VectorXd lam = Eigen::VectorXd::Zero(m);
    if (I.bilateral) {
      if (o.m != m) finding(fn, s, "lambda does not have the active bilateral rows");
      for (int i = 0; i < std::min(m, o.m); ++i) lam[i] = o.lambda[static_cast<std::size_t>(i)];
    }
    const V Gtl = m ? V(R.G.transpose() * lam) : V(V::Zero());
    const double s_gtl = m ? (R.G.transpose().cwiseAbs() * lam.cwiseAbs()).maxCoeff() : 0.0;
    V res;
    double sc = 0;
    if (level == acc) {
      res = R.H * o.x + R.C - I.tau - sum_jf - Gtl;
      sc = 1 + max_abs(I.tau) + max_abs(R.C) + (R.H.cwiseAbs() * o.x.cwiseAbs()).maxCoeff() + max_abs(abs_jf) + s_gtl;
    } else if (level == imp) {
      res = R.H * (o.x - I.v) - sum_jf - Gtl;
      sc = 1 + (R.H.cwiseAbs() * o.x.cwiseAbs()).maxCoeff() + (R.H.cwiseAbs() * I.v.cwiseAbs()).maxCoeff() +
           max_abs(abs_jf) + s_gtl;
    } else {
      res = R.H * (o.x - I.v) - h * (I.tau - R.C) - sum_jf - Gtl;
      sc = 1 + (R.H.cwiseAbs() * o.x.cwiseAbs()).maxCoeff() + (R.H.cwiseAbs() * I.v.cwiseAbs()).maxCoeff() +
           h * (max_abs(I.tau) + max_abs(R.C)) + max_abs(abs_jf) + s_gtl;
    }
    check_eq(fn,
             level == acc ? "H qdd + C - tau - J^T f - G^T lambda" : "H (v+ - v) - (h (tau - C)) - J^T p - G^T Lambda",
             max_abs(res), sc, 1e-9 * ps2, t);
    if (m) {
      Eigen::VectorXd g = Eigen::VectorXd::Zero(m);
      if (level == acc) g = R.gamma;
      if (level == imp && o.with_w && o.w_rows == m) g = Eigen::Map<const Eigen::VectorXd>(o.w.data(), m);
      if (level == step) g = -(erp / h) * R.err;
      const Eigen::VectorXd r2 = R.G * o.x - g;
      const double s2 = sc + 1 + max_abs(g) + (R.G.cwiseAbs() * o.x.cwiseAbs()).maxCoeff() +
                        (max_abs(R.H) + max_abs(R.G)) * std::fmax(max_abs(o.x), max_abs(lam));
      check_eq(fn,
               level == acc   ? "G qdd - gamma"
               : level == imp ? (o.with_w ? "G v+ - w" : "G v+")
                              : "G v+ + (erp/h) e",
               max_abs(r2), s2, 1e-9 * ps2, t);
    }
    if (level == step) {  // q+ = q (+) h v+
      Q qn;
      const V dq = h * o.x;
      const Status si = talus::integrate(model, I.q, dq, qn);
      if (si != Status::ok || std::memcmp(qn.data(), o.qn.data(), sizeof(double) * nq) != 0)
        finding(fn, s, "q_next is not integrate(q, h v_next)");
    }

    // ---- complementarity and friction, row by row ----
    // each contact point's acceleration (acc: J q̈ + its acceleration at q̈ = 0) or velocity after (imp, step), world
    std::array<V3, MC> w{};
    for (int i = 0; i < b.size; ++i)
      w[static_cast<std::size_t>(i)] =
          Jc[i] * o.x + (level == acc ? V3(R.a0[static_cast<std::size_t>(i)]) : V3(V3::Zero()));
    // scales (lcp_lemke.hpp's check, bounded here): s_D ≥ |D_ij|, s_z ≥ |z|, s_w ≥ |q| + n max|M| s_z
    double amax = 1.0;  // ‖A_r‖ (limit rows: 1)
    for (int i = 0; i < b.size; ++i)
      if (part[static_cast<std::size_t>(i)] != 0)
        for (int k = 0; k < 3; ++k) amax = std::max(amax, Jc[i].row(k).norm());
    const double s_D = R.lmin > 0 ? amax * amax / R.lmin : std::numeric_limits<double>::infinity();
    const int rows = 3 * (n_part + n_unknown) + nl_part + nl_unknown;
    double s_z = 0, s_row = 0, s_lvl = 0, s_xj = 0;
    const double soft = level == imp ? op.softening : level == step ? cfm / h : 0.0;
    for (int i = 0; i < b.size; ++i) {
      if (part[static_cast<std::size_t>(i)] == 0) continue;
      const Snap& c = b.contacts[static_cast<std::size_t>(i)];
      const V3& f = o.f[static_cast<std::size_t>(i)];
      const V3& wi = w[static_cast<std::size_t>(i)];
      const double wt = std::max(std::fabs(c.t1.dot(wi)), std::fabs(c.t2.dot(wi)));
      s_z = std::max({s_z, f.cwiseAbs().maxCoeff(), c.mu * std::fabs(f[0]), c.mu > 0 ? 2 * wt : 0.0});
      s_row = std::max(s_row, wi.cwiseAbs().maxCoeff() +
                                  (level == acc ? R.a0[static_cast<std::size_t>(i)].cwiseAbs().maxCoeff() : 0.0));
      s_xj = std::max(s_xj, (Jc[i].cwiseAbs() * o.x.cwiseAbs()).maxCoeff() +
                                R.vp[static_cast<std::size_t>(i)].cwiseAbs().maxCoeff() * (level == acc));
      s_lvl = std::max(s_lvl, std::fabs(level == acc ? c.ta : c.tv));
      if (level == imp) s_lvl = std::max(s_lvl, op.restitution * R.vp[static_cast<std::size_t>(i)].norm());
      if (level == step)
        s_lvl =
            std::max(s_lvl,
                     (std::fabs(R.gap[static_cast<std::size_t>(i)]) +
                      64 * eps *
                          (R.p[static_cast<std::size_t>(i)].cwiseAbs().maxCoeff() + c.anchor.cwiseAbs().maxCoeff())) /
                         h);
    }
    for (int l = 0; l < b.limits; ++l) {
      const auto& L = b.limit[static_cast<std::size_t>(l)];
      for (int side = 0; side < 2; ++side) {
        if (lpart[static_cast<std::size_t>(l)][static_cast<std::size_t>(side)] == 0) continue;
        s_z = std::max(s_z, std::fabs(o.limf[static_cast<std::size_t>(l)][static_cast<std::size_t>(side)]));
        s_row = std::max(s_row, std::fabs(o.x[L.idx_v]));
        s_lvl = std::max(s_lvl, std::fabs(level == acc ? L.target_acceleration[side] : L.target_velocity[side]));
        if (level == step) {
          const double g = side == 0 ? I.q[L.idx_q] - L.lower : L.upper - I.q[L.idx_q];
          s_lvl = std::max(s_lvl, (std::fabs(g) +
                                   8 * eps * (std::fabs(I.q[L.idx_q]) + std::fabs(L.lower) + std::fabs(L.upper))) /
                                      h);
        }
      }
    }
    const int n_lcp = rows + (n_part + n_unknown) * (ME + 1);
    const double s_M = std::max({9 * s_D * (1 + 2 * mu_max) * (1 + 2 * mu_max) + soft, mu_max, 1.0});
    const double s_q = s_row + s_xj + rows * s_D * s_z + s_lvl + soft * s_z;
    const bool lem = sol == lemke;
    const double rho = 64 * (nv + rows + n_lcp) * eps;
    const double tau_c = lem ? 2 * op.lcp.check_tolerance + rho : I.cone.relative_tolerance + rho;
    const double tau_a = lem ? 0.0 : I.cone.absolute_tolerance;
    const double s_w = s_q + (lem ? n_lcp : 3 * (n_part + n_unknown + nl_part + nl_unknown)) * s_M * s_z;
    if (!std::isfinite(s_w)) return;  // H numerically singular here: no bound on the Delassus operator
    auto report = [&](const char* promise, const char* what, int i, double value, double bound) {
      std::snprintf(
          buf, sizeof buf,
          "%s %d: %.3g > %.3g (tol %.3g, scales z %.3g w %.3g, D %.3g; exit lcp %u cone %u, pivots %d, iterations %d)",
          what, i, value, bound, tau_c, s_z, s_w, s_D, o.lcp_exit, o.cone_exit, o.lcp_pivots, o.cone_iterations);
      finding(fn, s, promise, buf);
    };
    for (int i = 0; i < b.size; ++i) {
      const int pt = part[static_cast<std::size_t>(i)];
      if (pt == 0) continue;
      const Snap& c = b.contacts[static_cast<std::size_t>(i)];
      const V3& f = o.f[static_cast<std::size_t>(i)];
      const V3& wi = w[static_cast<std::size_t>(i)];
      const double fn_ = f[0];
      if (pt == -1 && all_zero(f)) continue;  // at the margin, no force: it may not take part
      // the row's complementarity quantity w_n: acceleration (acc) or v_n+ plus the level's terms
      double wn = c.normal.dot(wi) - (level == acc ? c.ta : c.tv);  // less the row's target (set_target)
      if (level == imp)
        wn += op.restitution * std::min(0.0, c.normal.dot(R.vp[static_cast<std::size_t>(i)])) + op.softening * fn_;
      if (level == step) {
        const double g = R.gap[static_cast<std::size_t>(i)];
        wn += (g > 0 ? g / h : erp * g / h) + cfm / h * fn_;
      }
      const double wt1 = c.t1.dot(wi), wt2 = c.t2.dot(wi);
      const bool slide = o.sliding[static_cast<std::size_t>(i)];
      if (!(fn_ >= -tau_a - tau_c * s_z))
        report("ok but a normal force pulls", "contact", i, -fn_, tau_a + tau_c * s_z);
      note(margins().normal, -fn_, tau_a + tau_c * s_z);
      if (lem || slide) {
        note(margins().normal, -wn, tau_c * s_w);
        note(margins().normal, std::fabs(fn_ * wn), tau_c * s_z * s_w);
        if (!(wn >= -tau_c * s_w)) report("ok but a contact penetrates (w_n < 0)", "contact", i, -wn, tau_c * s_w);
        if (!(std::fabs(fn_ * wn) <= tau_c * s_z * s_w))
          report("ok but f_n w_n != 0 (complementarity)", "contact", i, std::fabs(fn_ * wn), tau_c * s_z * s_w);
      }
      if (slide) {  // kinetic friction against v_t (Lemke's polygon and, at acceleration level, an exact cone)
        const V3 vt = R.vp[static_cast<std::size_t>(i)];
        const double v1 = c.t1.dot(vt), v2 = c.t2.dot(vt), sp = std::sqrt(v1 * v1 + v2 * v2);
        const double vs = (Jc[i].cwiseAbs() * I.v.cwiseAbs()).maxCoeff();
        const double slack = 1e-12 + 64 * nv * eps * vs / (sp > 0 ? sp : 1e-300);
        const double e1 = std::fabs(f[1] + c.mu * fn_ * v1 / sp), e2 = std::fabs(f[2] + c.mu * fn_ * v2 / sp);
        if (!(std::max(e1, e2) <= slack * c.mu * std::fabs(fn_) + 1e-300))
          report("ok but the sliding friction is not -mu f_n v_t/|v_t|", "contact", i, std::max(e1, e2),
                 slack * c.mu * fn_);
      } else if (lem) {
        // inside the polygon: f_t . e_m <= cos(pi/k) (mu f_n + tol) for each edge normal e_m
        const int k = c.edges;
        const double ck = std::cos(3.14159265358979323846 / k);
        double worst = -1e300, mind = 1e300;
        for (int j = 0; j < k; ++j) {
          const double th = 2 * 3.14159265358979323846 * (j + 0.5) / k;
          worst = std::max(worst, f[1] * std::cos(th) + f[2] * std::sin(th));
          const double tv = 2 * 3.14159265358979323846 * j / k;
          mind = std::min(mind, std::cos(tv) * wt1 + std::sin(tv) * wt2);
        }
        if (c.mu == 0.0) {
          if (f[1] != 0.0 || f[2] != 0.0)
            report("ok but a frictionless contact has a friction force", "contact", i,
                   std::fabs(f[1]) + std::fabs(f[2]), 0);
        } else {
          if (!(worst <= ck * (c.mu * fn_ + tau_c * s_w)))
            report("ok but the friction is outside the polygon", "contact", i, worst, ck * c.mu * fn_);
          // maximum dissipation: f_t . w_t = mu f_n min_j d_j . w_t (w_t = 0 when strictly inside)
          const double diss = f[1] * wt1 + f[2] * wt2, best = c.mu * fn_ * mind;
          const double tol = (2 * k + 3) * tau_c * s_z * s_w;
          note(margins().friction, worst - ck * c.mu * fn_, ck * tau_c * s_w);
          note(margins().friction, std::fabs(diss - best), tol);
          if (!(std::fabs(diss - best) <= tol))
            report("ok but the friction is not maximally dissipative (sticking: w_t = 0)", "contact", i,
                   std::fabs(diss - best), tol);
        }
      } else {
        // exact cone (PGS, ADMM): f in K, sigma~ in K*, f . sigma~ = 0 (cone_solvers.hpp's residuals)
        const double ft = std::sqrt(f[1] * f[1] + f[2] * f[2]);
        const double sn = wn + c.mu * std::sqrt(wt1 * wt1 + wt2 * wt2);
        // K = {|f_t| <= mu f_n, f_n >= 0} (for mu = 0 a pull with f_t = 0 is outside: the test needs f_n >= 0)
        const double pr = ft <= c.mu * fn_ && fn_ >= 0 ? 0.0
                          : c.mu * ft <= -fn_          ? std::sqrt(fn_ * fn_ + ft * ft)
                                                       : (ft - c.mu * fn_) / std::sqrt(1 + c.mu * c.mu);
        const double st = std::sqrt(wt1 * wt1 + wt2 * wt2);
        const double du = c.mu * st <= sn    ? 0.0
                          : st <= -c.mu * sn ? std::sqrt(sn * sn + st * st)
                                             : (c.mu * st - sn) / std::sqrt(1 + c.mu * c.mu);
        const double co = std::fabs(fn_ * sn + f[1] * wt1 + f[2] * wt2);
        note(margins().cone, pr, tau_a + tau_c * s_z);
        note(margins().cone, du, tau_a + tau_c * s_w);
        note(margins().cone, co, tau_a + tau_c * s_z * s_w);
        if (!(pr <= tau_a + tau_c * s_z))
          report("ok but the force is outside the friction cone", "contact", i, pr, tau_a + tau_c * s_z);
        if (!(du <= tau_a + tau_c * s_w))
          report("ok but the corrected velocity is outside the dual cone", "contact", i, du, tau_a + tau_c * s_w);
        if (!(co <= tau_a + tau_c * s_z * s_w))
          report("ok but f . sigma~ != 0 (cone complementarity)", "contact", i, co, tau_a + tau_c * s_z * s_w);
      }
    }
    for (int l = 0; l < b.limits; ++l) {
      const auto& L = b.limit[static_cast<std::size_t>(l)];
      for (int side = 0; side < 2; ++side) {
        const int pt = lpart[static_cast<std::size_t>(l)][static_cast<std::size_t>(side)];
        const double f = o.limf[static_cast<std::size_t>(l)][static_cast<std::size_t>(side)];
        if (pt == 0 || (pt == -1 && f == 0.0)) continue;
        double wl = (side == 0 ? 1.0 : -1.0) * o.x[L.idx_v] -
                    (level == acc ? L.target_acceleration[side] : L.target_velocity[side]);
        if (level == step) {
          const double g = side == 0 ? I.q[L.idx_q] - L.lower : L.upper - I.q[L.idx_q];
          wl += g > 0 ? g / h : erp * g / h;
        }
        const double ta = tau_a;
        note(margins().limit, -f, ta + tau_c * s_z);
        note(margins().limit, -wl, ta + tau_c * s_w);
        note(margins().limit, std::fabs(f * wl), ta + tau_c * s_z * s_w);
        if (!(f >= -ta - tau_c * s_z)) report("ok but a limit force pulls", "limit row", 2 * l + side, -f, tau_c * s_z);
        if (!(wl >= -ta - tau_c * s_w))
          report("ok but a joint moves beyond its limit (w < 0)", "limit row", 2 * l + side, -wl, tau_c * s_w);
        if (!(std::fabs(f * wl) <= ta + tau_c * s_z * s_w))
          report("ok but f w != 0 at a limit (complementarity)", "limit row", 2 * l + side, std::fabs(f * wl),
                 tau_c * s_z * s_w);
      }
    }
    // the sliding classification (acceleration level: Lemke's polygon and the exact cone alike)
    if (level == acc) {
      for (int i = 0; i < b.size; ++i) {
        if (part[static_cast<std::size_t>(i)] != 1) continue;
        const Snap& c = b.contacts[static_cast<std::size_t>(i)];
        const V3 vt = R.vp[static_cast<std::size_t>(i)];
        const double v1 = c.t1.dot(vt), v2 = c.t2.dot(vt), sp = std::sqrt(v1 * v1 + v2 * v2);
        const double slack = 64 * nv * eps * (Jc[i].cwiseAbs() * I.v.cwiseAbs()).maxCoeff();
        const double thr = c.mode == 2 ? 0.0 : in_sliding_speed();
        if (c.mode == 1 || near_boundary(sp, thr, slack) || !(thr == thr)) {
          if (c.mode == 1 && o.sliding[static_cast<std::size_t>(i)]) finding(fn, s, "a sticking-mode contact slides");
          continue;
        }
        if (o.sliding[static_cast<std::size_t>(i)] != (sp > thr)) {
          std::snprintf(buf, sizeof buf, "contact %d mode %d: speed %.3g, threshold %.3g, sliding() %d", i,
                        static_cast<int>(c.mode), sp, thr, o.sliding[static_cast<std::size_t>(i)]);
          finding(fn, s, "the sliding classification is wrong", buf);
        }
      }
    }
  }
  double in_sliding_speed() const { return in->set_speeds ? in->sliding_speed : 1e-4; }
  double in_limit_margin() const { return in->set_speeds ? in->limit_margin : 1e-3; }

  /// TALUS_FUZZ_TRACE=1: one summary per input on stderr (what the seeds do).
  void print_trace(const Out& o) const {
    const BuildOut& b = o.build;
    std::fprintf(stderr, "[%s group %d%s%s] adds:", nb == 3 ? "block" : "solo12", in->group,
                 in->bilateral ? " bilateral" : "", in->with_f ? " fext" : "");
    for (int i = 0; i < in->nadd; ++i)
      std::fprintf(stderr, " %s", talus::to_string(b.add[static_cast<std::size_t>(i)]));
    std::fprintf(stderr, "; limits %d (%s, %s); ops:", b.limits, talus::to_string(b.lim[0]),
                 talus::to_string(b.lim[1]));
    for (int i = 0; i < in->nops; ++i)
      std::fprintf(stderr, " %d:%s", in->ops[static_cast<std::size_t>(i)].kind,
                   talus::to_string(b.op[static_cast<std::size_t>(i)]));
    if (in->bilateral) std::fprintf(stderr, "; bind %s", talus::to_string(b.bil_bind));
    std::fprintf(stderr, "; solver %u\n", solver());
    for (int k = 0; k < o.nsolves; ++k) {
      const SolveRec& s = o.solves[static_cast<std::size_t>(k)];
      std::fprintf(
          stderr,
          "  %s: %s (%s) contacts %d sliding %d limit rows %d unknowns %d pivots %d iterations %d rank %d; f_n:",
          level_name(s.level, in->bilateral), talus::to_string(s.s),
          talus::to_string(static_cast<ContactFailureReason>(s.fail.reason)), s.contacts, s.nsliding, s.limit_rows,
          s.unknowns, s.lcp_pivots, s.cone_iterations, s.bilateral_rank);
      for (int i = 0; i < b.size; ++i) std::fprintf(stderr, " %.3g", s.f[static_cast<std::size_t>(i)][0]);
      std::fprintf(stderr, "\n");
    }
  }

  // ---- the whole input ----------------------------------------------------------------------------
  void go(std::uint8_t b0) {
    decode(b0);
    auto o1 = std::make_unique<Out>(), o2 = std::make_unique<Out>();
    poison(*o1);
    poison(*o2);
    auto run_fresh = [&](Out& o) {
      Poisoned<D> d;
      Poisoned<CP> cp;
      Poisoned<CS> cs;
      auto f = [this](D& dd, CP& c, CS& s, Out& out) { run(dd, c, s, out); };
      (void)no_heap("fuzz_contact (build and solves)", [&] {
        call_once_compiled(f, *d, *cp, *cs, o);
        return Status::ok;
      });
    };
    run_fresh(*o1);
    run_fresh(*o2);
    const Out& o = *o1;
    if (std::memcmp(&o.build, &o2->build, sizeof(BuildOut)) != 0)
      finding("ContactProblem (build)", Status::ok, "same input, different bits");
    for (int k = 0; k < o.nsolves; ++k)
      if (std::memcmp(&o.solves[static_cast<std::size_t>(k)], &o2->solves[static_cast<std::size_t>(k)],
                      sizeof(SolveRec)) != 0)
        finding(level_name(o.solves[static_cast<std::size_t>(k)].level, in->bilateral),
                o.solves[static_cast<std::size_t>(k)].s, "same input, different output bits or status");
    static const bool trace = std::getenv("TALUS_FUZZ_TRACE") != nullptr;
    if (trace) print_trace(o);
    Shadow sh;
    check_build(o.build, sh);
    Ref R;
    reference(R, o.build);
    margins() = Margins{};
    for (int k = 0; k < o.nsolves; ++k) check_solve(o.solves[static_cast<std::size_t>(k)], o.build, R);
    if (trace)
      std::fprintf(stderr, "  worst value/bound: equations %.2g, normal %.2g, friction %.2g, cone %.2g, limits %.2g\n",
                   margins().eq, margins().normal, margins().friction, margins().cone, margins().limit);
    // the sequence: the second forward / impulse / step (after the other solves on the same
    // problem, Data and set) gives the bits of the first (the cone warm start excepted)
    if (in->group == 3 && !(solver() != lemke && in->cone.warm_start))
      for (int k = 0; k < 3; ++k)
        if (std::memcmp(&o.solves[static_cast<std::size_t>(k)], &o.solves[static_cast<std::size_t>(k + 3)],
                        sizeof(SolveRec)) != 0)
          finding(level_name(k, in->bilateral), o.solves[static_cast<std::size_t>(k + 3)].s,
                  "a second solve of the same problem differs from the first (state left by earlier solves)");
  }
};

template <class M>
void run_input(const M& model, std::uint8_t b0, Reader& r) {
  ContactFuzz<M> f(model, r);
  f.go(b0);
}

}  // namespace
}  // namespace talus_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace talus_fuzz;
  if (size < 2) return 0;
  Reader r(data + 1, size - 1);
  if (data[0] & 1) {
    static const Block block = checked_model(make_block(), "block");
    run_input(block, data[0], r);
  } else {
    static const Solo solo = checked_model(talus::models::solo12::make_model<double>(), "solo12");
    run_input(solo, data[0], r);
  }
  return 0;
}
