// talus_target_reference: host tool (runs on the build machine, at build time) that writes
// the C++ header the on-target test program (targets/target_test.cpp) checks itself against:
// for each model, `talus_target_test_states` random states (q, v, a, tau) and the outputs
// of forward kinematics (oMi, body velocities and accelerations), CRBA (H), RNEA (tau) and
// ABA (ddq) computed in double on the host, every number as a hex-float literal (exact).
// For solo12 also constrained forward dynamics with its four feet in contact (12 rows; q̈ and
// λ of the range-space method and of the direct method with PartialPivLU). Also κ₂(H) per
// state, which the float tolerance of ABA uses, and the condition numbers κ_ddq, κ_lambda of
// the constrained system (constrained_conds below), which those of constrained FD use. Built with the reproducible
// profile (talus::reproducible, see targets/README.md), so that the double values are also
// the exact bits Cortex-M7 and aarch64 must reproduce (target_<name>_bits).
//
//   talus_target_reference --out <header> [--states N] [--seed S]
//
// It additionally runs the same computations in float on the host and prints (and writes in
// a comment of the header) the worst float errors it saw, as evidence for the float
// tolerances chosen in target_test.cpp. Host tool: the heap, stdio and Eigen's eigensolver
// are fine here.
//
// The computations of a state (compute, compute_constrained) are in reference.hpp; solo12's,
// most of the compile, are compiled in reference_solo12_double.cpp and
// reference_solo12_float.cpp, so that two jobs share this program's compile.
#include "reference.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "write_if_changed.hpp"

namespace {

using namespace talus_target_reference_tool;

using talus_target_ref_io::Writer;

// max |x − r| / max |r| (norm-wise relative error, the measure target_test.cpp uses).
double rel_err(const std::vector<double>& x, const std::vector<double>& r) {
  double d = 0, s = 0;
  for (std::size_t k = 0; k < r.size(); ++k) {
    d = std::max(d, std::fabs(x[k] - r[k]));
    s = std::max(s, std::fabs(r[k]));
  }
  return s > 0 ? d / s : d;
}

// λmax / λmin in magnitude of a symmetric matrix.
double cond2_sym(const Eigen::MatrixXd& A) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(A, Eigen::EigenvaluesOnly);
  const Eigen::VectorXd e = es.eigenvalues().cwiseAbs();
  return e.maxCoeff() / e.minCoeff();
}

double norm2(const Eigen::MatrixXd& A) { return Eigen::JacobiSVD<Eigen::MatrixXd>(A).singularValues()(0); }

