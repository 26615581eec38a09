// talus vs MuJoCo 2.2.2: CRBA, RNEA (bias forces), ABA (forward dynamics) and a frame Jacobian
// on five robots, each library timed on the same 64 random states (cycled).
//
//   talus_bench [--quick] [--table-only] [Google Benchmark flags]
//     --quick       short runs (min time 0.01 s, 3 repetitions): a smoke test, not a measurement
//     --table-only  no per-benchmark console output, only the final markdown table
// Defaults: --benchmark_repetitions=5 --benchmark_report_aggregates_only=true (flags given on
// the command line override them). The table uses the median CPU time per call.
//
// What is timed (both from q, v in each library's own convention, double precision):
//   CRBA      talus::crba                      | mj_kinematics, mj_comPos, mj_crb
//   RNEA      talus::nonlinear_effects (C(q,v)) | mj_kinematics, mj_comPos, mj_comVel, mj_rne(flg_acc=0)
//   ABA       talus::aba                       | kinematics, comPos, crb, factorM, comVel, rne(0),
//                                              |   qacc = M⁻¹(qfrc − bias) with mj_solveM
//   Jacobian  talus::frame_jacobian(local_world_aligned, from q) | mj_kinematics, mj_comPos,
//                                              |   mj_jac at the frame origin on its parent body
// The MuJoCo side also copies qpos (and qvel, qfrc) into mjData, which it needs: nq/nv doubles.
// talus validates its inputs (finite, unit quaternions) on every call; MuJoCo does not.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <talus/models/anymal_c.hpp>
#include <talus/models/panda_arm7.hpp>
#include <talus/models/solo12.hpp>
#include <talus/models/talos.hpp>
#include <talus/models/ur5.hpp>
#include <talus/talus.hpp>

#include "bench_main.hpp"
#include "constrained_bench.hpp"
#include "mujoco_support.hpp"

#ifndef TALUS_MODELS_DIR
#define TALUS_MODELS_DIR "../shared/models"
#endif

namespace {

constexpr int kStates = 64;
const char* const kWorks[] = {"CRBA", "RNEA", "ABA", "Jacobian"};

struct ModelInfo {
  std::string name;
  std::string frame;
  std::string agreement;  // talus vs MuJoCo on the benchmark states
};
std::vector<ModelInfo> g_models;

/// Everything one robot's benchmarks use; lives until the end of main.
template <class ModelT>
struct Setup {
  using Model = ModelT;
  using Config = typename Model::ConfigVector;
  using Tangent = typename Model::TangentVector;
  static constexpr int nq = Model::nq;
  static constexpr int nv = Model::nv;

  Model model;
  std::unique_ptr<talus::Data<Model>> data = std::make_unique<talus::Data<Model>>();
  talus_test::MjRobot mj;
  int fid = -1;                                            // talus frame
  int frame_body = -1;                                     // its MuJoCo body
  Eigen::Vector3d frame_offset = Eigen::Vector3d::Zero();  // frame origin in that body's frame

  std::vector<Config> q;
  std::vector<Tangent> v, tau;
  std::vector<mjtNum> qpos, qvel, qfrc;  // kStates x nq / nv, MuJoCo order and convention

