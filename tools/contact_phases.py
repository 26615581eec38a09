#!/usr/bin/env python3
"""The contact solve phase by phase on the Cortex-M7, and at its iteration caps
(targets/footprint/contact_phases.cpp says what each window measures).

    cmake --preset cortex-m7 && cmake --build build/cortex-m7 --target talus_footprint_contact_phases
    python3 tools/contact_phases.py [elf]

Runs the ELF (default build/cortex-m7/targets/footprint/talus_footprint_contact_phases) under
qemu-system-arm -icount shift=7 as tools/footprint_report.py runs its probes, with the same
calibration (the "empty" window subtracted, "nop1000" checked), and prints Markdown tables:
instructions per phase (median, min, max over the 100 states), the sweep cost of PGS (a least-
squares line of ph_cone against the sweeps done), and per (tolerance, cap): instructions, states
ok, sweeps, the cone report's evidence and the relative error of the forces against a
converged solve.
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import footprint_report as fr  # noqa: E402

SHIFT = 7


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    elf = sys.argv[1] if len(sys.argv) > 1 else fr.footprint_path("cortex-m7", "talus_footprint_contact_phases")
    status, out = fr.qemu_mps2("mps2-an500", elf, SHIFT, timeout=1800)
    if status or not fr.PROBE_DONE.search(out):
        fr.show(out)
        fr.die("contact phases probe failed")
    wins = fr.calibrate("ticks", "m7ph", fr.window_lines(out), SHIFT, 400)
    by = {}
    for label, state, v in wins:
        by.setdefault(label, {})[int(state)] = int(float(v))
    lines = [f for f in map(fr.fields, fr.lines_of(out)) if f]
    sweeps = {int(f[2]): int(f[4]) for f in lines if f[0] == "cinfo" and f[1] == "ph_cone"}
    order = ["ph_begin", "ph_check", "ph_system", "ph_free", "ph_elim", "ph_delassus", "ph_guess", "ph_assemble", "ph_cone",
             "ph_recover", "ph_whole"]
    print("| phase | median | min | max |")
    print("|---|---:|---:|---:|")
    total = 0
    for p in order:
        vals = sorted(by[p].values())
        med = statistics.median(vals)
        if p not in ("ph_whole", "ph_guess", "ph_assemble"):
            total += med
        print(f"| {p} | {med:.0f} | {vals[0]} | {vals[-1]} |")
    print(f"| sum of the phases' medians (ph_guess, ph_assemble are inside ph_cone) | {total:.0f} | | |")
    # ph_cone = a + b·sweeps over the states that swept
    xs = [sweeps[s] for s in by["ph_cone"] if sweeps.get(s, 0) > 0]
    ys = [by["ph_cone"][s] for s in by["ph_cone"] if sweeps.get(s, 0) > 0]
    if len(xs) > 2:
        mx, my = statistics.mean(xs), statistics.mean(ys)
        b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        a = my - b * mx
        fixed = max(by["ph_whole"][s] - b * sweeps[s] for s in by["ph_whole"])
        print(f"\nPGS sweeps: {len(xs)} states swept (max {max(sweeps.values())}); ph_cone ≈ {a:.0f} + {b:.0f} · sweeps;"
              f" whole − {b:.0f} · sweeps: max {fixed:.0f} over the states")
    cacc = [f for f in lines if f[0] == "cacc"]
    labels = []
    for f in cacc:
        if f[1] not in labels:
            labels.append(f[1])
    print("\n| tolerance, cap | median / worst instructions | ok | sweeps max | evidence max (ok) |"
          " rel. force error median / 90 % / max (ok, reference ok) | errors > 10 τ_r | ref. solves ok |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    tol = {}
    for lab in labels:
        parts = lab.split("_")
        tol[lab] = float(parts[1][1:]) if len(parts) > 1 and parts[1].startswith("t") else 1.4901161193847656e-08
    for lab in labels:
        rows = [f for f in cacc if f[1] == lab]
        ins = sorted(by[lab].values())
        ok = [f for f in rows if f[3] == "0"]
        ev = max((int(f[5]) / 1e6 for f in ok), default=float("nan"))
        err = sorted(int(f[6]) / 1e9 for f in ok if f[7] == "0")
        refok = sum(1 for f in rows if f[7] == "0")
        big = sum(1 for e in err if e > 10 * tol[lab])
        emed = statistics.median(err) if err else float("nan")
        e90 = err[int(0.9 * (len(err) - 1))] if err else float("nan")
        emax = err[-1] if err else float("nan")
        print(f"| {lab} | {statistics.median(ins):.0f} / {ins[-1]} | {len(ok)} | {max(int(f[4]) for f in rows)} |"
              f" {ev:.3g} | {emed:.2g} / {e90:.2g} / {emax:.2g} | {big} | {refok} |")

if __name__ == "__main__":
    main()
