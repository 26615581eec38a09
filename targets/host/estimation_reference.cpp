// talus_target_estimation_reference: host tool (runs on the build machine, at build time) that
// writes the reference of the on-target estimator check (targets/estimation_check.cpp): a
// deterministic 1 kHz input sequence for solo12's LeggedEstimator (encoders, joint rates, gyro,
// accelerometer, contact bits) and the estimates of both filters (InvariantEkf,
// LegOdometryEkf) at a few checkpoints, computed here in double with the library itself.
//
// The sequence (N = 400 steps of dt = 1 ms), consistent by construction, so that the exact
// estimate is the truth at every step (the filters start at rest from the first sample):
//
//   steps   0..99    standing still: the base tilted (roll 0.04, pitch -0.03 rad, yaw 0 as the
//                    estimator defines it: tilt_from_accelerometer), gravity on the
//                    accelerometer, gyro 0, joint rates 0, all four feet touching
//   steps 100..249   a constant-rate rotation of the base about its own origin, ω = (0.05,
//                    -0.04, 0.2) rad/s in B, the feet fixed on the ground: the encoders follow
//                    by inverse kinematics, the joint rates from q̇ = J⁻¹(−ω × s_j)
//   steps 250..399   still again; the front-left foot (FL) lifts at step 280 (contact bit 0),
//                    swings (HFE +0.4, KFE -0.8 rad at the top, sin² profile) and lands on the
//                    same spot at step 340 (bit 1 again)
//
// The world feet are level at foot_height = 0 (point feet; the encoders are solved for the tilted base),
// so the flat-ground measurement of LegOdometryEkf holds as well as InvariantEkf's. Step k's
// IMU sample is the one the filters integrate over (t_{k-1}, t_k]: gyro_k the rate over that
// interval, accel_k = R_{k-1}ᵀ (−g) (the filters' first-order step uses R before the step, so
// v stays exactly 0). The truth at every checkpoint (R, p; v = 0, biases 0) is written as well,
// for the target's analytic check.
//
// Written: the inputs, and per filter at the checkpoints R (column-major), v (world), p, b_g,
// b_a and the covariance's diagonal, every number a hex-float literal. It also runs both filters
// in float (inputs rounded to float) and writes what that run's errors are, relative to the
// tolerances' scales (estimation_check.cpp), as evidence for the float tolerances. Built with
// the reproducible profile like talus_target_reference.
//
//   talus_target_estimation_reference --out <header> [--verbose]
#include <talus/estimation.hpp>
#include <talus/models/solo12.hpp>
#include <talus/talus.hpp>

#include <Eigen/LU>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "write_if_changed.hpp"

namespace {

namespace solo = talus::models::solo12;
constexpr int kSteps = 400;
constexpr double kDt = 1e-3;
// Point feet: the sequence pins each foot frame while its leg turns under the rotating base, which
// a round foot would not do (LegOdometryEkf takes a foot of radius foot_height as rolling).
constexpr double kFootHeight = 0.0;
constexpr int kChecks = 4;
constexpr int kCheckpoints[kChecks] = {99, 249, 309, 399};
constexpr int kRotateBegin = 100, kRotateEnd = 250, kLift = 280, kLand = 340;
// The target tries three bad samples before this step's update, and so does run() here: a
// refused update's time counts (LeggedEstimator propagates the next accepted sample over it
// and adds its unseen motion to P), so both sides must make the same calls. At rest, where the
// truth does not move over the extra time.
constexpr int kBadInputStep = 50;
constexpr const char* kFeet[4] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};

using M = solo::Model<double>;
using V3 = Eigen::Vector3d;
using M3 = Eigen::Matrix3d;
using Joints = Eigen::Matrix<double, 12, 1>;

struct Step {
  V3 gyro, accel;
  Joints enc, rates;
  unsigned touching = 0xF;
};

struct Sequence {
  std::vector<Step> steps;
  std::vector<M3> truth_R;  // per step
  V3 p;                     // the base's position (constant)
};

std::array<int, 4> foot_frames() {
  return {solo::frame_id(kFeet[0]), solo::frame_id(kFeet[1]), solo::frame_id(kFeet[2]), solo::frame_id(kFeet[3])};
}

