// Placement kinds (issue 29, item 1): the generator's structured model against the same URDF
// generated with --general-placements, on one robot per executable (TALUS_PL_* macros).
//
// 1. Same numbers, other kinds: the general model type given the structured model's numbers
//    must give the same outputs to the last bit (the sparse actions drop only products by
//    structural zeros and ones; compared with ==, so a zero's sign is not compared).
// 2. The structured model against the unsnapped general one (the URDF's values): they differ
//    only by the snap, whose size the generator reports (≤ 1e-6 per entry): results agree to a
//    tolerance that size justifies.
// 3. check_model refuses a placement that does not fit its kinds, accepts a recalibrated value
//    within them.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include TALUS_PL_HEADER
#include TALUS_PL_GENERAL_HEADER
#include "support/random_state.hpp"

namespace {

using S = double;
using Structured = TALUS_PL_NS::Model<S>;
using General = TALUS_PL_GENERAL_NS::Model<S>;
static_assert(Structured::nb == General::nb && Structured::nq == General::nq && Structured::nframes == General::nframes,
              "the two models come from one URDF");

/// Structural entries (0, ±1) of body I's parent link λ(I)MI, by the types.
template <class Tree, int I>
constexpr int structural_entries() {
  using L = typename Tree::template Link<I>;
  int n = 0;
  for (auto e : L::R) n += e != talus::pattern::value;
  for (auto e : L::p) n += e != talus::pattern::value;
  return n;
}
template <class Tree>
int structural_entries_all() {
  int n = 0;
  talus::static_for<Tree::nb>([&](auto i) { n += structural_entries<Tree, decltype(i)::value>(); });
  return n;
}

/// The general model type with the structured model's numbers.
General general_copy(const Structured& s) {
  General g = TALUS_PL_GENERAL_NS::make_model<S>();
  g.joint_placement = s.joint_placement;
  g.axis = s.axis;
  g.inertia = s.inertia;
  for (int f = 0; f < Structured::nframes; ++f) g.frames[f] = s.frames[f];
  g.gravity = s.gravity;
  return g;
}

template <class A, class B>
bool same(const A& a, const B& b) {
  return (a.array() == b.array()).all();
}

/// Every output the passes with structured placements write, for both models at one state.
template <class ModelT>
struct Outputs {
  typename ModelT::TangentVector tau, C, g, ddq;
  typename ModelT::MatrixNV H;
  typename ModelT::Jacobian6 J;
  std::array<talus::Transform<S>, ModelT::nb> oMi;
  std::array<talus::Motion<S>, ModelT::nb> v, a;
};

template <class ModelT, class Q, class V>
Outputs<ModelT> run(const ModelT& m, talus::Data<ModelT>& d, const Q& q, const V& v, const V& a, const V& tau) {
  Outputs<ModelT> o;
  EXPECT_EQ(talus::forward_kinematics(m, d, q, v, a), talus::Status::ok);
  o.oMi = d.oMi;
  o.v = d.v;
  o.a = d.a;
  EXPECT_EQ(talus::rnea(m, d, q, v, a, o.tau), talus::Status::ok);
  EXPECT_EQ(talus::nonlinear_effects(m, d, q, v, o.C), talus::Status::ok);
  EXPECT_EQ(talus::generalized_gravity(m, d, q, o.g), talus::Status::ok);
  EXPECT_EQ(talus::crba(m, d, q), talus::Status::ok);
  o.H = d.H;
  EXPECT_EQ(talus::aba(m, d, q, v, tau, o.ddq), talus::Status::ok);
  EXPECT_EQ(talus::frame_jacobian(m, d, q, m.nframes - 1, talus::ReferenceFrame::local_world_aligned, o.J),
            talus::Status::ok);
  return o;
}

struct Fixture {
  Structured ms = TALUS_PL_NS::make_model<S>();
  General mg = TALUS_PL_GENERAL_NS::make_model<S>();
  General mc = general_copy(ms);
  std::unique_ptr<talus::Data<Structured>> ds = std::make_unique<talus::Data<Structured>>();
  std::unique_ptr<talus::Data<General>> dg = std::make_unique<talus::Data<General>>();
};

TEST(ConsistencyPlacements, KindsAreStructuredAndModelsPassCheckModel) {
  Fixture f;
  // the structured type has structural entries beyond the joints' own (else this test compares
  // a model with itself); the general type has none but the joints'
  EXPECT_GT(structural_entries_all<Structured::Tree>(), structural_entries_all<General::Tree>()) << TALUS_PL_NAME;
  EXPECT_EQ(talus::check_model(f.ms), talus::Status::ok);
  EXPECT_EQ(talus::check_model(f.mg), talus::Status::ok);
  EXPECT_EQ(talus::check_model(f.mc), talus::Status::ok);
  // the snap moves no entry by more than the generator's tolerance
  double snap = 0;
  for (int i = 0; i < Structured::nb; ++i) {
    snap = std::max(snap, (f.ms.joint_placement[i].R - f.mg.joint_placement[i].R).cwiseAbs().maxCoeff());
    snap = std::max(snap, (f.ms.joint_placement[i].p - f.mg.joint_placement[i].p).cwiseAbs().maxCoeff());
  }
  EXPECT_LE(snap, 1e-6) << TALUS_PL_NAME;
  RecordProperty("largest_snap", std::to_string(snap));
}

TEST(ConsistencyPlacements, SameNumbersGiveTheSameBits) {
  Fixture f;
  talus::Random rng(29);
  for (int n = 0; n < 20; ++n) {
    const auto st = talus_test::random_state(f.ms, rng);
    const typename General::ConfigVector q = st.q;
    const typename General::TangentVector v = st.v, a = st.a, tau = st.tau;
    const auto os = run(f.ms, *f.ds, st.q, st.v, st.a, st.tau);
    const auto og = run(f.mc, *f.dg, q, v, a, tau);
    for (int i = 0; i < Structured::nb; ++i) {
      EXPECT_TRUE(same(os.oMi[i].R, og.oMi[i].R) && same(os.oMi[i].p, og.oMi[i].p)) << "oMi " << i << " state " << n;
      EXPECT_TRUE(same(os.v[i], og.v[i])) << "v " << i << " state " << n;
      EXPECT_TRUE(same(os.a[i], og.a[i])) << "a " << i << " state " << n;
      EXPECT_TRUE(same(f.ds->liMi[i].R, f.dg->liMi[i].R) && same(f.ds->liMi[i].p, f.dg->liMi[i].p))
          << "liMi " << i << " state " << n;
    }
    EXPECT_TRUE(same(os.tau, og.tau)) << "rnea, state " << n;
    EXPECT_TRUE(same(os.C, og.C)) << "nonlinear_effects, state " << n;
    EXPECT_TRUE(same(os.g, og.g)) << "generalized_gravity, state " << n;
    EXPECT_TRUE(same(os.H, og.H)) << "crba, state " << n;
    EXPECT_TRUE(same(os.ddq, og.ddq)) << "aba, state " << n;
    EXPECT_TRUE(same(os.J, og.J)) << "frame_jacobian, state " << n;
  }
}

TEST(ConsistencyPlacements, SnappedModelAgreesWithTheUrdfValues) {
  // Entries moved by δ ≤ 1e-6 (the generator reports each) change results by O(δ) relative:
  // 1e-5 allows the lever arms of a humanoid; an unsnapped model would agree to ~1e-13.
  Fixture f;
  talus::Random rng(30);
  for (int n = 0; n < 10; ++n) {
    const auto st = talus_test::random_state(f.ms, rng);
    const typename General::ConfigVector q = st.q;
    const typename General::TangentVector v = st.v, a = st.a, tau = st.tau;
    const auto os = run(f.ms, *f.ds, st.q, st.v, st.a, st.tau);
    const auto og = run(f.mg, *f.dg, q, v, a, tau);
    EXPECT_LE(talus_test::rel_err(os.tau, og.tau), 1e-5) << "rnea, state " << n;
    EXPECT_LE(talus_test::rel_err(os.H, og.H), 1e-5) << "crba, state " << n;
    EXPECT_LE(talus_test::rel_err(os.ddq, og.ddq), 1e-5) << "aba, state " << n;
    EXPECT_LE(talus_test::rel_err(os.J, og.J), 1e-5) << "frame_jacobian, state " << n;
  }
}

/// The first body whose placement rotation has a structural entry, and one such entry.
template <class Tree>
bool first_structured_rotation(int& body, int& entry) {
  bool found = false;
  talus::static_for<Tree::nb>([&](auto i) {
    using P = typename Tree::template Placement<decltype(i)::value>;
    for (int k = 0; k < 9 && !found; ++k)
      if (P::R[static_cast<std::size_t>(k)] != talus::pattern::value) {
        body = decltype(i)::value;
        entry = k;
        found = true;
      }
  });
  return found;
}

TEST(ConsistencyPlacements, CheckModelRefusesAPlacementOutsideItsKind) {
  Fixture f;
  int body = -1, entry = -1;
  ASSERT_TRUE(first_structured_rotation<Structured::Tree>(body, entry)) << TALUS_PL_NAME;
  // a valid rotation (a small turn about x, y or z) that is not of the declared kind: a user
  // who writes a general calibration into a structured placement gets invalid_input
  for (int axis = 0; axis < 3; ++axis) {
    Structured m = f.ms;
    m.joint_placement[body].R =
        m.joint_placement[body].R * talus::axis_angle_rotation<S>(talus::Vector3<S>::Unit(axis), 1e-3);
    const bool fits = m.joint_placement[body].R(entry / 3, entry % 3) ==
                      f.ms.joint_placement[body].R(entry / 3, entry % 3);
    if (!fits) {
      EXPECT_EQ(talus::check_model(m), talus::Status::invalid_input) << "body " << body << ", turn about " << axis;
      // the same numbers in the general type are a valid model
      EXPECT_EQ(talus::check_model(general_copy(m)), talus::Status::ok);
    }
  }
  // a structural zero of an offset that becomes non-zero
  talus::static_for<Structured::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    using P = typename Structured::Tree::template Placement<I>;
    for (int k = 0; k < 3; ++k)
      if (P::p[static_cast<std::size_t>(k)] == talus::pattern::zero) {
        Structured m = f.ms;
        m.joint_placement[I].p[k] = 1e-9;
        EXPECT_EQ(talus::check_model(m), talus::Status::invalid_input) << "body " << I << ", p " << k;
      }
  });
  // recalibrating a value entry (an offset along its axis, a general entry) needs no recompile
  talus::static_for<Structured::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    using P = typename Structured::Tree::template Placement<I>;
    for (int k = 0; k < 3; ++k)
      if (P::p[static_cast<std::size_t>(k)] == talus::pattern::value) {
        Structured m = f.ms;
        m.joint_placement[I].p[k] += 1e-3;
        EXPECT_EQ(talus::check_model(m), talus::Status::ok) << "body " << I << ", p " << k;
      }
  });
}

}  // namespace
