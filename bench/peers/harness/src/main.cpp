// talus_peers: talus, Pinocchio, RBDL and MuJoCo timed side by side in one process, on the same
// states, interleaved. See README.md beside src/.
//
//   talus_peers [--models DIR] [--robots a,b,...] [--reps N] [--batch-ms X] [--quick]
//               [--csv FILE] [--seed-order N]
//
// For each robot and work (CRBA, RNEA, ABA, Jacobian, constrained FD, impulse), every library's
// every variant is a "case". Each case is calibrated to a batch of about --batch-ms of calls
// (call i on state i mod 64); then --reps rounds run one batch of every case of that row, the
// order rotated each round (ABCD, BCDA, ...), and the thread CPU time per call of each batch is
// a sample. Reported: the median sample (ns per call); the spread is the p25-p75 of the samples.
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "common.hpp"

#ifndef PEERS_FLAGS
#define PEERS_FLAGS "?"
#endif
#ifndef PEERS_MODELS_DIR
#define PEERS_MODELS_DIR "models"
#endif

namespace peers {
namespace {

double thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}
double wall_ns() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Stats {
  double median = 0, p25 = 0, p75 = 0, min = 0, wall_median = 0;
  long batch = 0;
};

double quantile(std::vector<double> x, double p) {
  std::sort(x.begin(), x.end());
  const double pos = p * (x.size() - 1);
  const size_t i = static_cast<size_t>(pos);
  const double f = pos - i;
  return i + 1 < x.size() ? x[i] * (1 - f) + x[i + 1] * f : x[i];
}

struct Options {
  std::string models = PEERS_MODELS_DIR;
  std::vector<std::string> robots = {"solo12", "anymal_c", "talos", "ur5", "panda_arm7", "iiwa", "hyq", "atlas"};
  int reps = 31;
  double batch_ms = 2.0;
  std::string csv;
};

/// Times the cases of one row together (interleaved rounds).
std::vector<Stats> time_row(const std::vector<const Case*>& cs, const Options& o) {
  const size_t n = cs.size();
  std::vector<long> batch(n, 1);
  // Calibrate: warm up, then grow the batch until it takes at least batch_ms / 4; scale.
  for (size_t i = 0; i < n; ++i) {
    cs[i]->run(kStates);
    long b = 1;
    for (;;) {
      const double t0 = thread_cpu_ns();
      cs[i]->run(b);
      const double dt = thread_cpu_ns() - t0;
      if (dt >= o.batch_ms * 1e6 / 4 || b >= (1L << 30)) {
        batch[i] = std::max(1L, static_cast<long>(b * (o.batch_ms * 1e6) / std::max(dt, 1.0)));
        break;
      }
      b *= 2;
    }
  }
  std::vector<std::vector<double>> cpu(n), wall(n);
  for (int r = 0; r < o.reps; ++r) {
    for (size_t j = 0; j < n; ++j) {
      const size_t i = (j + r) % n;
      const double w0 = wall_ns(), c0 = thread_cpu_ns();
      cs[i]->run(batch[i]);
      const double c1 = thread_cpu_ns(), w1 = wall_ns();
      cpu[i].push_back((c1 - c0) / batch[i]);
      wall[i].push_back((w1 - w0) / batch[i]);
    }
  }
  std::vector<Stats> out(n);
  for (size_t i = 0; i < n; ++i) {
    out[i].median = quantile(cpu[i], 0.5);
    out[i].p25 = quantile(cpu[i], 0.25);
    out[i].p75 = quantile(cpu[i], 0.75);
    out[i].min = quantile(cpu[i], 0.0);
    out[i].wall_median = quantile(wall[i], 0.5);
    out[i].batch = batch[i];
  }
  return out;
}

/// max over states of max|x - ref| / max|ref|, per part; -1 where a part is missing.
struct Agreement {
  std::map<std::string, double> raw, consistent;
};

void compare(const Output& ref, const Output& x, std::map<std::string, double>& acc) {
  for (const auto& [name, rv] : ref.parts) {
    for (const auto& [xn, xv] : x.parts) {
      if (xn != name || xv.size() != rv.size()) continue;
      const double scale = std::max(rv.cwiseAbs().maxCoeff(), 1e-300);
      const double d = (xv - rv).cwiseAbs().maxCoeff() / scale;
      double& a = acc[name];
      a = std::max(a, std::isfinite(d) ? d : 1e300);
    }
  }
}

std::string fmt_agreement(const std::map<std::string, double>& m) {
  std::string s;
  char buf[64];
  for (const auto& [k, v] : m) {
    std::snprintf(buf, sizeof buf, "%s%s %.1e", s.empty() ? "" : ", ", k.c_str(), v);
    s += buf;
  }
  return s.empty() ? "-" : s;
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string case_label(const Case& c) { return c.variant.empty() ? c.lib : c.lib + " (" + c.variant + ")"; }

}  // namespace
}  // namespace peers

