// MuJoCo side of the talus tests/benchmarks: loading the shared URDFs into MuJoCo 2.2.2.
//
// Decisions about MuJoCo's URDF import (checked with MuJoCo 2.2.2 on solo12, anymal_c,
// talos_reduced, ur5, panda_arm7):
// - <visual>/<collision> are removed: MuJoCo would try to load the (absent) mesh files. With no
//   geoms left, every inertia comes from <inertial> (inertiafromgeom "auto" only uses geoms for
//   links without <inertial>; such links get zero mass, as in talus). Comments are removed
//   first so that a commented-out <visual> cannot confuse the stripping.
// - The <mujoco><compiler .../></mujoco> block, first child of <robot>, states the URDF
//   defaults explicitly: fusestatic="true" (MuJoCo's default for URDF, stated so that the
//   behaviour does not depend on it) merges every body without joints into its parent, which
//   is exactly what talus's generator does with fixed joints, so MuJoCo has the same moving
//   bodies and the same nv, and its per-body loops cost what talus's do; the merged links'
//   names are gone from MuJoCo (only links that carry a moving joint, plus the floating root,
//   remain as bodies, with their URDF link names; joints keep their URDF names). A link fixed to
//   the world (ur5's "world", "base_link", panda's "panda_link0") is merged into MuJoCo's world
//   body. fusestatic="false" would keep every link as a (massless or not) body and add work to
//   every MuJoCo pass, so it is not used. discardvisual is irrelevant (no visuals left).
//   balanceinertia="true" is added only on request (anymal_c, talos_reduced need it).
// - Floating base: a link "world" and a joint "root_joint" (type floating) from it to the
//   root link; MuJoCo makes that a free joint (qpos [p; w x y z], qvel [v_world; ω_body]).
#include "mujoco_support.hpp"

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

bool read_file(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

}  // namespace

bool prepare_urdf_for_mujoco(const std::string& urdf_text, bool floating_base, bool balance_inertia,
                             std::string& out, std::string& err) {
  std::string s = strip_comments(urdf_text);
  if (!strip_element(s, "visual", err) || !strip_element(s, "collision", err)) return false;

  // <robot ...> start tag
  const std::regex robot_re("<robot(\\s[^>]*)?>");
  std::smatch rm;
  if (!std::regex_search(s, rm, robot_re)) {
    err = "no <robot> element";
    return false;
  }
  const std::size_t robot_body = static_cast<std::size_t>(rm.position(0) + rm.length(0));
  if (s[robot_body - 2] == '/') {
    err = "empty <robot/> element";
    return false;
  }

  if (floating_base) {
    std::set<std::string> links, children, joints;
    const std::regex link_re("<link\\s[^>]*?name\\s*=\\s*[\"']([^\"']*)[\"']");
    const std::regex child_re("<child\\s[^>]*?link\\s*=\\s*[\"']([^\"']*)[\"']");
    const std::regex joint_re("<joint\\s[^>]*?name\\s*=\\s*[\"']([^\"']*)[\"']");
    for (std::sregex_iterator it(s.begin(), s.end(), link_re), end; it != end; ++it) links.insert((*it)[1]);
    for (std::sregex_iterator it(s.begin(), s.end(), child_re), end; it != end; ++it) children.insert((*it)[1]);
    for (std::sregex_iterator it(s.begin(), s.end(), joint_re), end; it != end; ++it) joints.insert((*it)[1]);
    std::vector<std::string> roots;
    for (const auto& l : links)
      if (!children.count(l)) roots.push_back(l);
    if (roots.size() != 1) {
      err = "expected one root link, found " + std::to_string(roots.size());
      return false;
    }
    if (roots[0] == "world" || links.count("world")) {
      err = "floating base requested but the URDF already has a link named 'world'";
      return false;
    }
    if (joints.count("root_joint")) {
      err = "floating base requested but the URDF already has a joint named 'root_joint'";
      return false;
    }
    const std::size_t close = s.rfind("</robot>");
    if (close == std::string::npos) {
      err = "no </robot>";
      return false;
    }
    s.insert(close, "  <link name=\"world\"/>\n  <joint name=\"root_joint\" type=\"floating\">\n    <parent link=\"world\"/>\n"
                    "    <child link=\"" + roots[0] + "\"/>\n  </joint>\n");
  }

  std::string compiler = "\n  <mujoco><compiler fusestatic=\"true\"";
  if (balance_inertia) compiler += " balanceinertia=\"true\"";
  compiler += "/></mujoco>\n";
  s.insert(robot_body, compiler);
  out = std::move(s);
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

}  // namespace talus_test