/// The feet's positions in B (base at the identity) and their 3 × 12 joint Jacobians.
void feet_in_base(const M& model, talus::Data<M>& data, const Joints& qj, V3 s[4], Eigen::Matrix<double, 3, 12> J[4]) {
  M::ConfigVector q = M::ConfigVector::Zero();
  q[3] = 1;
  q.tail<12>() = qj;
  const auto frames = foot_frames();
  if (talus::compute_joint_jacobians(model, data, q) != talus::Status::ok) std::abort();
  for (int j = 0; j < 4; ++j) {
    talus::Transform<double> oMf;
    M::Jacobian6 Jf;
    if (talus::frame_placement(model, data, frames[j], oMf) != talus::Status::ok ||
        talus::frame_jacobian(model, data, frames[j], talus::ReferenceFrame::local_world_aligned, Jf) !=
            talus::Status::ok)
      std::abort();
    s[j] = oMf.p;
    J[j] = Jf.block<3, 12>(3, 6);
  }
}

/// Joint angles that put every foot at its target in B (Newton from `start`, to rounding).
Joints inverse_kinematics(const M& model, talus::Data<M>& data, const V3 target[4], Joints q) {
  for (int it = 0; it < 50; ++it) {
    V3 s[4];
    Eigen::Matrix<double, 3, 12> J[4];
    feet_in_base(model, data, q, s, J);
    Eigen::Matrix<double, 12, 12> A;
    Eigen::Matrix<double, 12, 1> r;
    for (int j = 0; j < 4; ++j) {
      A.middleRows<3>(3 * j) = J[j];
      r.segment<3>(3 * j) = target[j] - s[j];
    }
    const Joints dq = A.partialPivLu().solve(r);
    q += dq;
    if (dq.cwiseAbs().maxCoeff() < 1e-15 && it > 2) break;
  }
  return q;
}

Sequence make_sequence(const M& model) {
  auto data = std::make_unique<talus::Data<M>>();
  Sequence seq;
  Joints nominal;
  nominal << 0.1, 0.8, -1.6, -0.1, 0.8, -1.6, 0.1, -0.8, 1.6, -0.1, -0.8, 1.6;
  V3 s0[4];
  Eigen::Matrix<double, 3, 12> J[4];
  feet_in_base(model, *data, nominal, s0, J);
  double mean_z = 0;
  for (const V3& s : s0) mean_z += s.z() / 4;
  // world: the feet level at foot_height under the nominal posture's xy, the base above them
  V3 d[4];
  for (int j = 0; j < 4; ++j) d[j] = V3(s0[j].x(), s0[j].y(), kFootHeight);
  seq.p = V3(0, 0, kFootHeight - mean_z);
  const V3 up = -model.gravity;  // the specific force at rest, world axes
  // a tilted base with the estimator's yaw convention (tilt_from_accelerometer: yaw zero)
  const M3 tilt = talus::rotation_exp<double>(V3(0.04, -0.03, 0));
  const M3 R0 = talus::tilt_from_accelerometer<double>(tilt.transpose() * up);
  const V3 omega(0.05, -0.04, 0.2);  // rad/s, B axes
  M3 R = R0, R_prev = R0;
  Joints q = nominal;
  for (int k = 0; k < kSteps; ++k) {
    Step st;
    const bool rotating = k >= kRotateBegin && k < kRotateEnd;
    st.gyro = rotating ? omega : V3::Zero();
    if (rotating) R = R_prev * talus::rotation_exp<double>(omega * kDt);
    st.accel = R_prev.transpose() * up;
    V3 target[4];
    for (int j = 0; j < 4; ++j) target[j] = R.transpose() * (d[j] - seq.p);
    q = inverse_kinematics(model, *data, target, q);
    st.enc = q;
    V3 s[4];
    feet_in_base(model, *data, q, s, J);
    st.rates.setZero();
    for (int j = 0; j < 4; ++j) {
      const V3 sdot = -st.gyro.cross(s[j]);  // feet fixed in W, base origin fixed
      const M3 Jl = J[j].middleCols<3>(3 * j);
      st.rates.segment<3>(3 * j) = Jl.partialPivLu().solve(sdot);
    }
    if (k >= kLift && k < kLand) {  // FL (joints 0..2) swings
      constexpr double kPi = 3.14159265358979323846;
      const double x = kPi * (k - kLift) / double(kLand - kLift);
      const double b = std::sin(x) * std::sin(x), bdot = std::sin(2 * x) * kPi / ((kLand - kLift) * kDt);
      st.enc[1] += 0.4 * b;
      st.enc[2] -= 0.8 * b;
      st.rates[1] = 0.4 * bdot;
      st.rates[2] = -0.8 * bdot;
      st.touching = 0xE;
    }
    seq.steps.push_back(st);
    seq.truth_R.push_back(R);
    R_prev = R;
  }
  return seq;
}

