#!/usr/bin/env python3
"""Plot one HIL run log (CSV written by the HIL harness) as PNG figures.

Usage: python3 hil/plot.py <log.csv> <out_dir> [--title TEXT]

Writes base.png, estimate.png, com.png, forces.png, torques.png, instructions.png and faults.png
into out_dir and prints one line per file. Needs only Debian 12's python3-matplotlib (numpy
comes with it). Columns are looked up by name, so extra or reordered columns are fine;
a missing column reads as NaN (numbers) or '' (strings), and NaN cells leave gaps.
"""
import argparse
import csv
import math
import os

import matplotlib
matplotlib.use("Agg")  # no display on the build machines
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

DEFAULTS = {"z_min": 0.15, "tilt_max_deg": 20.0, "mu": 0.6, "torque_limit": 2.5,
            "budget_instructions": 150000.0}
LEGS = ["FL", "FR", "HL", "HR"]
JOINTS = ["HAA", "HFE", "KFE"]
FAULT_CLASSES = ["bitflip", "drop", "duplicate", "truncate", "delay", "silence", "nan_sensor"]
COUNTERS = ["fw_rx_rejected", "fw_rx_missed", "fw_watchdog", "fw_sensor_invalid", "fw_talus", "fw_estimator",
            "host_rejected", "host_missed", "deadline_miss"]
DPI = 110
PUSH_COLOR = "red"


class Log:
    """Header comments (key=value) plus columns of the CSV body, parsed by name."""

    def __init__(self, path):
        self.meta = {}
        with open(path, newline="") as f:
            lines = f.read().splitlines()
        body = 0
        while body < len(lines) and (lines[body].startswith("#") or not lines[body].strip()):
            key, sep, val = lines[body].lstrip("#").partition("=")
            if sep:
                self.meta[key.strip()] = val.strip()
            body += 1
        self.rows = list(csv.DictReader(lines[body:]))
        self.n = len(self.rows)
        self.t = self.num("t")

    def num(self, name):
        """Column as float array; empty, missing or unparsable cells become NaN."""
        out = np.full(self.n, np.nan)
        if self.n == 0 or name not in self.rows[0]:
            return out
        for i, r in enumerate(self.rows):
            try:
                out[i] = float(r[name])
            except (TypeError, ValueError):
                pass
        return out

    def text(self, name):
        return [(r.get(name) or "").strip() for r in self.rows]

    def param(self, key):
        try:
            return float(self.meta[key])
        except (KeyError, ValueError):
            return DEFAULTS[key]


def runs(values):
    """[(value, first_index, last_index_exclusive)] for runs of equal consecutive values."""
    out, start = [], 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[start]:
            out.append((values[start], start, i))
            start = i
    return out


