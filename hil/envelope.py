#!/usr/bin/env python3
"""The HIL robustness envelope (issue 28 item 6): the full scenario repeated natively under
plant, sensor and link changes, each cell judged by whether the robot stayed up, the largest
push it survives (a scan, then bisection, N·s) and the estimate's errors against the truth,
printed as one Markdown table and written with a figure.

Usage: python3 hil/envelope.py --harness <hil_harness> --firmware <hil_firmware_native>
                               --urdf <solo12.urdf> --out <dir> [--short] [--steps n]

Every cell runs the harness (hil/host/harness.cpp) with its envelope options: once through the
full scenario (stand up, pushes, three feet, link faults, NaN frames, silent link), judged by the
harness's own checks (--summary), then `--run push` from standing: the push's impulse (0.1 s,
sideways and forwards) scanned up to --max-impulse to the first fall, then bisected. The cells
the goal says must stay up (datasheet noise, one period of latency) are marked; the script
exits 1 if one of them falls.
--short (CI, label hil): only those cells, the full scenario, no bisection.
Writes <out>/envelope.md, envelope.csv and (full, matplotlib present) envelope.png; each run's
log under <out>/runs/<cell>/.
"""
import argparse
import csv
import os
import subprocess
import sys
import time

# The datasheet's starting-bias sigmas (hil/host/sensors.hpp SensorNoise): the bias step is a
# few of them on every axis at once.
GYRO_BIAS0, ACCEL_BIAS0 = 2e-3, 2e-2  # rad/s, m/s²
BIAS_STEP_SIGMAS = 5
FULL_BIAS_STEP_AT = 2.0  # s: after stand_up, as the full scenario's stand and pushes start
PUSH_BIAS_STEP_AT = 0.25  # s: in the push run's stand, before its push (at 0.6 s)

# name, what it changes, harness options, must stay up (the goal: datasheet noise, one period)
NOMINAL = ["--noise-scale", "1", "--latency", "1"]
CELLS = [
    ("nominal", "datasheet noise, 1 period latency", NOMINAL, True),
    ("payload_20", "payload +20 % of the robot's mass at the base's CoM", NOMINAL + ["--payload", "0.2"], True),
    ("payload_40_offset", "payload +40 %, its CoM 5 cm forward of the base's",
     NOMINAL + ["--payload", "0.4,0.05,0,0"], True),
    ("mu_0.8", "floor friction 0.8 (plant's nominal 1.0)", NOMINAL + ["--mu", "0.8"], True),
    ("mu_0.6", "floor friction 0.6 = the controller's assumed μ", NOMINAL + ["--mu", "0.6"], True),
    ("imu_bias_step", "IMU bias step +%g rad/s gyro, +%g m/s² accel, every axis" %
     (BIAS_STEP_SIGMAS * GYRO_BIAS0, BIAS_STEP_SIGMAS * ACCEL_BIAS0), NOMINAL + ["--bias-step", None], True),
    ("noise_2x", "sensor noise and biases 2× the datasheet", ["--noise-scale", "2", "--latency", "1"], False),
    ("latency_2", "2 periods of actuation latency", ["--noise-scale", "1", "--latency", "2"], False),
    ("noise_2x_latency_2", "2× noise and 2 periods of latency", ["--noise-scale", "2", "--latency", "2"], False),
    # beyond the envelope: where it falls
    ("latency_10", "10 periods of actuation latency", ["--noise-scale", "1", "--latency", "10"], False),
    ("latency_30", "30 periods of actuation latency", ["--noise-scale", "1", "--latency", "30"], False),
    ("mu_0.4", "floor friction 0.4, below the controller's 0.6", NOMINAL + ["--mu", "0.4"], False),
    ("mu_0.1", "floor friction 0.1", NOMINAL + ["--mu", "0.1"], False),
    ("payload_80", "payload +80 % at the base's CoM", NOMINAL + ["--payload", "0.8"], False),
    ("payload_150", "payload +150 % at the base's CoM", NOMINAL + ["--payload", "1.5"], False),
    ("imu_bias_step_10x", "IMU bias step 10× the one above (0.1 rad/s, 1 m/s²)", NOMINAL + ["--bias-step", "10x"],
     False),
    ("rig_timing", "reference: 0 periods latency (the nominal run's timing)", ["--latency", "0"], False),
]


def bias_step(at, k=1):
    return "%g,%g,%g" % (at, k * BIAS_STEP_SIGMAS * GYRO_BIAS0, k * BIAS_STEP_SIGMAS * ACCEL_BIAS0)