template <class S>
talus::LeggedEstimatorSettings<S> settings() {
  talus::LeggedEstimatorSettings<S> s;
  s.foot_height = S(kFootHeight);
  return s;
}

/// One filter's estimate at the checkpoints, in double.
struct Estimates {
  int dim = 0;
  std::vector<std::vector<double>> R, v, p, bg, ba, P;
};

template <class S, template <class, int> class Filter>
Estimates run(const Sequence& seq) {
  using Model = solo::Model<S>;
  using Est = talus::LeggedEstimator<Model, 4, Filter>;
  static const Model model = solo::make_model<S>();
  auto est = std::make_unique<Est>();
  if (est->init(model, foot_frames(), settings<S>()) != talus::Status::ok) std::abort();
  Estimates e;
  e.dim = Est::Filter::dim;
  int c = 0;
  for (int k = 0; k < kSteps; ++k) {
    const Step& st = seq.steps[k];
    if (k == kBadInputStep) {  // estimation_check.cpp's three refused samples
      using V3 = talus::Vector3<S>;
      const S nan = std::numeric_limits<S>::quiet_NaN();
      const V3 gyro = st.gyro.cast<S>(), accel = st.accel.cast<S>();
      const V3 bad_gyro[3] = {V3(nan, S(0), S(0)), gyro, gyro};
      const V3 bad_accel[3] = {accel, V3(S(0), nan, S(9.81)), V3(S(0), S(0), S(300))};
      for (int b = 0; b < 3; ++b)
        if (est->update(bad_gyro[b], bad_accel[b], st.enc.cast<S>(), st.rates.cast<S>(), st.touching, S(kDt)) !=
            talus::Status::invalid_input) {
          std::fprintf(stderr, "talus_target_estimation_reference: bad sample %d not refused\n", b);
          std::exit(1);
        }
    }
    const talus::Status status =
        est->update(st.gyro.cast<S>(), st.accel.cast<S>(), st.enc.cast<S>(), st.rates.cast<S>(), st.touching, S(kDt));
    if (status != talus::Status::ok) {
      std::fprintf(stderr, "talus_target_estimation_reference: step %d: %s\n", k, talus::to_string(status));
      std::exit(1);
    }
    if (c < kChecks && k == kCheckpoints[c]) {
      const auto& f = est->filter();
      auto vec = [](const auto& x) {
        std::vector<double> r;
        for (int i = 0; i < x.size(); ++i) r.push_back(static_cast<double>(x.data()[i]));
        return r;
      };
      e.R.push_back(vec(f.rotation()));
      e.v.push_back(vec(f.velocity()));
      e.p.push_back(vec(f.position()));
      e.bg.push_back(vec(f.gyro_bias()));
      e.ba.push_back(vec(f.accel_bias()));
      e.P.push_back(vec(Eigen::Matrix<S, Est::Filter::dim, 1>(f.covariance().diagonal())));
      ++c;
    }
  }
  return e;
}

/// max |x − r| over the entries of each checkpoint, the largest over the checkpoints.
double max_abs_err(const std::vector<std::vector<double>>& x, const std::vector<std::vector<double>>& r) {
  double e = 0;
  for (std::size_t c = 0; c < r.size(); ++c)
    for (std::size_t i = 0; i < r[c].size(); ++i) e = std::max(e, std::fabs(x[c][i] - r[c][i]));
  return e;
}
/// The covariance's diagonal: max |x − r| over the largest live entry (not a lifted foot's
/// placeholder 1 of InvariantEkf, dim 27), the largest over the checkpoints.
double normwise_P_err(const std::vector<std::vector<double>>& x, const std::vector<std::vector<double>>& r,
                      const Sequence& seq) {
  double e = 0;
  for (std::size_t c = 0; c < r.size(); ++c) {
    const unsigned touching = seq.steps[kCheckpoints[c]].touching;
    double d = 0, s = 0;
    for (std::size_t i = 0; i < r[c].size(); ++i) {
      d = std::max(d, std::fabs(x[c][i] - r[c][i]));
      const bool placeholder = r[c].size() == 27 && i >= 9 && i < 21 && !((touching >> ((i - 9) / 3)) & 1u);
      if (!placeholder) s = std::max(s, std::fabs(r[c][i]));
    }
    e = std::max(e, d / s);
  }
  return e;
}

