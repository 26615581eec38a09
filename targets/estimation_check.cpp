// The floating-base state estimator on the target (see estimation_check.hpp): solo12's
// LeggedEstimator<solo12, 4, Filter> (feet FL, FR, HL, HR; foot_height 1 cm, the other settings
// the defaults) with Filter = InvariantEkf and LegOdometryEkf, fed the input sequence the host
// wrote (targets/host/estimation_reference.cpp, talus_target_estimation_reference.hpp): 400
// updates at dt = 1 ms of encoders, joint rates, gyro, accelerometer and contact bits —
//
//   steps   0..99    standing still, the base tilted, gravity on the accelerometer
//   steps 100..249   a constant-rate rotation of the base (0.05, -0.04, 0.2) rad/s about its
//                    origin, the feet fixed on the ground (encoders by inverse kinematics)
//   steps 250..399   still; the front-left foot lifts at 280, swings and lands at 340
//
// Checked at the checkpoints (steps 99, 249, 309 with FL in the air, 399): R, v (world), p,
// b_g, b_a and the covariance's diagonal against the host's double run of the same estimator;
// R, v, p, b_g, b_a against the sequence's analytic truth (consistent by construction: R as
// integrated from the gyro, v = 0, p constant, no bias), the tilt at rest against gravity
// (R̂ᵀ e_z = ã / |ã|); every update's Status ok. Bad input, before step 50's update (at rest):
// a NaN gyro sample, a NaN accelerometer sample and a saturated accelerometer (0, 0, 300 m/s²,
// range 235) return invalid_input, name the input (filter().failure().reason: gyro_invalid,
// accel_invalid, accel_saturated), zero q() and v() and keep R, v, p, the biases and the
// whole covariance bit for bit; the run then goes on and must still match the host, which
// makes the same three calls (a refused update's time counts: the next accepted sample
// propagates over it). Before the run: update before init, and init with an unknown foot frame
// (a name not in the model: frame_id −1, and an index beyond the model's frames) refused with
// invalid_input.
//
// Tolerances (absolute per scalar, the largest error over the checkpoints; the covariance's
// diagonal normwise: max |ΔP_ii| over its largest live entry, a lifted foot's placeholder 1 of
// InvariantEkf excluded from the scale). One rule for every quantity:
//
//   tol = 8 · stages · N · eps · scale
//
// N = 400 updates, eps = 2⁻⁵² (double) or 2⁻²³ (float), stages the rounding passes one update
// makes over the state and P: the propagation and each measurement correction (InvariantEkf
// 1 + 4 feet = 5; LegOdometryEkf 1 + 4 feet × (velocity, height) = 9), and scale the magnitude
// that the quantity's arithmetic works at:
//   R       1 (rotation entries: R exp(ω dt), the renormalization, the correction exp(δ) R̂)
//   v       |g| dt + max |ω||s_j| = 0.0098 + 0.21 · 0.33 ≈ 0.08 m/s (the step v + (R ã + g) dt,
//           whose terms cancel to 0 at rest, and the leg odometry's −ω̃ × s − ṡ)
//   p       0.6 m (|p| + |s_j|: the innovation R̂ s_j − (d̂_j − p̂), the height ĉ = p̂ + R̂ s_j)
//   b_g     0.21 rad/s (the largest gyro sample, from which b̂_g is subtracted)
//   b_a     |g| = 9.81 m/s² (the accelerometer sample, from which b̂_a is subtracted)
//   diag P  its largest live entry (normwise: every entry of P is a sum of products of entries
//           of all blocks, so its rounding is at the scale of the largest variance, not its own;
//           InvariantEkf's velocity variance, about 1 % of the accelerometer bias's, is 31 000 eps_f
//           off relative to itself in the host's float run; the worst normwise error is 1 000 eps_f)
// The model: each pass rounds each quantity a few times at its scale (≤ 8 eps·scale) and
// nothing is assumed to cancel across updates: the heading and the horizontal position are not
// observable (their errors random-walk; linear growth is the worst case), the observable ones
// are pulled back by the corrections, which only makes them smaller. The sequence is exactly
// consistent (the host's double run is within 1.1e-13 of its truth), so every innovation is 0 up
// to rounding and a gain's own rounding multiplies nothing in the state (it does in P, whose
// tolerance is the same rule). Values, InvariantEkf (LegOdometryEkf × 9/5): double R 3.6e-12,
// v 2.8e-13 m/s, p 2.1e-12 m, b_g 7.5e-13 rad/s, b_a 3.5e-11 m/s², P 3.6e-12; float R 1.9e-3,
// v 1.5e-4 m/s, p 1.1e-3 m, b_g 4.0e-4 rad/s, b_a 1.9e-2 m/s², P 1.9e-3. The host's own float run
// (inputs rounded to float, comment at the end of the reference header) reaches R 3.7e-7,
// v 1.2e-6, p 8.2e-8, b_g 3.6e-7, b_a 2.4e-6, P 1.2e-4 (InvariantEkf; its velocity and P are the
// closest: margins 130 and 16); targets/README.md has the targets' numbers. The double targets
// differ from the host by fused multiply-adds and summation order only.
// The analytic truth uses the same tolerances (the host's double run is within rounding of it;
// a float target's distance to it is its rounding).
#include "estimation_check.hpp"

