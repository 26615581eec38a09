// fuzz_lcp: solve_lcp_lemke and check_lcp_guess (talus/contact/lcp_lemke.hpp) on fuzzed LCPs, LcpWorkspace<S, 8>
// for S = double and float. n is 0..10 (beyond the capacity 8 must be invalid_input with zero
// outputs), M raw, symmetrised or made a P-matrix (A Aᵀ + I, or diagonally dominant), q and
// the options (tolerances, pivot cap, covering vector, regularization incl. a value outside
// the enum) from the input.
// Byte 0: bit 0 scalar (double, float), bits 1..2 regularize (none, on_failure, always, 3 =
// invalid), bits 3..4 M shape (raw, symmetric, A Aᵀ + I, diagonally dominant), bit 5
// retry_covering off, bit 6 check_lcp_guess instead of the solve (a guess of n entries read after
// the options, n + 1 when bit 7 is set: invalid_input); byte 1: flags
// (bit 0 raw doubles, bit 1 set pivot_tolerance, bit 2 set check_tolerance, bit 3 set
// max_pivots, bit 4 covering vector (size n, or n + 1 when bit 5 is set)); byte 2: n % 11;
// then M (n × n), q (n), the option values.
// Promises: ok ⇒ z ≥ 0, w finite and equal to M z + q, and the complementarity conditions
// hold (re-checked here in double against the original M, q, with the solver's documented
// tolerance); not ok ⇒ z and w exactly zero; n > 8 or invalid options ⇒ not ok; no heap;
// same bits twice.
#include <memory>

#include <talus/contact/lcp_lemke.hpp>

#include "fuzz_support.hpp"