using talus_target_ref_io::Writer;

template <class Vec>
std::vector<double> flat(const Vec& x) {
  std::vector<double> r;
  for (int i = 0; i < x.size(); ++i) r.push_back(x.data()[i]);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  talus_target_ref_io::Arguments args;
  if (!talus_target_ref_io::parse_arguments(argc, argv, false, args)) return 2;
  const M model = solo::make_model<double>();
  const Sequence seq = make_sequence(model);

  // the sequence's own consistency: the feet at their targets (IK), in the joint limits
  double ik_err = 0;
  {
    auto data = std::make_unique<talus::Data<M>>();
    V3 s[4], d0[4];
    Eigen::Matrix<double, 3, 12> J[4];
    feet_in_base(model, *data, seq.steps[0].enc, s, J);
    for (int j = 0; j < 4; ++j) d0[j] = seq.p + seq.truth_R[0] * s[j];
    for (int k = 0; k < kSteps; ++k) {
      feet_in_base(model, *data, seq.steps[k].enc, s, J);
      for (int j = 0; j < 4; ++j)
        if ((seq.steps[k].touching >> j) & 1u)
          ik_err = std::max(ik_err, (seq.p + seq.truth_R[k] * s[j] - d0[j]).norm());
    }
  }

  const Estimates inv_d = run<double, talus::InvariantEkf>(seq);
  const Estimates odo_d = run<double, talus::LegOdometryEkf>(seq);
  const Estimates inv_f = run<float, talus::InvariantEkf>(seq);
  const Estimates odo_f = run<float, talus::LegOdometryEkf>(seq);

  // the analytic truth against the double run
  auto truth_err = [&](const Estimates& e) {
    double eR = 0, ev = 0, ep = 0, eb = 0;
    for (int c = 0; c < kChecks; ++c) {
      const std::vector<double> R = flat(seq.truth_R[kCheckpoints[c]]), p = flat(seq.p);
      for (int i = 0; i < 9; ++i) eR = std::max(eR, std::fabs(e.R[c][i] - R[i]));
      for (int i = 0; i < 3; ++i) {
        ev = std::max(ev, std::fabs(e.v[c][i]));
        ep = std::max(ep, std::fabs(e.p[c][i] - p[i]));
        eb = std::max(eb, std::max(std::fabs(e.bg[c][i]), std::fabs(e.ba[c][i])));
      }
    }
    char buf[256];
    std::snprintf(buf, sizeof buf, "R %.2g, v %.2g m/s, p %.2g m, biases %.2g", eR, ev, ep, eb);
    return std::string(buf);
  };
  auto float_err = [&](const Estimates& f, const Estimates& d) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "R %.2g, v %.2g m/s, p %.2g m, b_g %.2g rad/s, b_a %.2g m/s², diag P %.2g of its largest live entry",
                  max_abs_err(f.R, d.R), max_abs_err(f.v, d.v), max_abs_err(f.p, d.p), max_abs_err(f.bg, d.bg),
                  max_abs_err(f.ba, d.ba), normwise_P_err(f.P, d.P, seq));
    return std::string(buf);
  };
  std::string notes;
  {
    char buf[128];
    std::snprintf(buf, sizeof buf, "//   inverse kinematics: the stance feet within %.2g m of their spot\n", ik_err);
    notes += buf;
  }
  notes += "//   InvariantEkf, double run against the truth: " + truth_err(inv_d) + "\n";
  notes += "//   LegOdometryEkf, double run against the truth: " + truth_err(odo_d) + "\n";
  notes += "//   InvariantEkf, float run against the double run: " + float_err(inv_f, inv_d) + "\n";
  notes += "//   LegOdometryEkf, float run against the double run: " + float_err(odo_f, odo_d) + "\n";

  Writer w;
  // clang-format off
  w.raw("#pragma once\n// Generated at build time by talus_target_estimation_reference (targets/host/estimation_reference.cpp)\n"
        "// on the build machine, in double; do not edit.\n\n"
        "namespace talus_target_estimation_ref {\n\n");
  // clang-format on
