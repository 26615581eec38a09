// Generated names (issue 11): talus_add_model(... FRAMES ...) keeps only the listed frames,
// and the generated frame:: / body:: / joint:: / idx_q:: / idx_v:: constants and constexpr
// lookups agree with what a run-time scan of the model (and Tree::idx_q / idx_v) gives.
//
//   anymal_c       every URDF link a frame (78)
//   anymal_c_feet  FRAMES LF_FOOT RF_FOOT LH_FOOT RH_FOOT
//   odd_names      a small synthetic URDF (written by tests/CMakeLists.txt) whose joint names
//                  are not C++ identifiers, collide after sanitizing, and are not in file order
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <iterator>
#include <string>
#include <type_traits>

#include <talus/models/anymal_c.hpp>
#include <talus/models/anymal_c_feet.hpp>
#include <talus/models/odd_names.hpp>
#include <talus/talus.hpp>

namespace {

namespace full = talus::models::anymal_c;
namespace feet = talus::models::anymal_c_feet;
namespace odd = talus::models::odd_names;
using Full = full::Model<double>;
using Feet = feet::Model<double>;
using talus::Status;

constexpr const char* kFeet[] = {"LF_FOOT", "RF_FOOT", "LH_FOOT", "RH_FOOT"};

// --- compile-time: the lookups are constant expressions -----------------------------------
static_assert(feet::num_frames == 4);
static_assert(feet::frame_id("LF_FOOT") == 0 && feet::frame_id("RF_FOOT") == 1 && feet::frame_id("LH_FOOT") == 2 &&
              feet::frame_id("RH_FOOT") == 3);  // the order FRAMES lists them in
static_assert(feet::frame::RH_FOOT == feet::frame_id("RH_FOOT"));
static_assert(full::frame::LF_FOOT == full::frame_id("LF_FOOT"));
static_assert(full::body_id("LF_SHANK") == full::body::LF_SHANK);
static_assert(full::joint_id("LF_KFE") == full::joint::LF_KFE);
static_assert(full::joint_idx_q("LF_HAA") == full::idx_q::LF_HAA &&
              full::idx_q::LF_HAA == 7);  // after the free flyer's 7
static_assert(full::joint_idx_v("LF_HAA") == full::idx_v::LF_HAA && full::idx_v::LF_HAA == 6);
static_assert(full::Tree::idx_q[full::joint::RH_KFE] == full::idx_q::RH_KFE);
static_assert(std::is_same_v<full::Tree, feet::Tree>);  // FRAMES changes frames only

/// Index of `name` in `names` (run-time strcmp scan), -1 if absent.
template <class Names>
int scan(const Names& names, const char* name) {
  for (int i = 0; i < static_cast<int>(std::size(names)); ++i)
    if (names[i] && std::strcmp(names[i], name) == 0) return i;
  return -1;
}

/// Number of <link> elements in the URDF file (a text count, independent of urdfdom).
int count_links(const char* path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string s = ss.str();
  int n = 0;
  for (std::size_t p = s.find("<link"); p != std::string::npos; p = s.find("<link", p + 1))
    if (p + 5 < s.size() && (s[p + 5] == ' ' || s[p + 5] == '>' || s[p + 5] == '\n' || s[p + 5] == '\t')) ++n;
  return n;
}

// --- FRAMES --------------------------------------------------------------------------------

TEST(ConsistencyModelNames, FramesNumFrames) {
  const int links = count_links(TALUS_ANYMAL_URDF);
  ASSERT_GT(links, 4);
  EXPECT_EQ(full::num_frames, links);  // without FRAMES every link is a frame
  EXPECT_EQ(feet::num_frames, 4);
  EXPECT_EQ(Feet::nframes, 4);
  for (int k = 0; k < 4; ++k) {
    EXPECT_STREQ(feet::frame_names[k], kFeet[k]);
    const Feet model = feet::make_model<double>();
    EXPECT_STREQ(model.frames[k].name, kFeet[k]);
  }
}

TEST(ConsistencyModelNames, FramesSamePlacementsAtRandomQ) {
  const Full a = full::make_model<double>();
  const Feet b = feet::make_model<double>();
  ASSERT_EQ(talus::check_model(a), Status::ok);
  ASSERT_EQ(talus::check_model(b), Status::ok);
  // Bodies are untouched by FRAMES.
  for (int i = 0; i < Full::nb; ++i) {
    EXPECT_STREQ(a.body_name[i], b.body_name[i]);
    EXPECT_STREQ(a.joint_name[i], b.joint_name[i]);
    EXPECT_EQ(a.inertia[i].mass, b.inertia[i].mass);
    EXPECT_EQ(a.joint_placement[i].p, b.joint_placement[i].p);
  }
  auto da = std::make_unique<talus::Data<Full>>();
  auto db = std::make_unique<talus::Data<Feet>>();
  talus::Random rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    Full::ConfigVector q;
    talus::random_configuration(a, rng, q);
    ASSERT_EQ(talus::forward_kinematics(a, *da, q), Status::ok);
    ASSERT_EQ(talus::forward_kinematics(b, *db, q), Status::ok);
    for (const char* name : kFeet) {
      const int fa = a.frame_id(name), fb = b.frame_id(name);  // run-time lookups by name
      ASSERT_GE(fa, 0) << name;
      ASSERT_GE(fb, 0) << name;
      talus::Transform<double> Xa, Xb;
      ASSERT_EQ(talus::frame_placement(a, *da, fa, Xa), Status::ok);
      ASSERT_EQ(talus::frame_placement(b, *db, fb, Xb), Status::ok);
      EXPECT_LE((Xa.R - Xb.R).cwiseAbs().maxCoeff(), 1e-14) << name;
      EXPECT_LE((Xa.p - Xb.p).cwiseAbs().maxCoeff(), 1e-14) << name;
      EXPECT_GT(Xa.p.norm(), 0.1) << name;  // a foot, not the origin
    }
  }
}

