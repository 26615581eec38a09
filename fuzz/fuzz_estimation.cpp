// fuzz_estimation: the contact-aided invariant EKF (talus/estimation) and leg_kinematics on
// solo12 under arbitrary call sequences. Byte 0: bit 0 raw doubles (else "nice" values with
// NaN/Inf/extremes), bit 1 a plausible standing state with perturbations (else everything from
// the input). Then up to 16 calls, each chosen by one byte: init, propagate, set_contacts,
// correct, leg_kinematics, a change of the noise settings, or a LeggedEstimator update (one
// estimator per filter, InvariantEkf or LegOdometryEkf (every stance foot, or one per update in
// turn), for the whole run, bound to solo12's feet once; leg_odometry and LegOdometryEkf's
// correct run inside the latter; then ContactDetector on its feet).
// Promises: no crash or undefined behaviour; no heap; a refused call leaves the estimate
// (state and covariance) bit for bit as it was; after any call the state and covariance are
// finite, the covariance symmetric with a non-negative diagonal; a refusal names a reason;
// leg_kinematics' outputs are finite when ok and zero when refused; LeggedEstimator::update's q
// and v are finite with a unit quaternion when ok, zero when refused, and a refusal before the
// IMU step keeps its filter bit for bit.
#include <cmath>
#include <cstring>
#include <type_traits>

#include <talus/estimation.hpp>
#include <talus/models/solo12.hpp>

#include "fuzz_support.hpp"

using talus::Status;