  // outputs
  Tangent C, ddq;
  typename Model::Jacobian6 J;
  std::vector<mjtNum> jacp, jacr;
};

template <class ModelT>
Setup<ModelT>* make_setup(const std::string& name, const ModelT& model, const std::string& urdf, bool floating,
                          bool balance_inertia, const char* frame, std::string& err) {
  auto owner = std::make_unique<Setup<ModelT>>();
  Setup<ModelT>* s = owner.get();
  s->model = model;
  if (!talus_test::load_mujoco(urdf, floating, balance_inertia, s->mj, err)) return nullptr;
  if (!talus_test::bind_names(s->model, s->mj, err)) return nullptr;
  s->fid = s->model.frame_id(frame);
  if (s->fid < 0 || s->model.frames[s->fid].body < 0) {
    err = name + ": no moving frame '" + frame + "'";
    return nullptr;
  }
  const auto& f = s->model.frames[s->fid];
  s->frame_body = s->mj.body_mj_id[f.body];
  s->frame_offset = f.placement.p;

  constexpr int nq = ModelT::nq, nv = ModelT::nv;
  talus::Random rng(20240611);
  s->q.resize(kStates);
  s->v.resize(kStates);
  s->tau.resize(kStates);
  s->qpos.resize(kStates * nq);
  s->qvel.resize(kStates * nv);
  s->qfrc.resize(kStates * nv);
  s->jacp.resize(3 * nv);
  s->jacr.resize(3 * nv);
  double eH = 0, eC = 0, eA = 0, eJ = 0;
  for (int k = 0; k < kStates; ++k) {
    talus::random_configuration(s->model, rng, s->q[k]);
    for (int i = 0; i < nv; ++i) {
      s->v[k][i] = rng.uniform(-1, 1);
      s->tau[k][i] = rng.uniform(-10, 10);
    }
    const Eigen::VectorXd qd = s->q[k], vd = s->v[k], td = s->tau[k];
    talus_test::to_mujoco_qpos(s->model, s->mj, qd, &s->qpos[k * nq]);
    talus_test::to_mujoco_qvel(s->model, s->mj, qd, vd, &s->qvel[k * nv]);
    const Eigen::MatrixXd T = talus_test::velocity_map(s->model, s->mj, qd);
    Eigen::Map<Eigen::VectorXd>(&s->qfrc[k * nv], nv) = T * td;

    // Both sides must compute the same thing on these states (to rounding: see mujoco_support).
    auto& d = *s->data;
    if (talus::crba(s->model, d, s->q[k]) != talus::Status::ok ||
        talus::nonlinear_effects(s->model, d, s->q[k], s->v[k], s->C) != talus::Status::ok ||
        talus::aba(s->model, d, s->q[k], s->v[k], s->tau[k], s->ddq) != talus::Status::ok ||
        talus::frame_jacobian(s->model, d, s->q[k], s->fid, talus::ReferenceFrame::local_world_aligned, s->J) !=
            talus::Status::ok) {
      err = name + ": a talus algorithm failed on a benchmark state";
      return nullptr;
    }
    std::vector<mjtNum> M(nv * nv), bias(nv), qacc(nv);
    talus_test::mujoco_pipeline(s->mj, &s->qpos[k * nq], &s->qvel[k * nv], &s->qfrc[k * nv], M.data(), bias.data(),
                                qacc.data());
    const Eigen::MatrixXd H = T.transpose() * Eigen::Map<Eigen::MatrixXd>(M.data(), nv, nv) * T;
    const Eigen::VectorXd Cm = talus_test::from_mujoco_bias(s->model, s->mj, qd, vd, M.data(), bias.data());
    const Eigen::VectorXd Am = talus_test::from_mujoco_qacc(s->model, s->mj, qd, vd, qacc.data());
    const Eigen::MatrixXd Jm = talus_test::mujoco_frame_jacobian(s->model, s->mj, s->fid) * T;
    const Eigen::MatrixXd Ht = d.H;
    const Eigen::VectorXd Ct = s->C, At = s->ddq;
    const Eigen::MatrixXd Jt = s->J;
    eH = std::max(eH, (H - Ht).cwiseAbs().maxCoeff() / Ht.cwiseAbs().maxCoeff());
    eC = std::max(eC, (Cm - Ct).cwiseAbs().maxCoeff() / Ct.cwiseAbs().maxCoeff());
    eA = std::max(eA, (Am - At).cwiseAbs().maxCoeff() / At.cwiseAbs().maxCoeff());
    eJ = std::max(eJ, (Jm - Jt).cwiseAbs().maxCoeff() / Jt.cwiseAbs().maxCoeff());
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "H %.1e, C %.1e, ddq %.1e, J %.1e%s", eH, eC, eA, eJ,
                balance_inertia ? " (MuJoCo balanceinertia)" : "");
  g_models.push_back({name, frame, buf});
  return owner.release();  // deliberately never freed: the benchmarks use it until exit
}

// ---- talus ----------------------------------------------------------------------------------
template <class St>
void talus_crba(benchmark::State& state, St* s) {
  int k = 0;
  for (auto _ : state) {
    talus::Status st = talus::crba(s->model, *s->data, s->q[k]);
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(s->data->H.data());
    benchmark::ClobberMemory();
    k = (k + 1) & (kStates - 1);
  }
}
template <class St>
void talus_rnea(benchmark::State& state, St* s) {
  int k = 0;
  for (auto _ : state) {
    talus::Status st = talus::nonlinear_effects(s->model, *s->data, s->q[k], s->v[k], s->C);
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(s->C.data());
    benchmark::ClobberMemory();
    k = (k + 1) & (kStates - 1);
  }
}
template <class St>
void talus_aba(benchmark::State& state, St* s) {
  int k = 0;
  for (auto _ : state) {
    talus::Status st = talus::aba(s->model, *s->data, s->q[k], s->v[k], s->tau[k], s->ddq);
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(s->ddq.data());
    benchmark::ClobberMemory();
    k = (k + 1) & (kStates - 1);
  }
}
template <class St>
void talus_jacobian(benchmark::State& state, St* s) {
  int k = 0;
  for (auto _ : state) {
    talus::Status st =
        talus::frame_jacobian(s->model, *s->data, s->q[k], s->fid, talus::ReferenceFrame::local_world_aligned, s->J);
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(s->J.data());
    benchmark::ClobberMemory();
    k = (k + 1) & (kStates - 1);
  }
}

// ---- MuJoCo ---------------------------------------------------------------------------------
template <class St>
void mujoco_crba(benchmark::State& state, St* s) {
  const mjModel* m = s->mj.m;
  mjData* d = s->mj.d;
  int k = 0;
  for (auto _ : state) {
    mju_copy(d->qpos, &s->qpos[k * St::nq], St::nq);
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_crb(m, d);
    benchmark::DoNotOptimize(d->qM);
    benchmark::ClobberMemory();
    k = (k + 1) & (kStates - 1);
  }
}
template <class St>
void mujoco_rnea(benchmark::State& state, St* s) {
  const mjModel* m = s->mj.m;
  mjData* d = s->mj.d;
  int k = 0;
  for (auto _ : state) {
    mju_copy(d->qpos, &s->qpos[k * St::nq], St::nq);
    mju_copy(d->qvel, &s->qvel[k * St::nv], St::nv);
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_comVel(m, d);
    mj_rne(m, d, 0, d->qfrc_bias);
    benchmark::DoNotOptimize(d->qfrc_bias);
    benchmark::ClobberMemory();
    k = (k + 1) & (kStates - 1);
  }
}
template <class St>
void mujoco_aba(benchmark::State& state, St* s) {
  const mjModel* m = s->mj.m;
  mjData* d = s->mj.d;
  int k = 0;
  for (auto _ : state) {
    mju_copy(d->qpos, &s->qpos[k * St::nq], St::nq);
    mju_copy(d->qvel, &s->qvel[k * St::nv], St::nv);
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_crb(m, d);
    mj_factorM(m, d);
    mj_comVel(m, d);
    mj_rne(m, d, 0, d->qfrc_bias);
    mju_sub(d->qfrc_smooth, &s->qfrc[k * St::nv], d->qfrc_bias, St::nv);
    mj_solveM(m, d, d->qacc, d->qfrc_smooth, 1);
    benchmark::DoNotOptimize(d->qacc);
    benchmark::ClobberMemory();
    k = (k + 1) & (kStates - 1);
  }
}
template <class St>
void mujoco_jacobian(benchmark::State& state, St* s) {
  const mjModel* m = s->mj.m;
  mjData* d = s->mj.d;
  const int b = s->frame_body;
  const mjtNum off[3] = {s->frame_offset[0], s->frame_offset[1], s->frame_offset[2]};
  int k = 0;
  for (auto _ : state) {
    mju_copy(d->qpos, &s->qpos[k * St::nq], St::nq);
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mjtNum point[3];
    mju_rotVecMat(point, off, d->xmat + 9 * b);
    mju_addTo3(point, d->xpos + 3 * b);
    mj_jac(m, d, s->jacp.data(), s->jacr.data(), point, b);
    benchmark::DoNotOptimize(s->jacp.data());
    benchmark::DoNotOptimize(s->jacr.data());
    benchmark::ClobberMemory();
    k = (k + 1) & (kStates - 1);
  }
}

template <class St>
void register_model(const std::string& name, St* s) {
  using Fn = void (*)(benchmark::State&, St*);
  const Fn talus_fns[] = {talus_crba<St>, talus_rnea<St>, talus_aba<St>, talus_jacobian<St>};
  const Fn mujoco_fns[] = {mujoco_crba<St>, mujoco_rnea<St>, mujoco_aba<St>, mujoco_jacobian<St>};
  for (int w = 0; w < 4; ++w) {
    benchmark::RegisterBenchmark(("talus/" + name + "/" + kWorks[w]).c_str(), talus_fns[w], s)
        ->Unit(benchmark::kNanosecond);
    benchmark::RegisterBenchmark(("mujoco/" + name + "/" + kWorks[w]).c_str(), mujoco_fns[w], s)
        ->Unit(benchmark::kNanosecond);
  }
}

template <class ModelT>
bool add_model(const std::string& name, const ModelT& model, const std::string& urdf, bool floating,
               bool balance_inertia, const char* frame) {
  std::string err;
  Setup<ModelT>* s = make_setup(name, model, urdf, floating, balance_inertia, frame, err);
  if (!s) {
    std::fprintf(stderr, "talus_bench: %s: %s\n", name.c_str(), err.c_str());
    return false;
  }
  register_model(name, s);
  return true;
}

// ---- reporting ------------------------------------------------------------------------------

}  // namespace

