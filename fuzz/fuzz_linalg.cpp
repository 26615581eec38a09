// fuzz_linalg: the public Cholesky (talus/linalg/cholesky.hpp), cholesky_factor and
// cholesky_solve, on fuzzed matrices in a fixed 8 × 8 storage (S = double and float) and a
// dynamic one, n from the input (sometimes negative or beyond the storage), the relative pivot
// tolerance from the input (sometimes outside [0, 1]).
// Byte 0: bit 0 scalar (double, float), bit 1 storage (fixed 8 × 8, dynamic of a fuzzed shape),
// bits 2..3 A's shape (raw symmetric, B Bᵀ + I, B Bᵀ (singular when B has fewer columns than
// n), diagonal); byte 1: flags (bit 0 raw doubles, bit 1 tolerance from the input, bit 2 the
// solve's n differs from the factor's, bit 3 x has fewer rows than n); byte 2: n (as
// Reader::index, so −1, −2, huge, …); then the numbers.
// Promises: factor ok ⇒ L finite with a positive diagonal and L Lᵀ = A within 8 n ε ‖|L| |L|ᵀ‖
// (Higham, Accuracy and Stability, Thm 10.3), the upper triangle and everything outside the
// leading n × n block unchanged; singular ⇒ the block's lower triangle zero, the rest unchanged;
// invalid_input (n < 0, n beyond the storage, tolerance outside [0, 1]) ⇒ A zero, and
// predicted here; a relative tolerance τ ⇒ ok only if min Lᵢᵢ > √τ max Lᵢᵢ. Solve ok ⇒ x
// finite, (L Lᵀ) x = b within 8 n ε (‖|L| |L|ᵀ‖ ‖x‖ + ‖b‖); not ok ⇒ x zero; invalid_input
// exactly when n is out of range. No heap; the same bits twice.
#include <cmath>
#include <cstdio>
#include <limits>

#include <talus/linalg/cholesky.hpp>

#include "fuzz_support.hpp"

namespace talus_fuzz {
namespace {

constexpr int Max = 8;

template <class Mat>
void fill_matrix(Mat& A, int shape, Reader& r) {
  using S = typename Mat::Scalar;
  const Eigen::Index m = A.rows();
  if (shape == 1 || shape == 2) {  // B: m × cols, the rest zero
    Mat B = Mat::Zero(m, m);
    const int cols = static_cast<int>(r.byte() % (m + 1));
    for (Eigen::Index i = 0; i < m; ++i)
      for (int j = 0; j < cols; ++j) B(i, j) = static_cast<S>(r.scalar());
    A = B * B.transpose();
    if (shape == 1) A += Mat::Identity(m, m);
  } else if (shape == 0) {
    for (Eigen::Index i = 0; i < A.size(); ++i) A.data()[i] = static_cast<S>(r.scalar());
    A = (A + A.transpose()).eval();
  } else {
    A.setZero();
    for (Eigen::Index i = 0; i < m; ++i) A(i, i) = static_cast<S>(r.scalar());
  }
}

// |L| |L|ᵀ's largest entry and the factor's backward error max |(L Lᵀ − A)ᵢⱼ| over the block,
// both in double.
template <class Mat>
void factor_error(const Mat& L, const Mat& A0, int n, double& scale, double& error) {
  scale = 0;
  error = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      double s = 0, a = 0;
      for (int k = 0; k <= j; ++k) {
        s += static_cast<double>(L(i, k)) * static_cast<double>(L(j, k));
        a += std::abs(static_cast<double>(L(i, k)) * static_cast<double>(L(j, k)));
      }
      scale = std::max(scale, a);
      error = std::max(error, std::abs(s - static_cast<double>(A0(i, j))));
    }
}

template <class Mat>
void check_factor(Status s, const Mat& L, const Mat& A0, int n, double tol, bool bad) {
  using S = typename Mat::Scalar;
  const char* f = "cholesky_factor";
  if (bad != (s == Status::invalid_input)) finding(f, s, "invalid_input not exactly for a bad n or tolerance");
  if (s == Status::invalid_input) {
    if (!all_zero(L)) finding(f, s, "invalid_input but A not zero");
    return;
  }
  if (s != Status::ok && s != Status::singular) finding(f, s, "a status other than ok, singular, invalid_input");
  for (Eigen::Index j = 0; j < L.cols(); ++j)
    for (Eigen::Index i = 0; i < L.rows(); ++i) {
      const bool in_block = i < n && j < n && i >= j;
      const bool same = std::memcmp(&L(i, j), &A0(i, j), sizeof(S)) == 0;
      if (!in_block && !same) finding(f, s, "an entry outside the block's lower triangle changed");
      if (in_block && s == Status::singular && L(i, j) != S(0)) finding(f, s, "singular but the block not zero");
    }
  if (s != Status::ok) return;
  double lmin = std::numeric_limits<double>::infinity(), lmax = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j)
      if (!std::isfinite(static_cast<double>(L(i, j)))) finding(f, s, "ok but L not finite");
    const double d = static_cast<double>(L(i, i));
    if (!(d > 0)) finding(f, s, "ok but a diagonal entry of L not > 0");
    lmin = std::min(lmin, d);
    lmax = std::max(lmax, d);
  }
  if (n > 0 && !(lmin > std::sqrt(tol) * lmax)) finding(f, s, "ok but the relative pivot check fails");
  double scale, error;
  factor_error(L, A0, n, scale, error);
  if (!std::isfinite(scale)) return;  // |L| |L|ᵀ beyond double's range: no check in double
  const double eps = static_cast<double>(std::numeric_limits<S>::epsilon());
  const double tiny = static_cast<double>(std::numeric_limits<S>::denorm_min());  // gradual underflow
  if (!(error <= 8.0 * (n + 1) * (eps * scale + n * tiny)))
    finding(f, s, "ok but L Lᵀ ≠ A beyond the backward-error bound");
}