def cell_options(opts, bias_at):
    """The cell's options with its bias step (None: the step above, "10x": ten times it) at bias_at."""
    return [bias_step(bias_at) if o is None else bias_step(bias_at, 10) if o == "10x" else o for o in opts]


def run_harness(a, out, extra):
    """One harness run; returns its summary (key -> float)."""
    os.makedirs(out, exist_ok=True)
    summary = os.path.join(out, "summary.txt")
    if os.path.exists(summary):
        os.remove(summary)
    cmd = [a.harness, "--urdf", a.urdf, "--native", a.firmware, "--out", out, "--summary", summary] + extra
    with open(os.path.join(out, "verdict.txt"), "w") as f:  # in out: MuJoCo's MUJOCO_LOG.TXT lands there
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=out)
    if not os.path.exists(summary):
        sys.exit("envelope: the harness wrote no summary (exit %d): %s" % (rc, " ".join(cmd)))
    with open(summary) as f:
        pairs = [line.rstrip("\n").split("=", 1) for line in f if "=" in line]
    return {k: (v if k == "fell_in" else float(v)) for k, v in pairs}


def push_survived(a, out, opts, direction, impulse):
    s = run_harness(a, os.path.join(out, "push_%s_%.3f" % (direction, impulse)),
                    opts + ["--run", "push", "--push-dir", direction, "--push-impulse", "%.4f" % impulse])
    return bool(s["stayed_up"])


def largest_push(a, out, opts, direction):
    """The largest impulse (N·s) up to which every push tried in `direction` was survived: a
    scan in a.scan steps up to a.max_impulse to the first fall, then a.steps bisection steps
    between the last push survived and it. (Survival is not monotonic in the impulse near the
    edge: a cell may survive a larger push than the one it fell at; the scan reports the first
    fall.) Returns (impulse, True if no push up to a.max_impulse fell)."""
    lo, hi = 0.0, None
    j = a.scan
    while j <= a.max_impulse + 1e-9:
        if not push_survived(a, out, opts, direction, j):
            hi = j
            break
        lo = j
        j += a.scan
    if hi is None:
        return lo, True
    for _ in range(a.steps):
        mid = 0.5 * (lo + hi)
        if push_survived(a, out, opts, direction, mid):
            lo = mid
        else:
            hi = mid
    return lo, False


def judge_cell(a, name, opts):
    out = os.path.join(a.out, "runs", name)
    t0 = time.time()
    full = run_harness(a, os.path.join(out, "full"), cell_options(opts, FULL_BIAS_STEP_AT) + ["--run", "full"])
    row = {"cell": name, "stayed_up": int(full["stayed_up"]), "fell_in": full.get("fell_in", ""),
           "min_z": full["min_z"],
           "max_tilt_deg": full["max_tilt_deg"], "est_v_rms": full["est_v_rms"],
           "est_tilt_deg": full["est_tilt_deg"], "est_height_mm": full["est_height_mm"],
           "all_checks": int(full["all_checks"]), "push_lateral": "", "push_frontal": ""}
    if not a.short:
        push_opts = cell_options(opts, PUSH_BIAS_STEP_AT)
        for d in ("lateral", "frontal"):
            j, top = largest_push(a, out, push_opts, d)
            row["push_" + d] = ("≥ %.2f" if top else "%.2f") % j
    row["wall_s"] = time.time() - t0
    return row