int main(int argc, char** argv) {
  using namespace peers;
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "talus_peers: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--models") o.models = next();
    else if (a == "--robots") {
      o.robots.clear();
      std::stringstream ss(next());
      std::string r;
      while (std::getline(ss, r, ',')) o.robots.push_back(r);
    } else if (a == "--reps") o.reps = std::max(1, std::atoi(next().c_str()));
    else if (a == "--batch-ms") o.batch_ms = std::max(0.01, std::atof(next().c_str()));
    else if (a == "--quick") {
      o.reps = 5;
      o.batch_ms = 0.5;
    } else if (a == "--csv") o.csv = next();
    else {
      std::printf(
          "usage: talus_peers [--models DIR] [--robots solo12,anymal_c,talos,ur5,panda_arm7,iiwa,hyq,atlas]\n"
          "                   [--reps N (31)] [--batch-ms X (2)] [--quick] [--csv FILE]\n");
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }

  struct RobotRun {
    Robot robot;
    std::vector<std::unique_ptr<Side>> sides;
  };
  std::vector<std::unique_ptr<RobotRun>> runs;
  for (const std::string& name : o.robots) {
    auto rr = std::make_unique<RobotRun>();
    std::string err;
    auto t = make_talus_side(name, o.models, rr->robot, err);
    if (!t) {
      std::fprintf(stderr, "talus_peers: %s: talus: %s\n", name.c_str(), err.c_str());
      return 1;
    }
    rr->sides.push_back(std::move(t));
    using Factory = std::unique_ptr<Side> (*)(const Robot&, std::string&);
    const std::pair<const char*, Factory> peers_[] = {
        {"Pinocchio", make_pinocchio_side}, {"RBDL", make_rbdl_side}, {"MuJoCo", make_mujoco_side}};
    for (const auto& [lib, make] : peers_) {
      err.clear();
      auto s = make(rr->robot, err);
      if (!s) {
        std::fprintf(stderr, "talus_peers: %s: %s left out: %s\n", name.c_str(), lib, err.c_str());
        continue;
      }
      rr->sides.push_back(std::move(s));
    }
    runs.push_back(std::move(rr));
  }

  const Work works[] = {Work::crba, Work::rnea, Work::aba, Work::jacobian, Work::fd, Work::impulse};
  const char* libs[] = {"talus", "Pinocchio", "RBDL", "MuJoCo"};
  std::ostringstream rep, detail, agree;
  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv);
    csv << "model,work,lib,variant,median_ns,p25_ns,p75_ns,min_ns,wall_median_ns,batch,reps\n";
  }

  struct Row {
    std::string model, work;
    std::map<std::string, std::pair<double, std::string>> best;  // lib -> (ns, variant)
    std::vector<std::pair<std::string, double>> talus_variants;  // (variant, ns)
  };
  std::vector<Row> rows;
  const auto t_start = std::chrono::steady_clock::now();

  for (auto& rr : runs) {
    const Robot& r = rr->robot;
    for (Work w : works) {
      std::vector<const Case*> cs;
      for (auto& s : rr->sides)
        for (const Case& c : s->cases)
          if (c.work == w) cs.push_back(&c);
      if (cs.empty()) continue;
      // ---- agreement with talus's first case of the row ----
      const Case* ref = nullptr;
      for (const Case* c : cs)
        if (c->lib == "talus") {
          ref = c;
          break;
        }
      if (ref) {
        for (const Case* c : cs) {
          if (c == ref) continue;
          Agreement a;
          for (int k = 0; k < kStates; ++k) {
            compare(ref->eval(r.q[k], r.v[k], r.tau[k]), c->eval(r.q[k], r.v[k], r.tau[k]), a.raw);
            if (!r.v_consistent.empty())
              compare(ref->eval(r.q[k], r.v_consistent[k], r.tau[k]), c->eval(r.q[k], r.v_consistent[k], r.tau[k]),
                      a.consistent);
          }
          agree << "| " << r.name << " | " << work_name(w) << " | " << case_label(*c) << " vs " << case_label(*ref)
                << " | " << fmt_agreement(a.raw) << " | " << (r.v_consistent.empty() ? "" : fmt_agreement(a.consistent))
                << " |\n";
        }
      }
      // ---- timing ----
      const std::vector<Stats> st = time_row(cs, o);
      std::map<std::string, std::pair<double, std::string>> best;
      std::vector<std::pair<std::string, double>> tv;
      char buf[512];
      for (size_t i = 0; i < cs.size(); ++i) {
        const Case& c = *cs[i];
        auto it = best.find(c.lib);
        if (it == best.end() || st[i].median < it->second.first) best[c.lib] = {st[i].median, c.variant};
        if (c.lib == "talus") tv.emplace_back(c.variant, st[i].median);
        std::snprintf(buf, sizeof buf, "| %s | %s | %s | %s | %.0f | %.0f–%.0f | %s |\n", r.name.c_str(), work_name(w),
                      c.lib.c_str(), c.variant.empty() ? "-" : c.variant.c_str(), st[i].median, st[i].p25, st[i].p75,
                      c.note.c_str());
        detail << buf;
        if (csv)
          csv << r.name << "," << work_name(w) << "," << c.lib << ",\"" << c.variant << "\"," << st[i].median << ","
              << st[i].p25 << "," << st[i].p75 << "," << st[i].min << "," << st[i].wall_median << "," << st[i].batch
              << "," << o.reps << "\n";
      }
      const bool constrained = w == Work::fd || w == Work::impulse;
      if (!constrained) {
        rows.push_back({r.name, work_name(w) + (w == Work::jacobian ? " (" + r.jac_frame.name + ")" : std::string()),
                        best, tv});
      } else {
        // one row per talus variant, peers' best in each
        for (const auto& [variant, ns] : tv) {
          Row row{r.name, std::string(w == Work::fd ? "FD " : "impulse ") + variant + " (" + r.contacts_text + ")",
                  best, tv};
          row.best["talus"] = {ns, variant};
          rows.push_back(row);
        }
      }
      std::fprintf(stderr, "talus_peers: %s %s done (%.0f s)\n", r.name.c_str(), work_name(w),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count());
    }
  }

  // ---- report ----
  struct utsname un;
  uname(&un);
  std::ostringstream out;
  out << "## talus vs Pinocchio " << pinocchio_version() << ", RBDL " << rbdl_version() << ", MuJoCo "
      << mujoco_version() << " (one process, same states)\n\n";
  out << "- CPU: " << cpu_model() << " (" << sysconf(_SC_NPROCESSORS_ONLN) << " logical CPUs online), " << un.sysname
      << " " << un.release << "\n";
  out << "- compiler: g++ " << __VERSION__ << "; flags of every TU (talus, Pinocchio, RBDL, harness): " << PEERS_FLAGS
      << "; MuJoCo: the distribution's shared library; Eigen " << EIGEN_WORLD_VERSION << "." << EIGEN_MAJOR_VERSION
      << "." << EIGEN_MINOR_VERSION << "\n";
  out << "- time: median over " << o.reps << " interleaved rounds of the thread CPU time per call (batches of ~"
      << o.batch_ms << " ms, each call on the next of " << kStates
      << " random states, from scratch); best variant of each library; ratio = talus / best peer (< 1: talus faster)\n\n";
  out << "| model | work | talus ns | Pinocchio ns | RBDL ns | MuJoCo ns | talus/best-peer |\n";
  out << "|---|---|---:|---:|---:|---:|---:|\n";
  char buf[512];
  for (const Row& row : rows) {
    out << "| " << row.model << " | " << row.work;
    double best_peer = 0;
    for (const char* lib : libs) {
      auto it = row.best.find(lib);
      if (it == row.best.end()) {
        out << " | -";
        continue;
      }
      std::snprintf(buf, sizeof buf, " | %.0f", it->second.first);
      out << buf;
      if (std::string(lib) != "talus" && (best_peer == 0 || it->second.first < best_peer)) best_peer = it->second.first;
    }
    auto t = row.best.find("talus");
    if (t != row.best.end() && best_peer > 0)
      std::snprintf(buf, sizeof buf, " | %.2f |\n", t->second.first / best_peer);
    else std::snprintf(buf, sizeof buf, " | - |\n");
    out << buf;
  }
  out << "\nBest variant per library (peer columns above): ";
  {
    std::map<std::string, std::map<std::string, int>> count;
    for (const Row& row : rows)
      for (const auto& [lib, p] : row.best)
        if (lib != "talus" && !p.second.empty()) count[lib][p.second]++;
    bool first = true;
    for (const auto& [lib, m] : count) {
      out << (first ? "" : "; ") << lib << ": ";
      first = false;
      bool f2 = true;
      for (const auto& [v, n] : m) {
        out << (f2 ? "" : ", ") << v << " ×" << n;
        f2 = false;
      }
    }
  }
  out << "\n\n### Every case\n\n| model | work | library | variant | median ns | p25–p75 | what is called |\n"
      << "|---|---|---|---|---:|---|---|\n"
      << detail.str();
  out << "\n### Agreement (max over the " << kStates
      << " states of max|x − x_talus| / max|x_talus|, talus convention; consistent: v projected on G v = 0)\n\n"
      << "| model | work | case | raw states | consistent states |\n|---|---|---|---|---|\n"
      << agree.str();
  std::fputs(out.str().c_str(), stdout);
  return 0;
}