class Context:
    """What every time-series axis needs: scenario bands, their colours, push spans."""

    def __init__(self, log, title):
        self.log, self.title = log, title
        t = log.t
        dt = float(np.nanmedian(np.diff(t))) if log.n > 1 else 1e-3
        self.t_end = lambda i: t[i] if i < log.n else t[-1] + dt  # band ends at next row's t
        self.bands = runs(log.text("scenario"))
        names = list(dict.fromkeys(name for name, _, _ in self.bands))
        cmap = plt.get_cmap("tab10" if len(names) <= 10 else "tab20")
        self.color = {name: cmap(i % cmap.N) for i, name in enumerate(names)}
        mag = np.hypot(np.nan_to_num(log.num("push_x")), np.nan_to_num(log.num("push_y")))
        self.pushes = [(a, b) for on, a, b in runs((mag != 0).tolist()) if on]
        self.push_max = float(mag.max())

    def decorate(self, axes, legend_axes=None):
        """Shade scenarios and pushes on every axis; scenario names above the top one."""
        t = self.log.t
        for ax in axes:
            for name, a, b in self.bands:
                ax.axvspan(t[a], self.t_end(b), color=self.color[name], alpha=0.10, lw=0, zorder=0)
            for k, (a, b) in enumerate(self.pushes):
                lab = "push (max %.0f N)" % self.push_max if k == 0 and ax is legend_axes else None
                ax.axvspan(t[a], self.t_end(b), color=PUSH_COLOR, alpha=0.25, lw=0, zorder=0, label=lab)
            ax.grid(True, alpha=0.3)
            ax.set_xlim(t[0], self.t_end(self.log.n))
        top = axes[0]
        span = self.t_end(self.log.n) - t[0] or 1.0
        # Stagger the names on two levels when a band is too narrow for its name.
        crowded = any((self.t_end(b) - t[a]) / span < 0.012 * len(n) for n, a, b in self.bands)
        for k, (name, a, b) in enumerate(self.bands):
            y = 1.01 + (0.09 if crowded and k % 2 else 0.0)
            top.text((t[a] + self.t_end(b)) / 2, y, name or "(none)", transform=top.get_xaxis_transform(),
                     ha="center", va="bottom", fontsize=8, color=self.color[name], fontweight="bold")
        axes[-1].set_xlabel("time (s)")

    def save(self, fig, out_dir, fname, what):
        fig.suptitle("%s: %s" % (self.title, what), fontsize=11)
        path = os.path.join(out_dir, fname)
        fig.savefig(path, dpi=DPI)
        plt.close(fig)
        print(path)


def legend_right(ax, **kw):
    """Legends outside on the right so they never hide data."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=8, **kw)


def note_if_empty(ax, values, what):
    """Say so on the plot instead of leaving an empty frame that looks like a plotting bug."""
    if np.isnan(values).all():
        ax.text(0.5, 0.5, "no data: %s" % what, transform=ax.transAxes, ha="center", va="center",
                fontsize=12, color="grey")


def hline(ax, y, label, color="red"):
    ax.axhline(y, color=color, ls="--", lw=1, label=label)


def plot_base(ctx, out_dir):
    log = ctx.log
    roll, pitch = log.num("roll"), log.num("pitch")
    tilt = np.degrees(np.arccos(np.clip(np.cos(roll) * np.cos(pitch), -1.0, 1.0)))
    fig, (az, at) = plt.subplots(2, 1, figsize=(12, 6), sharex=True, layout="constrained")
    az.plot(log.t, log.num("base_z"), lw=1, label="base z")
    hline(az, log.param("z_min"), "z_min = %.3g m" % log.param("z_min"))
    az.set_ylabel("base height z (m)")
    note_if_empty(az, log.num("base_z"), "column base_z missing or all NaN")
    at.plot(log.t, tilt, lw=1, color="tab:purple", label="tilt")
    hline(at, log.param("tilt_max_deg"), "tilt_max = %.3g°" % log.param("tilt_max_deg"))
    at.set_ylabel("tilt (deg)")
    note_if_empty(at, tilt, "columns roll/pitch missing or all NaN")
    ctx.decorate([az, at], legend_axes=az)
    legend_right(az); legend_right(at)
    ctx.save(fig, out_dir, "base.png", "base height and tilt (verdict bounds dashed)")


def plot_estimate(ctx, out_dir):
    """The firmware's estimate against the plant's truth: base height, roll and pitch, velocity."""
    log = ctx.log
    fig, axes = plt.subplots(4, 1, figsize=(12, 10), sharex=True, layout="constrained")
    az, ar, av, ae = axes
    az.plot(log.t, log.num("base_z"), lw=1, color="black", label="truth")
    az.plot(log.t, log.num("est_z"), lw=1, color="tab:orange", ls="--", label="estimate")
    az.set_ylabel("base height (m)")
    for name, color in (("roll", "tab:blue"), ("pitch", "tab:green")):
        ar.plot(log.t, np.degrees(log.num(name)), lw=1, color=color, label=name + " truth")
        ar.plot(log.t, np.degrees(log.num("est_" + name)), lw=1, color=color, ls="--", label=name + " estimate")
    ar.set_ylabel("angle (deg)")
    err2 = np.zeros(log.n)
    for axis, color in (("x", "tab:blue"), ("y", "tab:green"), ("z", "tab:red")):
        truth, est = log.num("vel_" + axis), log.num("est_v" + axis)
        av.plot(log.t, truth, lw=1, color=color, label="v%s truth" % axis)
        av.plot(log.t, est, lw=1, color=color, ls="--", label="v%s estimate" % axis)
        err2 += (est - truth) ** 2
    av.set_ylabel("base velocity, world (m/s)")
    err = np.sqrt(err2)
    ok = np.isfinite(err)
    rms = float(np.sqrt(np.mean(err[ok] ** 2))) if ok.any() else float("nan")
    ae.plot(log.t, err, lw=0.7, color="tab:purple", label="|v̂ − v| (RMS %.4f m/s)" % rms)
    hline(ae, 0.03, "velocity goal 0.03 m/s")
    ae.set_ylabel("velocity error (m/s)")
    ah = ae.twinx()
    ah.plot(log.t, 1e3 * np.abs(log.num("est_z") - log.num("base_z")), lw=0.7, color="tab:orange",
            label="|ẑ − z| (mm, right axis)")
    ah.set_ylabel("height error (mm)")
    ah.legend(loc="lower left", bbox_to_anchor=(1.005, 0.0), fontsize=8)
    note_if_empty(az, log.num("est_z"), "column est_z missing or all NaN")
    ctx.decorate(list(axes), legend_axes=az)
    for ax in axes:
        legend_right(ax)
    ctx.save(fig, out_dir, "estimate.png", "state estimate (dashed) against the plant's truth")


def hull(points):
    """Convex hull, counter-clockwise, by Andrew's monotone chain (collinear points dropped)."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def chain(seq):  # keeps only left turns (cross product of the last two edges > 0)
        out = []
        for p in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out[:-1]  # the last point starts the other chain
    return chain(pts) + chain(reversed(pts))


