// label: consistency — talus's own math kernels against independent references.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include <talus/talus.hpp>

namespace {

std::int64_t ulp_distance(double a, double b) {
  if (a == b) return 0;
  std::int64_t ia, ib;
  std::memcpy(&ia, &a, sizeof a);
  std::memcpy(&ib, &b, sizeof b);
  if ((ia < 0) != (ib < 0)) return INT64_MAX;
  return ia > ib ? ia - ib : ib - ia;
}

TEST(Math, SincosWithinOneUlpOfGlibc) {
  // glibc's sin/cos are correctly rounded on essentially all inputs; fdlibm's kernels are
  // within 1 ulp of the true value, so they may differ from glibc by at most 1 ulp.
  talus::Random rng(3);
  std::int64_t worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const double scale = i % 3 == 0 ? 1e-6 : i % 3 == 1 ? 4.0 : 1e5;
    const double x = rng.uniform(-scale, scale);
    double s, c;
    talus::sincos(x, s, c);
    worst = std::max({worst, ulp_distance(s, std::sin(x)), ulp_distance(c, std::cos(x))});
  }
  EXPECT_LE(worst, 1);
  double s, c;
  talus::sincos(0.0, s, c);
  EXPECT_EQ(s, 0.0);
  EXPECT_EQ(c, 1.0);
  talus::sincos(M_PI / 2, s, c);
  EXPECT_EQ(s, 1.0);
  EXPECT_NEAR(c, 6.123233995736766e-17, 1e-32);
}

TEST(Math, TransformsAgreeWithTheir6x6Matrices) {
  talus::Random rng(4);
  for (int n = 0; n < 100; ++n) {
    const Eigen::Vector3d ax = Eigen::Vector3d(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)).normalized();
    const talus::Transform<double> X(talus::axis_angle_rotation<double>(ax, rng.uniform(-3, 3)),
                                     Eigen::Vector3d(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)));
    talus::Motion<double> m;
    talus::Force<double> f;
    for (int k = 0; k < 6; ++k) {
      m[k] = rng.uniform(-1, 1);
      f[k] = rng.uniform(-1, 1);
    }
    const talus::Matrix6<double> Xm = X.motion_matrix();
    const talus::Matrix6<double> Xf = Xm.inverse().transpose();  // force transform = X⁻ᵀ
    EXPECT_LT((X.act_motion(m) - Xm * m).norm(), 1e-14);
    EXPECT_LT((X.inverse_act_motion(m) - Xm.inverse() * m).norm(), 1e-13);
    EXPECT_LT((X.act_force(f) - Xf * f).norm(), 1e-13);
    EXPECT_LT((X.inverse_act_force(f) - Xm.transpose() * f).norm(), 1e-13);
    // power is frame-invariant
    EXPECT_NEAR(X.act_motion(m).dot(X.act_force(f)), m.dot(f), 1e-14);
    // inertia transform = Xf I Xf^T, and the InertiaSum form agrees
    const talus::Inertia<double> Y(rng.uniform(0.5, 2), Eigen::Vector3d(0.1, -0.2, 0.05),
                                   Eigen::Vector3d(0.02, 0.03, 0.04).asDiagonal());
    const talus::Matrix6<double> ref = Xf * Y.matrix() * Xf.transpose();
    EXPECT_LT((talus::transform_inertia_matrix(X, Y.matrix()) - ref).norm(), 1e-13);
    EXPECT_LT((Y.transformed(X).matrix() - ref).norm(), 1e-13);
    EXPECT_LT((talus::InertiaSum<double>::from(Y, X).inertia().matrix() - ref).norm(), 1e-13);
    EXPECT_LT(((talus::InertiaSum<double>::from(Y, X) * m) - ref * m).norm(), 1e-13);
    // cross operators against their matrices: crf(v) = −crm(v)ᵀ
    EXPECT_LT((talus::cross_motion<double>(m, f) - talus::cross_motion_matrix<double>(m) * f).norm(), 1e-15);
    EXPECT_LT((talus::cross_force<double>(m, f) - talus::cross_force_matrix<double>(m) * f).norm(), 1e-15);
  }
}

TEST(Math, QuaternionExpLogRoundTrip) {
  talus::Random rng(5);
  for (int n = 0; n < 1000; ++n) {
    const double scale = n % 2 ? 1e-7 : 3.0;
    const Eigen::Vector3d w(rng.uniform(-scale, scale), rng.uniform(-scale, scale), rng.uniform(-scale, scale));
    if (w.norm() >= M_PI) continue;
    const Eigen::Vector4d q = talus::quaternion_exp<double>(w);
    EXPECT_NEAR(q.norm(), 1.0, 1e-15);
    EXPECT_LT((talus::quaternion_log<double>(q) - w).norm(), 1e-14 * std::max(1.0, w.norm()) + 1e-22);
    // against the rotation matrix of an independent route (axis–angle)
    const Eigen::Matrix3d R = talus::quaternion_to_rotation<double>(q[0], q[1], q[2], q[3]);
    const Eigen::Matrix3d Ra =
        Eigen::AngleAxisd(w.norm(), w.norm() > 0 ? Eigen::Vector3d(w.normalized()) : Eigen::Vector3d::UnitX())
            .toRotationMatrix();
    EXPECT_LT((R - Ra).norm(), 1e-14);
  }
}

}  // namespace
