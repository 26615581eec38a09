#pragma once
// Lemke's acceptance check recomputed independently of talus (lcp_lemke.hpp, "Tolerances"):
// the largest relative violation of w = M z + q ≥ 0 and of zᵢ wᵢ = 0 at z, each row over its
// scale s_wᵢ = |qᵢ| + n maxⱼ|Mᵢⱼ| max|z| plus the floor n ε (max|q| + n max|M| max|z|) / τ_c.
// Tests compare an LcpReport's residual against it (to the rounding of the sums).
#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Core>

namespace talus_test {

inline double lcp_relative_violation(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& z,
                                     double tau_c) {
  const int n = static_cast<int>(q.size());
  const double eps = std::numeric_limits<double>::epsilon();
  const Eigen::VectorXd w = M * z + q;
  const double sz = z.cwiseAbs().maxCoeff(), sq = q.cwiseAbs().maxCoeff(), sm = M.cwiseAbs().maxCoeff();
  const double floor = n * eps * (sq + n * sm * sz);
  double v = 0;
  for (int i = 0; i < n; ++i) {
    const double swi = std::abs(q(i)) + n * M.row(i).cwiseAbs().maxCoeff() * sz + floor / tau_c;
    if (w(i) < 0) v = std::max(v, -w(i) / swi);
    if (z(i) * w(i) != 0) v = std::max(v, std::abs(z(i) * w(i)) / (sz * swi));
  }
  return v;
}

}  // namespace talus_test