def markdown(rows, cells, a):
    what = {c[0]: (c[1], c[3]) for c in cells}
    lines = ["| cell | what changes | stayed up | largest push lateral / frontal (N·s) | min height (m), max tilt (°) "
             "| estimate: velocity RMS (m/s), tilt max (°), height max (mm) | all harness checks |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        desc, must = what[r["cell"]]
        up = "yes" if r["stayed_up"] else "**no** (%s)" % r["fell_in"]
        push = "%s / %s" % (r["push_lateral"], r["push_frontal"]) if r["push_lateral"] else "not bisected (--short)"
        lines.append("| %s%s | %s | %s | %s | %.3f, %.1f | %.4f, %.2f, %.1f | %s |" % (
            r["cell"], " (must)" if must else "", desc, up, push, r["min_z"], r["max_tilt_deg"], r["est_v_rms"],
            r["est_tilt_deg"], r["est_height_mm"], "pass" if r["all_checks"] else "FAIL"))
    note = ("Pushes: 0.1 s on the base from standing; every %g N·s up to %g N·s until the first fall, then %d "
            "bisection steps between the last push survived and it (resolution %.3f N·s); ≥: no push up to %g N·s fell. "
            "The rest from the full scenario (stand up, pushes, three feet, link faults, NaN frames, silent link), "
            "natively, seed 1." % (a.scan, a.max_impulse, a.steps, a.scan / 2 ** a.steps, a.max_impulse))
    return "\n".join(lines) + "\n\n" + note + "\n"


def figure(rows, cells, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("envelope: no matplotlib, no figure")
        return
    must = {c[0]: c[3] for c in cells}
    names = [r["cell"] for r in rows]
    y = list(range(len(rows)))[::-1]

    def num(v):
        return float(str(v).replace("≥ ", "")) if v != "" else 0.0

    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(13, 0.55 * len(rows) + 1.8), sharey=True)
    lat = [num(r["push_lateral"]) for r in rows]
    fro = [num(r["push_frontal"]) for r in rows]
    ax0.barh([v + 0.2 for v in y], lat, height=0.4, label="lateral (+y)", color="tab:blue")
    ax0.barh([v - 0.2 for v in y], fro, height=0.4, label="frontal (+x)", color="tab:orange")
    for yi, r, a_, f_ in zip(y, rows, lat, fro):
        if not r["stayed_up"]:
            ax0.text(0.05, yi, "FELL in the full scenario (%s)" % r["fell_in"], va="center", color="red",
                     fontweight="bold")
        for dy, v, key in ((0.2, a_, "push_lateral"), (-0.2, f_, "push_frontal")):
            if str(r[key]).startswith("≥"):
                ax0.text(v, yi + dy, " ≥", va="center", fontsize=8)
    ax0.set_yticks(y)
    ax0.set_yticklabels([n + (" *" if must[n] else "") for n in names])
    ax0.set_xlabel("largest push survived (N·s, 0.1 s on the base)")
    ax0.legend(loc="lower right")
    ax0.grid(axis="x", alpha=0.3)
    ax0.set_title("largest push survived (scan, bisection); * = must stay up")
    width = 0.27
    goals = [("est_v_rms", 0.03, "velocity RMS / 0.03 m/s"), ("est_tilt_deg", 0.5, "tilt max / 0.5°"),
             ("est_height_mm", 5.0, "height max / 5 mm")]
    for k, (key, goal, label) in enumerate(goals):
        ax1.barh([v + (1 - k) * width for v in y], [max(r[key] / goal, 1e-3) for r in rows], height=width,
                 label=label)
    ax1.axvline(1.0, color="red", lw=1, ls="--")
    ax1.set_xscale("log")
    ax1.set_xlabel("estimate error ÷ issue 28's goal (full scenario; red: the goal)")
    ax1.legend(loc="lower right")
    ax1.grid(axis="x", alpha=0.3)
    ax1.set_title("estimate against the truth")
    fig.suptitle("HIL robustness envelope: solo12, native firmware")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print("figure: %s" % path)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--harness", required=True)
    p.add_argument("--firmware", required=True)
    p.add_argument("--urdf", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--short", action="store_true", help="CI: the must-stay-up cells, full scenario, no bisection")
    p.add_argument("--scan", type=float, default=1.0, help="N·s, the scan's step before the bisection")
    p.add_argument("--steps", type=int, default=4, help="bisection steps per direction after the scan")
    p.add_argument("--max-impulse", type=float, default=4.0, help="N·s, the scan's upper end")
    a = p.parse_args()
    a.harness, a.firmware, a.urdf, a.out = (os.path.abspath(x) for x in (a.harness, a.firmware, a.urdf, a.out))
    cells = [c for c in CELLS if c[3]] if a.short else CELLS
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    rows = []
    for name, _, opts, _ in cells:
        rows.append(judge_cell(a, name, opts))
        r = rows[-1]
        print("%-20s stayed up %-3s push %s / %s N·s  (%.0f s)" % (name, "yes" if r["stayed_up"] else "NO",
                                                                     r["push_lateral"] or "-", r["push_frontal"] or "-",
                                                                     r["wall_s"]), flush=True)
    table = markdown(rows, cells, a)
    print("\n" + table)
    with open(os.path.join(a.out, "envelope.md"), "w") as f:
        f.write(table)
    with open(os.path.join(a.out, "envelope.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    if not a.short:
        figure(rows, cells, os.path.join(a.out, "envelope.png"))
    fallen = [r["cell"] for r, c in zip(rows, cells) if c[3] and not r["stayed_up"]]
    print("envelope: %d cells in %.0f s; %s" % (len(rows), time.time() - t0,
                                               "every must-stay-up cell stayed up" if not fallen
                                               else "FELL: " + ", ".join(fallen)))
    return 1 if fallen else 0


if __name__ == "__main__":
    sys.exit(main())