// --- names: constants vs run-time scans ---------------------------------------------------

// Every joint of anymal_c: joint::, idx_q::, idx_v:: and the constexpr lookups against a
// run-time scan of model.joint_name and Tree::idx_q / idx_v.
// clang-format off
#define TALUS_ANYMAL_JOINTS(X) \
  X(root_joint) X(LF_HAA) X(LF_HFE) X(LF_KFE) X(LH_HAA) X(LH_HFE) X(LH_KFE) X(RF_HAA) X(RF_HFE) X(RF_KFE) X(RH_HAA) X(RH_HFE) X(RH_KFE)
// clang-format on

template <class NS_Model, class TreeT>
void expect_joint(const NS_Model& model, const char* name, int joint_c, int idx_q_c, int idx_v_c, int joint_fn,
                  int idx_q_fn, int idx_v_fn) {
  const int i = scan(model.joint_name, name);
  ASSERT_GE(i, 0) << name;
  EXPECT_EQ(joint_c, i) << name;
  EXPECT_EQ(joint_fn, i) << name;
  EXPECT_EQ(idx_q_c, TreeT::idx_q[i]) << name;
  EXPECT_EQ(idx_q_fn, TreeT::idx_q[i]) << name;
  EXPECT_EQ(idx_v_c, TreeT::idx_v[i]) << name;
  EXPECT_EQ(idx_v_fn, TreeT::idx_v[i]) << name;
}