template <class Mat, class Vec>
void check_solve(Status s, const Mat& L, int n, const Vec& b, const Vec& x, bool bad_n) {
  using S = typename Mat::Scalar;
  const char* f = "cholesky_solve";
  if (bad_n != (s == Status::invalid_input)) finding(f, s, "invalid_input not exactly for a bad n");
  if (s != Status::ok) {
    if (!all_zero(x)) finding(f, s, "not ok but x not zero");
    return;
  }
  if (!finite(x)) finding(f, s, "ok but x not finite");
  double scale, unused;
  factor_error(L, L, n, scale, unused);
  double bmax = 0, xmax = 0, res = 0;
  for (int i = 0; i < n; ++i) {
    double lx = 0;  // (L Lᵀ x)ᵢ in double
    for (int k = 0; k < n; ++k) {
      double lk = 0;  // (Lᵀ x)ₖ
      for (int j = k; j < n; ++j) lk += static_cast<double>(L(j, k)) * static_cast<double>(x[j]);
      if (k <= i) lx += static_cast<double>(L(i, k)) * lk;
    }
    res = std::max(res, std::abs(lx - static_cast<double>(b[i])));
    bmax = std::max(bmax, std::abs(static_cast<double>(b[i])));
    xmax = std::max(xmax, std::abs(static_cast<double>(x[i])));
  }
  if (!std::isfinite(scale) || !std::isfinite(res)) return;  // beyond double's range: no check in double
  const double eps = static_cast<double>(std::numeric_limits<S>::epsilon());
  const double tiny = static_cast<double>(std::numeric_limits<S>::denorm_min());
  // Backward stable: (L Lᵀ + ΔA) x = b with |ΔA| ≤ c n ε |L| |L|ᵀ; with gradual underflow an
  // absolute error of denorm_min per operation in y and x, which L and L Lᵀ carry into b.
  const double bound = 8.0 * (n + 1) * (eps * (n * scale * xmax + bmax) + n * tiny * (n * scale + std::sqrt(scale)));
  if (!(res <= bound)) {
    char detail[160];
    std::snprintf(detail, sizeof detail, "n %d, residual %.3g, bound %.3g, |x| %.3g, |b| %.3g", n, res, bound, xmax,
                  bmax);
    finding(f, s, "ok but L Lᵀ x ≠ b beyond the bound", detail);
  }
}

template <class Mat, class Vec>
void run(Mat A, Vec b, int shape, std::uint8_t flags, Reader& r) {
  using S = typename Mat::Scalar;
  fill_matrix(A, shape, r);
  const int n = r.index(static_cast<int>(A.rows()) + 1);
  const bool tol_from_input = (flags & 2) != 0;
  const double tol = tol_from_input ? r.scalar() : 0.0;
  const S tol_s = static_cast<S>(tol);
  const int n_solve = (flags & 4) ? r.index(static_cast<int>(A.rows()) + 1) : n;
  if (flags & 8) b.resize(std::max<Eigen::Index>(0, b.rows() - 1 - r.byte() % 3));
  for (Eigen::Index i = 0; i < b.size(); ++i) b[i] = static_cast<S>(r.scalar());

  const Mat A0 = A;
  const bool bad = n < 0 || n > A.rows() || !(tol_s >= S(0) && tol_s <= S(1));
  Mat L1 = A, L2 = A;
  const Status s1 = no_heap("cholesky_factor", [&] { return talus::cholesky_factor(L1, n, tol_s); });
  const Status s2 = talus::cholesky_factor(L2, n, tol_s);
  check_same_bits_dyn("cholesky_factor", s1, s2, L1, L2);
  check_factor(s1, L1, A0, n, static_cast<double>(tol_s), bad);
  if (s1 != Status::ok) return;

  const bool bad_n = n_solve < 0 || n_solve > L1.rows() || n_solve > b.rows();
  Vec x1 = b, x2 = b;
  const Status t1 = no_heap("cholesky_solve", [&] { return talus::cholesky_solve(L1, n_solve, x1); });
  const Status t2 = talus::cholesky_solve(L1, n_solve, x2);
  check_same_bits_dyn("cholesky_solve", t1, t2, x1, x2);
  // A solve on another n than the factor's solves with the n_solve × n_solve lower triangle it
  // finds there (a triangular solve pair all the same): checked against that block.
  check_solve(t1, L1, n_solve, b, x1, bad_n);
}

template <class S>
void run_scalar(std::uint8_t head, Reader& r) {
  const std::uint8_t flags = r.byte();
  r.set_raw(flags & 1);
  const int shape = (head >> 2) & 3;
  if (head & 2) {
    using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
    using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1>;
    const int m = r.byte() % (Max + 1);
    run(Mat(m, m), Vec(m), shape, flags, r);
  } else {
    using Mat = Eigen::Matrix<S, Max, Max>;
    using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, Max, 1>;
    run(Mat(), Vec(Max), shape, flags, r);
  }
}

}  // namespace
}  // namespace talus_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return talus_fuzz::run_by_scalar(data, size, [](auto scalar, std::uint8_t mode, talus_fuzz::Reader& r) {
    talus_fuzz::run_scalar<decltype(scalar)>(mode, r);
  });
}
