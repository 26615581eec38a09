// fuzz_kkt: the generic KKT blocks solve_kkt_direct / _range_space / _null_space on the
// double pendulum and the chain, with SolverWorkspace<double, nv, MR> for MR = 2 and 4 and a
// dynamic-size G of fuzzed shape (0..40 rows, sometimes the wrong column count) and g of fuzzed
// size. More rows than MR, a wrong shape or a size mismatch must give capacity_exceeded or
// invalid_input with zero outputs, never memory corruption (ASan) or a heap call.
// Byte 0: bit 0 model (pendulum, chain), bit 1 MR (2, 4), bits 2..7 method; byte 1: flags
// (bit 0 raw doubles, bit 1 normalise quaternions, bit 2 H from crba (else raw), bits 3..4
// shape faults); then the sizes and numbers. With TALUS_FUZZ_KKT_RESIDUALS set, each ok
// direct solve prints its backward error in units of n ε (the tolerance is 64).
#include <memory>

#include <Eigen/SVD>

#include <talus/constraints.hpp>

#include "fuzz_support.hpp"
#include "support/hand_models.hpp"

namespace talus_fuzz {
namespace {

template <class M, int MR>
void run_kkt(const M& model, std::uint8_t method_byte, Reader& r) {
  constexpr int nv = M::nv;
  using WS = talus::SolverWorkspace<double, nv, MR>;
  using V = typename M::TangentVector;
  using Lambda = typename WS::RowVector;
  using Dyn = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
  const std::uint8_t flags = r.byte();
  r.set_raw(flags & 1);
  const bool from_crba = (flags & 4) != 0;
  const int rows = r.byte() % 41;
  const int cols = (flags & 8) ? r.byte() % (nv + 3) : nv;
  const int gsize = (flags & 16) ? r.byte() % 41 : rows;
  typename M::ConfigVector q;
  r.fill(q);
  if (flags & 2) normalize_quaternions<M>(q);
  typename M::MatrixNV Hraw;
  r.fill(Hraw);
  Hraw = ((Hraw + Hraw.transpose()) * 0.5).eval();
  V b;
  r.fill(b);
  Dyn G(rows, cols);
  for (Eigen::Index i = 0; i < G.size(); ++i) G.data()[i] = r.byte() < 128 ? 0.0 : r.scalar();  // sparse-ish
  Eigen::VectorXd g(gsize);
  r.fill(g);
  const bool set_tol = r.byte() >= 240;
  const double tol = r.scalar();
  const int method = method_byte % 8;  // 0..4 direct decompositions, 5 range space, 6 null space, 7 direct, bad method

  struct Out {
    Status fac, s;
    V x;
    Lambda lambda;
    typename M::MatrixNV H;
    double res = 0, res_tol = 0;
  };
  auto run = [&](Out& o) {
    auto data = std::make_unique<talus::Data<M>>();
    auto ws = std::make_unique<WS>();
    if (set_tol) ws->pivot_tolerance = tol;
    o.x.setConstant(std::numeric_limits<double>::quiet_NaN());
    o.lambda.setConstant(MR, std::numeric_limits<double>::quiet_NaN());
    o.s = no_heap("kkt set-up", [&] {
      o.fac = from_crba ? talus::crba(model, *data, q) : (data->H = Hraw, Status::ok);
      if (o.fac == Status::ok) o.fac = talus::factorize_ltl(model, *data);
      return o.fac;
    });
    o.H = data->H;
    const char* name = method < 5 || method == 7 ? "solve_kkt_direct"
                       : method == 5             ? "solve_kkt_range_space"
                                                 : "solve_kkt_null_space";
    o.s = no_heap(name, [&] {
      if (method < 5)
        return talus::solve_kkt_direct(data->H, b, G, g, static_cast<talus::KKTMethod>(method), *ws, o.x, o.lambda);
      if (method == 5) return talus::solve_kkt_range_space(model, *data, b, G, g, *ws, o.x, o.lambda);
      if (method == 6) return talus::solve_kkt_null_space(data->H, b, G, g, *ws, o.x, o.lambda);
      return talus::solve_kkt_direct(data->H, b, G, g, static_cast<talus::KKTMethod>(5 + method_byte / 8), *ws, o.x,
                                     o.lambda);
    });
    o.res = ws->kkt_residual;
    o.res_tol = ws->kkt_residual_tolerance;
  };
  auto o1 = std::make_unique<Out>(), o2 = std::make_unique<Out>();
  run(*o1);
  run(*o2);
  const char* name = method < 5 || method == 7 ? "solve_kkt_direct"
                     : method == 5             ? "solve_kkt_range_space"
                                               : "solve_kkt_null_space";
  check_same_bits(name, o1->s, o2->s, o1->x, o2->x);
  check_same_bits_dyn(name, o1->s, o2->s, o1->lambda, o2->lambda);
  const Out& o = *o1;
  check_output(name, o.s, o.x);
  check_output(name, o.s, o.lambda);
  const bool bad_shape = cols != nv || gsize != rows || rows > MR;
  if (o.s == Status::ok && bad_shape) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "G %d x %d, g %d, nv %d, MR %d", rows, cols, gsize, nv, MR);
    finding(name, o.s, "ok on a G/g of the wrong shape or beyond capacity", buf);
  }
  if (method == 7 && o.s == Status::ok) finding(name, o.s, "ok with a KKTMethod outside the enumerators");
  if (o.s != Status::ok || bad_shape) return;
  if (o.lambda.size() != rows) finding(name, o.s, "ok but lambda does not have one entry per row of G");
  // the direct method's own acceptance check: ok only with its backward error within its tolerance
  if (method < 5 && !(o.res >= 0 && o.res <= o.res_tol && o.res_tol > 0))
    finding(name, o.s, "ok but the reported residual is not within its reported tolerance");
  if (method < 5 && std::getenv("TALUS_FUZZ_KKT_RESIDUALS"))
    std::fprintf(stderr, "kkt residual method %d n %d ratio %.3g\n", method, nv + rows,
                 o.res / ((nv + rows) * 2.220446049250313e-16));
  // H x − Gᵀ λ = b and G x = g, relative to the magnitudes and the KKT condition number
  const Eigen::MatrixXd Gd = G;
  const Eigen::VectorXd l = o.lambda;
  const V r1 = o.H * o.x - Gd.transpose() * l - b;
  const Eigen::VectorXd r2 = Gd * o.x - g;
  const double s1 = 1 + max_abs(b) + (o.H.cwiseAbs() * o.x.cwiseAbs()).maxCoeff() +
                    (rows ? (Gd.transpose().cwiseAbs() * l.cwiseAbs()).maxCoeff() : 0.0);
  const double s2 = 1 + max_abs(g) + (rows ? (Gd.cwiseAbs() * o.x.cwiseAbs()).maxCoeff() : 0.0);
  // normwise backward-error scale (a stable solve of the whole KKT system bounds each block's
  // residual by eps·‖K‖·‖[x; λ]‖, not by that block's own terms)
  const double sk = std::fmax(s1, s2) +
                    (max_abs(o.H) + (rows ? max_abs(Gd) : 0.0)) * std::fmax(max_abs(o.x), rows ? max_abs(l) : 0.0);
  const double e1 = max_abs(r1) / sk, e2 = rows ? max_abs(r2) / sk : 0.0;
  if (e1 <= 1e-9 && e2 <= 1e-9) return;
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(nv + rows, nv + rows);
  K.topLeftCorner(nv, nv) = o.H;
  K.topRightCorner(nv, rows) = Gd.transpose();
  K.bottomLeftCorner(rows, nv) = Gd;
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(K);
  const auto& sv = svd.singularValues();
  const double kappa = sv[0] / sv[sv.size() - 1];
  if (!(kappa * 2.2e-16 <= 1e-4)) return;  // too ill-conditioned to ask for accuracy
  const double tol_rel = 1e-9 + 1e-14 * kappa;
  if (!(e1 <= tol_rel && e2 <= tol_rel)) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "relative residuals %.3g, %.3g > %.3g (kappa %.3g; method %d, %d rows, nv %d, H %s, tol %s %.3g)", e1,
                  e2, tol_rel, kappa, method, rows, nv, from_crba ? "crba" : "raw", set_tol ? "set" : "default", tol);
    finding(name, o.s, "ok but the KKT equations do not hold", buf);
  }
}

}  // namespace
}  // namespace talus_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace talus_fuzz;
  if (size < 2) return 0;
  Reader r(data + 1, size - 1);
  const std::uint8_t b0 = data[0];
  if (b0 & 1) {
    using M = talus_test::chain::Model<double>;
    static const M model = checked_model(talus_test::chain::make_model<double>(), "chain");
    if (b0 & 2) run_kkt<M, 4>(model, static_cast<std::uint8_t>(b0 >> 2), r);
    else run_kkt<M, 2>(model, static_cast<std::uint8_t>(b0 >> 2), r);
  } else {
    using M = talus_test::double_pendulum::Model<double>;
    static const M model = checked_model(talus_test::double_pendulum::make_model<double>(), "double_pendulum");
    if (b0 & 2) run_kkt<M, 4>(model, static_cast<std::uint8_t>(b0 >> 2), r);
    else run_kkt<M, 2>(model, static_cast<std::uint8_t>(b0 >> 2), r);
  }
  return 0;
}
