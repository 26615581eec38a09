// talus_urdf_gen: URDF -> C++ header with a talus::Tree type and a make_model<S>() function.
//
// Host tool (not part of the firmware library): it may use exceptions, std::string, the heap.
//
//   talus_urdf_gen --urdf FILE --name NAME --out HEADER [--floating-base] [--frame LINK]...
//                  [--general-placements]
//
// Rules (see also the comment block written at the top of every generated header):
// - Bodies in depth-first (pre-)order from the root link, children in urdfdom's child_joints
//   order, which is the order of the joint names (urdfdom keeps joints in a std::map: byte-wise
//   strcmp order, "Z" before "a"), not the order of the URDF file.
//   Every non-fixed joint creates a body whose frame is its child link's frame.
// - Fixed joints are merged: the child link's inertia is added to the body that carries the
//   parent link, and the child link becomes a frame on that body. Chains of fixed joints compose.
// - joint_placement = (fixed placements from the parent body frame to the joint's parent link)
//   * URDF joint origin, i.e. expressed in the parent body frame.
// - --floating-base: the root link carries a JointFreeFlyer body ("root_joint", parent -1).
//   Otherwise the root link is the world: links fixed to it become world frames (body -1) and
//   their mass is dropped.
// - Every URDF link becomes a frame, in DFS order. With --frame (repeatable) only the listed
//   links become frames, in the order listed; a name that is not a link of the URDF, or a
//   name listed twice, is an error naming it.
// - Names: frame::, body::, joint::, idx_q::, idx_v:: constants (sanitized identifiers) and
//   constexpr frame_id / body_id / joint_id / joint_idx_q / joint_idx_v lookups. A lookup of a
//   name that is not in the model returns -1 at run time; in a constant expression it is a
//   compile error ("call to non-'constexpr' function ... frame_name_not_in_model").
// - Placement kinds (talus/math/placement.hpp): each joint placement (after merging fixed joints)
//   is classified, its rotation as RotationIdentity, RotationPermutation<..> (signed axis
//   permutation), RotationAbout<A> or RotationGeneral, its translation as TranslationZero,
//   TranslationAlong<A> or TranslationGeneral, and the kinds are written into the Body types.
//   Tolerance kSnapTolerance = 1e-6: a rotation entry within 1e-6 of 0, +1 or -1 and an offset
//   component within 1e-6 m of 0 count as exact, and are snapped to it when that gives a
//   structured kind (the entries a kind fixes become exact; its data entries keep the URDF's
//   values). What was snapped, and by how much, is written in the header's comment and on
//   stderr. --general-placements keeps every placement general and unsnapped (the output of
//   talus before the kinds).
#include <urdf_model/model.h>
#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <talus/math/inertia.hpp>
#include <talus/model/check.hpp>
#include <talus/math/quaternion.hpp>

namespace {

using Transform = talus::Transform<double>;
using Inertia = talus::Inertia<double>;
using Vec3 = talus::Vector3<double>;
using Mat3 = talus::Matrix3<double>;

constexpr double kPi = 3.14159265358979323846;
constexpr double kSnapTolerance = 1e-6;  ///< rotation entries (1) and offsets (m), see the file comment

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------------------------------------
// Output helpers

/// A double as `S(<17 significant digits>)`: exact for S = double, correctly rounded for float.
std::string num(double v) {
  if (!std::isfinite(v)) throw Error("non-finite number in the URDF");
  if (v == 0.0) v = 0.0;  // -0 -> 0
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return std::string("S(") + buf + ")";
}

std::string vec3(const Vec3& v) {
  return "talus::Vector3<S>(" + num(v.x()) + ", " + num(v.y()) + ", " + num(v.z()) + ")";
}

std::string mat3(const Mat3& R) {
  std::string s = "(talus::Matrix3<S>() << ";
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      s += num(R(r, c));
      if (r != 2 || c != 2) s += ", ";
    }
  return s + ").finished()";
}

std::string transform(const Transform& M) { return "talus::Transform<S>(" + mat3(M.R) + ", " + vec3(M.p) + ")"; }

std::string inertia(const Inertia& I) {
  return "talus::Inertia<S>(" + num(I.mass) + ", " + vec3(I.com) + ", " + mat3(I.I_c) + ")";
}

/// A C++ string literal.
std::string quoted(const std::string& s) {
  std::string r = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      r += '\\';
      r += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      r += buf;
    } else {
      r += static_cast<char>(c);
    }
  }
  return r + "\"";
}