def margin(h, p):
    """Signed distance from p to the boundary of CCW convex polygon h: >0 inside, <0 outside.
    With fewer than 3 feet there is no area, so the best possible margin is 0 (on the line)."""
    if not h:
        return math.nan
    if len(h) == 1:
        return -math.hypot(p[0] - h[0][0], p[1] - h[0][1])
    seg, line = [], []  # distance to each edge segment; signed distance to each edge line
    for a, b in (zip(h, h[1:] + h[:1]) if len(h) > 2 else [h]):
        ex, ey = b[0] - a[0], b[1] - a[1]
        L2 = ex * ex + ey * ey
        s = min(1.0, max(0.0, ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / L2))
        seg.append(math.hypot(p[0] - a[0] - s * ex, p[1] - a[1] - s * ey))
        line.append((ex * (p[1] - a[1]) - ey * (p[0] - a[0])) / math.sqrt(L2))  # >0: left = inside
    return min(line) if len(h) > 2 and min(line) >= 0 else -min(seg)


def support(feet, contact, i):
    """Hull of the in-contact feet at row i; None if one of them has a NaN position (a
    corrupted row says nothing about the support, so it must not shrink the polygon)."""
    pts = [(feet[k][0][i], feet[k][1][i]) for k in range(4) if contact[k][i] == 1]
    if any(math.isnan(c) for p in pts for c in p):
        return None
    return hull(pts)


