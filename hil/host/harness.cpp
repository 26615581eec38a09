// hil_harness: the HIL rig's host side. Runs the robot's plant (MuJoCo, plant.hpp) in lockstep
// with the firmware (state estimator and balance controller; native process or emulated
// Cortex-M7) over the framed link (hil/protocol): the firmware gets what the robot's sensors
// report (sensors.hpp: encoders, joint rates, IMU, contact switches), never the plant's state.
// Plays the scenarios, injects faults, logs every period to CSV (the truth beside the
// firmware's estimate), prints the verdict table and exits 0 only if every check passes.
//
//   hil_harness [--robot solo12|anymal_c] [--urdf <its URDF>]
//               (--native <firmware> | --qemu <firmware.elf> | --tcp <port>)
//               [--machine mps2-an500|mps2-an386|pc]  (--qemu's board: Cortex-M7, the default, M4F,
//                or bare-metal 32-bit x86 on qemu-system-i386: port/x86, the link on COM2)
//               [--run full|short] [--out <dir>] [--fault-rate r] [--seed n] [--deadline-ms d]
//               [--name <what runs the firmware, for the verdict and the plots>]
//               [--budget-instructions n]  (estimator + controller per step; default the
//                robot's, an M7 budget: 0.25 ms at 600 MHz; --machine pc: × 5/3, below)
//               [--switches yes|no]  (no: the sensor frames carry no contact switches; the
//                firmware detects the contacts itself, talus/estimation/contact_detection.hpp)
//               [robustness envelope: --payload frac[,dx,dy,dz] --mu m --noise-scale k --latency n
//                --bias-step t,gyro,accel --run push --push-impulse J --push-dir lateral|frontal
//                --summary <file>]
//
// --robot: the plant's robot (hil/robots; solo12 by default), which must be the one the firmware
// was built for (HIL_ROBOT_ANYMAL_C); --urdf defaults to its URDF in the models directory the
// build was configured with (TALUS_MODELS_DIR). The robot sets the postures the runs start
// from, the foot spheres, the pushes (Solo-12's × the robot's mass ratio: the same Δv) and
// the verdict's heights.
//
// The robustness envelope (hil/envelope.py repeats runs under these; none changes anything when
// absent): --payload a point mass of frac × the robot's mass on the base, dx, dy, dz (m, base
// frame) from the base's CoM; --mu the floor's friction (plant; the controller assumes 0.6);
// --noise-scale every sensor noise and bias × k; --latency each command applied n periods after
// the one it answers (a FIFO between the link and the drives; 0 = the rig's nominal timing);
// --bias-step at plant time t s, every axis's gyroscope bias + gyro rad/s and accelerometer bias
// + accel m/s². --run push: stand 0.5 s, then one push of J N·s (0.1 s) sideways (+y) or
// forwards (+x), 1.5 s to recover: the envelope bisects J. --summary: the judged figures as
// key=value lines, for a script.
//
// Each 1 ms period k: send sensor frame k (the sensors at the plant state after period k−1),
// wait for the command that echoes k, apply it for 1 ms of plant time (two MuJoCo substeps);
// without it, the previous torques are held, as a drive holds its last set-point.
// How long to wait:
//   --qemu (emulated CPU): lockstep. The harness waits for every answer that is due (the
//     frame reached the firmware intact) until it leaves the firmware, however long the
//     emulator takes (a 20 s safety limit for a hung emulator, which then counts as a miss),
//     and for none that is not (a frame the downlink fault dropped, corrupted or delayed); an
//     uplink fault then acts on the answer as on any link. Timing is judged by instructions
//     (-icount: 150 k per step = 0.25 ms at 600 MHz), not wall time, so the run does not
//     depend on how loaded the host is: the same seed gives the same CSV, bit for bit, except
//     the instruction counts' last SysTick tick (5 instructions: where the step starts within a
//     tick depends on how long the firmware spun waiting for its frame).
//   --native, --tcp (a process, a real board): a wall-clock deadline, --deadline-ms (30 ms
//     native, 100 ms a board); an answer after it is late (counted).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <sys/stat.h>
#include <vector>

#include <hil/protocol.hpp>
#include <talus/control/balance_controller.hpp>
#include <talus/math/quaternion.hpp>

#include "faults.hpp"
#include "firmware_link.hpp"
#include "plant.hpp"
#include "sensors.hpp"