namespace {

namespace solo = talus::models::solo12;
using Model = solo::Model<double>;
using Ekf = talus::InvariantEkf<double, 4>;
using Feet = std::array<talus::FootMeasurement<double>, 4>;
using talus_fuzz::finding;

const Model& model() {
  static const Model m = talus_fuzz::checked_model(solo::make_model<double>(), "solo12");
  return m;
}

template <class Filter>
bool same_estimate(const Filter& a, const Filter& b) {
  const auto sa = a.state(), sb = b.state();
  bool same = std::memcmp(sa.R.data(), sb.R.data(), sizeof(double) * 9) == 0 &&
              std::memcmp(sa.v.data(), sb.v.data(), sizeof(double) * 3) == 0 &&
              std::memcmp(sa.p.data(), sb.p.data(), sizeof(double) * 3) == 0 &&
              std::memcmp(a.covariance().data(), b.covariance().data(), sizeof(double) * Filter::dim * Filter::dim) ==
                  0;
  if constexpr (std::is_same<Filter, Ekf>::value) same = same && sa.contact == sb.contact;
  return same;
}

template <class Filter>
void check_estimate(const Filter& e, Status s, const char* function) {
  if (!e.initialized()) return;
  const auto st = e.state();
  if (!talus::all_finite(st.R) || !talus::all_finite(st.v) || !talus::all_finite(st.p) ||
      !talus::all_finite(e.covariance()))
    finding(function, s, "a non-finite estimate");
  const typename Filter::Covariance& P = e.covariance();
  if ((P - P.transpose()).cwiseAbs().maxCoeff() != 0.0) finding(function, s, "covariance not symmetric");
  if (P.diagonal().minCoeff() < 0.0) finding(function, s, "covariance with a negative variance");
}

/// A LeggedEstimator update with the filter Filter, its feet corrected FeetPerUpdate at a time
/// (0: all; one estimator per instantiation for the run).
template <template <class, int> class Filter, int FeetPerUpdate = 0>
void legged_update(talus_fuzz::Reader& in, bool plausible, const std::array<int, 4>& frames) {
  using Legged = talus::LeggedEstimator<Model, 4, Filter>;
  static Legged est;
  static typename Legged::Filter kept;
  static bool bound = false;
  if (!bound) {
    talus::LeggedEstimatorSettings<double> settings;
    settings.foot_height = 0.01;
    settings.feet_per_update = FeetPerUpdate;
    settings.odometry_scale_std = 0.1;  // the HIL firmware's: the speed-scaled odometry noise too
    if (est.init(model(), frames, settings) != Status::ok) finding("LeggedEstimator::init", Status::ok, "refused");
    bound = true;
  }
  Eigen::Vector3d w, a;
  in.fill(w);
  in.fill(a);
  typename Legged::Joints enc, rates;
  enc << 0.1, 0.8, -1.6, -0.1, 0.8, -1.6, 0.1, -0.8, 1.6, -0.1, -0.8, 1.6;
  typename Legged::Joints d;
  in.fill(d);
  in.fill(rates);
  enc += plausible ? 1e-2 * d : d;
  if (plausible) a.z() += 9.81;
  const unsigned touching = in.byte();
  const double dt = plausible ? 1e-3 * (1 + in.byte() % 4) : in.scalar();
  kept = est.filter();
  const char* fn = "LeggedEstimator::update";
  const Status s = talus_fuzz::no_heap(fn, [&] { return est.update(w, a, enc, rates, touching, dt); });
  if (s == Status::ok) {
    if (!talus::all_finite(est.q()) || !talus::all_finite(est.v())) finding(fn, s, "ok with a non-finite estimate");
    if (std::abs(est.q().template segment<4>(3).norm() - 1.0) > 1e-9) finding(fn, s, "ok with a quaternion off unit");
  } else {
    if (!est.q().isZero(0) || !est.v().isZero(0)) finding(fn, s, "outputs not zero on failure");
    // refused before the IMU step: the filter bit for bit (after it, a refused correction
    // keeps the propagated estimate: legged_estimator.hpp)
    const auto reason = est.filter().failure().reason;
    const bool after_imu_step = reason == talus::EstimatorFailureReason::singular ||
                                reason == talus::EstimatorFailureReason::overflow ||
                                reason == talus::EstimatorFailureReason::foot_invalid;
    if (kept.initialized() && !after_imu_step && !same_estimate(est.filter(), kept))
      finding(fn, s, "a refused update changed the filter");
  }
  check_estimate(est.filter(), s, fn);
  // a robot without switches: the contacts from the controller's stance and the estimate's feet
  static talus::ContactDetector<double, 4> detector;
  const unsigned stance = in.byte() & 0xFu;
  const unsigned detected = detector.update(stance, est.foot_heights(), est.foot_velocities());
  if ((detected & stance) != stance || detected > 0xFu)
    finding("ContactDetector::update", Status::ok, "a stance foot not touching, or a foot that does not exist");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  talus_fuzz::Reader in(data, size);
  const std::uint8_t mode = in.byte();
  in.set_raw(mode & 1);
  const bool plausible = (mode & 2) != 0;
  Ekf& ekf = talus_fuzz::fresh_static<Ekf>();
  static Ekf before;
  static talus::Data<Model> data_;
  Feet feet;
  for (int j = 0; j < 4; ++j) {
    feet[j].position = Eigen::Vector3d(j < 2 ? 0.2 : -0.2, j % 2 ? -0.15 : 0.15, -0.24);
    feet[j].covariance = Eigen::Matrix3d::Identity() * 1e-6;
  }
  const std::array<int, 4> frames{solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
                                  solo::frame_id("HR_FOOT")};
  if (plausible) (void)ekf.init(Eigen::Matrix3d::Identity(), Eigen::Vector3d::Zero(), Eigen::Vector3d(0, 0, 0.24));
  for (int call = 0; call < 16 && !in.empty(); ++call) {
    before = ekf;
    const int what = in.byte() % 7;
    Status s = Status::ok;
    const char* fn = "";
    if (what == 0) {
      fn = "InvariantEkf::init";
      Eigen::Vector3d phi, v, p;
      in.fill(phi);
      in.fill(v);
      in.fill(p);
      talus::InitialUncertainty<double> u;
      if (!plausible) u.tilt = in.scalar();
      const Eigen::Matrix3d R = in.bit() ? talus::rotation_exp<double>(phi) : Eigen::Matrix3d(phi.asDiagonal());
      s = talus_fuzz::no_heap(fn, [&] { return ekf.init(R, v, p, u); });
    } else if (what == 1) {
      fn = "InvariantEkf::propagate";
      Eigen::Vector3d w, a;
      in.fill(w);
      in.fill(a);
      if (plausible) a.z() += 9.81;
      const double dt = plausible ? 1e-3 * (1 + in.byte() % 4) : in.scalar();
      s = talus_fuzz::no_heap(fn, [&] { return ekf.propagate(w, a, dt); });
    } else if (what == 2 || what == 3) {
      const int j = in.byte() % 4;
      Eigen::Vector3d dp;
      in.fill(dp);
      feet[j].position += plausible ? 1e-2 * dp : dp;
      if (!plausible) feet[j].covariance(in.byte() % 3, in.byte() % 3) = in.scalar();
      if (what == 2) {
        fn = "InvariantEkf::set_contacts";
        const std::uint8_t bits = in.byte();
        const std::array<bool, 4> c{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0, (bits & 8) != 0};
        s = talus_fuzz::no_heap(fn, [&] { return ekf.set_contacts(c, feet); });
      } else {
        fn = "InvariantEkf::correct";
        s = talus_fuzz::no_heap(fn, [&] { return ekf.correct(feet); });
      }
    } else if (what == 4) {
      fn = "leg_kinematics";
      talus::JointPositions<Model> qj;
      in.fill(qj);
      const double sq = plausible ? 1e-3 : in.scalar(), sm = plausible ? 1e-3 : in.scalar();
      Feet out;
      s = talus_fuzz::no_heap(fn, [&] { return talus::leg_kinematics(model(), data_, qj, frames, sq, sm, out); });
      for (const auto& f : out) {
        if (s == Status::ok && !(talus::all_finite(f.position) && talus::all_finite(f.covariance)))
          finding(fn, s, "ok with a non-finite foot");
        if (s != Status::ok && !(f.position.isZero(0) && f.covariance.isZero(0)))
          finding(fn, s, "outputs not zero on failure");
      }
      if (s == Status::ok) feet = out;
      continue;
    } else if (what == 6) {
      if (in.bit()) {
        if (in.bit()) legged_update<talus::LegOdometryEkf, 1>(in, plausible, frames);
        else legged_update<talus::LegOdometryEkf>(in, plausible, frames);
      } else legged_update<talus::InvariantEkf>(in, plausible, frames);
      continue;
    } else {
      fn = "noise settings";
      ekf.noise.gyro = in.scalar();
      ekf.noise.foot_velocity = in.scalar();
      ekf.range.accel = in.scalar();
      continue;
    }
    if (s != Status::ok) {
      if (!same_estimate(ekf, before)) finding(fn, s, "a refused call changed the estimate");
      if (ekf.failure().reason == talus::EstimatorFailureReason::none) finding(fn, s, "a refusal without a reason");
    }
    check_estimate(ekf, s, fn);
  }
  return 0;
}