namespace talus_fuzz {
namespace {

constexpr int MaxN = 8;

template <class S>
void run_lcp(std::uint8_t b0, Reader& r) {
  using WS = talus::LcpWorkspace<S, MaxN>;
  using Opt = talus::LcpOptions<S, MaxN>;
  using MatX = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  using VecX = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  const std::uint8_t flags = r.byte();
  r.set_raw(flags & 1);
  const int n = r.byte() % (MaxN + 3);
  const int shape = (b0 >> 3) & 3;
  Eigen::MatrixXd A(n, n);
  r.fill(A);
  Eigen::MatrixXd Md = A;
  if (shape == 1) Md = (A + A.transpose()) * 0.5;
  if (shape == 2) Md = A * A.transpose() + Eigen::MatrixXd::Identity(n, n);
  if (shape == 3)
    for (int i = 0; i < n; ++i) Md(i, i) = A.row(i).cwiseAbs().sum() + 0.5;
  Eigen::VectorXd qd(n);
  r.fill(qd);
  Opt o;
  bool opt_invalid = false;
  if (flags & 2) {
    o.pivot_tolerance = static_cast<S>(r.scalar() * 1e-10);
    opt_invalid |= !(o.pivot_tolerance >= S(0) && o.pivot_tolerance <= S(1));
  }
  if (flags & 4) {
    o.check_tolerance = static_cast<S>(r.scalar() * 1e-8);
    opt_invalid |= !(o.check_tolerance >= S(0) && o.check_tolerance <= S(1));
  }
  if (flags & 8) {
    o.max_pivots = static_cast<int>(r.byte()) - 8;
    opt_invalid |= o.max_pivots < 0;
  }
  if (flags & 16) {
    const int size = (flags & 32) ? n + 1 : n;
    if (size <= MaxN) {
      o.covering.resize(size);
      for (int i = 0; i < size; ++i) o.covering(i) = static_cast<S>(r.scalar());
      opt_invalid |= size != n;
      // entries ≥ 0, and > 0 where qᵢ < 0 (zeros elsewhere: lcp_lemke.hpp, "Covering vectors with zeros")
      for (int i = 0; i < size; ++i)
        opt_invalid |= !(o.covering(i) >= S(0) && o.covering(i) <= S(1e9)) ||
                       (o.covering(i) == S(0) && i < n && static_cast<S>(qd(i)) < S(0));
    }
  }
  o.retry_covering = !(b0 & 32);
  const bool guess_mode = (b0 & 64) != 0;
  const int gsize = (b0 & 128) ? n + 1 : n;
  VecX guess = VecX::Zero(guess_mode ? gsize : 0);
  if (guess_mode) {
    Eigen::VectorXd gd(gsize);
    r.fill(gd);
    guess = gd.cast<S>();
    opt_invalid |= gsize != n;
  }
  const unsigned reg = (b0 >> 1) & 3;
  o.regularize = static_cast<talus::LcpRegularization>(reg);
  opt_invalid |= reg > 2 || n > MaxN;
  const MatX M = Md.cast<S>();
  const VecX q = qd.cast<S>();

  struct Out {
    Status s;
    typename WS::Vector z, w;
    talus::LcpReport<S> report;
  };
  auto run = [&](Out& out) {
    auto ws = std::make_unique<WS>();
    out.z.setConstant(MaxN, std::numeric_limits<S>::quiet_NaN());
    out.w.setConstant(MaxN, std::numeric_limits<S>::quiet_NaN());
    out.s = guess_mode ? no_heap("check_lcp_guess",
                                 [&] { return talus::check_lcp_guess(M, q, guess, out.z, out.w, *ws, o, out.report); })
                       : no_heap("solve_lcp_lemke",
                                 [&] { return talus::solve_lcp_lemke(M, q, out.z, out.w, *ws, o, out.report); });
  };
  auto o1 = std::make_unique<Out>(), o2 = std::make_unique<Out>();
  run(*o1);
  run(*o2);
  const char* name = guess_mode ? "check_lcp_guess" : "solve_lcp_lemke";
  auto same = [](const typename WS::Vector& a, const typename WS::Vector& b) {
    return a.size() == b.size() &&
           (a.size() == 0 || std::memcmp(a.data(), b.data(), sizeof(S) * static_cast<std::size_t>(a.size())) == 0);
  };
  if (o1->s != o2->s) finding(name, o1->s, "same input, different status");
  if (!same(o1->z, o2->z) || !same(o1->w, o2->w)) finding(name, o1->s, "same input, different output bits");
  if (o1->report.pivots != o2->report.pivots || o1->report.exit != o2->report.exit)
    finding(name, o1->s, "same input, different report");
  const Out& out = *o1;
  for (Eigen::Index i = 0; i < out.z.size(); ++i)
    if (out.s != Status::ok && (out.z(i) != S(0) || out.w(i) != S(0)))
      finding(name, out.s, "not ok but an output is not zero");
  if (out.s == Status::ok && !(finite(out.z) && finite(out.w))) finding(name, out.s, "ok but an output is not finite");
  if (out.s == Status::ok && !(out.report.residual >= S(0) && out.report.residual <= out.report.tolerance))
    finding(name, out.s, "ok with report.residual above report.tolerance (or negative, or NaN)");
  if (out.s == Status::ok && opt_invalid) finding(name, out.s, "ok with n beyond the capacity or invalid options");
  if (out.s != Status::ok) return;
  if (out.z.size() != n || out.w.size() != n) finding(name, out.s, "ok but z or w does not have n entries");
  // the conditions, in double, against the original (S-rounded) M and q
  const Eigen::MatrixXd Ms = M.template cast<double>();
  const Eigen::VectorXd qs = q.template cast<double>();
  const Eigen::VectorXd z = out.z.template cast<double>(), w = out.w.template cast<double>();
  const Eigen::VectorXd wd = Ms * z + qs;
  const double eps = static_cast<double>(Eigen::NumTraits<S>::epsilon());
  const double sz = n ? max_abs(z) : 0.0, sq = n ? max_abs(qs) : 0.0;
  const double sw = sq + n * (n ? max_abs(Ms) : 0.0) * sz;
  const double tol = 2 * static_cast<double>(o.check_tolerance) + 16 * n * eps;
  char buf[200];
  for (int i = 0; i < n; ++i) {
    const bool bad = !(z(i) >= 0.0) || !(wd(i) >= -tol * sw) || !(std::fabs(z(i) * wd(i)) <= tol * sz * sw) ||
                     !(std::fabs(w(i) - wd(i)) <= 16 * n * eps * (sw + sz));
    if (bad) {
      std::snprintf(buf, sizeof buf,
                    "i %d of n %d: z %.3g w %.3g (M z + q %.3g), tol %.3g, scales z %.3g w %.3g, exit %s, pivots %d", i,
                    n, z(i), w(i), wd(i), tol, sz, sw, talus::to_string(out.report.exit), out.report.pivots);
      finding(name, out.s, "ok but the LCP conditions do not hold", buf);
    }
  }
}

}  // namespace
}  // namespace talus_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return talus_fuzz::run_by_scalar(data, size, [](auto scalar, std::uint8_t mode, talus_fuzz::Reader& r) {
    talus_fuzz::run_lcp<decltype(scalar)>(mode, r);
  });
}