// Condition of the constrained system at one state (double, host). The solution z = [q̈; −λ]
// of K z = r, K = [H Gᵀ; G 0], r = [τ − C; γ], has
//   K⁻¹ = [P  Rᵀ; R  −Y⁻¹],  Y = G H⁻¹ Gᵀ,  R = Y⁻¹ G H⁻¹,  P = H⁻¹ − H⁻¹ Gᵀ Y⁻¹ G H⁻¹,
// so, to first order, perturbations of the inputs of the solve with ‖δH‖ ≤ ε‖H‖, ‖δG‖ ≤ ε‖G‖,
// ‖δC‖ ≤ ε‖C‖, ‖δτ‖ ≤ ε‖τ‖, ‖δγ‖ ≤ ε‖γ‖ (2-norms) move q̈ and λ by at most ε·κ relative:
//   κ_q̈ = [‖P‖ (‖τ‖ + ‖C‖ + ‖H‖‖q̈‖ + ‖G‖‖λ‖) + ‖R‖ (‖γ‖ + ‖G‖‖q̈‖)] / ‖q̈‖
//   κ_λ = [‖R‖ (‖τ‖ + ‖C‖ + ‖H‖‖q̈‖ + ‖G‖‖λ‖) + ‖Y⁻¹‖ (‖γ‖ + ‖G‖‖q̈‖)] / ‖λ‖
// (the normwise condition numbers of the two blocks of the KKT solution). In float, H, C, G
// and γ come out of forward recursions with a small normwise relative error, H's dominated by
// the world-frame CRBA (composite inertias about the world origin, so a light leg's entries
// are differences of m·|c|² terms of the whole robot); κ turns that into the error of q̈ and λ,
// whichever method factorizes K. Also returned: κ₂(K) and κ₂(Y), for the record.
struct Conds {
  double ddq, lambda, kkt, Y;
};
Conds constrained_conds(const Eigen::MatrixXd& H, const Eigen::MatrixXd& G, const Eigen::VectorXd& tau,
                        const Eigen::VectorXd& C, const Eigen::VectorXd& gamma, const Eigen::VectorXd& ddq,
                        const Eigen::VectorXd& lambda) {
  const Eigen::Index n = H.rows(), m = G.rows();
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n + m, n + m);
  K.topLeftCorner(n, n) = H;
  K.topRightCorner(n, m) = G.transpose();
  K.bottomLeftCorner(m, n) = G;
  const Eigen::MatrixXd Ki = K.fullPivLu().inverse();
  const double nP = norm2(Ki.topLeftCorner(n, n)), nR = norm2(Ki.bottomLeftCorner(m, n)),
               nYi = norm2(Ki.bottomRightCorner(m, m));
  const double nH = norm2(H), nG = norm2(G), x = ddq.norm(), l = lambda.norm();
  const double top = tau.norm() + C.norm() + nH * x + nG * l, bottom = gamma.norm() + nG * x;
  const Eigen::MatrixXd Y = G * H.llt().solve(G.transpose());
  return {(nP * top + nR * bottom) / x, (nR * top + nYi * bottom) / l, cond2_sym(K), cond2_sym(Y)};
}

