// Placement kinds (issue 29, item 1), before and after in one process: each robot's model with
// its generated placement kinds ("structured") against the same URDF generated with
// --general-placements ("general": the arithmetic talus did before the kinds), on the same 64
// random states (cycled). CRBA, RNEA (talus::rnea, q̈ given), bias forces (nonlinear_effects),
// ABA and a frame Jacobian from q (local_world_aligned), as bench_dynamics.cpp times them.
//
//   talus_placements_bench [repetitions]     (default 15; the median ns per call is printed)
// The two variants alternate within each repetition, so that drift of the machine hits both.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <talus/models/anymal_c.hpp>
#include <talus/models/anymal_c_general.hpp>
#include <talus/models/solo12.hpp>
#include <talus/models/solo12_general.hpp>
#include <talus/models/talos.hpp>
#include <talus/models/talos_general.hpp>
#include <talus/talus.hpp>

namespace {

constexpr int kStates = 64;
const char* const kWorks[] = {"CRBA", "RNEA", "NLE", "ABA", "Jacobian"};
constexpr int kNumWorks = 5;

template <class ModelT>
struct Runner {
  ModelT model;
  std::unique_ptr<talus::Data<ModelT>> data = std::make_unique<talus::Data<ModelT>>();
  std::vector<typename ModelT::ConfigVector> q;
  std::vector<typename ModelT::TangentVector> v, a;
  typename ModelT::TangentVector out;
  typename ModelT::Jacobian6 J;
  int frame = -1;
  double sink = 0;

  Runner(const ModelT& m, const char* frame_name) : model(m), frame(m.frame_id(frame_name)) {
    talus::Random rng(7);
    q.resize(kStates);
    v.resize(kStates);
    a.resize(kStates);
    for (int k = 0; k < kStates; ++k) {
      talus::random_configuration(model, rng, q[k]);
      for (int j = 0; j < ModelT::nv; ++j) {
        v[k][j] = rng.uniform(-1, 1);
        a[k][j] = rng.uniform(-1, 1);
      }
    }
  }
  /// One call of work w at state k.
  void call(int w, int k) {
    talus::Status s = talus::Status::ok;
    switch (w) {
      case 0: s = talus::crba(model, *data, q[k]); break;
      case 1: s = talus::rnea(model, *data, q[k], v[k], a[k], out); break;
      case 2: s = talus::nonlinear_effects(model, *data, q[k], v[k], out); break;
      case 3: s = talus::aba(model, *data, q[k], v[k], a[k], out); break;
      default: s = talus::frame_jacobian(model, *data, q[k], frame, talus::ReferenceFrame::local_world_aligned, J);
    }
    if (s != talus::Status::ok) std::abort();
    sink += w == 0 ? data->H(0, 0) : w == 4 ? J(0, 0) : out[0];
  }
  /// ns per call over n calls.
  double time(int w, int n) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) call(w, i % kStates);
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
  }
};

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x[x.size() / 2];
}

template <class Structured, class General>
void bench_robot(const char* name, const Structured& ms, const General& mg, const char* frame, int reps) {
  Runner<Structured> rs(ms, frame);
  Runner<General> rg(mg, frame);
  for (int w = 0; w < kNumWorks; ++w) {
    // calls per timing: about 20 ms
    const double probe = rg.time(w, 2000);
    const int n = std::max(1000, static_cast<int>(2e7 / probe));
    std::vector<double> ts, tg;
    for (int r = 0; r < reps; ++r) {
      tg.push_back(rg.time(w, n));
      ts.push_back(rs.time(w, n));
    }
    const double s = median(ts), g = median(tg);
    std::printf("| %s | %s | %.0f | %.0f | %.3f |\n", name, kWorks[w], g, s, s / g);
  }
  if (rs.sink == 12345.678 || rg.sink == 12345.678) std::printf("\n");  // keep the results alive
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 15;
  std::printf("talus_placements_bench: flags %s, %d repetitions, median ns per call\n\n", TALUS_BENCH_FLAGS, reps);
  std::printf("| robot | work | general (ns) | structured (ns) | structured / general |\n|---|---|---|---|---|\n");
  bench_robot("solo12", talus::models::solo12::make_model<double>(),
              talus::models::solo12_general::make_model<double>(), "FL_FOOT", reps);
  bench_robot("anymal_c", talus::models::anymal_c::make_model<double>(),
              talus::models::anymal_c_general::make_model<double>(), "LF_FOOT", reps);
  bench_robot("talos", talus::models::talos::make_model<double>(), talus::models::talos_general::make_model<double>(),
              "left_sole_link", reps);
  return 0;
}
