// MuJoCo side of the talus tests/benchmarks: loading the shared URDFs into MuJoCo 2.2.2.
//
// Decisions about MuJoCo's URDF import (checked with MuJoCo 2.2.2 on solo12, anymal_c,
// talos_reduced, ur5, panda_arm7). MuJoCo is given a regenerated copy of the URDF, holding
// only links (name, inertial) and joints:
// - <visual>/<collision> are dropped: MuJoCo would try to load the (absent) mesh files. With no
//   geoms left, every inertia comes from <inertial> (links without one get zero mass, as in
//   talus). Comments, <gazebo> and <transmission> are dropped too (MuJoCo ignores them).
// - Links attached by fixed joints are merged into their parent here (exact mass/CoM/inertia
//   sums, child joints re-attached with composed origins), which is what talus's generator
//   does. MuJoCo's own merging (compiler fusestatic, on by default for URDF and also set
//   explicitly) gives the same tree, but (a) it checks each link's inertia before merging, so
//   the physically impossible inertias of anymal_c's camera/hatch links and talos's
//   gripper_*_motor_single_link (fixed links) would make it reject those robots unless
//   balanceinertia alters them, and (b) its eigen-decomposition of a merged inertia is accurate
//   to ~1e-9 only. With the merge done here anymal_c and talos load without balanceinertia and
//   agree with talus to rounding. fusestatic="true" still catches any fixed joint left (one
//   whose composed origin has no exact rpy: pitch within ~1e-7 of ±π/2; none in these robots).
//   So: only links that carry a moving joint (plus the floating root) exist as MuJoCo bodies,
//   with their URDF link names; moving joints keep their URDF names; merged links (feet, tool
//   flanges, sensors) do not exist in MuJoCo; links fixed to the world of a fixed-base robot
//   become MuJoCo's world body. fusestatic="false" is not used: it would keep extra bodies and
//   make every MuJoCo pass slower than the equivalent talus model.
// - Every inertia is written in its principal frame (ixy = ixz = iyz = 0, rotated origin rpy):
//   MuJoCo's eigen-decomposition loses ~5e-7 (relative) on panda_link1, whose two largest
//   moments are close; Eigen's is accurate to rounding.
// - balanceinertia="true" is added only on request (it is no longer needed by any of the
//   shared robots, and alters the inertias it touches).
// - Floating base: a link "world" and a joint "root_joint" (type floating) from it to the
//   root link; MuJoCo makes that a free joint (qpos [p; w x y z], qvel [v_world; ω_body]).
// - Joint <limit>, <dynamics> (damping: a passive force in mj_forward, not in mujoco_pipeline),
//   <mimic> etc. are passed on unchanged.
#include "mujoco_support.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

namespace talus_test {

MjRobot::~MjRobot() { reset(); }

void MjRobot::reset() {
  if (d) mj_deleteData(d);
  if (m) mj_deleteModel(m);
  d = nullptr;
  m = nullptr;
  body_mj_id.clear();
  qposadr.clear();
  dofadr.clear();
}

namespace {

// Removes every "<!-- ... -->".
std::string strip_comments(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  std::size_t pos = 0;
  while (true) {
    const std::size_t b = s.find("<!--", pos);
    if (b == std::string::npos) break;
    out.append(s, pos, b - pos);
    const std::size_t e = s.find("-->", b + 4);
    if (e == std::string::npos) return out;  // unterminated comment: drop the rest
    pos = e + 3;
  }
  out.append(s, pos, std::string::npos);
  return out;
}

bool is_tag_end_char(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '>' || c == '/'; }

// Removes every element <tag ...>...</tag> and <tag .../> (the tag does not nest in URDF).
bool strip_element(std::string& s, const std::string& tag, std::string& err) {
  const std::string open = "<" + tag, close = "</" + tag + ">";
  std::size_t pos = 0;
  while (true) {
    std::size_t b = s.find(open, pos);
    if (b == std::string::npos) return true;
    if (b + open.size() >= s.size() || !is_tag_end_char(s[b + open.size()])) {
      pos = b + open.size();
      continue;
    }
    const std::size_t gt = s.find('>', b);
    if (gt == std::string::npos) {
      err = "unterminated <" + tag + "> tag";
      return false;
    }
    std::size_t e;
    if (s[gt - 1] == '/') {
      e = gt + 1;
    } else {
      const std::size_t c = s.find(close, gt);
      if (c == std::string::npos) {
        err = "<" + tag + "> without </" + tag + ">";
        return false;
      }
      e = c + close.size();
    }
    s.erase(b, e - b);
    pos = b;
  }
}

double parse_double(const std::string& text, bool& ok) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  while (end && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) ++end;
  ok = ok && end && end != text.c_str() && *end == '\0';
  return x;
}

// Value of attribute `name` in the start tag `elem`, or "" if absent.
std::string attribute(const std::string& elem, const char* name) {
  const std::regex re(std::string("\\s") + name + "\\s*=\\s*\"([^\"]*)\"|\\s" + name + "\\s*=\\s*'([^']*)'");
  std::smatch m;
  if (!std::regex_search(elem, m, re)) return std::string();
  return m[1].matched ? std::string(m[1]) : std::string(m[2]);
}

// First start tag <tag ...> (or <tag .../>) in text, or "".
std::string find_tag(const std::string& text, const std::string& tag) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex("<" + tag + "(\\s[^>]*)?/?>"))) return m[0];
  return std::string();
}