namespace talus_hil {
namespace {

using namespace talus::hil;
using talus::ControllerState;
using Command = CommandMessage<12>;
using Joints = Eigen::Matrix<double, 12, 1>;

// ---- scenarios ---------------------------------------------------------------------------

struct Segment {
  std::string name;
  double duration = 0;                             ///< s
  Eigen::Vector3d push = Eigen::Vector3d::Zero();  ///< N on the base, from push_start for push_time
  double push_start = 0.1, push_time = 0.1;
  unsigned lift = 0;  ///< Request bits (lift foot k) for the first lift_time s
  double lift_time = 0;
  double fault_rate = 0;  ///< probability of a link fault per period
  int nan_frames = 0;     ///< sensor frames with a NaN joint angle, from period 100
  int silence = 0;        ///< periods without any frame, from the start
};

/// The envelope's push test (--run push): the impulse (N·s) and its direction.
struct PushTest {
  double impulse = 0;
  bool frontal = false;
};

/// The runs; the pushes in N as on Solo-12 (2.5 kg), × push_scale (the robot's mass ratio).
std::vector<Segment> scenarios(const std::string& run, double fault_rate, const PushTest& pt, double push_scale) {
  std::vector<Segment> s;
  auto push = [&](const char* name, double fx, double fy, double duration) {
    Segment g{name, duration};
    g.push = push_scale * Eigen::Vector3d(fx, fy, 0);
    s.push_back(g);
  };
  if (run == "push") {  // the envelope's bisection: one push from standing, then time to recover
    s.push_back({"stand", 0.5});
    Segment g{pt.frontal ? "push_frontal" : "push_lateral", 1.5};
    const double f = pt.impulse / g.push_time;  // --push-impulse is in N·s, whatever the robot
    g.push = Eigen::Vector3d(pt.frontal ? f : 0, pt.frontal ? 0 : f, 0);
    s.push_back(g);
    return s;
  }
  if (run == "short") {  // CI (label hil): stand, one push, a fault burst, NaN frames, the silent link
    s.push_back({"stand", 0.3});
    push("push_lateral", 0, 15, 0.6);
    Segment f{"link_faults", 0.4};
    f.fault_rate = 4 * fault_rate;
    s.push_back(f);
    Segment n{"nan_sensor", 0.15};
    n.nan_frames = 3;
    s.push_back(n);
    Segment q{"silence", 0.15};
    q.silence = 100;
    s.push_back(q);
    return s;
  }
  s.push_back({"stand_up", 1.5});
  s.push_back({"stand", 0.5});
  for (double f : {10.0, 15.0, 20.0}) push("push_lateral", 0, f, 0.8);
  for (double f : {10.0, 15.0, 20.0}) push("push_frontal", f, 0, 0.8);
  Segment l{"three_feet", 3.0};
  l.lift = request_lift_foot0;  // FL
  l.lift_time = 1.6;
  s.push_back(l);
  Segment f{"link_faults", 2.0};
  f.fault_rate = fault_rate;
  s.push_back(f);
  Segment n{"nan_sensor", 0.5};
  n.nan_frames = 5;
  s.push_back(n);
  Segment q{"silence", 0.5};
  q.silence = 100;
  s.push_back(q);
  return s;
}

// ---- bookkeeping ---------------------------------------------------------------------------

struct Counts {
  long inj[2][static_cast<int>(LinkFault::count)] = {};  ///< [down/up][fault]
  long nan_frames = 0, silent_periods = 0, periods = 0, sent = 0;
  long deadline_miss = 0, late = 0, fresh = 0;
  std::uint32_t fw[fault_count] = {};
  ParserStats host;
  std::vector<std::uint32_t> instr, est_instr, total_instr;
  bool fw_exit_ok = false;
  int fw_exit = -1;
  long down(LinkFault f) const { return inj[0][static_cast<int>(f)]; }
  long up(LinkFault f) const { return inj[1][static_cast<int>(f)]; }
};

/// The estimate against the truth over the judged periods (fresh commands, stand .. silence,
/// frames the estimator accepted).
struct EstimateErrors {
  long n = 0;
  double sum_v2 = 0, max_tilt_deg = 0, max_height = 0, end_drift_xy = 0, end_drift_yaw_deg = 0;
  void add(const PlantState& truth, const Command& cmd) {
    const Eigen::Matrix3d R = talus::quaternion_to_rotation<double>(truth.q[3], truth.q[4], truth.q[5], truth.q[6]);
    const Eigen::Matrix3d Re = talus::quaternion_to_rotation<double>(cmd.orientation[0], cmd.orientation[1],
                                                                     cmd.orientation[2], cmd.orientation[3]);
    const Eigen::Vector3d v_true = R * truth.v.segment<3>(3);
    const Eigen::Vector3d v_est(cmd.velocity[0], cmd.velocity[1], cmd.velocity[2]);
    ++n;
    sum_v2 += (v_est - v_true).squaredNorm();
    // tilt error: the angle between the true and the estimated world z seen from the base
    const double c = std::clamp(R.row(2).dot(Re.row(2)), -1.0, 1.0);
    max_tilt_deg = std::max(max_tilt_deg, std::acos(c) * 180 / M_PI);
    max_height = std::max(max_height, std::abs(cmd.position[2] - truth.q[2]));
    end_drift_xy = std::hypot(cmd.position[0] - truth.q[0], cmd.position[1] - truth.q[1]);
    const double yaw = std::atan2(R(1, 0), R(0, 0)), yaw_est = std::atan2(Re(1, 0), Re(0, 0));
    end_drift_yaw_deg = std::remainder(yaw_est - yaw, 2 * M_PI) * 180 / M_PI;
  }
  double rms_v() const { return n > 0 ? std::sqrt(sum_v2 / n) : 0; }
};

/// The estimate's velocity error normalised by its own covariance (the command's
/// velocity_covariance, the filter's ξ_v block) over the same periods: NEES = ξ_vᵀ P_vv⁻¹ ξ_v with
/// ξ_v = v − R R̂ᵀ v̂ (the right-invariant velocity error, world axes), a χ²(3) draw when the
/// filter is consistent: 95 % of them in [0.216, 9.35], mean 3.
double velocity_nees(const PlantState& truth, const Command& cmd) {
  const Eigen::Matrix3d R = talus::quaternion_to_rotation<double>(truth.q[3], truth.q[4], truth.q[5], truth.q[6]);
  const Eigen::Matrix3d Re = talus::quaternion_to_rotation<double>(cmd.orientation[0], cmd.orientation[1],
                                                                   cmd.orientation[2], cmd.orientation[3]);
  const Eigen::Vector3d v = R * truth.v.segment<3>(3), ve(cmd.velocity[0], cmd.velocity[1], cmd.velocity[2]);
  const auto& c = cmd.velocity_covariance;
  Eigen::Matrix3d P;
  P << c[0], c[1], c[2], c[1], c[3], c[4], c[2], c[4], c[5];
  const Eigen::Vector3d e = v - R * Re.transpose() * ve;
  const Eigen::LDLT<Eigen::Matrix3d> ldlt(P);
  if (ldlt.info() != Eigen::Success || !(ldlt.vectorD().minCoeff() > 0)) return std::nan("");
  return e.dot(ldlt.solve(e));
}

/// Consistency over the run: the mean of every frame's NEES, the share inside χ²(3)'s 95 %,
/// and the time-average test (Bar-Shalom, Li, Kirubarajan 2001, §5.4.2) on frames `spacing`
/// apart, so that their errors are close to independent: for a consistent filter the sum of
/// N of them is χ²(3N), so their mean lies inside χ²(3N)/N's 95 % interval.
struct NeesConsistency {
  static constexpr long spacing = 100;  // frames: 0.1 s, longer than the error's correlation
  double sum = 0, spaced_sum = 0;
  long n = 0, inside = 0, spaced_n = 0;
  void add(double nees) {
    if (!std::isfinite(nees)) return;
    sum += nees;
    if (n % spacing == 0) {
      spaced_sum += nees;
      ++spaced_n;
    }
    ++n;
    inside += nees >= 0.216 && nees <= 9.35;
  }
  double spaced_mean() const { return spaced_n > 0 ? spaced_sum / static_cast<double>(spaced_n) : 0.0; }
  /// χ²(k)'s quantile at the standard normal's z over k = 3N (Wilson–Hilferty), divided by N.
  double spaced_bound(double z) const {
    const double k = 3.0 * static_cast<double>(spaced_n), c = 2.0 / (9.0 * k);
    return spaced_n > 0 ? k * std::pow(1.0 - c + z * std::sqrt(c), 3) / static_cast<double>(spaced_n) : 0.0;
  }
};

/// The estimator's normalised innovation squared over the same periods (the command's nis and
/// nis_dof): consistent, the sum is χ²(rows), so its mean per row is 1 ± 1.96 √(2 / rows) (95 %).
struct InnovationConsistency {
  double sum = 0;
  long rows = 0, frames = 0;
  void add(const Command& cmd) {
    if (cmd.nis_dof == 0 || !std::isfinite(cmd.nis)) return;
    sum += cmd.nis;
    rows += cmd.nis_dof;
    ++frames;
  }
  double mean_per_row() const { return rows > 0 ? sum / static_cast<double>(rows) : 0; }
  double band() const { return rows > 0 ? 1.96 * std::sqrt(2.0 / static_cast<double>(rows)) : 0; }
};

struct SegmentResult {
  std::string name;
  double impulse = 0;  ///< N·s
  double min_z = 1e9, max_tilt = 0, end_z = 0;
  bool up = true;
};

double tilt_deg(const Eigen::Matrix<double, 19, 1>& q) {
  const double w = q[3], x = q[4], y = q[5];
  (void)w;
  const double zz = 1 - 2 * (x * x + y * y);  // R(2,2): cos of the tilt
  return std::acos(std::clamp(zz, -1.0, 1.0)) * 180 / M_PI;
}

void rpy(const Eigen::Matrix<double, 19, 1>& q, double& r, double& p, double& y) {
  const double w = q[3], x = q[4], yq = q[5], z = q[6];
  r = std::atan2(2 * (w * x + yq * z), 1 - 2 * (x * x + yq * yq));
  p = std::asin(std::clamp(2 * (w * yq - z * x), -1.0, 1.0));
  y = std::atan2(2 * (w * z + x * yq), 1 - 2 * (yq * yq + z * z));
}

// Splits a byte stream into frames (each ending with its 0x00 delimiter).
struct Framer {
  std::vector<std::uint8_t> cur;
  template <class F>
  void push(const std::uint8_t* p, std::size_t n, F&& on_frame) {
    for (std::size_t i = 0; i < n; ++i) {
      cur.push_back(p[i]);
      if (p[i] == 0) {
        on_frame(cur);
        cur.clear();
      }
    }
  }
};

// Sequence number inside an encoded command frame (the harness is the link: it may look).
long peek_sequence(const std::vector<std::uint8_t>& frame) {
  std::uint8_t raw[Parser<Command>::raw_size + 8];
  if (frame.size() < 2) return -1;
  const std::size_t n = cobs_decode(frame.data(), frame.size() - 1, raw, sizeof raw);
  if (n == static_cast<std::size_t>(-1) || n < kHeaderSize) return -1;
  Reader r{raw + 2};
  return static_cast<long>(r.u32());
}

const double kTiltMax = 20.0;  // the heights and the instruction budget are the robot's (hil/robots)

/// The rig-side knobs of the robustness envelope that live in the harness (the plant's and the
/// sensors' are in PlantConfig and SensorNoise).
struct Envelope {
  int latency = 0;             ///< periods between a command's own period and the one it drives
  double bias_step_at = -1;    ///< s of plant time; < 0: no bias step
  double bias_step_gyro = 0;   ///< rad/s on every axis
  double bias_step_accel = 0;  ///< m/s² on every axis
  std::string describe;        ///< for the CSV header and the verdict ("" when nominal)
};

/// The drives' side of the latency: commands queue here for `latency` periods.
struct ActuationDelay {
  std::vector<Joints> fifo;
  std::size_t head = 0;
  explicit ActuationDelay(int latency) : fifo(static_cast<std::size_t>(latency), Joints::Zero()) {}
  /// Queues this period's torques, returns the ones the drives apply now.
  Joints pass(const Joints& tau) {
    if (fifo.empty()) return tau;
    Joints out = fifo[head];
    fifo[head] = tau;
    head = (head + 1) % fifo.size();
    return out;
  }
};

/// "a,b,c,..." into up to n doubles; false if a field does not parse.
bool parse_list(const std::string& v, double* out, int n, int& got) {
  got = 0;
  std::size_t pos = 0;
  while (got < n && pos <= v.size()) {
    const std::size_t comma = std::min(v.find(',', pos), v.size());
    char* end = nullptr;
    const std::string field = v.substr(pos, comma - pos);
    out[got] = std::strtod(field.c_str(), &end);
    if (field.empty() || *end != 0) return false;
    ++got;
    pos = comma + 1;
  }
  return pos > v.size();
}

void rpy(const Eigen::Vector4d& wxyz, double& r, double& p, double& y) {
  Eigen::Matrix<double, 19, 1> q = Eigen::Matrix<double, 19, 1>::Zero();
  q.segment<4>(3) = wxyz;
  rpy(q, r, p, y);
}

// A frame the estimator refused carries a zero estimate (its quaternion is not a rotation).
bool estimate_refused(const Command& cmd) { return Eigen::Vector4d(cmd.orientation.data()).norm() < 0.5; }

// The truth's world velocity and the firmware's estimate (blank when no fresh answer).
void write_estimate_columns(std::ofstream& csv, const PlantState& truth, const Command& cmd, bool fresh, double nees) {
  const Eigen::Matrix3d R = talus::quaternion_to_rotation<double>(truth.q[3], truth.q[4], truth.q[5], truth.q[6]);
  const Eigen::Vector3d vw = R * truth.v.segment<3>(3);
  char line[320];
  std::snprintf(line, sizeof line, ",%.6f,%.6f,%.6f", vw.x(), vw.y(), vw.z());
  csv << line;
  if (!fresh || estimate_refused(cmd)) {
    csv << ",,,,,,,,,,,,,\n";
    return;
  }
  double r, p, y;
  rpy(Eigen::Vector4d(cmd.orientation[0], cmd.orientation[1], cmd.orientation[2], cmd.orientation[3]), r, p, y);
  std::snprintf(line, sizeof line, ",%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%u,%.4f,%u,%.4f\n", cmd.position[0],
                cmd.position[1], cmd.position[2], r, p, y, cmd.velocity[0], cmd.velocity[1], cmd.velocity[2],
                cmd.estimate_instructions, cmd.nis, static_cast<unsigned>(cmd.nis_dof), nees);
  csv << line;
}

/// The figures the envelope judges a run by (--summary).
struct Summary {
  bool stayed_up;
  double stood_z, min_z, max_tilt_deg, push_lateral, push_frontal;  ///< m, m, °, N·s, N·s
  double est_v_rms, est_tilt_deg, est_height;                       ///< m/s, °, m
  bool all_checks;
  std::string fell_in;  ///< "" when it stayed up
};

void write_summary(const std::string& path, const Summary& s) {
  std::ofstream f(path);
  char line[512];
  std::snprintf(line, sizeof line,
                "stayed_up=%d\nstood_z=%.4f\nmin_z=%.4f\nmax_tilt_deg=%.2f\npush_lateral=%.3f\npush_frontal=%.3f\n"
                "est_v_rms=%.5f\nest_tilt_deg=%.3f\nest_height_mm=%.2f\nall_checks=%d\n",
                s.stayed_up ? 1 : 0, s.stood_z, s.min_z, s.max_tilt_deg, s.push_lateral, s.push_frontal, s.est_v_rms,
                s.est_tilt_deg, 1e3 * s.est_height, s.all_checks ? 1 : 0);
  f << line << "fell_in=" << s.fell_in << "\n";
}

int run(int argc, char** argv) {
  std::string robot_name = "solo12", urdf, native, qemu, machine = "mps2-an500", run_kind = "full", out_dir = "hil-out";
  int tcp_port = 0;
  std::string name;
  double fault_rate = 0.03;
  unsigned seed = 1;
  int deadline_ms = -1;
  double budget_override = -1;
  PlantConfig pc;
  SensorNoise noise;
  Envelope env;
  PushTest push_test;
  std::string summary_path;
  bool switches = true;
  bool bad = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--urdf") urdf = v;
    else if (a == "--robot") robot_name = v;
    else if (a == "--native") native = v;
    else if (a == "--qemu") qemu = v;
    else if (a == "--machine") {
      machine = v;
      bad = bad || (v != "mps2-an500" && v != "mps2-an386" && v != "pc");
    } else if (a == "--tcp") tcp_port = std::stoi(v);
    else if (a == "--name") name = v;
    else if (a == "--budget-instructions") budget_override = std::stod(v);
    else if (a == "--run") run_kind = v;
    else if (a == "--out") out_dir = v;
    else if (a == "--fault-rate") fault_rate = std::stod(v);
    else if (a == "--seed") seed = static_cast<unsigned>(std::stoul(v));
    else if (a == "--deadline-ms") deadline_ms = std::stoi(v);
    else if (a == "--mu") {
      pc.mu = std::stod(v);
      env.describe += " mu=" + v;
    } else if (a == "--noise-scale") {
      noise.scale = std::stod(v);
      env.describe += " noise_scale=" + v;
    } else if (a == "--latency") {
      env.latency = std::stoi(v);
      env.describe += " latency=" + v;
    } else if (a == "--push-impulse") push_test.impulse = std::stod(v);
    else if (a == "--push-dir") {
      push_test.frontal = v == "frontal";
      bad = bad || (v != "frontal" && v != "lateral");
    } else if (a == "--summary") summary_path = v;
    else if (a == "--switches") {
      switches = v == "yes";
      bad = bad || (v != "yes" && v != "no");
      if (!switches) env.describe += " switches=no";
    } else if (a == "--payload") {
      double x[4] = {0, 0, 0, 0};
      int got = 0;
      bad = bad || !parse_list(v, x, 4, got) || (got != 1 && got != 4);
      pc.payload_fraction = x[0];
      pc.payload_offset = Eigen::Vector3d(x[1], x[2], x[3]);
      env.describe += " payload=" + v;
    } else if (a == "--bias-step") {
      double x[3] = {-1, 0, 0};
      int got = 0;
      bad = bad || !parse_list(v, x, 3, got) || got != 3;
      env.bias_step_at = x[0];
      env.bias_step_gyro = x[1];
      env.bias_step_accel = x[2];
      env.describe += " bias_step=" + v;
    } else {
      std::fprintf(stderr, "hil_harness: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  const int sources = !native.empty() + !qemu.empty() + (tcp_port > 0);
  const talus::hil::RobotParams* robot_ptr = find_robot(robot_name);
  if (robot_ptr != nullptr && urdf.empty()) urdf = std::string(HIL_MODELS_DIR) + "/" + robot_ptr->urdf;
  if (robot_ptr == nullptr || sources != 1 || bad || env.latency < 0 ||
      (run_kind != "full" && run_kind != "short" && run_kind != "push")) {
    std::fprintf(
        stderr,
        "usage: hil_harness [--robot solo12|anymal_c] [--urdf its.urdf] (--native fw | --qemu fw.elf [--machine mps2-an500|mps2-an386|pc] | "
        "--tcp port) [--run full|short|push] "
        "[--out dir] [--fault-rate r] [--seed n] [--deadline-ms d] [--payload f[,dx,dy,dz]] [--mu m] "
        "[--noise-scale k] [--latency n] [--bias-step t,gyro,accel] [--push-impulse J] [--budget-instructions n] "
        "[--push-dir lateral|frontal] [--summary file] [--switches yes|no]\n");
    return 2;
  }
  if (deadline_ms < 0) deadline_ms = native.empty() ? 100 : 30;
  const bool lockstep = !qemu.empty();  // the emulated CPU: wait for every answer that is due
  const bool m4f = machine == "mps2-an386";
  const bool x86 = machine == "pc";
  constexpr int kLockstepSafetyMs = 20000;
  constexpr std::size_t kBootPreamble = 32;  // 0x00 bytes before the first frame (x86, below)
  const std::string target = !name.empty()     ? name
                             : !native.empty() ? "native (POSIX process)"
                             : !qemu.empty()   ? (m4f   ? "cortex-m4f (QEMU mps2-an386, -icount shift=3)"
                                                  : x86 ? "x86 bare metal (QEMU pc, qemu-system-i386, -icount shift=3)"
                                                        : "cortex-m7 (QEMU mps2-an500, -icount shift=3)")
                                               : "a firmware on 127.0.0.1:" + std::to_string(tcp_port);
  const talus::hil::RobotParams& robot = *robot_ptr;
  // The instruction budget per step (estimator + controller). The robot's is the M7's: the
  // instructions of 0.25 ms at 600 MHz, one per cycle. On x86 (machine pc) the same 0.25 ms at
  // 1 GHz, one instruction per cycle (a conservative floor for an x86 a robot carries: Atom
  // class cores run at 1.5-2.5 GHz and retire more than one per cycle): × 5/3. i686 code
  // needs more instructions than Thumb-2 for the same step (8 general and 8 SSE registers:
  // spills; hil/README.md has the figures), so the M7's count would not be a fair bound.
  const double budget = budget_override >= 0 ? budget_override
                        : x86                ? robot.budget_instructions * 5.0 / 3.0
                                             : robot.budget_instructions;
  Plant plant;
  std::string err;
  pc.robot = robot.name;
  pc.urdf = urdf;
  pc.foot_radius = robot.foot_radius;
  if (!plant.load(pc, err)) {
    std::fprintf(stderr, "hil_harness: plant: %s\n", err.c_str());
    return 2;
  }
  Joints start;  // full run: legs folded, base low (where stand_up starts); short, push: standing
  start = Eigen::Map<const Joints>(run_kind == "full" ? robot.crouch : robot.stance);
  plant.reset_standing_on_floor(start);

  FirmwareLink link;
  const bool started = !native.empty() ? link.start_native(native, err)
                       : !qemu.empty() ? link.start_qemu(qemu, machine, err)
                                       : link.connect_tcp(tcp_port, err);
  if (!started) {
    std::fprintf(stderr, "hil_harness: firmware: %s\n", err.c_str());
    return 2;
  }
  mkdir(out_dir.c_str(), 0755);
  const std::string csv_path = out_dir + "/log.csv";
  std::ofstream csv(csv_path);
  csv << "# robot=" << robot.name << "\n# target=" << target << "\n# z_min=" << robot.z_min
      << "\n# tilt_max_deg=" << kTiltMax
      << "\n# mu=0.6\n# torque_limit=" << (robot.torque_limit > 0 ? robot.torque_limit : plant.effort_limit())
      << "\n# budget_instructions=" << budget
      << "\n# states=0:init,1:stand_up,2:balance,3:three_feet,4:safe_damping,5:fault\n";
  if (!env.describe.empty()) csv << "# envelope=" << env.describe.substr(1) << "\n";
  csv << "t,scenario,seq,base_x,base_y,base_z,roll,pitch,yaw,com_x,com_y,com_z";
  for (int k = 0; k < 4; ++k) csv << ",foot" << k << "_x,foot" << k << "_y,foot" << k << "_z";
  for (int k = 0; k < 4; ++k) csv << ",contact" << k;
  for (int k = 0; k < 4; ++k) csv << ",f" << k << "_x,f" << k << "_y,f" << k << "_z";
  for (int j = 0; j < 12; ++j) csv << ",tau" << j;
  csv << ",push_x,push_y,ctrl_state,step_instr,cmd_fresh,inj_down,inj_up,fw_rx_rejected,fw_rx_missed,fw_watchdog,"
         "fw_sensor_invalid,fw_talus,fw_cone_fallback,fw_estimator,fw_restart,host_rejected,host_missed,deadline_miss,"
         "vel_x,vel_y,vel_z,est_x,est_y,est_z,est_roll,est_pitch,est_yaw,est_vx,est_vy,est_vz,est_instr,est_nis,est_nis_dof,est_nees_v\n";

  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uni(0, 1);
  SensorModel sensors(noise, seed * 7919u + 17u);  // its own stream: faults do not change the noise
  sensors.switches = switches;
  PlantState before = plant.state();
  EstimateErrors est_err;
  InnovationConsistency innovation;
  NeesConsistency nees;
  Counts c;
  Parser<Command> parser;
  Framer framer;
  Command cmd;
  Joints tau = Joints::Zero();      // the last command (held without a fresh one)
  Joints applied = Joints::Zero();  // what the drives apply this period (tau, env.latency periods ago)
  ActuationDelay delay(env.latency);
  bool bias_stepped = false;
  std::uint8_t state = 0;
  std::uint32_t seq = 0;
  std::vector<std::uint8_t> pending_down, pending_up;
  std::vector<SegmentResult> results;
  const std::vector<Segment> plan = scenarios(run_kind, fault_rate, push_test, robot.push_scale);
  bool safe_after_silence = true, watchdog_seen = false;
  bool lift_planned = false, lifted = false, landed = false;  // three_feet: the foot up, then down again
  long silence_end = -1;
  const auto wall0 = std::chrono::steady_clock::now();

  // The link's traffic and the wall time of the exchanges (a sensor frame out .. its answer in,
  // the firmware's step included): the summary line after the verdict.
  std::uint64_t bytes_down = 0, bytes_up = 0;
  double exchange_s = 0;
  auto send = [&](const std::vector<std::uint8_t>& f) {
    bytes_down += f.size();
    return link.write(f.data(), f.size());
  };
  // x86 (machine pc): the first bytes the harness sends reach the 16550 while the guest boots,
  // and switching its FIFO on (port/x86's init) can discard what it holds by then. Frame
  // delimiters first: the parser ignores empty frames, so losing some of them costs nothing.
  if (lockstep && x86) send(std::vector<std::uint8_t>(kBootPreamble, 0));

  for (const Segment& g : plan) {
    SegmentResult res;
    res.name = g.name;
    res.impulse = g.push.norm() * g.push_time;
    const long n_periods = std::lround(g.duration * 1000);
    for (long i = 0; i < n_periods; ++i) {
      const double ts = i * 1e-3;
      PlantState ps = plant.state();
      if (env.bias_step_at >= 0 && !bias_stepped && ps.time >= env.bias_step_at) {
        sensors.step_biases(env.bias_step_gyro, env.bias_step_accel);
        bias_stepped = true;
      }
      Sensor s;
      sensors.measure(ps, before, 1e-3, s);  // the IMU samples whether or not the link carries it
      before = ps;
      const PlantState sent = ps;
      const bool silent = i < g.silence;
      Eigen::Vector3d push = (ts >= g.push_start && ts < g.push_start + g.push_time) ? g.push : Eigen::Vector3d::Zero();
      LinkFault fd = LinkFault::none, fu = LinkFault::none, fu_logged = LinkFault::none;
      bool fresh = false, arrived = false;  // arrived: the firmware's answer to seq reached the link
      double frame_nees = std::nan("");     // the fresh answer's velocity NEES (NaN: none, or refused)
      ++seq;
      ++c.periods;
      if (silent) {
        ++c.silent_periods;
      } else {
        s.sequence = seq;
        s.plant_time_ns = static_cast<std::uint64_t>(std::llround(ps.time * 1e9));
        s.request = (ts < g.lift_time) ? static_cast<std::uint8_t>(g.lift) : 0;
        if (i >= 100 && i < 100 + g.nan_frames) {
          s.gyro[0] = std::nan("");  // the IMU's x rate reads NaN (a broken sample)
          ++c.nan_frames;
        }
        if (g.fault_rate > 0 && uni(rng) < g.fault_rate) {
          const auto f = static_cast<LinkFault>(1 + rng() % 5);
          (rng() % 2 ? fu : fd) = f;
          ++c.inj[fu != LinkFault::none][static_cast<int>(f)];
          fu_logged = fu;
        }
        std::vector<std::uint8_t> frame(max_frame_size<Sensor>());
        frame.resize(encode_frame(s, frame.data(), frame.size()));
        const auto x0 = std::chrono::steady_clock::now();
        if (!pending_down.empty()) {  // last period's delayed frame
          send(pending_down);
          pending_down.clear();
        }
        if (fd == LinkFault::bitflip || fd == LinkFault::truncate) corrupt(frame, fd, rng);
        if (fd == LinkFault::delay) pending_down = frame;
        else if (fd != LinkFault::drop) {
          send(frame);
          if (fd == LinkFault::duplicate) send(frame);
        }
        ++c.sent;
        // The receiving side: every accepted command answers seq (fresh) or an older frame (late).
        auto deliver = [&](const std::vector<std::uint8_t>& f) {
          for (std::uint8_t b : f)
            if (parser.feed(b)) {
              parser.take(cmd);
              if (cmd.sequence == seq) fresh = true;
              else ++c.late;
            }
        };
        // Wait for the command that answers seq.
        auto on_frame = [&](std::vector<std::uint8_t>& f) {
          if (peek_sequence(f) == static_cast<long>(seq)) arrived = true;
          if (fu != LinkFault::none && peek_sequence(f) == static_cast<long>(seq)) {
            const LinkFault u = fu;
            fu = LinkFault::none;  // applied: one fault per period
            if (u == LinkFault::drop) return;
            if (u == LinkFault::delay) {
              pending_up = f;
              return;
            }
            if (u == LinkFault::bitflip || u == LinkFault::truncate) corrupt(f, u, rng);
            const int copies = u == LinkFault::duplicate ? 2 : 1;
            for (int r = 0; r < copies; ++r) deliver(f);
            return;
          }
          deliver(f);
        };
        if (!pending_up.empty()) {
          std::vector<std::uint8_t> p;
          p.swap(pending_up);
          deliver(p);
        }
        // lockstep: an answer is due only for a frame the firmware got intact (a duplicate is
        // answered once; a delayed frame is answered next period, late)
        const bool answer_due = fd == LinkFault::none || fd == LinkFault::duplicate;
        const int wait_ms = !lockstep ? deadline_ms : (answer_due ? kLockstepSafetyMs : 0);
        const auto t0 = std::chrono::steady_clock::now();
        for (;;) {
          const int left =
              wait_ms -
              static_cast<int>(
                  std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
          if (fresh || (lockstep && arrived) || left <= 0) break;  // lockstep: whatever the uplink fault does to it
          std::uint8_t buf[512];
          const long n = link.read(buf, sizeof buf, left);
          if (n < 0) {
            std::fprintf(stderr, "hil_harness: the firmware closed the link at period %ld (%s)\n", c.periods,
                         g.name.c_str());
            return 1;
          }
          bytes_up += static_cast<std::uint64_t>(n);
          framer.push(buf, static_cast<std::size_t>(n), on_frame);
        }
        exchange_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - x0).count();
        if (fresh) {
          ++c.fresh;
          for (int j = 0; j < 12; ++j) tau[j] = cmd.tau[static_cast<std::size_t>(j)];
          state = cmd.state;
          if (g.name == "three_feet") {
            lift_planned = true;
            if (state == static_cast<std::uint8_t>(ControllerState::three_feet)) lifted = true;
            else if (lifted && state == static_cast<std::uint8_t>(ControllerState::balance)) landed = true;
          }
          if (cmd.step_instructions > 0) {
            c.instr.push_back(cmd.step_instructions);
            c.est_instr.push_back(cmd.estimate_instructions);
            c.total_instr.push_back(cmd.step_instructions + cmd.estimate_instructions);
          }
          const bool refused = estimate_refused(cmd);
          if (!refused) frame_nees = velocity_nees(sent, cmd);
          std::copy(cmd.faults.begin(), cmd.faults.end(), c.fw);
          if (g.name != "stand_up" && g.silence == 0 && !refused) {
            est_err.add(sent, cmd);
            innovation.add(cmd);
            nees.add(frame_nees);
          }
        } else {
          ++c.deadline_miss;
        }
        if (silence_end >= 0 && c.periods > silence_end + 5 &&
            state != static_cast<std::uint8_t>(ControllerState::safe_damping))
          safe_after_silence = false;
      }
      if (g.silence > 0 && i == g.silence) silence_end = c.periods;
      applied = delay.pass(tau);
      plant.step(applied, push);
      ps = plant.state();
      // Judge "stayed up" from the end of stand_up until the link goes silent.
      if (g.name != "stand_up" && g.silence == 0) {
        res.min_z = std::min(res.min_z, ps.q[2]);
        res.max_tilt = std::max(res.max_tilt, tilt_deg(ps.q));
        if (ps.q[2] < robot.z_min || tilt_deg(ps.q) > kTiltMax || !std::isfinite(ps.q[2])) res.up = false;
      }
      res.end_z = ps.q[2];
      double r, p, y;
      rpy(ps.q, r, p, y);
      char line[256];
      csv << ps.time << ',' << g.name << ',' << seq;
      std::snprintf(line, sizeof line, ",%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f", ps.q[0], ps.q[1], ps.q[2], r, p,
                    y, ps.com.x(), ps.com.y(), ps.com.z());
      csv << line;
      for (int k = 0; k < 4; ++k)
        csv << ',' << ps.foot_pos[k].x() << ',' << ps.foot_pos[k].y() << ',' << ps.foot_pos[k].z();
      for (int k = 0; k < 4; ++k) csv << ',' << ((ps.contacts >> k) & 1);
      for (int k = 0; k < 4; ++k)
        csv << ',' << ps.foot_force[k].x() << ',' << ps.foot_force[k].y() << ',' << ps.foot_force[k].z();
      for (int j = 0; j < 12; ++j) csv << ',' << applied[j];
      csv << ',' << push.x() << ',' << push.y() << ',' << int(state) << ',' << (fresh ? cmd.step_instructions : 0)
          << ',' << fresh << ','
          << (silent ? "silence"
                     : (fd != LinkFault::none ? to_string(fd)
                                              : (!silent && i >= 100 && i < 100 + g.nan_frames ? "nan_sensor" : "")))
          << ',' << to_string(fu_logged);
      for (int k = 0; k < fault_count; ++k) csv << ',' << c.fw[k];
      csv << ',' << parser.stats().rejected() << ',' << parser.stats().missed << ',' << c.deadline_miss;
      write_estimate_columns(csv, sent, cmd, fresh, frame_nees);
    }
    if (g.silence > 0) watchdog_seen = c.fw[fault_watchdog] >= 1;
    results.push_back(res);
  }
  // Last frame: no fault, request_end; its answer carries the firmware's final counters.
  {
    if (!pending_down.empty()) {
      send(pending_down);
      pending_down.clear();
    }
    Sensor s;
    s.sequence = ++seq;
    PlantState ps = plant.state();
    sensors.measure(ps, before, 1e-3, s);
    s.plant_time_ns = static_cast<std::uint64_t>(std::llround(ps.time * 1e9));
    s.request = request_end;
    std::vector<std::uint8_t> frame(max_frame_size<Sensor>());
    frame.resize(encode_frame(s, frame.data(), frame.size()));
    send(frame);
    if (!pending_up.empty()) {
      for (std::uint8_t b : pending_up)
        if (parser.feed(b)) {
          parser.take(cmd);
          ++c.late;
        }
      pending_up.clear();
    }
    bool got = false;
    const auto t0 = std::chrono::steady_clock::now();
    while (!got && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5)) {
      std::uint8_t buf[512];
      const long n = link.read(buf, sizeof buf, 100);
      if (n < 0) break;
      framer.push(buf, static_cast<std::size_t>(n), [&](std::vector<std::uint8_t>& f) {
        for (std::uint8_t b : f)
          if (parser.feed(b)) {
            parser.take(cmd);
            if (cmd.sequence == seq) got = true;
            else ++c.late;
          }
      });
    }
    if (got) std::copy(cmd.faults.begin(), cmd.faults.end(), c.fw);
    c.fw_exit = tcp_port > 0 ? 0 : link.wait_exit(5000);  // a board does not exit: its answer to the last frame counts
    c.fw_exit_ok = got && c.fw_exit == 0;
  }
  c.host = parser.stats();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  csv.close();

  // ---- verdict ---------------------------------------------------------------------------
  using F = LinkFault;
  struct Row {
    std::string check, value, bound;
    bool pass;
    bool info = false;  ///< a figure to read, not a check
  };
  std::vector<Row> rows;
  char v[256], b[160];
  // The push run (--run push) has no fault scenarios: their checks would judge nothing.
  const bool faults_planned = run_kind != "push";
  // stayed up
  double min_z = 1e9, max_tilt = 0;
  bool all_up = true;
  std::string fell_in;  // the first segment the robot fell in
  for (const SegmentResult& r : results)
    if (r.name != "stand_up" && r.name != "silence") {
      min_z = std::min(min_z, r.min_z);
      max_tilt = std::max(max_tilt, r.max_tilt);
      if (!r.up && all_up) fell_in = r.name;
      all_up = all_up && r.up;
    }
  const double stood = results.front().end_z;
  std::snprintf(v, sizeof v, "base at %.3f m after %.1f s", stood, plan.front().duration);
  std::snprintf(b, sizeof b, "≥ %.2f m", robot.stood_min);
  rows.push_back({plan.front().name == "stand_up" ? "stand up from a crouch" : "stand", v, b,
                  stood >= robot.stood_min});
  std::snprintf(v, sizeof v, "min height %.3f m, max tilt %.1f°", min_z, max_tilt);
  std::snprintf(b, sizeof b, "≥ %.2f m, ≤ %.0f°", robot.z_min, kTiltMax);
  rows.push_back({"robot stayed up (stand_up .. silence)", v, b, all_up});
  double largest[2] = {0, 0};
  bool pushes_ok = true;
  for (const SegmentResult& r : results) {
    const int d = r.name == "push_lateral" ? 0 : (r.name == "push_frontal" ? 1 : -1);
    if (d < 0) continue;
    if (r.up) largest[d] = std::max(largest[d], r.impulse);
    else pushes_ok = false;
  }
  std::snprintf(v, sizeof v, "lateral %.1f N·s, frontal %.1f N·s (0.1 s pushes; robot %.2f kg)", largest[0], largest[1],
                plant.total_mass());
  rows.push_back({"largest push survived", v, "every push survived", pushes_ok && (largest[0] > 0 || largest[1] > 0)});
  const long kill_d = c.down(F::drop) + c.down(F::bitflip) + c.down(F::truncate);
  const long kill_u = c.up(F::drop) + c.up(F::bitflip) + c.up(F::truncate);
  const long inj_total = [&] {
    long t = 0;
    for (int d = 0; d < 2; ++d)
      for (int f = 1; f < static_cast<int>(F::count); ++f) t += c.inj[d][f];
    return t;
  }();
  std::snprintf(v, sizeof v,
                "down: bitflip %ld drop %ld dup %ld trunc %ld delay %ld; up: %ld %ld %ld %ld %ld (total %ld)",
                c.down(F::bitflip), c.down(F::drop), c.down(F::duplicate), c.down(F::truncate), c.down(F::delay),
                c.up(F::bitflip), c.up(F::drop), c.up(F::duplicate), c.up(F::truncate), c.up(F::delay), inj_total);
  if (faults_planned) rows.push_back({"link faults injected", v, "> 0", inj_total > 0});
  const long fw_rej_exp = c.down(F::bitflip) + c.down(F::truncate) + c.down(F::duplicate);
  const long fw_miss_exp = kill_d + c.silent_periods;
  std::snprintf(v, sizeof v, "rejected %u (expected %ld), missed %u (expected %ld)", c.fw[fault_rx_rejected],
                fw_rej_exp, c.fw[fault_rx_missed], fw_miss_exp);
  rows.push_back({"corruption detected by the firmware", v, "equal",
                  c.fw[fault_rx_rejected] == fw_rej_exp && c.fw[fault_rx_missed] == fw_miss_exp});
  const long host_rej_exp = c.up(F::bitflip) + c.up(F::truncate) + c.up(F::duplicate);
  const long host_miss_exp = kill_u + kill_d + c.silent_periods;
  std::snprintf(v, sizeof v, "rejected %u (expected %ld), missed %u (expected %ld)", c.host.rejected(), host_rej_exp,
                c.host.missed, host_miss_exp);
  rows.push_back({"corruption detected by the harness", v, "equal",
                  c.host.rejected() == host_rej_exp && c.host.missed == host_miss_exp});
  const long miss_exp = kill_d + kill_u + c.down(F::delay) + c.up(F::delay);
  const long other_miss = c.deadline_miss - miss_exp, other_late = c.late - (c.down(F::delay) + c.up(F::delay));
  std::snprintf(v, sizeof v, "%ld sent = %ld answered in time + %ld missed; late answers %ld", c.sent, c.fresh,
                c.deadline_miss, c.late);
  rows.push_back({"no cycle lost silently", v, "every miss explained",
                  c.sent == c.fresh + c.deadline_miss && other_miss == other_late && other_miss >= 0});
  if (lockstep)
    std::snprintf(v, sizeof v, "%ld (injected %ld, lockstep: hung emulator > %d s %ld)", c.deadline_miss, miss_exp,
                  kLockstepSafetyMs / 1000, other_miss);
  else
    std::snprintf(v, sizeof v, "%ld (injected %ld, stalls > %d ms %ld)", c.deadline_miss, miss_exp, deadline_ms,
                  other_miss);
  std::snprintf(b, sizeof b, lockstep ? "every miss injected" : "stalls ≤ 1%% of periods");
  rows.push_back({"deadline misses", v, b, lockstep ? other_miss == 0 : other_miss * 100 <= c.sent});
  std::snprintf(v, sizeof v, "estimator refused %u, controller refused %u (injected %ld)", c.fw[fault_estimator],
                c.fw[fault_sensor_invalid], c.nan_frames);
  if (faults_planned)
    rows.push_back({"NaN IMU samples refused", v, "equal",
                    c.fw[fault_estimator] == c.nan_frames && c.fw[fault_sensor_invalid] == c.nan_frames});
  std::snprintf(v, sizeof v, "velocity RMS %.4f m/s, tilt max %.2f°, height max %.1f mm (%ld frames)", est_err.rms_v(),
                est_err.max_tilt_deg, 1e3 * est_err.max_height, est_err.n);
  rows.push_back({"estimate against the truth", v, "≤ 0.03 m/s, 0.5°, 5 mm",
                  est_err.n > 0 && est_err.rms_v() <= 0.03 && est_err.max_tilt_deg <= 0.5 &&
                      est_err.max_height <= 5e-3});
  std::snprintf(v, sizeof v, "horizontal %.1f mm, yaw %.2f° at the end; restarts after the silence %u",
                1e3 * est_err.end_drift_xy, est_err.end_drift_yaw_deg, c.fw[fault_restart]);
  rows.push_back({"estimate drift (unobservable: reported)", v, "info", true, true});
  std::snprintf(v, sizeof v, "NIS per measured row %.2f (%ld corrections, %ld rows; consistent: 1 ± %.3f)",
                innovation.mean_per_row(), innovation.frames, innovation.rows, innovation.band());
  rows.push_back({"estimator innovation (NIS)", v, "info", true, true});
  const double lo = nees.spaced_bound(-1.96), hi = nees.spaced_bound(1.96);
  std::snprintf(
      v, sizeof v,
      "velocity NEES mean %.2f every 0.1 s (%ld frames; consistent: in [%.2f, %.2f]: %s); all %ld frames: mean "
      "%.2f, %.0f %% in χ²(3)'s 95 %%",
      nees.spaced_mean(), nees.spaced_n, lo, hi,
      nees.spaced_n > 0 && nees.spaced_mean() >= lo && nees.spaced_mean() <= hi ? "yes" : "no", nees.n,
      nees.n > 0 ? nees.sum / static_cast<double>(nees.n) : 0.0,
      nees.n > 0 ? 100.0 * static_cast<double>(nees.inside) / static_cast<double>(nees.n) : 0.0);
  rows.push_back({"estimate's consistency (NEES)", v, "info", true, true});
  if (lift_planned)
    rows.push_back({"foot lifted and landed again (three_feet)",
                    lifted ? (landed ? "lifted, landed, back to balance" : "lifted, never landed") : "never lifted",
                    "lands", lifted && landed});
  std::snprintf(v, sizeof v, "%u trip(s); safe_damping after the silence: %s", c.fw[fault_watchdog],
                safe_after_silence && watchdog_seen ? "yes" : "no");
  if (faults_planned)
    rows.push_back({"watchdog on a silent link (100 periods)", v, "1 trip, safe mode",
                    c.fw[fault_watchdog] == 1 && safe_after_silence && watchdog_seen});
  std::snprintf(v, sizeof v, "%u", c.fw[fault_talus]);
  rows.push_back({"talus calls not ok", v, "0", c.fw[fault_talus] == 0});
  std::snprintf(v, sizeof v, "%u of %ld steps (its last in-cone iterate commanded, the solve continued next step)",
                c.fw[fault_cone_fallback], c.fresh);
  rows.push_back({"friction-cone solve at its 6-iteration cap", v, "info", true, true});
  if (!c.instr.empty()) {
    std::vector<std::uint32_t> s = c.instr;
    std::sort(s.begin(), s.end());
    std::snprintf(v, sizeof v, "median %u, worst %u (%zu steps)", s[s.size() / 2], s.back(), s.size());
    std::snprintf(b, sizeof b, "≤ %.0f k%s", budget / 1000, budget_override < 0 && x86 ? " (x86: M7's × 5/3)" : "");
    const std::string cpu = m4f ? " (M4F)" : (x86 ? " (x86)" : " (M7)");
    rows.push_back({"instructions per controller step" + cpu, v, "info", true, true});
    for (int which = 0; which < 2; ++which) {
      std::vector<std::uint32_t> e = which == 0 ? c.est_instr : c.total_instr;
      std::sort(e.begin(), e.end());
      std::snprintf(v, sizeof v, "median %u, worst %u", e[e.size() / 2], e.back());
      if (which == 0) rows.push_back({"instructions per estimator update" + cpu, v, "info", true, true});
      else if (budget > 0) rows.push_back({"instructions, estimator + controller", v, b, e.back() <= budget});
      else rows.push_back({"instructions, estimator + controller", v, "info (no budget for this robot)", true, true});
    }
  } else {
    rows.push_back({"instructions per control step", "not measured natively", "-", true, true});
  }
  std::snprintf(v, sizeof v, "exit %d", c.fw_exit);
  rows.push_back({"firmware ended cleanly", v, "0", c.fw_exit_ok});

  bool all = true;
  for (const Row& r : rows) all = all && r.pass;
  if (!summary_path.empty())
    write_summary(summary_path, {all_up, stood, min_z, max_tilt, largest[0], largest[1], est_err.rms_v(),
                                 est_err.max_tilt_deg, est_err.max_height, all, fell_in});
  std::printf("\nHIL verdict: %s state estimator and balance controller on %s\n", robot.name, target.c_str());
  if (!env.describe.empty()) std::printf("robustness envelope:%s\n", env.describe.c_str());
  std::printf("%ld periods of 1 ms (%.1f s of plant time) in %.1f s wall; log %s\n", c.periods, c.periods * 1e-3, wall,
              csv_path.c_str());
  if (c.sent > 0)
    std::printf(
        "link: %llu bytes to the firmware, %llu from it (%.0f per exchange); exchanges (a sensor frame out "
        "until its answer is in, the firmware's step included) %.1f s of the wall time, %.2f ms each, %.0f "
        "bytes/s\n",
        static_cast<unsigned long long>(bytes_down), static_cast<unsigned long long>(bytes_up),
        static_cast<double>(bytes_down + bytes_up) / static_cast<double>(c.sent), exchange_s,
        exchange_s * 1e3 / static_cast<double>(c.sent),
        exchange_s > 0 ? static_cast<double>(bytes_down + bytes_up) / exchange_s : 0.0);
  std::printf("%-42s %-86s %-22s %s\n", "check", "measured", "bound", "result");
  for (const Row& r : rows) {
    std::printf("%-42s %-86s %-22s %s\n", r.check.c_str(), r.value.c_str(), r.bound.c_str(),
                r.info ? "-" : (r.pass ? "pass" : "FAIL"));
  }
  std::printf("%s\n", all ? "HIL: all checks passed" : "HIL: FAILED");
  return all ? 0 : 1;
}

}  // namespace
}  // namespace talus_hil

int main(int argc, char** argv) { return talus_hil::run(argc, argv); }
