// talus_target_reference: host tool (runs on the build machine, at build time) that writes
// the C++ header the on-target test program (targets/target_test.cpp) checks itself against:
// for each model, `talus_target_test_states` random states (q, v, a, tau) and the outputs
// of forward kinematics (oMi, body velocities and accelerations), CRBA (H), RNEA (tau) and
// ABA (ddq) computed in double on the host, every number as a hex-float literal (exact).
// Also κ₂(H) per state, which the float tolerance of ABA uses. Built with the reproducible
// profile (talus::reproducible, see targets/README.md), so that the double values are also
// the exact bits Cortex-M7 and aarch64 must reproduce (target_<name>_bits).
//
//   talus_target_reference --out <header> [--states N] [--seed S]
//
// It additionally runs the same computations in float on the host and prints (and writes in
// a comment of the header) the worst float errors it saw, as evidence for the float
// tolerances chosen in target_test.cpp. Host tool: the heap, stdio and Eigen's eigensolver
// are fine here.
#include <talus/models/solo12.hpp>
#include <talus/models/ur5.hpp>
#include <talus/talus.hpp>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Writer {
  std::string text;
  void raw(const std::string& s) { text += s; }
  void number(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", x);
    text += buf;
  }
  // static constexpr double name[rows][cols] = {{...}, ...};
  void array2(const char* name, const std::vector<std::vector<double>>& rows) {
    const std::size_t cols = rows.empty() ? 0 : rows[0].size();
    text += "  static constexpr double " + std::string(name) + "[" + std::to_string(rows.size()) + "][" +
            std::to_string(cols) + "] = {\n";
    for (const auto& r : rows) {
      text += "    {";
      for (std::size_t k = 0; k < r.size(); ++k) {
        if (k) text += ", ";
        number(r[k]);
      }
      text += "},\n";
    }
    text += "  };\n";
  }
  void array1(const char* name, const std::vector<double>& v) {
    text += "  static constexpr double " + std::string(name) + "[" + std::to_string(v.size()) + "] = {";
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (k) text += ", ";
      number(v[k]);
    }
    text += "};\n";
  }
};

template <class M>
void append(std::vector<double>& out, const Eigen::MatrixBase<M>& m) {
  for (Eigen::Index j = 0; j < m.cols(); ++j)
    for (Eigen::Index i = 0; i < m.rows(); ++i) out.push_back(static_cast<double>(m(i, j)));
}

// What one state gives: every checked output, flattened (column-major, body after body).
struct Outputs {
  std::vector<double> R, p, v, a, H, tau, ddq;
};

template <class ModelT, class Q, class V>
bool compute(const ModelT& model, talus::Data<ModelT>& data, const Q& q, const V& v, const V& acc, const V& tau,
             Outputs& o) {
  using S = typename ModelT::Scalar;
  bool ok = true;
  ok &= talus::forward_kinematics(model, data, q, v, acc) == talus::Status::ok;
  for (int i = 0; i < ModelT::nb; ++i) {
    append(o.R, data.oMi[i].R);
    append(o.p, data.oMi[i].p);
    append(o.v, data.v[i]);
    append(o.a, data.a[i]);
  }
  ok &= talus::crba(model, data, q) == talus::Status::ok;
  append(o.H, data.H);
  typename ModelT::TangentVector out;
  ok &= talus::rnea(model, data, q, v, acc, out) == talus::Status::ok;
  append(o.tau, out);
  ok &= talus::aba(model, data, q, v, tau, out) == talus::Status::ok;
  append(o.ddq, out);
  (void)sizeof(S);
  return ok;
}

// max |x − r| / max |r| (norm-wise relative error, the measure target_test.cpp uses).
double rel_err(const std::vector<double>& x, const std::vector<double>& r) {
  double d = 0, s = 0;
  for (std::size_t k = 0; k < r.size(); ++k) {
    d = std::max(d, std::fabs(x[k] - r[k]));
    s = std::max(s, std::fabs(r[k]));
  }
  return s > 0 ? d / s : d;
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
  std::snprintf(line, sizeof line, "//   %s aba    worst float rel err / κ₂(H) = %.3g eps_f, / κ₂(scaled H) = %.3g eps_f\n",
                name, worst_aba_over_cond / eps_f, worst_aba_over_conds / eps_f);
  float_notes += line;

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
  w.raw("};\n\n");
  return true;
}

// The models, as types (a namespace cannot be a template argument).
struct Solo12 {
  template <class S>
  using Model = talus::models::solo12::Model<S>;
  template <class S>
  static Model<S> make() { return talus::models::solo12::make_model<S>(); }
};
struct Ur5 {
  template <class S>
  using Model = talus::models::ur5::Model<S>;
  template <class S>
  static Model<S> make() { return talus::models::ur5::make_model<S>(); }
};

}  // namespace

int main(int argc, char** argv) {
  const char* out = nullptr;
  int nstates = 20;
  std::uint64_t seed = 20240601;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!std::strcmp(argv[i], "--states") && i + 1 < argc) nstates = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: %s --out <header> [--states N] [--seed S]\n", argv[0]);
      return 2;
    }
  }
  if (!out || nstates < 1) {
    std::fprintf(stderr, "usage: %s --out <header> [--states N] [--seed S]\n", argv[0]);
    return 2;
  }

  Writer w;
  std::string float_notes;
  w.raw("#pragma once\n// Generated at build time by talus_target_reference (targets/host/reference.cpp) on the\n"
        "// build machine, in double; do not edit. Seed " + std::to_string(seed) + ".\n\n"
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
  if (!write_model<Solo12>(w, "solo12", nstates, seed, float_notes)) return 1;
  if (!write_model<Ur5>(w, "ur5", nstates, seed + 1, float_notes)) return 1;
  w.raw("}  // namespace talus_target_ref\n\n// Host float run (inputs rounded to float), for the float tolerances:\n" + float_notes);
  std::fputs(float_notes.c_str(), stdout);

  // Write only if changed, so that an unchanged reference does not rebuild the targets.
  std::string old;
  if (FILE* f = std::fopen(out, "rb")) {
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) old.append(buf, n);
    std::fclose(f);
  }
  if (old != w.text) {
    FILE* f = std::fopen(out, "wb");
    if (!f || std::fwrite(w.text.data(), 1, w.text.size(), f) != w.text.size() || std::fclose(f) != 0) {
      std::fprintf(stderr, "talus_target_reference: cannot write %s\n", out);
      return 1;
    }
  }
  return 0;
}
