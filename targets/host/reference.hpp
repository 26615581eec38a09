// talus_target_reference, split over three translation units so that its compile (about five
// minutes on one core as one file) is shared by the build's two jobs: solo12's computations of
// a state (compute, compute_constrained: talus's algorithms and constrained solvers, the costly
// instantiations) are explicitly instantiated in reference_solo12_double.cpp and
// reference_solo12_float.cpp and declared extern here, so reference.cpp (the states, the
// condition numbers, the header it writes, main, and ur5's computations) does not compile them.
// The same functions, called in the same order on the same objects, as when it was one file:
// with the reproducible profile (-ffp-contract=off, no Eigen vectorization) where they are
// compiled does not change a bit of the output.
#pragma once

#include <talus/constraints.hpp>
#include <talus/models/solo12.hpp>
#include <talus/models/ur5.hpp>
#include <talus/talus.hpp>

#include <type_traits>
#include <utility>
#include <vector>

namespace talus_target_reference_tool {

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

// --- constrained forward dynamics (solo12, four feet) -----------------------------------------

// Each foot a contact with the world axes x, y, z: 12 rows. target_test.cpp builds the same set.
inline constexpr const char* kFeet[4] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};
inline constexpr int kFeetRows = 12;

template <class ModelT, class CS>
bool add_feet(const ModelT& model, CS& cs) {
  using V3 = talus::Vector3<typename ModelT::Scalar>;
  for (const char* foot : kFeet) {
    const auto& F = model.frames[talus::models::solo12::frame_id(foot)];
    if (cs.add_contact(F.body, F.placement.p, {V3::UnitX(), V3::UnitY(), V3::UnitZ()}, foot) != talus::Status::ok)
      return false;
  }
  return cs.bind(model) == talus::Status::ok && cs.active_rows() == kFeetRows;
}

// q̈ and λ of the two methods the targets check: range space, direct (PartialPivLU).
struct Constrained {
  std::vector<double> rs_ddq, rs_lambda, lu_ddq, lu_lambda;
};

template <class ModelT, class CS, class Q, class V>
bool compute_constrained(const ModelT& model, talus::Data<ModelT>& data, CS& cs, const Q& q, const V& v, const V& tau,
                         Constrained& o) {
  typename ModelT::TangentVector ddq;
  bool ok = talus::forward_dynamics_range_space(model, data, cs, q, v, tau, ddq) == talus::Status::ok;
  append(o.rs_ddq, ddq);
  append(o.rs_lambda, cs.lambda);
  ok &= talus::forward_dynamics_direct(model, data, cs, q, v, tau, ddq, talus::KKTMethod::partial_piv_lu) ==
        talus::Status::ok;
  append(o.lu_ddq, ddq);
  append(o.lu_lambda, cs.lambda);
  return ok;
}

// The models, as types (a namespace cannot be a template argument).
struct Solo12 {
  static constexpr bool constrained = true;  // its four feet (kFeet)
  template <class S>
  using Model = talus::models::solo12::Model<S>;
  template <class S>
  static Model<S> make() {
    return talus::models::solo12::make_model<S>();
  }
};
struct Ur5 {
  static constexpr bool constrained = false;
  template <class S>
  using Model = talus::models::ur5::Model<S>;
  template <class S>
  static Model<S> make() {
    return talus::models::ur5::make_model<S>();
  }
};

// The argument types write_model (reference.cpp) calls compute, add_feet and
// compute_constrained with, for model Ns in scalar S: its double state vectors themselves
// (S = double) or their .cast<float>() expressions (S = float).
template <class S, class X>
struct Passed {
  using type = std::remove_const_t<decltype(std::declval<X&>().template cast<S>())>;
};
template <class X>
struct Passed<double, X> {
  using type = X;
};
template <class Ns, class S>
struct Args {
  using MD = typename Ns::template Model<double>;
  using Model = typename Ns::template Model<S>;
  using Data = talus::Data<Model>;
  using CS = talus::ConstraintSet<Model, kFeetRows>;
  using Q = typename Passed<S, typename MD::ConfigVector>::type;
  using V = typename Passed<S, typename MD::TangentVector>::type;
};

// solo12's computations in scalar S, as write_model<Solo12> calls them. EXT extern: the
// declaration (below, for reference.cpp); empty: the definition (reference_solo12_<S>.cpp).
// ur5's (a fifth of the cost) are compiled in reference.cpp itself.
#define TALUS_REF_SOLO12(EXT, S)                                                                                     \
  EXT template bool compute(const Args<Solo12, S>::Model&, Args<Solo12, S>::Data&, const Args<Solo12, S>::Q&,        \
                            const Args<Solo12, S>::V&, const Args<Solo12, S>::V&, const Args<Solo12, S>::V&,         \
                            Outputs&);                                                                               \
  EXT template bool add_feet(const Args<Solo12, S>::Model&, Args<Solo12, S>::CS&);                                   \
  EXT template bool compute_constrained(const Args<Solo12, S>::Model&, Args<Solo12, S>::Data&, Args<Solo12, S>::CS&, \
                                        const Args<Solo12, S>::Q&, const Args<Solo12, S>::V&,                        \
                                        const Args<Solo12, S>::V&, Constrained&);

TALUS_REF_SOLO12(extern, double)
TALUS_REF_SOLO12(extern, float)

}  // namespace talus_target_reference_tool