int main(int argc, char** argv) {
  namespace bm = talus_bench_main;
  bm::Flags flags;
  if (!bm::parse_flags(argc, argv, {"--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true"}, flags))
    return 1;
  const bool quick = flags.quick;

  const std::string dir = TALUS_MODELS_DIR;
  namespace tm = talus::models;
  bool ok = true;
  ok &= add_model("solo12", tm::solo12::make_model<double>(), dir + "/solo12/solo12.urdf", true, false, "FL_FOOT");
  ok &=
      add_model("anymal_c", tm::anymal_c::make_model<double>(), dir + "/anymal_c/anymal.urdf", true, false, "LF_FOOT");
  ok &= add_model("talos", tm::talos::make_model<double>(), dir + "/talos/talos_reduced.urdf", true, false,
                  "left_sole_link");
  ok &= add_model("ur5", tm::ur5::make_model<double>(), dir + "/ur5/ur5_robot.urdf", false, false, "tool0");
  ok &= add_model("panda_arm7", tm::panda_arm7::make_model<double>(), dir + "/panda/panda_arm7.urdf", false, false,
                  "panda_hand_tcp");
  if (!ok) return 1;
  talus_bench::register_constrained_benchmarks(dir);

  bm::CollectingReporter reporter(bm::console_options());
  bm::run(flags, reporter);

  std::ostringstream o;
  o << "\n## talus vs MuJoCo " << mj_versionString() << (quick ? " (--quick: smoke run, not a measurement)" : "")
    << "\n\n";
  o << "- CPU: " << bm::cpu_model() << " (" << sysconf(_SC_NPROCESSORS_ONLN) << " logical CPUs online)\n";
  o << bm::build_line();
  o << "- MuJoCo: the distribution's libmujoco " << mj_versionString() << " (not rebuilt with these flags); Eigen "
    << EIGEN_WORLD_VERSION << "." << EIGEN_MAJOR_VERSION << "." << EIGEN_MINOR_VERSION << "\n";
  o << "- time: median CPU time per call (ns) over the repetitions, each call on the next of " << kStates
    << " random states; ratio = MuJoCo / talus (> 1: talus faster)\n\n";
  o << "| model | work | talus ns | MuJoCo ns | ratio |\n|---|---|---:|---:|---:|\n";
  char buf[256];
  for (const auto& mi : g_models) {
    for (const char* w : kWorks) {
      double tt = 0, tm_ = 0;
      const bool has_t = reporter.get("talus/" + mi.name + "/" + w, tt);
      const bool has_m = reporter.get("mujoco/" + mi.name + "/" + w, tm_);
      if (!has_t && !has_m) continue;  // filtered out
      const std::string work = std::string(w) == "Jacobian" ? "Jacobian (" + mi.frame + ")" : w;
      if (has_t && has_m)
        std::snprintf(buf, sizeof buf, "| %s | %s | %.0f | %.0f | %.2f |\n", mi.name.c_str(), work.c_str(), tt, tm_,
                      tm_ / tt);
      else if (has_t) std::snprintf(buf, sizeof buf, "| %s | %s | %.0f | - | - |\n", mi.name.c_str(), work.c_str(), tt);
      else std::snprintf(buf, sizeof buf, "| %s | %s | - | %.0f | - |\n", mi.name.c_str(), work.c_str(), tm_);
      o << buf;
    }
  }
  o << "\nAgreement on the benchmark states (max |talus − MuJoCo| / max |talus|):\n\n";
  for (const auto& mi : g_models) o << "- " << mi.name << ": " << mi.agreement << "\n";
  o << talus_bench::constrained_table([&](const std::string& n, double& t) { return reporter.get(n, t); });
  std::fputs(o.str().c_str(), stdout);
  return 0;
}