template <class Ns>
bool write_model(Writer& w, const char* name, int nstates, std::uint64_t seed, std::string& float_notes) {
  using MD = typename Ns::template Model<double>;
  using MF = typename Ns::template Model<float>;
  static const MD model = Ns::template make<double>();
  static const MF model_f = Ns::template make<float>();
  static talus::Data<MD> data;
  static talus::Data<MF> data_f;
  constexpr int nq = MD::nq, nv = MD::nv, nb = MD::nb;

  // Constrained forward dynamics (models with Ns::constrained: solo12's feet).
  static talus::ConstraintSet<MD, kFeetRows> cs;
  static talus::ConstraintSet<MF, kFeetRows> cs_f;
  std::vector<std::vector<double>> CRS_DDQ, CRS_L, CLU_DDQ, CLU_L;
  std::vector<double> c_kx, c_kl;
  const char* cqty[] = {"range-space ddq", "range-space lambda", "direct-LU ddq", "direct-LU lambda"};
  double cworst_f[4] = {0, 0, 0, 0}, cworst_over[4] = {0, 0, 0, 0}, c_methods = 0, c_resid = 0, c_kkt_max = 0,
         c_Y_max = 0, c_in_err[4] = {0, 0, 0, 0};
  if constexpr (Ns::constrained) {
    if (!add_feet(model, cs) || !add_feet(model_f, cs_f)) {
      std::fprintf(stderr, "talus_target_reference: %s: cannot build the feet constraint set\n", name);
      return false;
    }
  }

  talus::Random rng(seed);
  std::vector<std::vector<double>> Q, V, A, T, R, P, BV, BA, H, TAU, DDQ;
  std::vector<double> cond, cond_s;
  const char* qty[] = {"oMi.R", "oMi.p", "v", "a", "H", "rnea", "aba"};
  double worst_f[7] = {0, 0, 0, 0, 0, 0, 0};
  double worst_aba_over_cond = 0, worst_aba_over_conds = 0;
  bool ok = true;
  for (int s = 0; s < nstates; ++s) {
    typename MD::ConfigVector q;
    typename MD::TangentVector v, a, tau;
    talus::random_configuration(model, rng, q);
    for (int k = 0; k < nv; ++k) {
      v[k] = rng.uniform(-1, 1);
      a[k] = rng.uniform(-1, 1);
      tau[k] = rng.uniform(-1, 1);
    }
    Outputs o;
    ok &= compute(model, data, q, v, a, tau, o);
    Q.emplace_back(q.data(), q.data() + nq);
    V.emplace_back(v.data(), v.data() + nv);
    A.emplace_back(a.data(), a.data() + nv);
    T.emplace_back(tau.data(), tau.data() + nv);
    R.push_back(o.R);
    P.push_back(o.p);
    BV.push_back(o.v);
    BA.push_back(o.a);
    H.push_back(o.H);
    TAU.push_back(o.tau);
    DDQ.push_back(o.ddq);
    Eigen::SelfAdjointEigenSolver<typename MD::MatrixNV> es(data.H, Eigen::EigenvaluesOnly);
    const double k2 = es.eigenvalues().maxCoeff() / es.eigenvalues().minCoeff();
    cond.push_back(k2);
    // κ₂ of the diagonally scaled H (D^-1/2 H D^-1/2, D = diag H): what bounds the error of a
    // Cholesky-like solve such as ABA (van der Sluis), independent of the units of each dof.
    const typename MD::TangentVector dinv = data.H.diagonal().cwiseSqrt().cwiseInverse();
    const typename MD::MatrixNV Hs = dinv.asDiagonal() * data.H * dinv.asDiagonal();
    Eigen::SelfAdjointEigenSolver<typename MD::MatrixNV> ess(Hs, Eigen::EigenvaluesOnly);
    const double ks = ess.eigenvalues().maxCoeff() / ess.eigenvalues().minCoeff();
    cond_s.push_back(ks);

    // The same state in float (inputs rounded to float, as on the M4F target).
    Outputs of;
    ok &= compute(model_f, data_f, q.template cast<float>(), v.template cast<float>(), a.template cast<float>(),
                  tau.template cast<float>(), of);
    const std::vector<double>* ref[] = {&o.R, &o.p, &o.v, &o.a, &o.H, &o.tau, &o.ddq};
    const std::vector<double>* got[] = {&of.R, &of.p, &of.v, &of.a, &of.H, &of.tau, &of.ddq};
    for (int k = 0; k < 7; ++k) worst_f[k] = std::max(worst_f[k], rel_err(*got[k], *ref[k]));
    worst_aba_over_cond = std::max(worst_aba_over_cond, rel_err(of.ddq, o.ddq) / k2);
    worst_aba_over_conds = std::max(worst_aba_over_conds, rel_err(of.ddq, o.ddq) / ks);

    if constexpr (Ns::constrained) {
      Constrained c, cf;
      ok &= compute_constrained(model, data, cs, q, v, tau, c);
      // data.H, cs.G, cs.C, cs.gamma are the direct method's (the last call): the system at this state
      const Eigen::MatrixXd Hd = data.H, Gd = cs.G;
      const Eigen::VectorXd tau_d = tau, C_d = cs.C, gamma_d = cs.gamma;
      const Eigen::Map<const Eigen::VectorXd> x(c.lu_ddq.data(), MD::nv), l(c.lu_lambda.data(), kFeetRows);
      const Conds k = constrained_conds(Hd, Gd, tau_d, C_d, gamma_d, x, l);
      c_kx.push_back(k.ddq);
      c_kl.push_back(k.lambda);
      c_kkt_max = std::max(c_kkt_max, k.kkt);
      c_Y_max = std::max(c_Y_max, k.Y);
      CRS_DDQ.push_back(c.rs_ddq);
      CRS_L.push_back(c.rs_lambda);
      CLU_DDQ.push_back(c.lu_ddq);
      CLU_L.push_back(c.lu_lambda);
      // double sanity: the two methods agree, and the KKT residuals of the direct solution
      c_methods = std::max({c_methods, rel_err(c.rs_ddq, c.lu_ddq), rel_err(c.rs_lambda, c.lu_lambda)});
      const Eigen::VectorXd r1 = Hd * x + C_d - Gd.transpose() * l - tau_d, r2 = Gd * x - gamma_d;
      c_resid = std::max({c_resid, r1.cwiseAbs().maxCoeff() / std::max(1.0, (Hd * x).cwiseAbs().maxCoeff()),
                          r2.cwiseAbs().maxCoeff() / std::max(1.0, gamma_d.cwiseAbs().maxCoeff())});
      ok &= compute_constrained(model_f, data_f, cs_f, q.template cast<float>(), v.template cast<float>(),
                                tau.template cast<float>(), cf);
      // relative 2-norm errors of the float inputs of the solve (the direct method's, the last call)
      const double in_err[4] = {norm2(data_f.H.template cast<double>() - Hd) / norm2(Hd),
                                (cs_f.C.template cast<double>() - C_d).norm() / C_d.norm(),
                                norm2(cs_f.G.template cast<double>() - Gd) / norm2(Gd),
                                (cs_f.gamma.template cast<double>() - gamma_d).norm() / gamma_d.norm()};
      for (int j = 0; j < 4; ++j) c_in_err[j] = std::max(c_in_err[j], in_err[j]);
      const std::vector<double>* cref[] = {&c.rs_ddq, &c.rs_lambda, &c.lu_ddq, &c.lu_lambda};
      const std::vector<double>* cgot[] = {&cf.rs_ddq, &cf.rs_lambda, &cf.lu_ddq, &cf.lu_lambda};
      for (int j = 0; j < 4; ++j) {
        const double e = rel_err(*cgot[j], *cref[j]);
        cworst_f[j] = std::max(cworst_f[j], e);
        cworst_over[j] = std::max(cworst_over[j], e / (j % 2 ? k.lambda : k.ddq));
      }
    }
  }
  if (!ok) {
    std::fprintf(stderr, "talus_target_reference: %s: an algorithm did not return ok\n", name);
    return false;
  }

  char line[512];
  const double eps_f = 0x1p-23;
  std::snprintf(line, sizeof line, "//   %s: κ₂(H) max %.3g; κ₂ of diagonally scaled H max %.3g\n", name,
                *std::max_element(cond.begin(), cond.end()), *std::max_element(cond_s.begin(), cond_s.end()));
  float_notes += line;
  for (int k = 0; k < 7; ++k) {
    std::snprintf(line, sizeof line, "//   %s %-6s worst float rel err %.3g = %.1f eps_f\n", name, qty[k], worst_f[k],
                  worst_f[k] / eps_f);
    float_notes += line;
  }
  std::snprintf(line, sizeof line,
                "//   %s aba    worst float rel err / κ₂(H) = %.3g eps_f, / κ₂(scaled H) = %.3g eps_f\n", name,
                worst_aba_over_cond / eps_f, worst_aba_over_conds / eps_f);
  float_notes += line;

  if constexpr (Ns::constrained) {
    auto mx = [](const std::vector<double>& x) { return *std::max_element(x.begin(), x.end()); };
    std::snprintf(line, sizeof line,
                  "//   %s constrained (4 feet, 12 rows): κ_ddq max %.3g, κ_lambda max %.3g; κ₂(KKT) max %.3g, "
                  "κ₂(G H⁻¹ Gᵀ) max %.3g\n",
                  name, mx(c_kx), mx(c_kl), c_kkt_max, c_Y_max);
    float_notes += line;
    std::snprintf(line, sizeof line,
                  "//   %s constrained, double: range space vs direct LU rel diff max %.3g; KKT residual max %.3g\n",
                  name, c_methods, c_resid);
    float_notes += line;
    std::snprintf(
        line, sizeof line,
        "//   %s constrained, float inputs of the solve, worst rel 2-norm err: H %.2g, C %.2g, G %.2g, gamma %.2g "
        "eps_f\n",
        name, c_in_err[0] / eps_f, c_in_err[1] / eps_f, c_in_err[2] / eps_f, c_in_err[3] / eps_f);
    float_notes += line;
    for (int j = 0; j < 4; ++j) {
      std::snprintf(line, sizeof line, "//   %s %-18s worst float rel err %.3g = %.1f eps_f; / κ = %.3g eps_f\n", name,
                    cqty[j], cworst_f[j], cworst_f[j] / eps_f, cworst_over[j] / eps_f);
      float_notes += line;
    }
  }

  w.raw(std::string("struct ") + name + " {\n");
  w.raw("  static constexpr const char* name = \"" + std::string(name) + "\";\n");
  w.raw("  static constexpr int nstates = " + std::to_string(nstates) + ", nq = " + std::to_string(nq) +
        ", nv = " + std::to_string(nv) + ", nb = " + std::to_string(nb) + ";\n");
  w.raw("  // inputs\n");
  w.array2("q", Q);
  w.array2("v", V);
  w.array2("a", A);
  w.array2("tau", T);
  w.raw("  // forward_kinematics(q, v, a): per body, oMi.R (column-major 3x3), oMi.p, v, a\n");
  w.array2("fk_R", R);
  w.array2("fk_p", P);
  w.array2("fk_v", BV);
  w.array2("fk_a", BA);
  w.raw("  // crba(q): H, column-major nv x nv\n");
  w.array2("crba_H", H);
  w.raw("  // rnea(q, v, a)\n");
  w.array2("rnea_tau", TAU);
  w.raw("  // aba(q, v, tau)\n");
  w.array2("aba_ddq", DDQ);
  w.raw("  // κ₂(H) = λmax / λmin per state, and κ₂(D^-1/2 H D^-1/2), D = diag(H)\n");
  w.array1("cond_H", cond);
  w.array1("cond_scaled_H", cond_s);
  if constexpr (Ns::constrained) {
    w.raw("  // constrained forward dynamics, 4 feet (FL, FR, HL, HR) x world (x, y, z) = 12 rows, at (q, v, tau)\n");
    w.raw("  static constexpr bool constrained = true;\n  static constexpr int nc = " + std::to_string(kFeetRows) +
          ";\n");
    w.raw("  // forward_dynamics_range_space: ddq, lambda\n");
    w.array2("cfd_rs_ddq", CRS_DDQ);
    w.array2("cfd_rs_lambda", CRS_L);
    w.raw("  // forward_dynamics_direct, KKTMethod::partial_piv_lu: ddq, lambda\n");
    w.array2("cfd_lu_ddq", CLU_DDQ);
    w.array2("cfd_lu_lambda", CLU_L);
    w.raw(
        "  // condition numbers κ_ddq, κ_lambda of the constrained system per state (reference.cpp, constrained_conds)\n");
    w.array1("cfd_cond_ddq", c_kx);
    w.array1("cfd_cond_lambda", c_kl);
  } else {
    w.raw("  static constexpr bool constrained = false;\n");
  }
  w.raw("};\n\n");
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  talus_target_ref_io::Arguments args;
  if (!talus_target_ref_io::parse_arguments(argc, argv, true, args)) return 2;

  Writer w;
  std::string float_notes;
  w.raw(
      "#pragma once\n// Generated at build time by talus_target_reference (targets/host/reference.cpp) on the\n"
      "// build machine, in double; do not edit. Seed " +
      std::to_string(args.seed) +
      ".\n\n"
      "namespace talus_target_ref {\n\n");
  // Whether these values are the reproducible profile's (targets/README.md): the bit test
  // (target_<name>_bits) compares against them bit for bit and refuses any other reference.
#if defined(TALUS_REPRODUCIBLE) && !defined(EIGEN_VECTORIZE)
  w.raw("inline constexpr bool reproducible = true;\n");
#else
  w.raw("inline constexpr bool reproducible = false;\n");
#endif
#if defined(__x86_64__)
  const char* arch = "x86-64";
#elif defined(__aarch64__)
  const char* arch = "aarch64";
#else
  const char* arch = "unknown architecture";
#endif
  w.raw(std::string("inline constexpr const char* host = \"") + arch + ", compiler " + __VERSION__ + "\";\n\n");
  if (!write_model<Solo12>(w, "solo12", args.states, args.seed, float_notes)) return 1;
  if (!write_model<Ur5>(w, "ur5", args.states, args.seed + 1, float_notes)) return 1;
  w.raw("}  // namespace talus_target_ref\n\n// Host float run (inputs rounded to float), for the float tolerances:\n" +
        float_notes);
  std::fputs(float_notes.c_str(), stdout);

  return talus_target_ref_io::write_if_changed(args.out, w.text, "talus_target_reference") ? 0 : 1;
}