bool parse_vec3(const std::string& text, Eigen::Vector3d& v) {
  std::istringstream ss(text);
  for (int k = 0; k < 3; ++k)
    if (!(ss >> v[k])) return false;
  std::string rest;
  return !(ss >> rest);
}

// URDF rpy: R = Rz(yaw) Ry(pitch) Rx(roll).
Eigen::Matrix3d rpy_matrix(const Eigen::Vector3d& rpy) {
  return (Eigen::AngleAxisd(rpy[2], Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(rpy[1], Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(rpy[0], Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}
Eigen::Vector3d matrix_rpy(const Eigen::Matrix3d& R) {
  return Eigen::Vector3d(std::atan2(R(2, 1), R(2, 2)), std::atan2(-R(2, 0), std::hypot(R(0, 0), R(1, 0))),
                         std::atan2(R(1, 0), R(0, 0)));
}
// rpy of R if it reproduces R to 1e-14 (false near the rpy singularity, pitch = ±π/2).
bool exact_rpy(const Eigen::Matrix3d& R, Eigen::Vector3d& rpy) {
  rpy = matrix_rpy(R);
  return (rpy_matrix(rpy) - R).cwiseAbs().maxCoeff() <= 1e-14;
}

std::string fmt17(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
std::string fmt_vec(const Eigen::Vector3d& v) { return fmt17(v[0]) + " " + fmt17(v[1]) + " " + fmt17(v[2]); }

struct Pose {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d p = Eigen::Vector3d::Zero();
  Eigen::Vector3d rpy = Eigen::Vector3d::Zero();  // as read (kept when R is unchanged)
};

bool parse_origin(const std::string& elem_text, Pose& pose) {
  pose = Pose();
  const std::string o = find_tag(elem_text, "origin");
  if (o.empty()) return true;
  const std::string xyz = attribute(o, "xyz"), rpy = attribute(o, "rpy");
  if (!xyz.empty() && !parse_vec3(xyz, pose.p)) return false;
  if (!rpy.empty() && !parse_vec3(rpy, pose.rpy)) return false;
  pose.R = rpy_matrix(pose.rpy);
  return true;
}

struct UrdfLink {
  std::string name;
  double mass = 0;
  Eigen::Vector3d com = Eigen::Vector3d::Zero();  // link frame
  Eigen::Matrix3d I_c = Eigen::Matrix3d::Zero();  // about the CoM, link axes
  bool removed = false;
};

struct UrdfJoint {
  std::string name, type, parent, child;
  std::string start_tag;  // "<joint ...>" as read
  std::string rest;       // children other than origin/parent/child, as read
  Pose origin;
  bool removed = false;
};

// Element blocks <tag ...>...</tag> / <tag .../> at any depth (callers strip nested uses first).
std::vector<std::string> element_blocks(const std::string& s, const std::string& tag) {
  std::vector<std::string> out;
  const std::string open = "<" + tag, close = "</" + tag + ">";
  std::size_t pos = 0;
  while (true) {
    const std::size_t b = s.find(open, pos);
    if (b == std::string::npos) break;
    if (b + open.size() >= s.size() || !is_tag_end_char(s[b + open.size()])) {
      pos = b + open.size();
      continue;
    }
    const std::size_t gt = s.find('>', b);
    if (gt == std::string::npos) break;
    std::size_t e = gt + 1;
    if (s[gt - 1] != '/') {
      const std::size_t c = s.find(close, gt);
      if (c == std::string::npos) break;
      e = c + close.size();
    }
    out.push_back(s.substr(b, e - b));
    pos = e;
  }
  return out;
}

bool parse_link(const std::string& block, UrdfLink& l, std::string& err) {
  l.name = attribute(find_tag(block, "link"), "name");
  if (l.name.empty()) {
    err = "a <link> without a name";
    return false;
  }
  const std::vector<std::string> inertials = element_blocks(block, "inertial");
  if (inertials.empty()) return true;
  const std::string& in = inertials[0];
  Pose o;
  bool ok = parse_origin(in, o);
  const std::string mass = attribute(find_tag(in, "mass"), "value");
  l.mass = mass.empty() ? 0.0 : parse_double(mass, ok);
  const std::string it = find_tag(in, "inertia");
  const char* names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
  double v[6];
  for (int k = 0; k < 6; ++k) {
    const std::string a = attribute(it, names[k]);
    v[k] = a.empty() ? 0.0 : parse_double(a, ok);
  }
  if (!ok) {
    err = "link '" + l.name + "': cannot read its <inertial>";
    return false;
  }
  Eigen::Matrix3d I;
  I << v[0], v[1], v[2], v[1], v[3], v[4], v[2], v[4], v[5];
  l.com = o.p;
  l.I_c = o.R * I * o.R.transpose();
  return true;
}

bool parse_joint(const std::string& block, UrdfJoint& j, std::string& err) {
  const std::size_t gt = block.find('>');
  j.start_tag = block.substr(0, gt + 1);
  j.name = attribute(j.start_tag, "name");
  j.type = attribute(j.start_tag, "type");
  j.parent = attribute(find_tag(block, "parent"), "link");
  j.child = attribute(find_tag(block, "child"), "link");
  if (j.name.empty() || j.type.empty() || j.parent.empty() || j.child.empty() || j.start_tag.back() != '>' ||
      j.start_tag[j.start_tag.size() - 2] == '/') {
    err = "joint '" + j.name + "': needs a name, a type, <parent link> and <child link>";
    return false;
  }
  if (!parse_origin(block, j.origin)) {
    err = "joint '" + j.name + "': cannot read its <origin>";
    return false;
  }
  const std::size_t close = block.rfind("</joint>");
  j.rest = block.substr(gt + 1, close - gt - 1);
  j.rest = std::regex_replace(j.rest, std::regex("<(origin|parent|child)(\\s[^>]*)?/>"), "");
  j.rest = std::regex_replace(j.rest, std::regex("\\n[ \\t\\r]*(?=\\n)"), "");  // blank lines
  return true;
}

// The inertial element of a link: in the principal frame (ixy = ixz = iyz = 0) when that frame's
// rpy is exact, else the full tensor in link axes.
std::string inertial_xml(const UrdfLink& l) {
  if (l.mass == 0 && l.I_c.isZero(0)) return std::string();
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d D(l.I_c(0, 0), l.I_c(1, 1), l.I_c(2, 2)), rpy = Eigen::Vector3d::Zero();
  bool diagonal = l.I_c(0, 1) == 0 && l.I_c(0, 2) == 0 && l.I_c(1, 2) == 0;
  if (!diagonal) {
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> es(l.I_c);
    if (es.info() == Eigen::Success) {
      Eigen::Matrix3d V = es.eigenvectors();
      if (V.determinant() < 0) V.col(2) = -V.col(2);
      // Among the right-handed orderings/signs of the principal axes, the one farthest from
      // the rpy singularity.
      static const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
      double best = 2;
      for (const auto& pm : perms)
        for (int sgn = 0; sgn < 8; ++sgn) {
          Eigen::Matrix3d W;
          Eigen::Vector3d E;
          for (int c = 0; c < 3; ++c) {
            W.col(c) = ((sgn >> c) & 1 ? -1.0 : 1.0) * V.col(pm[c]);
            E[c] = es.eigenvalues()[pm[c]];
          }
          if (W.determinant() > 0 && std::abs(W(2, 0)) < best) {
            best = std::abs(W(2, 0));
            R = W;
            D = E;
          }
        }
      Eigen::Vector3d r;
      if (exact_rpy(R, r) &&
          (rpy_matrix(r) * D.asDiagonal() * rpy_matrix(r).transpose() - l.I_c).cwiseAbs().maxCoeff() <=
              1e-13 * l.I_c.cwiseAbs().maxCoeff()) {
        rpy = r;
        diagonal = true;
      }
    }
  }
  std::string s = "    <inertial>\n      <origin xyz=\"" + fmt_vec(l.com) + "\" rpy=\"" + fmt_vec(rpy) +
                  "\"/>\n      <mass value=\"" + fmt17(l.mass) + "\"/>\n      <inertia ixx=\"";
  if (diagonal) {
    s += fmt17(D[0]) + "\" ixy=\"0\" ixz=\"0\" iyy=\"" + fmt17(D[1]) + "\" iyz=\"0\" izz=\"" + fmt17(D[2]);
  } else {
    s += fmt17(l.I_c(0, 0)) + "\" ixy=\"" + fmt17(l.I_c(0, 1)) + "\" ixz=\"" + fmt17(l.I_c(0, 2)) + "\" iyy=\"" +
         fmt17(l.I_c(1, 1)) + "\" iyz=\"" + fmt17(l.I_c(1, 2)) + "\" izz=\"" + fmt17(l.I_c(2, 2));
  }
  return s + "\"/>\n    </inertial>\n";
}

// Merges the links attached by fixed joints into their parents, as talus's generator does:
// masses and inertias are combined exactly, the merged link's child joints move to the parent
// with composed origins. A fixed joint is left to MuJoCo's fusestatic if a composed origin has
// no exact rpy (pitch within ~1e-7 of ±π/2).
void merge_fixed_links(std::vector<UrdfLink>& links, std::vector<UrdfJoint>& joints) {
  auto link_index = [&](const std::string& n) {
    for (std::size_t i = 0; i < links.size(); ++i)
      if (!links[i].removed && links[i].name == n) return static_cast<int>(i);
    return -1;
  };
  bool progress = true;
  while (progress) {
    progress = false;
    for (auto& fj : joints) {
      if (fj.removed || fj.type != "fixed") continue;
      const int pi = link_index(fj.parent), ci = link_index(fj.child);
      if (pi < 0 || ci < 0) continue;
      const Pose& X = fj.origin;  // child link frame in parent link frame
      const bool identity_rotation = X.R == Eigen::Matrix3d::Identity();
      // new origins of the child's joints
      std::vector<std::pair<UrdfJoint*, Pose>> moved;
      bool ok = true;
      for (auto& j : joints) {
        if (j.removed || j.parent != fj.child) continue;
        Pose n;
        n.R = X.R * j.origin.R;
        n.p = X.R * j.origin.p + X.p;
        if (identity_rotation) n.rpy = j.origin.rpy;
        else if (!exact_rpy(n.R, n.rpy)) ok = false;
        moved.emplace_back(&j, n);
      }
      if (!ok) continue;
      for (auto& [j, n] : moved) {
        j->origin = n;
        j->parent = fj.parent;
      }
      // combine the inertias in the parent frame
      UrdfLink& P = links[pi];
      const UrdfLink& C = links[ci];
      const double m = P.mass + C.mass;
      if (C.mass != 0 || !C.I_c.isZero(0)) {
        const Eigen::Vector3d c_com = X.R * C.com + X.p;
        const Eigen::Matrix3d c_I = X.R * C.I_c * X.R.transpose();
        const Eigen::Vector3d com = m > 0 ? Eigen::Vector3d((P.mass * P.com + C.mass * c_com) / m) : P.com;
        auto shift = [&](double mi, const Eigen::Vector3d& d) {
          return Eigen::Matrix3d(mi * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose()));
        };
        P.I_c = P.I_c + shift(P.mass, P.com - com) + c_I + shift(C.mass, c_com - com);
        P.com = com;
        P.mass = m;
      }
      links[ci].removed = true;
      fj.removed = true;
      progress = true;
    }
  }
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

}  // namespace

bool prepare_urdf_for_mujoco(const std::string& urdf_text, bool floating_base, bool balance_inertia, std::string& out,
                             std::string& err) {
  std::string s = strip_comments(urdf_text);
  for (const char* tag : {"visual", "collision", "gazebo", "transmission"})
    if (!strip_element(s, tag, err)) return false;

  std::smatch rm;
  if (!std::regex_search(s, rm, std::regex("<robot(\\s[^>]*)?>"))) {
    err = "no <robot> element";
    return false;
  }
  const std::string robot_name = attribute(rm[0], "name");

  std::vector<UrdfLink> links;
  std::vector<UrdfJoint> joints;
  for (const auto& b : element_blocks(s, "link")) {
    links.emplace_back();
    if (!parse_link(b, links.back(), err)) return false;
  }
  for (const auto& b : element_blocks(s, "joint")) {
    joints.emplace_back();
    if (!parse_joint(b, joints.back(), err)) return false;
  }
  std::set<std::string> link_names, child_names, joint_names;
  for (const auto& l : links)
    if (!link_names.insert(l.name).second) {
      err = "two links named '" + l.name + "'";
      return false;
    }
  for (const auto& j : joints) {
    joint_names.insert(j.name);
    child_names.insert(j.child);
    if (!link_names.count(j.parent) || !link_names.count(j.child)) {
      err = "joint '" + j.name + "' names a link that does not exist";
      return false;
    }
  }
  std::vector<std::string> roots;
  for (const auto& l : links)
    if (!child_names.count(l.name)) roots.push_back(l.name);
  if (roots.size() != 1) {
    err = "expected one root link, found " + std::to_string(roots.size());
    return false;
  }

  merge_fixed_links(links, joints);

  if (floating_base) {
    if (link_names.count("world")) {
      err = "floating base requested but the URDF already has a link named 'world'";
      return false;
    }
    if (joint_names.count("root_joint")) {
      err = "floating base requested but the URDF already has a joint named 'root_joint'";
      return false;
    }
  }

  std::ostringstream o;
  o << "<?xml version=\"1.0\"?>\n<!-- prepared for MuJoCo by talus_test::prepare_urdf_for_mujoco -->\n";
  o << "<robot name=\"" << (robot_name.empty() ? "robot" : robot_name) << "\">\n";
  o << "  <mujoco><compiler fusestatic=\"true\"" << (balance_inertia ? " balanceinertia=\"true\"" : "")
    << "/></mujoco>\n";
  for (const auto& l : links) {
    if (l.removed) continue;
    const std::string in = inertial_xml(l);
    if (in.empty()) o << "  <link name=\"" << l.name << "\"/>\n";
    else o << "  <link name=\"" << l.name << "\">\n" << in << "  </link>\n";
  }
  if (floating_base) o << "  <link name=\"world\"/>\n";
  for (const auto& j : joints) {
    if (j.removed) continue;
    o << "  " << j.start_tag << "\n    <parent link=\"" << j.parent << "\"/>\n    <child link=\"" << j.child
      << "\"/>\n";
    o << "    <origin xyz=\"" << fmt_vec(j.origin.p) << "\" rpy=\"" << fmt_vec(j.origin.rpy) << "\"/>";
    o << j.rest << "</joint>\n";
  }
  if (floating_base)
    o << "  <joint name=\"root_joint\" type=\"floating\">\n    <parent link=\"world\"/>\n    <child link=\"" << roots[0]
      << "\"/>\n  </joint>\n";
  o << "</robot>\n";
  out = o.str();
  return true;
}

bool load_mujoco(const std::string& urdf_path, bool floating_base, bool balance_inertia, MjRobot& out,
                 std::string& err) {
  out.reset();
  std::string text, prepared;
  if (!read_file(urdf_path, text)) {
    err = "cannot read " + urdf_path;
    return false;
  }
  if (!prepare_urdf_for_mujoco(text, floating_base, balance_inertia, prepared, err)) {
    err = urdf_path + ": " + err;
    return false;
  }

  const char* tmp_env = std::getenv("TMPDIR");
  std::string dir_template = std::string(tmp_env && *tmp_env ? tmp_env : "/tmp") + "/talus_mj_XXXXXX";
  std::vector<char> dir_buf(dir_template.begin(), dir_template.end());
  dir_buf.push_back('\0');
  if (!mkdtemp(dir_buf.data())) {
    err = "mkdtemp failed for " + dir_template;
    return false;
  }
  const std::string dir(dir_buf.data());
  const std::string file = dir + "/robot.urdf";
  {
    std::ofstream f(file, std::ios::binary);
    f << prepared;
    if (!f) {
      err = "cannot write " + file;
      std::remove(file.c_str());
      rmdir(dir.c_str());
      return false;
    }
  }

  char error[1024] = "";
  mjModel* m = mj_loadXML(file.c_str(), nullptr, error, sizeof(error));
  std::remove(file.c_str());
  rmdir(dir.c_str());
  if (!m) {
    err = urdf_path + ": mj_loadXML: " + error;
    return false;
  }
  out.m = m;
  out.d = mj_makeData(m);
  if (!out.d) {
    err = "mj_makeData failed";
    out.reset();
    return false;
  }
  return true;
}

void mujoco_pipeline(MjRobot& r, const mjtNum* qpos, const mjtNum* qvel, const mjtNum* qfrc, mjtNum* M_dense,
                     mjtNum* bias, mjtNum* qacc) {
  const mjModel* m = r.m;
  mjData* d = r.d;
  const int nv = m->nv;
  if (qpos != d->qpos) mju_copy(d->qpos, qpos, m->nq);
  if (qvel != d->qvel) mju_copy(d->qvel, qvel, nv);
  mj_kinematics(m, d);
  mj_comPos(m, d);
  mj_crb(m, d);
  mj_factorM(m, d);
  mj_comVel(m, d);
  mj_rne(m, d, 0, d->qfrc_bias);
  if (M_dense) mj_fullM(m, M_dense, d->qM);
  if (bias) mju_copy(bias, d->qfrc_bias, nv);
  if (qacc) {
    // qacc = M⁻¹ (qfrc − bias); d->qfrc_smooth as scratch (what mj_fwdAcceleration would put there
    // without passive and actuator forces).
    if (qfrc) mju_sub(d->qfrc_smooth, qfrc, d->qfrc_bias, nv);
    else mju_scl(d->qfrc_smooth, d->qfrc_bias, -1, nv);
    mj_solveM(m, d, qacc, d->qfrc_smooth, 1);
  }
}

// Adds to r's robot (from load_mujoco) a plane z = 0 in the world body and the given spheres
// (e.g. one at each foot frame, its placement in the lower-leg body from talus's model.frames),
// the only geoms that collide (spheres contype 1 / conaffinity 0, floor 0 / 1: sphere–floor
// pairs only). MuJoCo 2.2.2 cannot add a geom to a compiled model, so the
// model goes through MJCF: mj_saveLastXML (right after load_mujoco: it saves the last loaded
// model), text insertion, mj_loadXML. The saved MJCF has 6 significant digits, so the masses,
// inertias and body/joint placements of the first model are copied back (model constants
// MuJoCo allows to change) and mj_setConst recomputes what depends on them; the test checks
// the mass matrix against talus's afterwards.
bool add_floor_and_spheres(MjRobot& r, const std::vector<MjSphere>& spheres, const MjContactParams& p,
                           std::string& err) {
  const char* tmp_env = std::getenv("TMPDIR");
  std::string dir_template = std::string(tmp_env && *tmp_env ? tmp_env : "/tmp") + "/talus_mjscene_XXXXXX";
  std::vector<char> dir_buf(dir_template.begin(), dir_template.end());
  dir_buf.push_back('\0');
  if (!mkdtemp(dir_buf.data())) {
    err = "mkdtemp failed for " + dir_template;
    return false;
  }
  const std::string dir(dir_buf.data()), file = dir + "/scene.xml";
  auto cleanup = [&] {
    std::remove(file.c_str());
    rmdir(dir.c_str());
  };
  char error[1024] = "";
  if (!mj_saveLastXML(file.c_str(), r.m, error, sizeof error)) {
    err = std::string("mj_saveLastXML: ") + error;
    cleanup();
    return false;
  }
  std::string xml;
  {
    std::ifstream in(file);
    std::ostringstream ss;
    ss << in.rdbuf();
    xml = ss.str();
  }
  const std::string contact = " friction=\"" + fmt17(p.mu) + " 0 0\" condim=\"3\" solref=\"" + fmt17(p.solref[0]) +
                              " " + fmt17(p.solref[1]) + "\" solimp=\"" + fmt17(p.solimp[0]) + " " +
                              fmt17(p.solimp[1]) + " " + fmt17(p.solimp[2]) + "\"";
  std::size_t at = xml.find("<worldbody>");
  if (at == std::string::npos) {
    err = "no <worldbody> in the saved MJCF";
    cleanup();
    return false;
  }
  xml.insert(at + std::string("<worldbody>").size(),
             "\n<geom name=\"floor\" type=\"plane\" size=\"0 0 1\" contype=\"0\" conaffinity=\"1\"" + contact + "/>");
  for (const MjSphere& sp : spheres) {
    const std::string& body = sp.body;
    at = xml.find("<body name=\"" + body + "\"");
    const std::size_t gt = at == std::string::npos ? at : xml.find('>', at);
    if (gt == std::string::npos) {
      err = "no body " + body + " in the saved MJCF";
      cleanup();
      return false;
    }
    xml.insert(gt + 1, "\n<geom name=\"" + sp.name + "\" type=\"sphere\" size=\"" + fmt17(p.radius) + "\" pos=\"" +
                           fmt17(sp.pos.x()) + " " + fmt17(sp.pos.y()) + " " + fmt17(sp.pos.z()) +
                           "\" contype=\"1\" conaffinity=\"0\"" + contact + "/>");
  }
  {
    std::ofstream out(file);
    out << xml;
  }
  mjModel* m = mj_loadXML(file.c_str(), nullptr, error, sizeof error);
  cleanup();
  if (!m) {
    err = std::string("mj_loadXML: ") + error;
    return false;
  }
  if (m->nbody != r.m->nbody || m->njnt != r.m->njnt || m->nv != r.m->nv ||
      m->ngeom != static_cast<int>(spheres.size()) + 1) {
    err = "the scene's tree differs from the robot's";
    mj_deleteModel(m);
    return false;
  }
  for (int b = 0; b < m->nbody; ++b) {
    m->body_mass[b] = r.m->body_mass[b];
    for (int k = 0; k < 3; ++k) {
      m->body_pos[3 * b + k] = r.m->body_pos[3 * b + k];
      m->body_ipos[3 * b + k] = r.m->body_ipos[3 * b + k];
      m->body_inertia[3 * b + k] = r.m->body_inertia[3 * b + k];
    }
    for (int k = 0; k < 4; ++k) {
      m->body_quat[4 * b + k] = r.m->body_quat[4 * b + k];
      m->body_iquat[4 * b + k] = r.m->body_iquat[4 * b + k];
    }
  }
  for (int j = 0; j < m->njnt; ++j)
    for (int k = 0; k < 3; ++k) {
      m->jnt_pos[3 * j + k] = r.m->jnt_pos[3 * j + k];
      m->jnt_axis[3 * j + k] = r.m->jnt_axis[3 * j + k];
    }
  mjData* d = mj_makeData(m);
  if (!d) {
    err = "mj_makeData failed";
    mj_deleteModel(m);
    return false;
  }
  mj_setConst(m, d);
  r.reset();
  r.m = m;
  r.d = d;
  return true;
}

}  // namespace talus_test
