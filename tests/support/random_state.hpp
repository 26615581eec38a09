#pragma once
// Random states for tests: q uniform within limits (uniform rotations), v, τ, q̈ in [-1, 1].
#include <talus/talus.hpp>

namespace talus_test {

template <class ModelT>
struct State {
  typename ModelT::ConfigVector q;
  typename ModelT::TangentVector v, a, tau;
};

template <class ModelT>
State<ModelT> random_state(const ModelT& model, talus::Random& rng) {
  State<ModelT> s;
  talus::random_configuration(model, rng, s.q);
  for (int k = 0; k < ModelT::nv; ++k) {
    s.v[k] = rng.uniform(-1, 1);
    s.a[k] = rng.uniform(-1, 1);
    s.tau[k] = rng.uniform(-1, 1);
  }
  return s;
}

/// max |a - b| / max(1, max |b|): relative to the reference's scale, absolute near zero.
template <class A, class B>
double rel_err(const A& a, const B& b) {
  const double scale = std::max(1.0, static_cast<double>(b.cwiseAbs().maxCoeff()));
  return static_cast<double>((a - b).cwiseAbs().maxCoeff()) / scale;
}

}  // namespace talus_test