TEST(ConsistencyModelNames, JointConstants) {
  const Full model = full::make_model<double>();
  int n = 0;
#define X(J)                                                                                                       \
  {                                                                                                                \
    constexpr int j = full::joint_id(#J), iq = full::joint_idx_q(#J), iv = full::joint_idx_v(#J);                  \
    expect_joint<Full, full::Tree>(model, #J, full::joint::J, full::idx_q::J, full::idx_v::J, j, iq, iv);          \
    expect_joint<Feet, feet::Tree>(feet::make_model<double>(), #J, feet::joint::J, feet::idx_q::J, feet::idx_v::J, \
                                   feet::joint_id(#J), feet::joint_idx_q(#J), feet::joint_idx_v(#J));              \
    ++n;                                                                                                           \
  }
  TALUS_ANYMAL_JOINTS(X)
#undef X
  EXPECT_EQ(n, Full::nb);  // every joint listed above
}

TEST(ConsistencyModelNames, BodyAndFrameConstants) {
  const Full model = full::make_model<double>();
  for (int i = 0; i < Full::nb; ++i) {
    EXPECT_EQ(full::body_id(model.body_name[i]), i);
    EXPECT_EQ(full::joint_id(model.joint_name[i]), i);
    EXPECT_EQ(full::joint_idx_q(model.joint_name[i]), full::Tree::idx_q[i]);
    EXPECT_EQ(full::joint_idx_v(model.joint_name[i]), full::Tree::idx_v[i]);
  }
  for (int k = 0; k < Full::nframes; ++k) EXPECT_EQ(full::frame_id(model.frames[k].name), k) << model.frames[k].name;
  EXPECT_EQ(full::body::LF_SHANK, scan(model.body_name, "LF_SHANK"));
  EXPECT_EQ(full::frame::LF_FOOT, model.frame_id("LF_FOOT"));
  EXPECT_EQ(feet::frame::LH_FOOT, 2);
}

TEST(ConsistencyModelNames, UnknownNamesAtRunTime) {
  // Run-time strings (not constant expressions): the lookups return -1.
  const std::string bad = "LF_FOTO", hip = "LF_HIP", joint_as_link = "LF_HAA", empty;
  EXPECT_EQ(full::frame_id(bad.c_str()), -1);
  EXPECT_EQ(full::body_id(bad.c_str()), -1);
  EXPECT_EQ(full::joint_id(bad.c_str()), -1);
  EXPECT_EQ(full::joint_idx_q(bad.c_str()), -1);
  EXPECT_EQ(full::joint_idx_v(bad.c_str()), -1);
  EXPECT_EQ(full::frame_id(empty.c_str()), -1);
  EXPECT_EQ(full::body_id(joint_as_link.c_str()), -1);  // a joint name is not a body (link) name
  EXPECT_EQ(full::joint_id(hip.c_str()), -1);           // a link name is not a joint name
  EXPECT_GE(full::frame_id(hip.c_str()), 0);
  EXPECT_EQ(feet::frame_id(hip.c_str()), -1);  // a link FRAMES left out
  EXPECT_EQ(feet::body_id(hip.c_str()), full::body_id(hip.c_str()));
}

// --- sanitizing and body order (odd_names.urdf, see tests/CMakeLists.txt) ------------------
// Joints (parent -> child): "1st-joint" world -> l1; "a_b" l1 -> l3; "a.b" l1 -> l2; "class" l2 -> l4.
// Depth-first from the root, children sorted by joint name ('.' < '_'): l1, l2, l4, l3.
// Identifiers: "1st-joint" -> _1st_joint, "a.b" -> a_b, "a_b" -> a_b_2 (collision), "class" -> class_.
static_assert(odd::joint::_1st_joint == odd::joint_id("1st-joint"));
static_assert(odd::joint::a_b == odd::joint_id("a.b"));
static_assert(odd::joint::a_b_2 == odd::joint_id("a_b"));
static_assert(odd::joint::class_ == odd::joint_id("class"));
static_assert(odd::idx_q::class_ == odd::joint_idx_q("class") && odd::idx_v::a_b_2 == odd::joint_idx_v("a_b"));

TEST(ConsistencyModelNames, SanitizedJointNamesAndBodyOrder) {
  using Odd = odd::Model<double>;
  const Odd model = odd::make_model<double>();
  ASSERT_EQ(Odd::nb, 4);
  // The documented order, by hand.
  const char* bodies[] = {"l1", "l2", "l4", "l3"};
  const char* joints[] = {"1st-joint", "a.b", "class", "a_b"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_STREQ(model.body_name[i], bodies[i]);
    EXPECT_STREQ(model.joint_name[i], joints[i]);
  }
  const int j_1st = scan(model.joint_name, "1st-joint"), j_ab_dot = scan(model.joint_name, "a.b"),
            j_ab = scan(model.joint_name, "a_b"), j_class = scan(model.joint_name, "class");
  EXPECT_EQ(odd::joint::_1st_joint, j_1st);
  EXPECT_EQ(odd::joint::a_b, j_ab_dot);
  EXPECT_EQ(odd::joint::a_b_2, j_ab);
  EXPECT_EQ(odd::joint::class_, j_class);
  EXPECT_EQ(odd::idx_q::a_b_2, odd::Tree::idx_q[j_ab]);
  EXPECT_EQ(odd::idx_v::class_, odd::Tree::idx_v[j_class]);
  EXPECT_EQ(odd::idx_q::_1st_joint, odd::Tree::idx_q[j_1st]);
  EXPECT_EQ(odd::idx_v::a_b, odd::Tree::idx_v[j_ab_dot]);
  EXPECT_EQ(odd::Tree::parent[odd::body::l4], odd::body::l2);
}

// The README example ("Use talus in your project"), compiled.
int readme_example() {
  namespace anymal = talus::models::anymal_c_feet;  // FRAMES LF_FOOT RF_FOOT LH_FOOT RH_FOOT
  constexpr int lf_foot = anymal::frame::LF_FOOT;   // 0: frames in the order FRAMES lists them
  constexpr int lf_hfe = anymal::joint::LF_HFE;     // joint index = index of the body it moves
  constexpr int q_knee = anymal::idx_q::LF_KFE;     // q[q_knee] is the LF knee angle
  constexpr int v_knee = anymal::joint_idx_v("LF_KFE");
  static_assert(anymal::frame_id("LF_FOOT") == lf_foot);
  return lf_foot + lf_hfe + q_knee + v_knee;
}

TEST(ConsistencyModelNames, ReadmeExample) { EXPECT_EQ(readme_example(), 0 + 2 + 9 + 8); }

}  // namespace
