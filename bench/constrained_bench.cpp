// Constrained forward dynamics and impulses (talus only: peers are measured elsewhere).
// solo12 and anymal_c with 4 feet × 3 world axes, talos with both soles × 6 axes (loops to
// the world). Each call starts from (q, q̇, τ): it includes kinematics, H, C, G, γ and the solve.
// Rows: every forward method (direct with each KKT decomposition, range-space, null-space,
// articulated, proximal, constrained ABA, Kokkevis where the set is contacts only) and every
// impulse method.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <talus/solvers.hpp>
#include <talus/models/anymal_c.hpp>
#include <talus/models/solo12.hpp>
#include <talus/models/talos.hpp>

#include "constrained_bench.hpp"

namespace talus_bench {

constexpr int kConstrainedStates = 64;

template <class ModelT>
struct ConstrainedSetup {
  ModelT model;
  std::unique_ptr<talus::Data<ModelT>> data = std::make_unique<talus::Data<ModelT>>();
  std::unique_ptr<talus::ConstraintSet<ModelT, 12>> cs = std::make_unique<talus::ConstraintSet<ModelT, 12>>();
  std::vector<typename ModelT::ConfigVector> q;
  std::vector<typename ModelT::TangentVector> v, tau;
  typename ModelT::TangentVector out;
  bool contacts_only = true;
};

std::vector<ConstrainedRow>& constrained_rows() {
  static std::vector<ConstrainedRow> rows;
  return rows;
}

/// Random states; for quadrupeds four 3D contacts at the foot frames, for a humanoid the two
/// soles welded (6 axes) where they are at the first state.
template <class ModelT>
ConstrainedSetup<ModelT>* make_constrained(const ModelT& model, const std::vector<const char*>& frames, bool six_d) {
  auto* s = new ConstrainedSetup<ModelT>();  // lives until exit, like the other setups
  s->model = model;
  talus::Random rng(777);
  for (int k = 0; k < kConstrainedStates; ++k) {
    typename ModelT::ConfigVector q;
    typename ModelT::TangentVector v, tau;
    talus::random_configuration(s->model, rng, q);
    for (int i = 0; i < ModelT::nv; ++i) {
      v[i] = rng.uniform(-1, 1);
      tau[i] = rng.uniform(-10, 10);
    }
    s->q.push_back(q);
    s->v.push_back(v);
    s->tau.push_back(tau);
  }
  (void)talus::forward_kinematics(s->model, *s->data, s->q[0]);
  for (const char* f : frames) {
    const int id = s->model.frame_id(f);
    const auto& F = s->model.frames[id];
    if (!six_d) {
      (void)s->cs->add_contact(F.body, F.placement.p,
                               {talus::Vector3<double>::UnitX(), talus::Vector3<double>::UnitY(),
                                talus::Vector3<double>::UnitZ()},
                               f);
    } else {
      talus::Transform<double> oMf;
      (void)talus::frame_placement(s->model, *s->data, id, oMf);
      talus::LoopAxis<double> a[6];
      for (int k = 0; k < 6; ++k) a[k].axis = talus::Motion<double>::Unit(k);
      (void)s->cs->add_loop(-1, oMf, F.body, F.placement, {a[0], a[1], a[2], a[3], a[4], a[5]}, {}, f);
      s->contacts_only = false;
    }
  }
  if (s->cs->bind(s->model) != talus::Status::ok) std::abort();
  return s;
}

template <class St, class F>
void run_constrained(benchmark::State& state, St* s, F&& f) {
  int k = 0;
  for (auto _ : state) {
    talus::Status st = f(*s, k);
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(s->out.data());
    benchmark::ClobberMemory();
    k = (k + 1) & (kConstrainedStates - 1);
  }
}

template <class ModelT>
void register_constrained(const std::string& name, const std::string& setup, ConstrainedSetup<ModelT>* s) {
  using St = ConstrainedSetup<ModelT>;
  auto add = [&](const std::string& work, auto fn) {
    constrained_rows().push_back({name, setup, work});
    benchmark::RegisterBenchmark(("constrained/" + name + "/" + work).c_str(), [s, fn](benchmark::State& state) {
      run_constrained(state, s, fn);
    })->Unit(benchmark::kNanosecond);
  };
  for (talus::KKTMethod m : {talus::KKTMethod::partial_piv_lu, talus::KKTMethod::ldlt, talus::KKTMethod::householder_qr,
                             talus::KKTMethod::col_piv_householder_qr, talus::KKTMethod::full_piv_lu}) {
    add(std::string("FD direct ") + talus::to_string(m), [m](St& x, int k) {
      return talus::forward_dynamics_direct(x.model, *x.data, *x.cs, x.q[k], x.v[k], x.tau[k], x.out, m);
    });
  }
  add("FD range-space", [](St& x, int k) {
    return talus::forward_dynamics_range_space(x.model, *x.data, *x.cs, x.q[k], x.v[k], x.tau[k], x.out);
  });
  add("FD null-space", [](St& x, int k) {
    return talus::forward_dynamics_null_space(x.model, *x.data, *x.cs, x.q[k], x.v[k], x.tau[k], x.out);
  });
  add("FD articulated", [](St& x, int k) {
    return talus::forward_dynamics_articulated(x.model, *x.data, *x.cs, x.q[k], x.v[k], x.tau[k], x.out);
  });
  add("FD proximal", [](St& x, int k) {
    talus::ProximalReport<double> report;
    return talus::forward_dynamics_proximal(x.model, *x.data, *x.cs, x.q[k], x.v[k], x.tau[k], x.out,
                                            talus::ProximalSettings<double>{}, report);
  });
  add("FD constrained ABA", [](St& x, int k) {
    talus::ProximalReport<double> report;
    return talus::forward_dynamics_constrained_aba(x.model, *x.data, *x.cs, x.q[k], x.v[k], x.tau[k], x.out,
                                                   talus::constrained_aba_settings<double>(), report);
  });
  if (s->contacts_only)
    add("FD Kokkevis", [](St& x, int k) {
      return talus::forward_dynamics_kokkevis(x.model, *x.data, *x.cs, x.q[k], x.v[k], x.tau[k], x.out);
    });
  add("impulse direct partial_piv_lu",
      [](St& x, int k) { return talus::compute_impulse_direct(x.model, *x.data, *x.cs, x.q[k], x.v[k], x.out); });
  add("impulse range-space",
      [](St& x, int k) { return talus::compute_impulse_range_space(x.model, *x.data, *x.cs, x.q[k], x.v[k], x.out); });
  add("impulse articulated",
      [](St& x, int k) { return talus::compute_impulse_articulated(x.model, *x.data, *x.cs, x.q[k], x.v[k], x.out); });
  add("impulse constrained ABA", [](St& x, int k) {
    talus::ProximalReport<double> report;
    return talus::compute_impulse_constrained_aba(x.model, *x.data, *x.cs, x.q[k], x.v[k], x.out,
                                                  talus::constrained_aba_settings<double>(), report);
  });
  add("impulse null-space",
      [](St& x, int k) { return talus::compute_impulse_null_space(x.model, *x.data, *x.cs, x.q[k], x.v[k], x.out); });
}

/// Goals of the constraints issue (half of the best peer measured on this machine), ns.
double goal_ns(const std::string& model, const std::string& work) {
  const bool impulse = work.rfind("impulse", 0) == 0;
  if (model == "solo12") return impulse ? 2850 : 3500;
  if (model == "anymal_c") return impulse ? 0 : 3250;
  if (model == "talos") return impulse ? 4500 : 6800;
  return 0;
}

void register_constrained_benchmarks(const std::string& models_dir) {
  (void)models_dir;
  namespace tm = talus::models;
  register_constrained("solo12", "4 feet x 3D contacts",
                       make_constrained(tm::solo12::make_model<double>(), {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"},
                                        false));
  register_constrained("anymal_c", "4 feet x 3D contacts",
                       make_constrained(tm::anymal_c::make_model<double>(),
                                        {"LF_FOOT", "RF_FOOT", "LH_FOOT", "RH_FOOT"}, false));
  register_constrained("talos", "2 soles x 6D (welded)",
                       make_constrained(tm::talos::make_model<double>(), {"left_sole_link", "right_sole_link"}, true));
}

std::string constrained_table(const std::function<bool(const std::string&, double&)>& get) {
  std::string o;
  o += "\n## Constrained dynamics (talus only)\n\n";
  o += "Each call from (q, q̇, τ): kinematics, H, C, G, γ and the solve; same flags and machine as above; "
       "goal = the constraints issue's target (half the best peer measured here), '-' where none.\n\n";
  o += "| model | constraints | work | talus ns | goal ns | meets goal |\n|---|---|---|---:|---:|---|\n";
  char buf[320];
  for (const auto& r : constrained_rows()) {
    double t = 0;
    if (!get("constrained/" + r.model + "/" + r.work, t)) continue;
    const double g = goal_ns(r.model, r.work);
    if (g > 0)
      std::snprintf(buf, sizeof buf, "| %s | %s | %s | %.0f | %.0f | %s |\n", r.model.c_str(), r.setup.c_str(),
                    r.work.c_str(), t, g, t <= g ? "yes" : "no");
    else
      std::snprintf(buf, sizeof buf, "| %s | %s | %s | %.0f | - | - |\n", r.model.c_str(), r.setup.c_str(),
                    r.work.c_str(), t);
    o += buf;
  }
  return o;
}

}  // namespace talus_bench