#include <talus/estimation.hpp>
#include <talus/rt/port.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>

#include "talus_target_estimation_reference.hpp"
#include "target_support.hpp"

namespace talus_target {
namespace {

using S = Scalar;
using Model = SoloModel;
using Seq = talus_target_estimation_ref::solo12;
constexpr int nj = Model::nv - 6;
static_assert(Seq::nj == nj, "estimation reference: solo12 has 12 joints");
constexpr bool is_float = sizeof(S) == sizeof(float);
constexpr double eps = is_float ? 1.1920928955078125e-07 : 2.220446049250313e-16;

// --- tolerances (file comment) ----------------------------------------------------------------
struct Tolerances {
  explicit constexpr Tolerances(int stages) : rounding(8.0 * stages * Seq::nsteps * eps) {}
  double rounding;  // 8·stages·N·eps
  constexpr double R() const { return rounding; }
  constexpr double v() const { return rounding * 0.08; }   // m/s
  constexpr double p() const { return rounding * 0.6; }    // m
  constexpr double bg() const { return rounding * 0.21; }  // rad/s
  constexpr double ba() const { return rounding * 9.81; }  // m/s²
  constexpr double P() const { return rounding; }          // of the largest live variance
};

constexpr const char* kFeet[4] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};

using InvEst = talus::LeggedEstimator<Model, 4, talus::InvariantEkf>;
using OdoEst = talus::LeggedEstimator<Model, 4, talus::LegOdometryEkf>;

// The estimators (each with its own Data and covariance) in static storage, constructed in place
// once (as target_test.cpp's ConstraintSet): never on the stack, no destructor registered.
alignas(InvEst) unsigned char g_inv_storage[sizeof(InvEst)];
alignas(OdoEst) unsigned char g_odo_storage[sizeof(OdoEst)];
// What a refused update must keep, bit for bit (static: the 27 x 27 covariance is 5.8 KB in double).
unsigned char g_kept_state[sizeof(S) * 21];
unsigned char g_kept_P[sizeof(InvEst::Filter::Covariance)];
unsigned char g_now_state[sizeof(S) * 21];

template <class Est>
struct FilterName;
template <>
struct FilterName<InvEst> {
  static constexpr const char* name = "InvariantEkf";
  static constexpr int stages = 5;  // propagation + 4 feet
  using Ref = talus_target_estimation_ref::invariant;
};
template <>
struct FilterName<OdoEst> {
  static constexpr const char* name = "LegOdometryEkf";
  static constexpr int stages = 9;  // propagation + 4 feet × (velocity, height)
  using Ref = talus_target_estimation_ref::leg_odometry;
};

struct Worst {
  const char* what;
  double tol;
  double err = 0;
  int step = -1;
};

struct Checker {
  Tally tally;
  const char* filter = "";
  void check(bool ok, const char* what, int step = -1) {
    ++tally.checks;
    if (ok) return;
    ++tally.failures;
    Line l;
    l << "FAIL solo12 estimator " << filter << ": " << what;
    if (step >= 0) l << " (step " << step << ")";
    l.write();
  }
  void record(Worst& w, double err, int step) {
    ++tally.checks;
    if (!(err <= w.tol)) {  // NaN fails
      ++tally.failures;
      Line l;
      l << "FAIL solo12 estimator " << filter << " " << w.what << " step " << step << ": err ";
      l << talus::rt::sci(err) << " > tol ";
      (l << talus::rt::sci(w.tol)).write();
    }
    if (!(err <= w.err) || w.step < 0) {
      w.err = err;
      w.step = step;
    }
  }
};

/// max |x − r| over n entries (NaN propagates).
double max_abs(const S* x, const double* r, int n) {
  double e = 0;
  for (int k = 0; k < n; ++k) {
    const double d = std::fabs(static_cast<double>(x[k]) - r[k]);
    if (!(d <= e)) e = d;
  }
  return e;
}
/// The covariance's diagonal against the host's: max |x − r| over the largest live entry of r
/// (InvariantEkf: a lifted foot's rows hold a placeholder 1, left out of the scale).
double normwise_P(const S* x, const double* r, int n, unsigned touching) {
  double e = 0, s = 0;
  for (int k = 0; k < n; ++k) {
    const double d = std::fabs(static_cast<double>(x[k]) - r[k]);
    if (!(d <= e)) e = d;
    const bool placeholder = n == 27 && k >= 9 && k < 21 && !((touching >> ((k - 9) / 3)) & 1u);
    if (!placeholder && std::fabs(r[k]) > s) s = std::fabs(r[k]);
  }
  return e / s;
}

template <class Est>
void save_state(const Est& est, unsigned char* out) {
  const auto& f = est.filter();
  std::memcpy(out, f.rotation().data(), sizeof(S) * 9);
  std::memcpy(out + sizeof(S) * 9, f.velocity().data(), sizeof(S) * 3);
  std::memcpy(out + sizeof(S) * 12, f.position().data(), sizeof(S) * 3);
  std::memcpy(out + sizeof(S) * 15, f.gyro_bias().data(), sizeof(S) * 3);
  std::memcpy(out + sizeof(S) * 18, f.accel_bias().data(), sizeof(S) * 3);
}

talus::Vector3<S> vec3(const double (*x)[3], int k) {
  return talus::Vector3<S>(static_cast<S>(x[k][0]), static_cast<S>(x[k][1]), static_cast<S>(x[k][2]));
}
template <class Est>
typename Est::Joints joints(const double (*x)[nj], int k) {
  typename Est::Joints j;
  for (int i = 0; i < nj; ++i) j[i] = static_cast<S>(x[k][i]);
  return j;
}

#if defined(TALUS_TARGET_STACK_PAINT)
/// Steps whose update's stack is measured (painting the stack costs more than an update).
bool stack_step(int k) { return k == 0 || k == Seq::rotate_begin || k == Seq::lift || k == Seq::land; }
#endif

/// One refused update before step k: Status, the failure's reason, q() and v() zero, the
/// filter's state and covariance as they were, bit for bit.
template <class Est>
void refuse(Checker& chk, Est& est, const talus::Vector3<S>& gyro, const talus::Vector3<S>& accel, int k,
            talus::EstimatorFailureReason reason, const char* what) {
  const auto enc = joints<Est>(Seq::enc, k), rates = joints<Est>(Seq::rates, k);
  save_state(est, g_kept_state);
  std::memcpy(g_kept_P, est.filter().covariance().data(), sizeof(typename Est::Filter::Covariance));
  const talus::Status st = est.update(gyro, accel, enc, rates, Seq::touching[k], static_cast<S>(Seq::dt));
  bool zero = true;
  for (int i = 0; i < Est::nq; ++i) zero = zero && est.q()[i] == S(0);
  for (int i = 0; i < Est::nv; ++i) zero = zero && est.v()[i] == S(0);
  save_state(est, g_now_state);
  const bool kept = std::memcmp(g_now_state, g_kept_state, sizeof g_kept_state) == 0 &&
                    std::memcmp(est.filter().covariance().data(), g_kept_P, sizeof(typename Est::Filter::Covariance)) ==
                        0;
  const bool ok = st == talus::Status::invalid_input && est.filter().failure().reason == reason && zero && kept;
  chk.check(ok, what, k);
  if (!ok) {
    Line l;
    l << "  " << what << ": status " << talus::to_string(st) << ", reason "
      << talus::to_string(est.filter().failure().reason) << ", q and v zero " << (zero ? "yes" : "no")
      << ", state and covariance kept " << (kept ? "yes" : "no");
    l.write();
  }
}

template <class Est>
Tally run_filter(const Model& model, unsigned char* storage) {
  using Names = FilterName<Est>;
  using Ref = typename Names::Ref;
  constexpr int dim = Est::Filter::dim;
  static_assert(Ref::dim == dim, "estimation reference: covariance dimension");
  Checker chk;
  chk.filter = Names::name;
  Est& est = *::new (static_cast<void*>(storage)) Est();

  talus::LeggedEstimatorSettings<S> settings;
  settings.foot_height = static_cast<S>(Seq::foot_height);
  std::array<int, 4> frames;
  for (int j = 0; j < 4; ++j) frames[j] = talus::models::solo12::frame_id(kFeet[j]);

  // refusals before the run: update before init, an unknown foot at init
  const talus::Vector3<S> zero3 = talus::Vector3<S>::Zero();
  chk.check(est.update(zero3, vec3(Seq::accel, 0), joints<Est>(Seq::enc, 0), joints<Est>(Seq::rates, 0), 0xF,
                       static_cast<S>(Seq::dt)) == talus::Status::invalid_input,
            "update before init not refused");
  std::array<int, 4> unknown = frames;
  unknown[2] = talus::models::solo12::frame_id("NO_SUCH_FOOT");  // −1
  chk.check(unknown[2] == -1 && est.init(model, unknown, settings) == talus::Status::invalid_input,
            "init with an unknown foot (frame_id -1) not refused");
  unknown[2] = Model::nframes;
  chk.check(est.init(model, unknown, settings) == talus::Status::invalid_input,
            "init with a foot frame beyond the model's not refused");
  chk.check(est.init(model, frames, settings) == talus::Status::ok, "init");

  constexpr Tolerances tol(Names::stages);
  Worst w[6] = {{"R", tol.R()},    {"v", tol.v()},    {"p", tol.p()},
                {"b_g", tol.bg()}, {"b_a", tol.ba()}, {"diag P (of its largest entry)", tol.P()}};
  Worst t[6] = {{"truth R", tol.R()},    {"truth v", tol.v()},    {"truth p", tol.p()},
                {"truth b_g", tol.bg()}, {"truth b_a", tol.ba()}, {"tilt at rest", tol.R()}};
  std::uint64_t ticks = 0, ticks_max = 0, stack = 0;
  int ok_updates = 0, c = 0;
  const S nan = std::numeric_limits<S>::quiet_NaN();
  for (int k = 0; k < Seq::nsteps; ++k) {
    const talus::Vector3<S> gyro = vec3(Seq::gyro, k), accel = vec3(Seq::accel, k);
    if (k == Seq::bad_input_step) {
      refuse(chk, est, talus::Vector3<S>(nan, S(0), S(0)), accel, k, talus::EstimatorFailureReason::gyro_invalid,
             "NaN gyro sample");
      refuse(chk, est, gyro, talus::Vector3<S>(S(0), nan, S(9.81)), k, talus::EstimatorFailureReason::accel_invalid,
             "NaN accelerometer sample");
      refuse(chk, est, gyro, talus::Vector3<S>(S(0), S(0), S(300)), k, talus::EstimatorFailureReason::accel_saturated,
             "saturated accelerometer (300 m/s^2)");
    }
    const auto enc = joints<Est>(Seq::enc, k), rates = joints<Est>(Seq::rates, k);
#if defined(TALUS_TARGET_STACK_PAINT)
    const bool measure = stack_step(k);
    if (measure) paint_below_sp();
    const std::uintptr_t sp = stack_pointer();
#endif
    const std::uint64_t c0 = talus::port::cycles();
    const talus::Status st = est.update(gyro, accel, enc, rates, Seq::touching[k], static_cast<S>(Seq::dt));
    const std::uint64_t dc = talus::port::cycles() - c0;
#if defined(TALUS_TARGET_STACK_PAINT)
    if (measure) {
      const std::uint64_t depth = sp - stack_low_water();
      if (depth > stack) stack = depth;
    }
#endif
    if (k > 0) {  // the first update starts the filter (no propagation): not a period's cost
      ticks += dc;
      if (dc > ticks_max) ticks_max = dc;
    }
    if (st == talus::Status::ok) ++ok_updates;
    else chk.check(false, talus::to_string(st), k);
    if (c < Seq::ncheck && k == Seq::checkpoints[c]) {
      const auto& f = est.filter();
      chk.record(w[0], max_abs(f.rotation().data(), Ref::R[c], 9), k);
      chk.record(w[1], max_abs(f.velocity().data(), Ref::v[c], 3), k);
      chk.record(w[2], max_abs(f.position().data(), Ref::p[c], 3), k);
      chk.record(w[3], max_abs(f.gyro_bias().data(), Ref::bg[c], 3), k);
      chk.record(w[4], max_abs(f.accel_bias().data(), Ref::ba[c], 3), k);
      S diag[dim];
      for (int i = 0; i < dim; ++i) diag[i] = f.covariance()(i, i);
      chk.record(w[5], normwise_P(diag, Ref::P[c], dim, Seq::touching[k]), k);
      // the analytic truth: v = 0, no bias
      static constexpr double zero[3] = {0, 0, 0};
      chk.record(t[0], max_abs(f.rotation().data(), Seq::truth_R[c], 9), k);
      chk.record(t[1], max_abs(f.velocity().data(), zero, 3), k);
      chk.record(t[2], max_abs(f.position().data(), Seq::truth_p[c], 3), k);
      chk.record(t[3], max_abs(f.gyro_bias().data(), zero, 3), k);
      chk.record(t[4], max_abs(f.accel_bias().data(), zero, 3), k);
      if (k < Seq::rotate_begin) {  // at rest: R̂ᵀ e_z along the accelerometer's sample
        const talus::Vector3<S> up = f.rotation().row(2).transpose();
        const talus::Vector3<S> a = accel.normalized();
        double e = 0;
        for (int i = 0; i < 3; ++i) {
          const double d = std::fabs(static_cast<double>(up[i]) - static_cast<double>(a[i]));
          if (!(d <= e)) e = d;
        }
        chk.record(t[5], e, k);
      }
      ++c;
    }
  }
  chk.check(c == Seq::ncheck, "checkpoints missed");
  for (const Worst* g : {w, t})
    for (int i = 0; i < 6; ++i) {
      Line l;
      l << "solo12 estimator " << Names::name << " " << g[i].what << ": worst err ";
      l << talus::rt::sci(g[i].err) << " (step " << g[i].step << ", tol ";
      l << talus::rt::sci(g[i].tol) << ")" << (g[i].err <= g[i].tol ? "" : "  FAIL");
      l.write();
    }
  Line l;
  l << "solo12 estimator " << Names::name << ": " << ok_updates << " of " << Seq::nsteps << " updates ok; "
    << "counter ticks per update (steps 1.." << (Seq::nsteps - 1) << ") mean " << ticks / (Seq::nsteps - 1) << ", max "
    << ticks_max;
  l.write();
  l << "solo12 estimator " << Names::name
    << ": refused (invalid_input, state and covariance kept bit for bit): NaN gyro, NaN accelerometer, saturated "
       "accelerometer; unknown foot at init; update before init";
  l.write();
#if defined(TALUS_TARGET_STACK_PAINT)
  const bool stack_ok = stack > 0 && stack <= TALUS_TARGET_STACK_BUDGET;
  chk.check(stack_ok, "stack of one update beyond the budget");
  l << (stack_ok ? "" : "FAIL ") << "stack: solo12 estimator " << Names::name << " update " << stack << " B (budget "
    << static_cast<std::uint64_t>(TALUS_TARGET_STACK_BUDGET) << " B)";
  l.write();
#else
  (void)stack;
#endif
  l << "static storage: LeggedEstimator<solo12, 4, " << Names::name << "> " << static_cast<std::uint64_t>(sizeof(Est))
    << " B";
  l.write();
  return chk.tally;
}

}  // namespace

Tally run_estimation_checks(const Model& model) {
  Tally total = run_filter<InvEst>(model, g_inv_storage);
  total += run_filter<OdoEst>(model, g_odo_storage);
  return total;
}

}  // namespace talus_target
