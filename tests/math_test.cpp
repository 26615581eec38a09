// label: consistency — talus's own math kernels against independent references.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <talus/linalg/cholesky.hpp>
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

// A = L Lᵀ with a hand-chosen L (integer entries, so every product is exact in double): the
// factor must give back L, and the solve x for b = A x₀ must give back x₀.
TEST(Cholesky, HandFactorAndSolve) {
  Eigen::Matrix3d L0;
  L0 << 2, 0, 0,  //
      1, 3, 0,    //
      -2, 1, 4;
  const Eigen::Matrix3d A0 = L0 * L0.transpose();  // [4 2 -4; 2 10 1; -4 1 21]
  Eigen::Matrix3d L = A0;
  L(0, 2) = 99;  // the upper triangle is neither read nor written
  ASSERT_EQ(talus::cholesky_factor(L, 3), talus::Status::ok);
  EXPECT_EQ(L.triangularView<Eigen::Lower>().toDenseMatrix(), L0);
  EXPECT_EQ(L(0, 2), 99);
  const Eigen::Vector3d x0(1, -2, 0.5);
  Eigen::Vector3d x = A0 * x0;
  ASSERT_EQ(talus::cholesky_solve(L, 3, x), talus::Status::ok);
  EXPECT_LT((x - x0).norm(), 1e-14);
  // float: the same factor (exact small integers)
  Eigen::Matrix3f Lf = A0.cast<float>();
  ASSERT_EQ(talus::cholesky_factor(Lf, 3), talus::Status::ok);
  EXPECT_EQ(Lf.triangularView<Eigen::Lower>().toDenseMatrix(), L0.cast<float>());
}

// A leading block of a larger storage: only that block is touched.
TEST(Cholesky, LeadingBlockOnly) {
  Eigen::Matrix<double, 5, 5> A = Eigen::Matrix<double, 5, 5>::Constant(7.0);
  A.topLeftCorner<2, 2>() << 4, 2, 2, 10;
  const Eigen::Matrix<double, 5, 5> before = A;
  ASSERT_EQ(talus::cholesky_factor(A, 2), talus::Status::ok);
  EXPECT_EQ(A(0, 0), 2.0);
  EXPECT_EQ(A(1, 0), 1.0);
  EXPECT_EQ(A(1, 1), 3.0);
  EXPECT_EQ(A.bottomRows<3>(), before.bottomRows<3>());
  EXPECT_EQ(A.rightCols<3>(), before.rightCols<3>());
}

// A rank-2 positive semidefinite 3 × 3 (the third row the sum of the first two) is singular,
// and so is an indefinite one; the block's lower triangle is then zero.
TEST(Cholesky, SingularAndIndefiniteAreRefused) {
  Eigen::Matrix<double, 3, 2> B;
  B << 1, 0, 0, 1, 1, 1;
  Eigen::Matrix3d A = B * B.transpose();
  EXPECT_EQ(talus::cholesky_factor(A, 3), talus::Status::singular);
  EXPECT_TRUE(A.triangularView<Eigen::Lower>().toDenseMatrix().isZero(0));
  Eigen::Matrix3d C = Eigen::Vector3d(1, -1, 2).asDiagonal();
  EXPECT_EQ(talus::cholesky_factor(C, 3), talus::Status::singular);
  Eigen::Matrix3d N = Eigen::Matrix3d::Identity();
  N(2, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(talus::cholesky_factor(N, 3), talus::Status::singular);
}

// The relative pivot check: diag(1, 1e-8) has pivots 1 and 1e-4, a ratio of 1e-4 = √1e-8.
TEST(Cholesky, RelativePivotTolerance) {
  const Eigen::Matrix2d A = Eigen::Vector2d(1, 1e-8).asDiagonal();
  Eigen::Matrix2d L = A;
  EXPECT_EQ(talus::cholesky_factor(L, 2, 1e-9), talus::Status::ok);
  L = A;
  EXPECT_EQ(talus::cholesky_factor(L, 2, 1e-7), talus::Status::singular);
  EXPECT_TRUE(L.isZero(0));
}

// Bad sizes and tolerances: invalid_input with the outputs zero; a solve with a zero pivot is
// singular with x zero.
TEST(Cholesky, BadInputIsRefusedWithZeroOutputs) {
  Eigen::Matrix3d A = Eigen::Matrix3d::Identity();
  EXPECT_EQ(talus::cholesky_factor(A, 4), talus::Status::invalid_input);
  EXPECT_TRUE(A.isZero(0));
  A.setIdentity();
  EXPECT_EQ(talus::cholesky_factor(A, -1), talus::Status::invalid_input);
  A.setIdentity();
  EXPECT_EQ(talus::cholesky_factor(A, 3, 2.0), talus::Status::invalid_input);
  A.setIdentity();
  EXPECT_EQ(talus::cholesky_factor(A, 3, std::numeric_limits<double>::quiet_NaN()), talus::Status::invalid_input);
  const Eigen::Matrix3d I = Eigen::Matrix3d::Identity();
  Eigen::Vector2d short_x(1, 2);
  EXPECT_EQ(talus::cholesky_solve(I, 3, short_x), talus::Status::invalid_input);
  EXPECT_TRUE(short_x.isZero(0));
  Eigen::Matrix3d Z = I;
  Z(1, 1) = 0;
  Eigen::Vector3d x(1, 2, 3);
  EXPECT_EQ(talus::cholesky_solve(Z, 3, x), talus::Status::singular);
  EXPECT_TRUE(x.isZero(0));
  Eigen::Matrix3d T = 1e-300 * I;  // a valid factor whose solve overflows
  x << 1e300, 0, 0;
  EXPECT_EQ(talus::cholesky_solve(T, 3, x), talus::Status::overflow);
  EXPECT_TRUE(x.isZero(0));
}

}  // namespace