def plot_com(ctx, out_dir):
    log = ctx.log
    cx, cy = log.num("com_x"), log.num("com_y")
    feet = [(log.num("foot%d_x" % k), log.num("foot%d_y" % k)) for k in range(4)]
    contact = [log.num("contact%d" % k) for k in range(4)]
    fig = plt.figure(figsize=(12, 9), layout="constrained")
    gs = fig.add_gridspec(2, 1, height_ratios=[2, 1])
    top, ax_m = fig.add_subplot(gs[0]), fig.add_subplot(gs[1])
    styles = [("start", ":"), ("middle", "--"), ("end", "-")]
    drawn = []  # polygons already drawn: most samples repeat the same 4 feet, draw those once
    for name, a, b in ctx.bands:
        col = ctx.color[name]
        top.plot(cx[a:b], cy[a:b], color=col, lw=1.5, zorder=3, label=name or "(none)")
        for (_, ls), i in zip(styles, (a, (a + b - 1) // 2, b - 1)):
            h = support(feet, contact, i)
            top.plot(cx[i], cy[i], "x", color=col, ms=7, mew=1.5, zorder=4)
            if not h or len(h) < 2 or any(len(h) == len(g) and np.allclose(h, g, atol=0.005) for g in drawn):
                continue
            drawn.append(h)
            xs, ys = zip(*(h + h[:1]))
            top.fill(xs, ys, color=col, alpha=0.06, lw=0)
            top.plot(xs, ys, color=col, ls=ls, lw=1.2)
            top.plot(xs[:-1], ys[:-1], "o", color=col, ms=5)
    for lab, ls in styles:  # proxy entries explaining the line styles of the polygons
        top.plot([], [], color="grey", ls=ls, label="support polygon, %s of scenario" % lab)
    top.plot([], [], "x", color="grey", label="CoM at that instant")
    top.plot([], [], " ", label="(a polygon equal to an earlier one\n is not drawn again)")
    top.set_aspect("equal", adjustable="datalim")
    top.set_xlabel("x (m, world)"); top.set_ylabel("y (m, world)")
    top.set_title("top view: CoM trajectory by scenario, support polygons of the feet in contact", fontsize=10)
    top.grid(True, alpha=0.3)
    legend_right(top)
    m = np.array([margin(support(feet, contact, i) or [], (cx[i], cy[i])) for i in range(log.n)])
    ax_m.plot(log.t, m, lw=1, color="k", label="CoM to nearest edge")
    ax_m.fill_between(log.t, m, 0, where=m < 0, color="red", alpha=0.4, label="outside polygon")
    ax_m.axhline(0, color="red", lw=0.8)
    note_if_empty(ax_m, m, "no support polygon (CoM or in-contact foot positions missing/NaN)")
    ax_m.set_ylabel("stability margin (m)")
    ctx.decorate([ax_m], legend_axes=ax_m)
    legend_right(ax_m)
    ctx.save(fig, out_dir, "com.png", "centre of mass and support polygon")


def plot_forces(ctx, out_dir):
    log, mu = ctx.log, ctx.log.param("mu")
    fig, axes = plt.subplots(4, 1, figsize=(12, 12), sharex=True, layout="constrained")
    for k, ax in enumerate(axes):
        fz = log.num("f%d_z" % k)
        ft = np.hypot(log.num("f%d_x" % k), log.num("f%d_y" % k))
        ax.plot(log.t, fz, lw=1, color="tab:blue", label="normal f_z")
        ax.plot(log.t, ft, lw=1, color="tab:orange", label="tangential |f_xy|")
        ax.plot(log.t, mu * fz, ":", lw=1.2, color="k", label="friction cone mu·f_z (mu=%.2g)" % mu)
        ax.set_ylabel("%s foot\nforce (N)" % LEGS[k])
    ctx.decorate(list(axes), legend_axes=axes[0])
    legend_right(axes[0])
    ctx.save(fig, out_dir, "forces.png", "contact forces of the floor on each foot")


def plot_torques(ctx, out_dir):
    log, lim = ctx.log, ctx.log.param("torque_limit")
    fig, axes = plt.subplots(4, 1, figsize=(12, 12), sharex=True, layout="constrained")
    for k, ax in enumerate(axes):
        for j, (jn, c) in enumerate(zip(JOINTS, ("tab:green", "tab:blue", "tab:orange"))):
            ax.plot(log.t, log.num("tau%d" % (3 * k + j)), lw=1, color=c, label=jn)
        hline(ax, lim, "±torque_limit = %.3g N·m" % lim)
        hline(ax, -lim, None)
        ax.set_ylabel("%s leg\ntorque (N·m)" % LEGS[k])
    ctx.decorate(list(axes), legend_axes=axes[0])
    legend_right(axes[0])
    ctx.save(fig, out_dir, "torques.png", "applied joint torques (joints 3k..3k+2 of leg k)")


def plot_instructions(ctx, out_dir):
    log, budget = ctx.log, ctx.log.param("budget_instructions")
    n = log.num("step_instr")
    ok = n > 0  # NaN compares False, so NaN rows are skipped too
    fig, ax = plt.subplots(1, 1, figsize=(12, 4), layout="constrained")
    if ok.any():
        v = n[ok]
        ax.plot(log.t[ok], v, lw=0.7, color="tab:blue",
                label="controller: median %.0f, max %.0f" % (np.median(v), v.max()))
        e = log.num("est_instr")[ok]
        top = v.max()
        if np.isfinite(e).any():
            total = v + e
            top = np.nanmax(total)
            ax.plot(log.t[ok], e, lw=0.7, color="tab:orange",
                    label="estimator: median %.0f, max %.0f" % (np.nanmedian(e), np.nanmax(e)))
            ax.plot(log.t[ok], total, lw=0.7, color="tab:red",
                    label="total: median %.0f, max %.0f" % (np.nanmedian(total), top))
        if budget > 0:
            over = (v + e > budget).sum() if np.isfinite(e).any() else (v > budget).sum()
            hline(ax, budget, "budget %.0f (%d steps over)" % (budget, over))
        ax.set_ylim(0, max(budget, top) * 1.1)
        legend_right(ax)
    else:
        ax.text(0.5, 0.5, "not measured (native run)", transform=ax.transAxes, ha="center",
                va="center", fontsize=14, color="grey")
    ax.set_ylabel("instructions / control step")
    ctx.decorate([ax])
    ctx.save(fig, out_dir, "instructions.png",
             "instructions per control step (target: %s)" % log.meta.get("target", "?"))


def plot_faults(ctx, out_dir):
    log = ctx.log
    dirs = [("inj_down", "v"), ("inj_up", "^")]
    inj = {col: log.text(col) for col, _ in dirs}
    seen = {c for col in inj for c in inj[col] if c}
    classes = [c for c in FAULT_CLASSES if c in seen] + sorted(seen - set(FAULT_CLASSES))
    fig, (ai, ac, ast) = plt.subplots(3, 1, figsize=(12, 10), sharex=True, layout="constrained",
                                      gridspec_kw={"height_ratios": [max(2, 0.35 * len(classes)), 3, 2]})
    cmap, labels = plt.get_cmap("tab10"), []
    for ci, cls in enumerate(classes):
        for col, mk in dirs:
            idx = [i for i, c in enumerate(inj[col]) if c == cls]
            ai.plot(log.t[idx], [len(labels)] * len(idx), mk, ls="none", color=cmap(ci % 10), ms=6)
            labels.append("%s  %s" % (cls, col))
    ai.set_yticks(range(len(labels)), labels, fontsize=8)
    ai.set_ylim(-0.7, max(len(labels), 1) - 0.3)
    if not classes:
        ai.text(0.5, 0.5, "no injected faults", transform=ai.transAxes, ha="center", va="center", color="grey")
        ai.set_yticks([])
    ai.set_ylabel("injected faults\n(▼ inj_down, ▲ inj_up)")
    for k, name in enumerate(COUNTERS):
        v = log.num(name)
        if np.isnan(v).all():
            continue
        final = v[~np.isnan(v)][-1]
        ac.plot(log.t, v, drawstyle="steps-post", lw=1.3, ls="-" if k < 5 else "--",
                color=cmap(k), label="%s (final %d)" % (name, final))
    ac.set_ylabel("cumulative count")
    st = log.num("ctrl_state")
    names = {}
    for item in log.meta.get("states", "").split(","):
        num, sep, nm = item.partition(":")
        if sep and num.strip().lstrip("-").isdigit():
            names[int(num)] = nm.strip()
    levels = sorted(set(names) | {int(s) for s in st[~np.isnan(st)]})
    ast.plot(log.t, st, drawstyle="steps-post", lw=1.5, color="k")
    ast.set_yticks(levels, ["%d: %s" % (s, names.get(s, "?")) for s in levels], fontsize=8)
    if levels:
        ast.set_ylim(min(levels) - 0.5, max(levels) + 0.5)
    ast.set_ylabel("controller state")
    ctx.decorate([ai, ac, ast], legend_axes=ac)
    legend_right(ac)
    ctx.save(fig, out_dir, "faults.png", "injected faults, error counters and controller state")


def chi2_quantile(k, z):
    """χ²(k) quantile at the standard normal's z (Wilson–Hilferty; within 1 % for k ≥ 3)."""
    return k * (1 - 2 / (9 * k) + z * np.sqrt(2 / (9 * k))) ** 3


def plot_innovation(ctx, out_dir):
    """The estimator's consistency: its NIS per measured row (the command frame's est_nis /
    est_nis_dof) and its velocity NEES against the truth per degree of freedom (est_nees_v / 3):
    1 on average when the filter's noise model matches what it meets."""
    log = ctx.log
    fig, axes = plt.subplots(2, 1, figsize=(12, 7), sharex=True, layout="constrained")
    nis, dof = log.num("est_nis"), log.num("est_nis_dof")
    nees = log.num("est_nees_v")
    series = ((axes[0], nis, dof, "NIS per measured row", "each correction"),
              (axes[1], nees, np.where(np.isfinite(nees), 3.0, np.nan), "velocity NEES / 3", "each frame"))
    for ax, num, k, what, each in series:
        ok = np.isfinite(num) & np.isfinite(k) & (k > 0)
        if ok.any():
            t, r, kk = log.t[ok], num[ok] / k[ok], k[ok]
            k0 = float(np.median(kk))
            ax.plot(t, r, lw=0.4, color="tab:grey", alpha=0.6, label=what + ", " + each)
            w = min(200, len(r))
            mean = np.convolve(num[ok], np.ones(w), "valid") / np.convolve(kk, np.ones(w), "valid")
            ax.plot(t[w - 1:], mean, lw=1.2, color="tab:blue",
                    label="mean over %d (whole run %.2f)" % (w, num[ok].sum() / kk.sum()))
            band = 1.96 * np.sqrt(2 / (w * k0))
            ax.axhspan(1 - band, 1 + band, color="tab:green", alpha=0.2,
                       label="consistent: the mean's 95 % band (independent samples)")
            hline(ax, chi2_quantile(k0, 1.645) / k0, "χ²(%d) 95 %% of single samples" % k0, color="tab:red")
            ax.set_yscale("log")
            legend_right(ax)
        else:
            ax.text(0.5, 0.5, "not in this log", transform=ax.transAxes, ha="center", va="center",
                    fontsize=14, color="grey")
        ax.set_ylabel(what)
    ctx.decorate(list(axes), legend_axes=axes[0])
    ctx.save(fig, out_dir, "innovation.png", "estimator consistency: NIS per measured row, velocity NEES per dof")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log"); ap.add_argument("out_dir")
    ap.add_argument("--title", help="title prefix of every figure (default: robot, target, file name)")
    args = ap.parse_args()
    log = Log(args.log)
    if log.n == 0:
        raise SystemExit("plot.py: %s has no data rows" % args.log)
    title = args.title or "%s on %s (%s)" % (log.meta.get("robot", "robot"), log.meta.get("target", "?"),
                                            os.path.basename(args.log))
    os.makedirs(args.out_dir, exist_ok=True)
    ctx = Context(log, title)
    for plot in (plot_base, plot_estimate, plot_innovation, plot_com, plot_forces, plot_torques, plot_instructions,
                 plot_faults):
        plot(ctx, args.out_dir)


if __name__ == "__main__":
    main()