/// Text safe inside a // comment (no line splicing, no control characters).
std::string comment_safe(const std::string& s) {
  std::string r;
  for (unsigned char c : s) r += (c == '\\') ? '/' : (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
  return r;
}

/// Shortest text that reads back as the same double (for comments).
std::string shortest(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string fmt_mass(double m) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", m);
  return buf;
}

const std::set<std::string>& cpp_keywords() {
  static const std::set<std::string> k = {
      "alignas",     "alignof",   "and",        "and_eq",    "asm",      "auto",         "bitand",
      "bitor",       "bool",      "break",      "case",      "catch",    "char",         "char8_t",
      "char16_t",    "char32_t",  "class",      "compl",     "concept",  "const",        "consteval",
      "constexpr",   "constinit", "const_cast", "continue",  "co_await", "co_return",    "co_yield",
      "decltype",    "default",   "delete",     "do",        "double",   "dynamic_cast", "else",
      "enum",        "explicit",  "export",     "extern",    "false",    "float",        "for",
      "friend",      "goto",      "if",         "inline",    "int",      "long",         "mutable",
      "namespace",   "new",       "noexcept",   "not",       "not_eq",   "nullptr",      "operator",
      "or",          "or_eq",     "private",    "protected", "public",   "register",     "reinterpret_cast",
      "requires",    "return",    "short",      "signed",    "sizeof",   "static",       "static_assert",
      "static_cast", "struct",    "switch",     "template",  "this",     "thread_local", "throw",
      "true",        "try",       "typedef",    "typeid",    "typename", "union",        "unsigned",
      "using",       "virtual",   "void",       "volatile",  "wchar_t",  "while",        "xor",
      "xor_eq"};
  return k;
}

/// C++ identifier from a URDF name: non-alnum -> '_', '_' prefix if it starts with a digit,
/// '_' suffix for keywords.
std::string sanitize(const std::string& name) {
  std::string r;
  for (unsigned char c : name) r += std::isalnum(c) ? static_cast<char>(c) : '_';
  if (r.empty()) r = "_";
  if (std::isdigit(static_cast<unsigned char>(r[0]))) r = "_" + r;
  if (cpp_keywords().count(r)) r += "_";
  return r;
}

/// Sanitized, collision-free identifiers (in input order): the second "a_b" becomes "a_b_2", ...
std::vector<std::string> identifiers(const std::vector<std::string>& names) {
  std::vector<std::string> base, out;
  std::set<std::string> used;
  for (const auto& n : names) base.push_back(sanitize(n));
  // Names that are already unique keep their plain identifier; duplicates get _2, _3, ...
  std::set<std::string> taken(base.begin(), base.end());
  std::map<std::string, int> seen;
  for (const auto& b : base) {
    std::string id = b;
    if (used.count(id)) {
      int k = std::max(2, seen[b] + 1);
      while (used.count(b + "_" + std::to_string(k)) || taken.count(b + "_" + std::to_string(k))) ++k;
      seen[b] = k;
      id = b + "_" + std::to_string(k);
    }
    used.insert(id);
    out.push_back(id);
  }
  return out;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (unsigned char c : s)
    if (!std::isalnum(c) && c != '_') return false;
  return !cpp_keywords().count(s);
}

// ---------------------------------------------------------------------------------------------
// Model building

Transform to_transform(const urdf::Pose& pose) {
  const urdf::Rotation& q = pose.rotation;  // urdfdom's quaternion (from rpy, normalized)
  return Transform(talus::quaternion_to_rotation<double>(q.w, q.x, q.y, q.z),
                   Vec3(pose.position.x, pose.position.y, pose.position.z));
}

Mat3 symmetrized(const Mat3& I) { return 0.5 * (I + I.transpose()); }

/// Sum of two inertias in the same frame (talus::Inertia::operator+, but exact when one is zero
/// and keeping rotational inertia of massless parts).
Inertia add(const Inertia& a, const Inertia& b) {
  auto is_zero = [](const Inertia& x) { return x.mass == 0.0 && x.I_c.isZero(0.0); };
  if (is_zero(a)) return b;
  if (is_zero(b)) return a;
  const double m = a.mass + b.mass;
  if (!(m > 0.0)) return Inertia(0.0, Vec3::Zero(), symmetrized(a.I_c + b.I_c));
  const Vec3 c = (a.mass * a.com + b.mass * b.com) / m;
  const Mat3 d1 = talus::skew<double>(a.com - c), d2 = talus::skew<double>(b.com - c);
  return Inertia(m, c, symmetrized(a.I_c + b.I_c - a.mass * d1 * d1 - b.mass * d2 * d2));
}

/// Inertia of a link in its own frame (zero if it has no <inertial>).
Inertia link_inertia(const urdf::Link& link) {
  if (!link.inertial) return Inertia();
  const urdf::Inertial& in = *link.inertial;
  Mat3 I;
  I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
  const Transform M = to_transform(in.origin);
  return Inertia(in.mass, M.p, symmetrized(M.R * I * M.R.transpose()));
}

enum class Kind { FreeFlyer, Revolute, Prismatic };

struct BodyOut {
  std::string link, joint;
  int parent = -1;
  Kind kind = Kind::FreeFlyer;
  int axis_index = -1;  // 0/1/2 for X/Y/Z, -1 generic
  Vec3 axis = Vec3::Zero();
  Transform placement;
  Inertia inertia;
  int nq = 0, nv = 0, idx_q = 0, idx_v = 0;
  std::vector<double> lower, upper;  // per q entry, empty: keep defaults
  std::optional<double> velocity, effort, damping, friction;
  bool continuous = false;
  // placement kinds (classify_placement); empty: general, not written (--general-placements)
  std::string rotation_kind, translation_kind;
  double snapped_R = 0.0, snapped_p = 0.0;  // largest change of an entry by snapping
};

struct FrameOut {
  std::string name;
  int body = -1;
  Transform placement;
};

struct Builder {
  bool floating_base = false;
  std::vector<BodyOut> bodies;
  std::vector<FrameOut> frames;
  std::vector<std::pair<std::string, double>> dropped;  // world-fixed link masses
  std::vector<std::string> mimics;
  int all_links = 0;  // frames before --frame selection
  int fixed_merged = 0;
  int continuous_joints = 0;
  bool has_dynamics = false;

  void add_mass(int body, const urdf::Link& link, const Transform& bodyMlink) {
    const Inertia I = link_inertia(link);
    if (I.mass == 0.0 && I.I_c.isZero(0.0)) return;
    if (body < 0) {
      dropped.emplace_back(link.name, I.mass);
      return;
    }
    const Inertia Ib(I.mass, bodyMlink.act_point(I.com), symmetrized(bodyMlink.R * I.I_c * bodyMlink.R.transpose()));
    bodies[body].inertia = add(bodies[body].inertia, Ib);
  }

  void visit(const urdf::Link& link, int body, const Transform& bodyMlink) {
    frames.push_back({link.name, body, bodyMlink});
    add_mass(body, link, bodyMlink);
    for (const auto& jp : link.child_joints) {
      const urdf::Joint& j = *jp;
      const auto child_it = std::find_if(link.child_links.begin(), link.child_links.end(),
                                         [&](const urdf::LinkSharedPtr& l) { return l->name == j.child_link_name; });
      if (child_it == link.child_links.end())
        throw Error("child link '" + j.child_link_name + "' of joint '" + j.name + "' not found");
      const urdf::Link& child = **child_it;
      const Transform jointM = bodyMlink * to_transform(j.parent_to_joint_origin_transform);
      if (j.mimic) {
        const auto& mm = *j.mimic;
        std::ostringstream s;
        if (j.type == urdf::Joint::FIXED)
          s << "mimic on fixed joint " << j.name << " (= " << shortest(mm.multiplier) << " * " << mm.joint_name << " + "
            << shortest(mm.offset) << "): ignored, the joint is fixed";
        else
          s << "mimic: joint " << j.name << " = " << shortest(mm.multiplier) << " * " << mm.joint_name << " + "
            << shortest(mm.offset) << " (not enforced)";
        mimics.push_back(s.str());
      }
      if (j.type == urdf::Joint::FIXED) {
        ++fixed_merged;
        visit(child, body, jointM);
        continue;
      }
      BodyOut b;
      b.link = child.name;
      b.joint = j.name;
      b.parent = body;
      b.placement = jointM;
      switch (j.type) {
        case urdf::Joint::FLOATING:
          b.kind = Kind::FreeFlyer;
          b.nq = 7;
          b.nv = 6;
          b.lower.assign(7, -1.0);
          b.upper.assign(7, 1.0);
          break;
        case urdf::Joint::REVOLUTE:
        case urdf::Joint::CONTINUOUS:
        case urdf::Joint::PRISMATIC: {
          b.kind = j.type == urdf::Joint::PRISMATIC ? Kind::Prismatic : Kind::Revolute;
          b.nq = b.nv = 1;
          Vec3 a(j.axis.x, j.axis.y, j.axis.z);
          if (!a.allFinite() || a.norm() == 0.0) throw Error("joint '" + j.name + "' has a zero or invalid axis");
          a.normalize();
          b.axis = a;
          for (int k = 0; k < 3; ++k)
            if (a == Vec3::Unit(k)) b.axis_index = k;
          if (j.type == urdf::Joint::CONTINUOUS) {
            b.continuous = true;
            ++continuous_joints;
            b.lower = {-kPi};
            b.upper = {kPi};
          } else if (j.limits) {
            b.lower = {j.limits->lower};
            b.upper = {j.limits->upper};
          }
          if (j.limits) {
            b.velocity = j.limits->velocity;
            b.effort = j.limits->effort;
          }
          if (j.dynamics) {
            b.damping = j.dynamics->damping;
            b.friction = j.dynamics->friction;
            if (j.dynamics->damping != 0.0 || j.dynamics->friction != 0.0) has_dynamics = true;
          }
          break;
        }
        case urdf::Joint::PLANAR:
          throw Error("joint '" + j.name +
                      "' is planar: talus has no planar joint type (use two prismatic joints and a revolute one)");
        default: throw Error("joint '" + j.name + "' has an unknown type");
      }
      bodies.push_back(b);
      visit(child, static_cast<int>(bodies.size()) - 1, Transform());
    }
  }

  void build(const urdf::ModelInterface& model) {
    const urdf::LinkConstSharedPtr root = model.getRoot();
    if (!root) throw Error("the URDF has no root link");
    if (floating_base) {
      BodyOut b;
      b.link = root->name;
      b.joint = "root_joint";
      b.parent = -1;
      b.kind = Kind::FreeFlyer;
      b.nq = 7;
      b.nv = 6;
      b.lower.assign(7, -1.0);
      b.upper.assign(7, 1.0);
      bodies.push_back(b);
      visit(*root, 0, Transform());
    } else {
      visit(*root, -1, Transform());
    }
    if (bodies.empty())
      throw Error("the model has no moving joint (a talus::Tree needs at least one body); use --floating-base?");
    all_links = static_cast<int>(frames.size());
    int q = 0, v = 0;
    for (auto& b : bodies) {
      b.idx_q = q;
      b.idx_v = v;
      q += b.nq;
      v += b.nv;
    }
  }

  /// Keeps only the frames named in `keep`, in that order (--frame); empty: all frames.
  void select_frames(const std::vector<std::string>& keep) {
    if (keep.empty()) return;
    std::vector<FrameOut> out;
    std::set<std::string> seen;
    for (const auto& n : keep) {
      if (!seen.insert(n).second) throw Error("frame '" + n + "' is listed twice (--frame / FRAMES)");
      const auto it = std::find_if(frames.begin(), frames.end(), [&](const FrameOut& f) { return f.name == n; });
      if (it == frames.end()) throw Error("frame '" + n + "' (--frame / FRAMES) is not a link of the URDF");
      out.push_back(*it);
    }
    frames = std::move(out);
  }
};

/// x snapped to 0, +1 or -1 if within kSnapTolerance of it; x otherwise.
double snap_unit(double x) {
  for (double t : {0.0, 1.0, -1.0})
    if (std::abs(x - t) <= kSnapTolerance) return t;
  return x;
}

/// The kinds of a joint placement (file comment): sets b.placement to the snapped transform
/// when a kind is structured, and records the kinds and the largest change.
void classify_placement(BodyOut& b) {
  const Mat3 R0 = b.placement.R;
  const Vec3 p0 = b.placement.p;
  Mat3 Rs;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Rs(i, j) = snap_unit(R0(i, j));
  // signed axis permutation: every entry 0 or ±1, one non-zero per column (a rotation: then also per row)
  bool permutation = true;
  int col[3] = {0, 0, 0};
  for (int j = 0; j < 3; ++j) {
    int nonzero = 0;
    for (int i = 0; i < 3; ++i) {
      if (Rs(i, j) != 0.0 && std::abs(Rs(i, j)) != 1.0) permutation = false;
      if (Rs(i, j) != 0.0) {
        ++nonzero;
        col[j] = Rs(i, j) > 0 ? i + 1 : -(i + 1);
      }
    }
    permutation = permutation && nonzero == 1;
  }
  Mat3 R = R0;
  if (permutation && std::abs(Rs.determinant() - 1.0) == 0.0) {
    R = Rs;
    b.rotation_kind = col[0] == 1 && col[1] == 2 && col[2] == 3
                          ? "talus::RotationIdentity"
                          : "talus::RotationPermutation<" + std::to_string(col[0]) + ", " + std::to_string(col[1]) +
                                ", " + std::to_string(col[2]) + ">";
  } else {
    b.rotation_kind = "talus::RotationGeneral";
    for (int a = 0; a < 3; ++a) {
      bool about = Rs(a, a) == 1.0;
      for (int k = 0; k < 3; ++k)
        if (k != a) about = about && Rs(a, k) == 0.0 && Rs(k, a) == 0.0;
      if (!about) continue;
      // row and column a exact; the 2x2 block (cos, sin) keeps the URDF's values
      for (int k = 0; k < 3; ++k) R(a, k) = R(k, a) = k == a ? 1.0 : 0.0;
      b.rotation_kind = "talus::RotationAbout<" + std::to_string(a) + ">";
      break;
    }
  }
  Vec3 ps = p0;
  int nonzero = 0, along = -1;
  for (int k = 0; k < 3; ++k) {
    if (std::abs(ps[k]) <= kSnapTolerance) ps[k] = 0.0;
    if (ps[k] != 0.0) {
      ++nonzero;
      along = k;
    }
  }
  Vec3 p = p0;
  if (nonzero == 0) {
    p = ps;
    b.translation_kind = "talus::TranslationZero";
  } else if (nonzero == 1) {
    p = ps;
    b.translation_kind = "talus::TranslationAlong<" + std::to_string(along) + ">";
  } else {
    b.translation_kind = "talus::TranslationGeneral";
  }
  b.snapped_R = (R - R0).cwiseAbs().maxCoeff();
  b.snapped_p = (p - p0).cwiseAbs().maxCoeff();
  b.placement = Transform(R, p);
}

/// "joint: R by 1.7e-07, p by 0 m" for each snapped placement.
std::vector<std::string> snap_report(const std::vector<BodyOut>& bodies) {
  std::vector<std::string> r;
  for (const auto& b : bodies)
    if (b.snapped_R > 0.0 || b.snapped_p > 0.0) {
      char buf[96];
      std::snprintf(buf, sizeof buf, ": R by %.2g, p by %.2g m", b.snapped_R, b.snapped_p);
      r.push_back(b.joint + buf);
    }
  return r;
}

std::string joint_type(const BodyOut& b) {
  if (b.kind == Kind::FreeFlyer) return "talus::JointFreeFlyer";
  const std::string base = b.kind == Kind::Revolute ? "talus::JointRevolute" : "talus::JointPrismatic";
  return b.axis_index < 0 ? base : base + "XYZ"[b.axis_index];
}

// ---------------------------------------------------------------------------------------------
// Header writing

std::string generate(const urdf::ModelInterface& model, const Builder& B, const std::string& urdf_path,
                     const std::string& name) {
  std::ostringstream o;
  const auto& bodies = B.bodies;
  const auto& frames = B.frames;
  const int nb = static_cast<int>(bodies.size());
  const int nf = static_cast<int>(frames.size());
  int nq = 0, nv = 0;
  double mass = 0.0, dropped = 0.0;
  int n_axis[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}};  // [revolute, prismatic][X, Y, Z, generic]
  int n_ff = 0;
  for (const auto& b : bodies) {
    nq += b.nq;
    nv += b.nv;
    mass += b.inertia.mass;
    if (b.kind == Kind::FreeFlyer) ++n_ff;
    else n_axis[b.kind == Kind::Revolute ? 0 : 1][b.axis_index < 0 ? 3 : b.axis_index]++;
  }
  for (const auto& d : B.dropped) dropped += d.second;

  o << "#pragma once\n";
  o << "// Generated by talus_urdf_gen from " << comment_safe(urdf_path) << "; do not edit.\n";
  o << "// Robot '" << comment_safe(model.getName()) << "', "
    << (B.floating_base ? "floating base"
                        : "fixed base (root link '" + comment_safe(model.getRoot()->name) + "' is the world)")
    << ".\n";
  o << "// nb = " << nb << " bodies, nq = " << nq << ", nv = " << nv << ", " << nf << " frames; moving mass "
    << fmt_mass(mass) << " kg.\n";
  o << "// Joints: " << n_ff << " free flyer; revolute X/Y/Z/generic-axis " << n_axis[0][0] << "/" << n_axis[0][1]
    << "/" << n_axis[0][2] << "/" << n_axis[0][3] << "; prismatic X/Y/Z/generic-axis " << n_axis[1][0] << "/"
    << n_axis[1][1] << "/" << n_axis[1][2] << "/" << n_axis[1][3] << ".\n";
  o << "// Body order: depth-first (pre-order) from the root link, children in urdfdom's order, i.e. sorted by\n"
    << "// joint name (byte-wise, \"Z\" before \"a\"), not in URDF file order. Body i carries joint i (joint_name[i]):\n"
    << "// joint::X == body index, idx_q::X == Tree::idx_q[joint::X], idx_v::X == Tree::idx_v[joint::X].\n";
  if (nf == B.all_links) o << "// Frames: every URDF link, in the same depth-first order.\n";
  else
    o << "// Frames: " << nf << " of the " << B.all_links << " URDF links (--frame / FRAMES), in the order listed.\n";
  o << "// Name lookups (frame_id, body_id, joint_id, joint_idx_q, joint_idx_v) return -1 for a name not in the\n"
    << "// model at run time; in a constant expression such a name is a compile error (\"call to non-'constexpr'\n"
    << "// function ... frame_name_not_in_model\", body_name_not_in_model, joint_name_not_in_model).\n";
  o << "// " << B.fixed_merged
    << " fixed joints merged: child link inertia added to the parent body, child link kept as a frame"
    << (nf == B.all_links ? "" : " if listed") << ".\n";
  o << "// Not represented:\n";
  o << "//  - <visual>, <collision>, <transmission>, <gazebo>, <sensor>, <calibration>, <safety_controller>: ignored.\n";
  o << "//  - <dynamics damping friction>: stored in m.damping / m.friction, not applied by any talus algorithm"
    << (B.has_dynamics ? " (this model has non-zero values)" : "") << ".\n";
  if (B.continuous_joints)
    o << "//  - " << B.continuous_joints
      << " continuous joint(s): position limits set to [-pi, pi] (sampling range, not a stop).\n";
  if (B.floating_base)
    o << "//  - free flyer position limits: [-1, 1] m per axis, quaternion entries [-1, 1] (sampling range).\n";
  if (!B.floating_base) {
    o << "//  - world-fixed links (root link and links fixed to it): frames with body -1; their mass ("
      << fmt_mass(dropped) << " kg) is not part of any body";
    if (!B.dropped.empty()) {
      o << ":";
      for (const auto& d : B.dropped) o << " " << comment_safe(d.first) << " " << fmt_mass(d.second) << " kg;";
    }
    o << "\n";
  }
  for (const auto& m : B.mimics) o << "// " << comment_safe(m) << "\n";
  if (!bodies.empty() && !bodies[0].rotation_kind.empty()) {
    std::map<std::string, int> kinds;
    for (const auto& b : bodies) {
      const std::string& r = b.rotation_kind;
      ++kinds[r.compare(0, 26, "talus::RotationPermutation") == 0 ? "permutation" : r.substr(15)];
      ++kinds["T" + b.translation_kind.substr(18)];
    }
    auto n = [&](const std::string& k) { return std::to_string(kinds[k]); };
    o << "// Placement kinds (in the Body types; talus/math/placement.hpp): rotation identity " << n("Identity")
      << ", axis permutation " << n("permutation") << ", about one axis "
      << n("About<0>") + "/" + n("About<1>") + "/" + n("About<2>") << " (x/y/z), general " << n("General")
      << "; translation zero " << n("TZero") << ", along one axis "
      << n("TAlong<0>") + "/" + n("TAlong<1>") + "/" + n("TAlong<2>") << " (x/y/z), general " << n("TGeneral") << ".\n";
    const auto snapped = snap_report(bodies);
    o << "// Snapped to exact 0/+-1 (rotation entries) and 0 (offsets) within " << shortest(kSnapTolerance) << ": "
      << (snapped.empty() ? "nothing" : std::to_string(snapped.size()) + " joint placements")
      << (snapped.empty() ? "." : ":") << "\n";
    for (const auto& line : snapped) o << "//   " << comment_safe(line) << "\n";
  }
  o << "#include <talus/model/model.hpp>\n\n";
  o << "namespace talus::models::" << name << " {\n\n";

  // Tree
  o << "using Tree = talus::Tree<\n";
  for (int i = 0; i < nb; ++i) {
    const auto& b = bodies[i];
    const std::string kinds = b.rotation_kind.empty() ? "" : ", " + b.rotation_kind + ", " + b.translation_kind;
    o << "    talus::Body<" << joint_type(b) << ", " << b.parent << kinds << ">" << (i + 1 < nb ? "," : ">;")
      << "  // body " << i << ": " << comment_safe(b.link) << " (joint " << comment_safe(b.joint) << ")\n";
  }
  o << "inline constexpr int num_frames = " << nf << ";\n";
  o << "template <class S = double>\nusing Model = talus::Model<S, Tree, num_frames>;\n\n";

  // names
  std::vector<std::string> body_names, joint_names, frame_names;
  for (const auto& b : bodies) body_names.push_back(b.link);
  for (const auto& b : bodies) joint_names.push_back(b.joint);
  for (const auto& f : frames) frame_names.push_back(f.name);
  o << "inline constexpr const char* body_names[] = {\n";
  for (const auto& n : body_names) o << "    " << quoted(n) << ",\n";
  o << "};\n";
  o << "inline constexpr const char* joint_names[] = {\n";
  for (const auto& n : joint_names) o << "    " << quoted(n) << ",\n";
  o << "};\n";
  o << "inline constexpr const char* frame_names[] = {\n";
  for (const auto& n : frame_names) o << "    " << quoted(n) << ",\n";
  o << "};\n\n";
  const auto body_ids = identifiers(body_names), joint_ids = identifiers(joint_names),
             frame_ids = identifiers(frame_names);
  o << "namespace body {\n";
  for (int i = 0; i < nb; ++i) o << "inline constexpr int " << body_ids[i] << " = " << i << ";\n";
  o << "}  // namespace body\n";
  o << "/// Joint index (= the index of the body it moves) by URDF joint name.\n";
  o << "namespace joint {\n";
  for (int i = 0; i < nb; ++i) o << "inline constexpr int " << joint_ids[i] << " = " << i << ";\n";
  o << "}  // namespace joint\n";
  o << "/// First q index of each joint (Tree::idx_q).\n";
  o << "namespace idx_q {\n";
  for (int i = 0; i < nb; ++i)
    o << "inline constexpr int " << joint_ids[i] << " = " << bodies[i].idx_q << ";  // nq " << bodies[i].nq << "\n";
  o << "}  // namespace idx_q\n";
  o << "/// First v index of each joint (Tree::idx_v).\n";
  o << "namespace idx_v {\n";
  for (int i = 0; i < nb; ++i)
    o << "inline constexpr int " << joint_ids[i] << " = " << bodies[i].idx_v << ";  // nv " << bodies[i].nv << "\n";
  o << "}  // namespace idx_v\n";
  o << "namespace frame {\n";
  for (int i = 0; i < nf; ++i)
    o << "inline constexpr int " << frame_ids[i] << " = " << i << ";  // on body " << frames[i].body << "\n";
  o << "}  // namespace frame\n\n";

  o << "// Not constexpr on purpose: reached only for a name that is not in the model, so that such a name\n"
    << "// in a constant expression is a compile error naming the problem. At run time: -1.\n";
  o << "inline int frame_name_not_in_model(const char* /*name*/) { return -1; }\n";
  o << "inline int body_name_not_in_model(const char* /*name*/) { return -1; }\n";
  o << "inline int joint_name_not_in_model(const char* /*name*/) { return -1; }\n\n";
  o << "/// Index of the frame called `name` (URDF link name), -1 if absent (a compile error in a constant expression).\n";
  o << "constexpr int frame_id(const char* name) {\n";
  o << "  for (int i = 0; i < num_frames; ++i)\n";
  o << "    if (talus::names_equal(frame_names[i], name)) return i;\n";
  o << "  return frame_name_not_in_model(name);\n}\n";
  o << "/// Index of the body whose link is called `name`, -1 if absent (a compile error in a constant expression).\n";
  o << "constexpr int body_id(const char* name) {\n";
  o << "  for (int i = 0; i < Tree::nb; ++i)\n";
  o << "    if (talus::names_equal(body_names[i], name)) return i;\n";
  o << "  return body_name_not_in_model(name);\n}\n";
  o << "/// Index of the joint called `name` (= its body's index), -1 if absent (a compile error in a constant expression).\n";
  o << "constexpr int joint_id(const char* name) {\n";
  o << "  for (int i = 0; i < Tree::nb; ++i)\n";
  o << "    if (talus::names_equal(joint_names[i], name)) return i;\n";
  o << "  return joint_name_not_in_model(name);\n}\n";
  o << "/// First q index of the joint called `name` (Tree::idx_q), -1 if absent (a compile error in a constant expression).\n";
  o << "constexpr int joint_idx_q(const char* name) {\n";
  o << "  const int j = joint_id(name);\n";
  o << "  return j < 0 ? -1 : Tree::idx_q[static_cast<std::size_t>(j)];\n}\n";
  o << "/// First v index of the joint called `name` (Tree::idx_v), -1 if absent (a compile error in a constant expression).\n";
  o << "constexpr int joint_idx_v(const char* name) {\n";
  o << "  const int j = joint_id(name);\n";
  o << "  return j < 0 ? -1 : Tree::idx_v[static_cast<std::size_t>(j)];\n}\n\n";

  // make_model
  o << "template <class S = double>\nModel<S> make_model() {\n  Model<S> m;\n";
  for (int i = 0; i < nb; ++i) {
    const auto& b = bodies[i];
    o << "  // body " << i << ": " << comment_safe(b.link) << "\n";
    o << "  m.body_name[" << i << "] = " << quoted(b.link) << ";\n";
    o << "  m.joint_name[" << i << "] = " << quoted(b.joint) << ";\n";
    o << "  m.joint_placement[" << i << "] = " << transform(b.placement) << ";\n";
    o << "  m.axis[" << i << "] = " << vec3(b.axis) << ";\n";
    o << "  m.inertia[" << i << "] = " << inertia(b.inertia) << ";\n";
    for (std::size_t k = 0; k < b.lower.size(); ++k) {
      o << "  m.lower_position_limit[" << b.idx_q + static_cast<int>(k) << "] = " << num(b.lower[k]) << ";\n";
      o << "  m.upper_position_limit[" << b.idx_q + static_cast<int>(k) << "] = " << num(b.upper[k]) << ";\n";
    }
    if (b.velocity) o << "  m.velocity_limit[" << b.idx_v << "] = " << num(*b.velocity) << ";\n";
    if (b.effort) o << "  m.effort_limit[" << b.idx_v << "] = " << num(*b.effort) << ";\n";
    if (b.damping) o << "  m.damping[" << b.idx_v << "] = " << num(*b.damping) << ";\n";
    if (b.friction) o << "  m.friction[" << b.idx_v << "] = " << num(*b.friction) << ";\n";
  }
  o << "  // frames\n";
  for (int k = 0; k < nf; ++k)
    o << "  m.frames[" << k << "] = talus::Frame<S>{" << quoted(frames[k].name) << ", " << frames[k].body << ", "
      << transform(frames[k].placement) << "};\n";
  o << "  return m;\n}\n\n";
  o << "}  // namespace talus::models::" << name << "\n";
  // A compiled model library (talus_add_model(... COMPILED)) defines this macro for its users:
  // its header declares the algorithms and solvers it instantiates `extern` (talus/instances.hpp).
  o << "\n#ifdef TALUS_MODEL_" << name << "_COMPILED\n#include <talus/models/" << name << "_instances.hpp>\n#endif\n";
  return o.str();
}