#if defined(TALUS_REPRODUCIBLE) && !defined(EIGEN_VECTORIZE)
  w.raw("inline constexpr bool reproducible = true;\n\n");
#else
  w.raw("inline constexpr bool reproducible = false;\n\n");
#endif
  w.raw("// solo12's LeggedEstimator (feet FL, FR, HL, HR): the input sequence\n");
  w.raw("struct solo12 {\n");
  w.raw("  static constexpr int nsteps = " + std::to_string(kSteps) + ", nj = 12, ncheck = " + std::to_string(kChecks) +
        ";\n");
  w.raw("  static constexpr int checkpoints[ncheck] = {");
  for (int c = 0; c < kChecks; ++c) w.raw((c ? ", " : "") + std::to_string(kCheckpoints[c]));
  w.raw("};\n");
  w.raw("  static constexpr int rotate_begin = " + std::to_string(kRotateBegin) +
        ", rotate_end = " + std::to_string(kRotateEnd) + ", lift = " + std::to_string(kLift) +
        ", land = " + std::to_string(kLand) + ", bad_input_step = " + std::to_string(kBadInputStep) + ";\n");
  w.raw("  static constexpr double dt = ");
  w.number(kDt);
  w.raw(", foot_height = ");
  w.number(kFootHeight);
  w.raw(";\n  // per step: gyro (rad/s, B), accel (m/s², specific force, B), encoders (rad), joint rates (rad/s)\n");
  std::vector<std::vector<double>> gyro, accel, enc, rates;
  for (const Step& st : seq.steps) {
    gyro.push_back(flat(st.gyro));
    accel.push_back(flat(st.accel));
    enc.push_back(flat(st.enc));
    rates.push_back(flat(st.rates));
  }
  w.array2("gyro", gyro);
  w.array2("accel", accel);
  w.array2("enc", enc);
  w.array2("rates", rates);
  w.raw("  static constexpr unsigned char touching[nsteps] = {");
  for (int k = 0; k < kSteps; ++k) w.raw((k ? "," : "") + std::to_string(seq.steps[k].touching));
  w.raw("};\n  // the truth at the checkpoints: R (column-major), p (v = 0, biases 0)\n");
  std::vector<std::vector<double>> tR, tp;
  for (int c = 0; c < kChecks; ++c) {
    tR.push_back(flat(seq.truth_R[kCheckpoints[c]]));
    tp.push_back(flat(seq.p));
  }
  w.array2("truth_R", tR);
  w.array2("truth_p", tp);
  w.raw("};\n\n");
  auto estimates = [&](const char* name, const char* what, const Estimates& e) {
    w.raw(std::string("// ") + what + ": the host's double estimates at the checkpoints\n");
    w.raw(std::string("struct ") + name + " {\n  static constexpr int dim = " + std::to_string(e.dim) + ";\n");
    w.array2("R", e.R);
    w.array2("v", e.v);
    w.array2("p", e.p);
    w.array2("bg", e.bg);
    w.array2("ba", e.ba);
    w.array2("P", e.P);
    w.raw("};\n\n");
  };
  estimates("invariant", "LeggedEstimator<solo12, 4, InvariantEkf>", inv_d);
  estimates("leg_odometry", "LeggedEstimator<solo12, 4, LegOdometryEkf>", odo_d);
  w.raw("}  // namespace talus_target_estimation_ref\n\n// Host runs:\n" + notes);
  std::fputs(notes.c_str(), stdout);
  if (args.verbose) {  // the covariance's diagonal, float against double, per checkpoint and entry
    for (const auto& [name, f, d] :
         {std::tuple{"InvariantEkf", &inv_f, &inv_d}, std::tuple{"LegOdometryEkf", &odo_f, &odo_d}})
      for (int c = 0; c < kChecks; ++c) {
        std::printf("%s step %d diag P (double; float rel err):", name, kCheckpoints[c]);
        for (int i = 0; i < d->dim; ++i)
          std::printf(" %d:%.3g(%.2g)", i, d->P[c][i], std::fabs(f->P[c][i] - d->P[c][i]) / d->P[c][i]);
        std::printf("\n");
      }
  }
  return talus_target_ref_io::write_if_changed(args.out, w.text, "talus_target_estimation_reference") ? 0 : 1;
}