/// The checks talus::check_model applies to a model (talus/model/check.hpp), on the
/// generator's numbers, so that a generated model always passes check_model; an error names
/// the offending link or frame.
void validate(const Builder& B) {
  for (const BodyOut& b : B.bodies) {
    if (!talus::detail::transform_valid(b.placement))
      throw Error("joint '" + b.joint + "': origin is not a rigid transform within 1e6 m");
    if (!talus::detail::inertia_valid(b.inertia))
      throw Error("link '" + b.link +
                  "' (with the links merged into it): mass must be in [0, 1e6] kg and the "
                  "rotational inertia symmetric positive semi-definite with entries within 1e6 kg m^2");
    if (b.axis_index < 0 && b.kind != Kind::FreeFlyer && !(std::abs(b.axis.norm() - 1.0) <= 1.5e-8))
      throw Error("joint '" + b.joint + "': axis is not a unit vector");
  }
  for (const FrameOut& f : B.frames)
    if (!talus::detail::transform_valid(f.placement))
      throw Error("frame '" + f.name + "': placement is not a rigid transform within 1e6 m");
}

int usage(const char* argv0, int code) {
  (code ? std::cerr : std::cout)
      << "usage: " << argv0
      << " --urdf FILE --name NAME --out HEADER [--floating-base] [--frame LINK]... [--general-placements]\n"
      << "  --frame LINK  keep only the listed links as frames, in the order listed (repeatable)\n"
      << "  --general-placements  every joint placement general (RotationGeneral, TranslationGeneral), as written\n"
      << "                in the URDF. Default: each placement's rotation and translation kind is classified and\n"
      << "                written into the Body types; rotation entries within 1e-6 of 0/+1/-1 and offsets within\n"
      << "                1e-6 m of 0 are snapped to exact values where that gives a structured kind (reported on\n"
      << "                stderr and in the header).\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::string urdf_path, name, out;
  bool floating = false, general_placements = false;
  std::vector<std::string> keep_frames;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](std::string& dst) {
      if (i + 1 >= argc) {
        std::cerr << "talus_urdf_gen: " << a << " needs a value\n";
        std::exit(2);
      }
      dst = argv[++i];
    };
    if (a == "--urdf") value(urdf_path);
    else if (a == "--name") value(name);
    else if (a == "--out") value(out);
    else if (a == "--floating-base") floating = true;
    else if (a == "--general-placements") general_placements = true;
    else if (a == "--frame") value(keep_frames.emplace_back());
    else if (a == "-h" || a == "--help") return usage(argv[0], 0);
    else {
      std::cerr << "talus_urdf_gen: unknown argument '" << a << "'\n";
      return usage(argv[0], 2);
    }
  }
  if (urdf_path.empty() || name.empty() || out.empty()) return usage(argv[0], 2);
  if (!is_identifier(name)) {
    std::cerr << "talus_urdf_gen: --name '" << name << "' is not a valid C++ identifier\n";
    return 2;
  }
  try {
    const urdf::ModelInterfaceSharedPtr model = urdf::parseURDFFile(urdf_path);
    if (!model) throw Error("cannot read or parse URDF file '" + urdf_path + "'");
    Builder B;
    B.floating_base = floating;
    B.build(*model);
    B.select_frames(keep_frames);
    if (!general_placements) {
      for (auto& b : B.bodies) classify_placement(b);
      const auto snapped = snap_report(B.bodies);
      if (!snapped.empty()) {
        std::cerr << "talus_urdf_gen: " << name << ": " << snapped.size()
                  << " joint placements snapped to exact 0/+-1 (rotation entries) and 0 (offsets) within "
                  << shortest(kSnapTolerance) << " (--general-placements keeps them):\n";
        for (const auto& line : snapped) std::cerr << "  " << line << "\n";
      }
    }
    validate(B);  // the numbers check_model will accept, or an error naming the link
    if (floating && !(B.bodies[0].inertia.mass > 0.0))
      std::cerr << "talus_urdf_gen: warning: " << urdf_path << ": the floating base body '" << B.bodies[0].link
                << "' has no mass (its mass matrix block will be singular)\n";
    const std::string text = generate(*model, B, urdf_path, name);
    const std::string tmp = out + ".tmp";
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      if (!f) throw Error("cannot write '" + tmp + "'");
      f << text;
      f.close();
      if (!f) throw Error("error writing '" + tmp + "'");
    }
    if (std::rename(tmp.c_str(), out.c_str()) != 0) {
      std::remove(tmp.c_str());
      throw Error("cannot rename '" + tmp + "' to '" + out + "'");
    }
  } catch (const std::exception& e) {
    std::cerr << "talus_urdf_gen: error: " << urdf_path << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
