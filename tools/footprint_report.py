#!/usr/bin/env python3
"""Footprint and instruction-count report of talus on its targets (issue 4).

Run it from anywhere in the repository (tools/footprint-report.sh execs this file):

    bash tools/footprint-report.sh        # or: python3 tools/footprint_report.py

What it does, in order:
  1. builds the probes of targets/footprint (target talus_footprint) in the presets' build
     directories build/{cortex-m7,cortex-m4f,x86-64,aarch64}, configuring them if needed, and
     the FreeRTOS images of the two Cortex-M presets;
  2. counts instructions per call of the probes
     - Cortex-M7 (double) and Cortex-M4F (float) under qemu-system-arm -icount shift=N, with
       SysTick as the instruction counter (targets/footprint/probe.cpp),
     - x86-64 under valgrind --tool=callgrind (client requests around each call),
     - aarch64 under qemu-aarch64 -singlestep -d exec,nochain (one log line per executed
       instruction, counted between two marker functions);
  3. runs the Cortex-M7 ABA firmware image and its baseline (sizes, stack painted at reset), the
     Cortex-M7 solo12 controller image (kinematics, CRBA, RNEA, ABA, feet Jacobians, 4-contact
     constrained solve) in the fast and compact profiles at -O2 and -Os with its baselines
     (sizes, flash per algorithm from arm-none-eabi-nm, instructions per call), probe.cpp in
     the compact profile (Cortex-M7, x86-64), the contact-solve probe and the FreeRTOS loop test;
  4. prints a Markdown section (with a before/after table against the numbers of an older
     commit kept in targets/footprint/before-<commit>.txt) and writes it into bench/RESULTS.md
     between the markers <!-- footprint-report:begin --> and <!-- footprint-report:end -->
     (appended if absent).

Environment:
  TALUS_FOOTPRINT_JOBS            build jobs (default 2)
  TALUS_FOOTPRINT_ICOUNT_SHIFT    QEMU -icount shift (default 7; >= 7 keeps the SysTick
                                  conversion exact)
  TALUS_FOOTPRINT_RESULTS         file to update (default bench/RESULTS.md; "-" to only print)
  TALUS_FOOTPRINT_BEFORE=<commit> no report: count that commit's probe.cpp on Cortex-M7 and
                                  x86-64 in a temporary git worktree and write
                                  targets/footprint/before-<commit>.txt
  TALUS_FOOTPRINT_BEFORE_WORKTREE with TALUS_FOOTPRINT_BEFORE: an existing checkout of that
                                  commit to use (and keep)
  TALUS_FOOTPRINT_BEFORE_FILE     the file the before/after table reads (default the newest
                                  targets/footprint/before-*.txt)

Needs: Python 3.9 or later, standard library only (Debian 12's /usr/bin/python3 is 3.11), and what
tools/setup-debian.sh installs (cmake, the cross compilers, qemu-system-arm, qemu-user,
valgrind, arm-none-eabi binutils). Takes about 4 minutes from a fresh clone on 2 cores plus
about 4.5 minutes of compiling the controller images and compact probes at -j1; about a minute
and a half when everything is built.

bench/RESULTS.md holds the section with its numbers formatted as mawk formats them; so that
identical measurements give a byte-identical section (and RESULTS.md does not churn), the
numbers here are formatted the same way: see awk_str() and awk_d().
"""

import datetime
import glob
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

PROG = "footprint-report"
BEGIN_MARK = "<!-- footprint-report:begin -->"
END_MARK = "<!-- footprint-report:end -->"
PRESETS = ["cortex-m7", "cortex-m4f", "x86-64", "aarch64"]
CORTEX_M_PRESETS = ["cortex-m7", "cortex-m4f"]
BOARD = {"cortex-m7": "mps2-an500", "cortex-m4f": "mps2-an386"}
PROBE_DONE = re.compile(r"^done windows .* bad_status 0", re.M)
FULL_DONE = re.compile(r"^full image: .* 0 failed", re.M)

# probe.cpp's configurations (report columns) and algorithms
CONFIGS = ["m7", "m7r", "m4f", "x86", "x86r", "a64", "a64r"]
ALGS = ["fk_q", "fk_qva", "crba", "rnea", "aba"]
ALG_NAME = {
    "fk_q": "forward kinematics (q)",
    "fk_qva": "forward kinematics (q, v, a)",
    "crba": "CRBA (mass matrix)",
    "rnea": "RNEA (inverse dynamics)",
    "aba": "ABA (forward dynamics)",
}
MIN_WINDOWS = 500          # fewest windows a probe must report
MIN_WINDOWS_CONTACT = 400  # the contact probe reports fewer

# the controller image (full_image.cpp): measured variants, baselines and table labels
FULL_VARIANTS = ["full", "full_compact", "full_fast_os", "full_compact_os",
                 "full_baseline", "full_baseline_os"]
FULL_PROFILES = ["full", "full_compact", "full_fast_os", "full_compact_os"]
FULL_PROFILE_NAME = {
    "full": "**fast** (default), -O2",
    "full_compact": "**compact** (`talus::compact`), -O2",
    "full_fast_os": "fast, -Os",
    "full_compact_os": "compact, -Os",
}
FULL_PART_NAME = {
    "fk": "forward kinematics (and the kinematics pass others share)",
    "crba": "CRBA",
    "rnea": "RNEA",
    "aba": "ABA",
    "jac": "Jacobians (joint Jacobians, 4 frame Jacobians)",
    "cfd": "constrained solve (range space, 4 point contacts)",
    "talus_shared": "other talus (shared)",
    "eigen_shared": "Eigen (shared)",
    "make_model": "model construction (make_model)",
    "setup": "constraint set-up (ConstraintSet, start-up only)",
    "data_ctor": "workspace constructor",
    "static_ctors": "static constructors",
    "lib": "libgcc / newlib (beyond the baseline's)",
    "harness": "harness (names the baseline has too)",
}
FULL_ALG_NAME = {
    "fk": "forward kinematics (q, v, a)",
    "crba": "CRBA",
    "rnea": "RNEA",
    "aba": "ABA",
    "jac": "Jacobians of the 4 feet",
    "cfd": "constrained solve, 4 point contacts",
}
ABA_PARTS = ["ABA code", "model construction (make_model)", "workspace constructor",
             "static constructors (model, workspace)", "model (g_model)",
             "workspace (g_data)", "libgcc / newlib", "harness"]

# contact_probe.cpp: solve statuses by number, and the order in which mawk's "for (k in a)"
# visits them (the report lists failures in that order, and must not change)
STATUS_NAME = {"1": "invalid_input", "2": "singular", "3": "not_converged",
               "4": "capacity_exceeded", "5": "overflow"}
STATUS_ORDER = ["3", "5", "2", "1", "4"]


# --- messages and processes --------------------------------------------------------------

def say(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def die(msg):
    say(f"error: {msg}")
    sys.exit(1)


def show(text):
    """Print a failed step's output on stdout, as the shell version did."""
    sys.stdout.write(text)
    sys.stdout.flush()


def decode(data):
    return data.decode("utf-8", errors="surrogateescape")


def run(cmd, cwd=None, env=None):
    """Run cmd with stdout and stderr together -> (exit status, output)."""
    full_env = None if env is None else {**os.environ, **env}
    proc = subprocess.run(cmd, cwd=cwd, env=full_env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return proc.returncode, decode(proc.stdout)


def output_of(cmd):
    """stdout of cmd, or "" when it fails (like $(cmd) in the shell)."""
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    return decode(proc.stdout)


def first_line(cmd):
    lines = output_of(cmd).split("\n")
    return lines[0]


def lines_of(text):
    """Records as awk reads them: split on newlines only (a "\r" stays in the line)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def tail(text, n):
    lines = lines_of(text)[-n:]
    return "".join(line + "\n" for line in lines)


# --- awk's fields and numbers ------------------------------------------------------------
# RESULTS.md's section has mawk's number formatting; these helpers reproduce it exactly.

FIELD_SEP = re.compile(r"[ \t\n]+")
AWK_NUMBER = re.compile(r"[ \t\n\r\f\v]*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)")
MAWK_MAX_INT = 2147483647


def fields(line):
    """awk's default field splitting (blanks, tabs)."""
    return [f for f in FIELD_SEP.split(line) if f]


def field(f, i):
    """f[i], or "" when the line has fewer fields (as awk's $n)."""
    return f[i] if i < len(f) else ""


def awk_num(s):
    """A string as awk reads it as a number: its numeric prefix, else 0."""
    if isinstance(s, (int, float)):
        return float(s)
    m = AWK_NUMBER.match(s)
    return float(m.group(1)) if m else 0.0


def awk_str(x):
    """A number as mawk prints it: integers within int range as such, else %.6g."""
    x = float(x)
    if x == math.trunc(x) and -MAWK_MAX_INT <= x <= MAWK_MAX_INT:
        return str(int(x))
    return "%.6g" % x


def awk_d(x):
    """mawk's printf %d: truncated, and clamped to its int range."""
    x = math.trunc(awk_num(x))
    return str(max(-MAWK_MAX_INT, min(MAWK_MAX_INT, x)))


def median(values):
    """Median of sorted numbers; the middle one itself when the count is odd."""
    n = len(values)
    if n % 2:
        return values[(n + 1) // 2 - 1]
    return (values[n // 2 - 1] + values[n // 2]) / 2


def matches(pattern, text):
    """Group 1 of every line matching pattern (sed -n 's/.*X\\(...\\).*/\\1/p')."""
    found = []
    for line in lines_of(text):
        m = re.match(pattern, line)
        if m:
            found.append(m.group(1))
    return found


def grep_first(pattern, text):
    """The first match of pattern in text, line by line (grep -o ... | head -1)."""
    for line in lines_of(text):
        m = re.search(pattern, line)
        if m:
            return m.group(0)
    return ""


# --- 1. build ------------------------------------------------------------------------------

def build_probes(presets, jobs):
    """Configure each preset and build its probes (target talus_footprint)."""
    for p in presets:
        say(f"configuring and building the probes for {p} (build/{p}, target talus_footprint)")
        status, log = run(["cmake", "--preset", p])
        if status:
            show(log)
            die(f"configuring {p} failed")
        status, log = run(["cmake", "--build", f"build/{p}", "-j", jobs,
                           "--target", "talus_footprint"])
        if status:
            show(tail(log, 40))
            die(f"building {p} failed")


def build_freertos_images(presets, jobs):
    """The on-target test bare and in a task, and the loop test (issue 14), Cortex-M."""
    for p in presets:
        if p not in CORTEX_M_PRESETS:
            continue
        say(f"building the FreeRTOS images for {p} (preset {p}-freertos)")
        status, log = run(["cmake", "--build", f"build/{p}", "-j", jobs, "--target",
                           "talus_target_test", "talus_target_freertos_test",
                           "talus_target_freertos_loop"])
        if status:
            show(tail(log, 40))
            die(f"building {p}'s FreeRTOS images failed")


def footprint_path(preset, name):
    return f"build/{preset}/targets/footprint/{name}"


# --- 2. run --------------------------------------------------------------------------------
# Each probe run gives its windows: (label, state, instructions) with the calling sequence
# subtracted, instructions as text (the way they were printed, and are read back below).

def qemu_mps2(board, elf, shift, timeout=120):
    """Run a Cortex-M image on a QEMU MPS2 board -> (exit status, its output)."""
    return run(["toolchains/qemu-mps2.sh", board, elf],
               env={"TALUS_QEMU_ICOUNT": str(shift), "TALUS_QEMU_TIMEOUT": str(timeout)})


def ticks_to_instructions(ticks, shift):
    """SysTick at 25 MHz (40 ns) in virtual time that advances 2^shift ns per instruction."""
    return math.trunc(awk_num(ticks) * 40 / (2 ** shift) + 0.5)


def calibrate(unit, config, raw, shift, min_windows):
    """Raw windows [win, i, label, state, raw] -> [(label, state, instructions)].

    raw is SysTick ticks (unit "ticks") or instructions. Subtracts the "empty" window (the
    calling sequence) and checks that "nop1000" comes out at exactly 1000.
    """
    windows = []
    empties = set()
    empty = 0.0
    for f in raw:
        if unit == "ticks":
            v = ticks_to_instructions(field(f, 4), shift)
        else:
            v = awk_num(field(f, 4))
        label, state = field(f, 2), field(f, 3)
        windows.append((label, state, v))
        if label == "empty":
            empties.add(v)
            empty = v
    error = None
    if len(windows) < min_windows:
        error = f"{config}: only {len(windows)} windows"
    elif len(empties) != 1:
        error = f"{config}: the empty window is not constant"
    result = []
    for label, state, v in windows:
        if error:
            break
        if label == "empty":
            continue
        x = v - empty
        if label == "nop1000" and x != 1000:
            error = f"{config}: nop1000 measured {awk_str(x)} instructions, not 1000"
            break
        result.append((label, state, awk_str(x)))
    if error:
        print(error, file=sys.stderr)
        die(f"{config}: calibration failed")
    return result


def window_lines(text):
    return [f for f in map(fields, lines_of(text)) if f and f[0] == "win"]


class Measurements:
    """Everything the runs leave for the report."""

    def __init__(self, shift, tmp):
        self.shift = shift
        self.tmp = tmp
        self.windows = {}  # config -> [(label, state, instructions)]
        self.stacks = {}   # config -> [(label, bytes)]
        self.outputs = {}  # config, "img-<image>" or "rtos-<preset>" -> the run's output


def run_cortex_m(m, config, board, elf, min_windows=MIN_WINDOWS):
    """A probe on a Cortex-M board under QEMU -icount; SysTick counts the instructions."""
    status, out = qemu_mps2(board, elf, m.shift)
    if status:
        show(out)
        die(f"{config}: probe failed")
    if not PROBE_DONE.search(out):
        show(out)
        die(f"{config}: probe incomplete")
    m.outputs[config] = out
    m.windows[config] = calibrate("ticks", config, window_lines(out), m.shift, min_windows)
    m.stacks[config] = [(field(f, 1), field(f, 2))
                        for f in map(fields, lines_of(out)) if f and f[0] == "stack"]


def callgrind_dumps(path):
    """Ir of each dump ("Trigger: Client Request: win <i>") of a combined callgrind file."""
    ir = {}
    window = ""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        for line in lines_of(f.read()):
            if line.startswith("desc: Trigger: Client Request: win "):
                window = fields(line)[-1]
            else:
                f_ = fields(line)
                if f_ and f_[0] == "summary:" and window != "":
                    ir[window] = field(f_, 1)
                    window = ""
    return ir


def record_windows(m, config, out, counts, missing, min_windows):
    """A probe's windows (window_lines of its output) with each one's instruction count from
    counts (window id -> count, from callgrind or the aarch64 trace), calibrated into m."""
    raw = []
    for f in window_lines(out):
        if f[1] not in counts:
            print(f"{missing} {f[1]}", file=sys.stderr)
            die(f"{config}: calibration failed")
        raw.append((f + [""] * 5)[:4] + [counts[f[1]]])
    m.outputs[config] = out
    m.windows[config] = calibrate("instructions", config, raw, m.shift, min_windows)


def run_callgrind(m, config, exe, min_windows=MIN_WINDOWS):
    """A probe under callgrind: collection toggled on around each call and dumped per call."""
    cg = os.path.join(m.tmp, f"{config}.cg")
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--combine-dumps=yes",
         "--dump-line=no", f"--callgrind-out-file={cg}", exe],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    out = decode(proc.stderr)  # the probe reports on stderr, with valgrind
    if proc.returncode:
        show(tail(out, 20))
        die(f"{config}: callgrind run failed")
    if not PROBE_DONE.search(out):
        show(tail(out, 20))
        die(f"{config}: probe incomplete")
    record_windows(m, config, out, callgrind_dumps(cg), "no dump for window", min_windows)
    os.remove(cg)


def count_trace_windows(stream):
    """Instructions between talus_fp_begin's return and talus_fp_end, per window.

    The trace has one "Trace" line per executed instruction (-singlestep: one instruction per
    block; nochain: every block execution is logged); the 5th field names the function.
    """
    counts = []
    after_begin = in_window = False
    n = 0
    for line in stream:
        if not line.startswith(b"Trace"):
            continue
        if b"talus_fp_" in line:  # cheap test first: this loop sees ~10^7 lines
            f = line.split()
            symbol = f[4] if len(f) >= 5 else b""
            if symbol == b"talus_fp_begin":
                after_begin = True
                continue
            if symbol == b"talus_fp_end":
                if in_window:
                    counts.append(n)
                in_window = after_begin = False
                continue
        if after_begin:
            in_window, after_begin, n = True, False, 0
        if in_window:
            n += 1
    return counts


def run_trace(m, config, exe, min_windows=MIN_WINDOWS):
    """An aarch64 probe under qemu-aarch64, its exec log read through a FIFO.

    Debian's QEMU has no TCG plugins, so the log is the only instruction counter; it is far too
    large to keep on disk, hence the FIFO and counting while QEMU runs.
    """
    fifo = os.path.join(m.tmp, f"{config}.fifo")
    os.mkfifo(fifo)
    counts = []

    def reader():
        with open(fifo, "rb", buffering=1 << 20) as stream:
            counts.extend(count_trace_windows(stream))

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    cmd = ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", "-singlestep",
           "-d", "exec,nochain", "-D", fifo, exe]
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=600)
        status, out = proc.returncode, decode(proc.stderr)
    except subprocess.TimeoutExpired as e:
        status, out = 124, decode(e.stderr or b"")
    if status:
        release_fifo_reader(fifo)
        show(tail(out, 20))
        die(f"{config}: qemu-aarch64 run failed")
    thread.join()
    os.remove(fifo)
    if not PROBE_DONE.search(out):
        show(tail(out, 20))
        die(f"{config}: probe incomplete")
    by_window = {str(i): str(c) for i, c in enumerate(counts)}
    record_windows(m, config, out, by_window, "no trace window", min_windows)


def release_fifo_reader(fifo):
    """If QEMU died before opening the FIFO, the reader still waits in open(): end it."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


def run_freertos_loop_tests(m):
    """The FreeRTOS loop test at -icount shift=1, as ctest runs it."""
    for p in CORTEX_M_PRESETS:
        status, out = run(["toolchains/qemu-mps2.sh", BOARD[p],
                           f"build/{p}/targets/freertos/talus_target_freertos_loop"],
                          env={"TALUS_QEMU_ICOUNT": "1", "TALUS_QEMU_TIMEOUT": "300"})
        if status:
            show(out)
            die(f"{p}: FreeRTOS loop test failed")
        m.outputs[f"rtos-{p}"] = out


def run_images(m, images, check_calls=False):
    """Cortex-M7 firmware images; the controller images also report failed calls."""
    for img in images:
        status, out = qemu_mps2("mps2-an500", footprint_path("cortex-m7", f"talus_footprint_{img}"),
                                m.shift)
        if status:
            show(out)
            die(f"image {img} failed")
        if check_calls and not FULL_DONE.search(out):
            show(out)
            die(f"image {img}: a call failed")
        m.outputs[f"img-{img}"] = out


def run_all(m):
    fp = footprint_path
    say(f"running: Cortex-M7 (QEMU mps2-an500, -icount shift={m.shift})")
    run_cortex_m(m, "m7", "mps2-an500", fp("cortex-m7", "talus_footprint_probe"))
    run_cortex_m(m, "m7r", "mps2-an500", fp("cortex-m7", "talus_footprint_probe_repro"))
    run_cortex_m(m, "m7k", "mps2-an500", fp("cortex-m7", "talus_footprint_probe_compact"))
    say(f"running: Cortex-M4F (QEMU mps2-an386, -icount shift={m.shift})")
    run_cortex_m(m, "m4f", "mps2-an386", fp("cortex-m4f", "talus_footprint_probe"))
    say("running: x86-64 under callgrind")
    run_callgrind(m, "x86", fp("x86-64", "talus_footprint_probe"))
    run_callgrind(m, "x86r", fp("x86-64", "talus_footprint_probe_repro"))
    run_callgrind(m, "x86k", fp("x86-64", "talus_footprint_probe_compact"))
    say("running: aarch64 under qemu-aarch64 -singlestep -d exec,nochain (about 30 s each)")
    run_trace(m, "a64", fp("aarch64", "talus_footprint_probe"))
    run_trace(m, "a64r", fp("aarch64", "talus_footprint_probe_repro"))

    say("running: solo12 contact-solve probes (Cortex-M7, Cortex-M4F, x86-64)")
    run_cortex_m(m, "m7c", "mps2-an500", fp("cortex-m7", "talus_footprint_contact"),
                 MIN_WINDOWS_CONTACT)
    run_cortex_m(m, "m4fc", "mps2-an386", fp("cortex-m4f", "talus_footprint_contact"),
                 MIN_WINDOWS_CONTACT)
    run_callgrind(m, "x86c", fp("x86-64", "talus_footprint_contact"), MIN_WINDOWS_CONTACT)

    say("running: FreeRTOS loop tests (Cortex-M7, Cortex-M4F; -icount shift=1 as in ctest)")
    run_freertos_loop_tests(m)

    say("running: Cortex-M7 ABA images and baselines (-O2, -Os)")
    run_images(m, ["aba", "baseline", "aba_os", "baseline_os"])
    say("running: Cortex-M7 solo12 controller images (fast and compact profiles, -O2 and -Os)"
        " and baselines")
    run_images(m, FULL_VARIANTS, check_calls=True)


# --- 3. statistics -------------------------------------------------------------------------

def stats(m, config, label):
    """probe.cpp's counts of one label -> (cold - warm, min, median, max, distinct).

    cold - warm: the first call on state 0 minus the later one on the same state. The median
    is text (as printed), the others integers.
    """
    cold = warm = 0.0
    values = []
    for lab, state, v in m.windows[config]:
        if lab == "cold_" + label:
            cold = awk_num(v)
        if lab == label:
            if awk_num(state) == 0 and AWK_NUMBER.fullmatch(state.strip()):
                warm = awk_num(v)
            values.append(v)
    values.sort(key=awk_num)
    if not values:
        return awk_str(cold - warm), 0, "0", 0, 0
    n = len(values)
    med = values[(n + 1) // 2 - 1] if n % 2 else \
        awk_str((awk_num(values[n // 2 - 1]) + awk_num(values[n // 2])) / 2)
    return (awk_str(cold - warm), int(awk_d(values[0])), med, int(awk_d(values[-1])),
            len(set(values)))


def medians(m, config):
    """Median instructions per call of each probe.cpp label -> sorted "label median" lines."""
    by_label = {}
    for label, _, v in m.windows[config]:
        if not label.startswith("cold_"):
            by_label.setdefault(label, []).append(v)
    lines = []
    for label, values in by_label.items():
        values.sort(key=awk_num)
        n = len(values)
        med = values[(n + 1) // 2 - 1] if n % 2 else \
            awk_str((awk_num(values[n // 2 - 1]) + awk_num(values[n // 2])) / 2)
        lines.append(f"{label} {med}")
    return sorted(lines)


def cinfo_lines(m, config):
    """contact_probe.cpp's "cinfo label state status pivots attempts n" lines, as fields."""
    return [f for f in map(fields, lines_of(m.outputs[config])) if f and f[0] == "cinfo"]


def contact_stats(m, config, label):
    """One contact-solve variant over the 100 states -> (median, max, min, not_ok, count_min,
    count_max): instructions, how many solves did not return ok ("n,k_status,..."), and the
    range of pivots (Lemke) or sweeps (PGS). None when it has no solves."""
    ins = {state: v for lab, state, v in m.windows[config] if lab == label}
    values = []
    bad = 0
    bad_by_status = {}
    count_min = count_max = 0.0
    for f in cinfo_lines(m, config):
        if field(f, 1) != label:
            continue
        state = field(f, 2)
        if state not in ins:
            print(f"no window for cinfo {label} {state}", file=sys.stderr)
            return None
        values.append(awk_num(ins[state]))
        status = field(f, 3)
        if awk_num(status) != 0:
            bad += 1
            bad_by_status[status] = bad_by_status.get(status, 0) + 1
        count = awk_num(field(f, 4))
        if len(values) == 1 or count < count_min:
            count_min = count
        if count > count_max:
            count_max = count
    if not values:
        return None
    values.sort()
    not_ok = awk_str(bad)
    order = STATUS_ORDER + sorted(k for k in bad_by_status if k not in STATUS_ORDER)
    for k in order:
        if k in bad_by_status:
            not_ok += f",{bad_by_status[k]}_{STATUS_NAME.get(k, '')}"
    return (awk_d(median(values)), awk_d(values[-1]), awk_d(values[0]), not_ok,
            awk_d(count_min), awk_d(count_max))


def contact_fit(m, config, cap_label, natural_label, pgs):
    """The cost of a contact solve per pivot (sweep) and the worst its cap allows.

    Returns (per_med, per_min, per_max, fixed_cap, fixed_nat, worst, attempts, n, cap,
    at_cap_max, at_cap_count, fit_residual) as text, or None:
      per pivot (sweep): the slope of instructions against pivots (sweeps) of the forced-cap
        runs (cap_*: every attempt stops at k pivots, or PGS at k sweeps), per state, median
        (min-max);
      fixed_cap: their intercept (median);
      fixed_nat: the largest natural solve (one attempt that ends with its refinement, check
        and recovery of q'' and the forces, or more) minus its pivots (sweeps) at per_max
        each, so that the bound covers every solve measured;
      worst: what the cap allows. Lemke: fixed_nat + attempts * (cap * per_max + R), cap =
        10 n + 50 pivots per attempt, R = max(0, intercept of the natural solves - fixed_cap)
        for the refinement and check each attempt may end with (an overestimate: R also holds
        the recovery). PGS: fixed_nat + 100 * per_max (each sweep includes its check);
      at_cap_max: the largest natural solve that reached the cap (not_converged), at_cap_count
        of them; fit_residual: the largest relative residual of the per-state fits.
    """
    ins = {(lab, state): v for lab, state, v in m.windows[config]}
    capped = {}  # state % 1000 -> [(pivots, instructions)], one forced cap each
    attempts = n_unknowns = ""
    nx, ny = [], []
    sx = sy = sxx = sxy = 0.0
    at_cap_count = 0
    at_cap_max = 0.0
    for f in cinfo_lines(m, config):
        lab, state = field(f, 1), field(f, 2)
        if (lab, state) not in ins:
            continue
        x, y = awk_num(field(f, 4)), awk_num(ins[lab, state])
        if lab == cap_label:
            capped.setdefault(math.fmod(awk_num(state), 1000), []).append((x, y))
            attempts, n_unknowns = field(f, 5), field(f, 6)
        if lab == natural_label:
            sx += x
            sy += y
            sxx += x * x
            sxy += x * y
            nx.append(x)
            ny.append(y)
            if awk_num(field(f, 3)) == 3:
                at_cap_count += 1
                if y > at_cap_max:
                    at_cap_max = y
    try:
        slopes, intercepts = [], []
        residual = 0.0
        for points in capped.values():
            k = len(points)
            tx = ty = txx = txy = 0.0
            for x, y in points:
                tx += x
                ty += y
                txx += x ** 2
                txy += x * y
            b = (k * txy - tx * ty) / (k * txx - tx * tx)
            a = (ty - b * tx) / k
            for x, y in points:
                r = abs(y - (a + b * x))
                residual = max(residual, r / y)
            slopes.append(b)
            intercepts.append(a)
        m_nat = len(nx)
        if not slopes or m_nat < 2:
            return None
        slopes.sort()
        intercepts.sort()
        per_med, fixed_cap = median(slopes), median(intercepts)
        per_max = slopes[-1]
        b_nat = (m_nat * sxy - sx * sy) / (m_nat * sxx - sx * sx)
        a_nat = (sy - b_nat * sx) / m_nat
        fixed_nat = 0.0
        for x, y in zip(nx, ny):
            fixed_nat = max(fixed_nat, y - per_max * x)
        if pgs:
            cap = 100
            worst = fixed_nat + cap * per_max
        else:
            cap = 10 * awk_num(n_unknowns) + 50
            refine = max(0.0, a_nat - fixed_cap)
            worst = fixed_nat + awk_num(attempts) * (cap * per_max + refine)
    except ZeroDivisionError:
        print(f"{config}: division by zero in the fit of {cap_label}", file=sys.stderr)
        return None
    return ("%.0f" % per_med, "%.0f" % slopes[0], "%.0f" % per_max, "%.0f" % fixed_cap,
            "%.0f" % fixed_nat, "%.0f" % worst, awk_d(attempts), awk_d(n_unknowns),
            awk_d(cap), awk_d(at_cap_max), awk_d(at_cap_count), "%.2g" % residual)


def human(x):
    """12345678 -> 12.3 M, 123456 -> 123 k"""
    x = awk_num(x)
    if x >= 1e6:
        return "%.1f M" % (x / 1e6)
    if x >= 1e4:
        return "%.0f k" % (x / 1e3)
    return awk_d(x)


# --- image sizes and stack -----------------------------------------------------------------

def size_of(elf):
    """Section sizes -> (flash, ram, data, bss, stack): flash = every loaded section + .data,
    RAM = .data + .bss; .stack is the reserved stack."""
    text = data = bss = stack = 0
    for f in map(fields, lines_of(output_of(["arm-none-eabi-size", "-A", elf]))):
        if (len(f) < 3 or re.match(r"\.(debug|comment|ARM\.attributes)", f[0])
                or not re.fullmatch(r"[0-9]+", f[1])):
            continue
        size = int(f[1])
        if f[0] == ".stack":
            stack += size
        elif f[0] == ".data":
            data += size
        elif f[0] == ".bss":
            bss += size
        else:
            text += size
    return text + data, data + bss, data, bss, stack


def step_ticks(m, img, label_filter):
    """An image's "ticks <label> <ticks>" lines -> {label: instructions list}, the "empty"
    window (the call sequence) subtracted."""
    empty = 0
    by_label = {}
    for f in map(fields, lines_of(m.outputs[f"img-{img}"])):
        if field(f, 0) != "ticks":
            continue
        label = field(f, 1)
        if label == "empty":
            empty = ticks_to_instructions(field(f, 2), m.shift)
        elif label_filter(label):
            by_label.setdefault(label, []).append(ticks_to_instructions(field(f, 2), m.shift))
    return {label: sorted(v - empty for v in values) for label, values in by_label.items()}


def image_stats(m, img):
    """The ABA image or its baseline -> dict of flash, ram, stack (reserved), hw (high-water),
    main (above main's stack pointer), med, min, max (instructions per step())."""
    out = m.outputs[f"img-{img}"]
    hw = matches(r".*stack high-water since reset ([0-9]*) bytes", out)
    main = matches(r".*above main.s stack pointer ([0-9]*) bytes", out)
    if not hw or not main or hw[0] == "" or main[0] == "":
        die(f"image {img} did not report its stack")
    flash, ram, _, _, stack = size_of(footprint_path("cortex-m7", f"talus_footprint_{img}"))
    steps = step_ticks(m, img, lambda label: label == "step").get("step")
    if not steps:
        die(f"image {img} did not report its timings")
    return {"flash": flash, "ram": ram, "stack": stack, "hw": int(hw[0]), "main": main[0],
            "med": awk_str(median(steps)), "min": awk_str(steps[0]),
            "max": awk_str(steps[-1])}


def nm_symbols(elf, size_sort=False):
    """(size, type, demangled name) of each sized symbol of elf."""
    cmd = ["arm-none-eabi-nm", "-S", "-C", "-t", "d"] + (["--size-sort"] if size_sort else [])
    symbols = []
    for line in lines_of(output_of(cmd + [elf])):
        f = fields(line)
        if len(f) >= 4:
            name = re.sub(r"^[0-9]+ [0-9]+ . ", "", line, count=1)
            symbols.append((awk_num(f[1]), f[2], name))
    return symbols


def is_ram(symbol_type):
    return re.search(r"[bBdD]", symbol_type) is not None


def aba_breakdown():
    """Where the ABA image's bytes go -> (flash by part, RAM by part, libgcc/newlib names).

    Symbols also in the baseline are the harness (startup, port, state generator); talus's own
    code by name; the rest is libgcc/newlib pulled in by talus.
    """
    base = {name for _, _, name in nm_symbols(footprint_path("cortex-m7",
                                                            "talus_footprint_baseline"))}
    flash, ram, libs = {}, {}, []
    for size, symbol_type, name in nm_symbols(
            footprint_path("cortex-m7", "talus_footprint_aba"), size_sort=True):
        if name in base:
            part = "harness"
        elif "make_model" in name:
            part = "model construction (make_model)"
        elif "g_model" in name:
            part = "model (g_model)"
        elif "g_data" in name:
            part = "workspace (g_data)"
        elif name.startswith("talus::Data<"):
            part = "workspace constructor"
        elif "talus::" in name or "Eigen::" in name:
            part = "ABA code"
        elif name.startswith("_GLOBAL__sub_I_"):
            part = "static constructors (model, workspace)"
        else:
            part = "libgcc / newlib"
        target = ram if is_ram(symbol_type) else flash
        target[part] = target.get(part, 0) + size
        if not is_ram(symbol_type) and part == "libgcc / newlib":
            libs.append(name)
    return flash, ram, ", ".join(libs)


def simplify_symbol(name):
    """A demangled name without template arguments and parameter lists."""
    name = name.replace("(anonymous namespace)::", "")
    for pattern in (r"<[^<>]*>", r"\([^()]*\)"):
        removed = 1
        while removed:
            name, removed = re.subn(pattern, "", name)
    return name


def full_part(s, base):
    """The algorithm (or shared part) a controller-image symbol counts for.

    Each algorithm is called from its own noinline run_<alg> in full_image.cpp; a symbol counts
    for an algorithm when its simplified name is that run_<alg> or one of the algorithm's
    functions. A function several algorithms call counts once, under the algorithm it is named
    after (the kinematics pass under kinematics); what no algorithm is named in is shared.
    """
    def has(pattern):
        return re.search(pattern, s) is not None

    if has(r"(^| )run_fk") or has(r"forward_kinematics|kinematics_pass"):
        return "fk"
    if has(r"(^| )run_cfd") or has(r"forward_dynamics_range_space|constrain|factorize_ltl"
                                   r"|solve_kkt|check_tau|g_feet_storage"):
        return "cfd"
    if has(r"(^| )run_jac") or has(r"jacobian|g_jac|g_foot_frame"):
        return "jac"
    for alg in ("aba", "crba", "rnea"):
        if has(rf"(^| )run_{alg}") or has(rf"talus::(detail::)?{alg}"):
            return alg
    if has("g_model"):
        return "model"
    if has("g_data"):
        return "data"
    if s in base:
        return "harness"
    if has("make_model|frame_id"):
        return "make_model"
    if has("setup|ConstraintSet|add_contact|bind"):
        return "setup"
    if has(r"^talus::Data"):
        return "data_ctor"
    if has("_GLOBAL__sub_I_"):
        return "static_ctors"
    if has("talus::"):
        return "talus_shared"
    if has("Eigen::"):
        return "eigen_shared"
    return "lib"


def full_parts(variant, baseline):
    """Controller image's bytes by algorithm -> (flash by part, RAM by part)."""
    base = {simplify_symbol(name) for _, _, name in
            nm_symbols(footprint_path("cortex-m7", f"talus_footprint_{baseline}"))}
    flash, ram = {}, {}
    for size, symbol_type, name in nm_symbols(
            footprint_path("cortex-m7", f"talus_footprint_{variant}"), size_sort=True):
        part = full_part(simplify_symbol(name), base)
        target = ram if is_ram(symbol_type) else flash
        target[part] = target.get(part, 0) + size
    return flash, ram


def full_instructions(m, variant):
    """Instructions per call of run_<alg> over the image's states -> {alg: (median, min, max)}
    as text, the call included."""
    per_alg = step_ticks(m, variant, lambda label: True)
    return {alg: (awk_str(median(v)), awk_str(v[0]), awk_str(v[-1]))
            for alg, v in per_alg.items()}


def full_image_libs():
    """newlib's free/malloc in the -Os compact image (referenced, never called)."""
    out = output_of(["arm-none-eabi-nm", "-S", "-C",
                     footprint_path("cortex-m7", "talus_footprint_full_compact_os")])
    names = {field(f, 3) for f in map(fields, lines_of(out))
             if re.search(r"[tT]", field(f, 2)) and field(f, 3) in ("free", "malloc")}
    return " ".join(sorted(names))


def stack_usage_top():
    """The 4 largest frames of the ABA image's translation unit (-fstack-usage), or ""."""
    files = sorted(glob.glob("build/cortex-m7/targets/footprint/CMakeFiles/"
                             "talus_footprint_aba.dir/*.su"))
    if not files:
        return ""
    with open(files[0], encoding="utf-8", errors="surrogateescape", newline="") as f:
        rows = []
        for line in lines_of(f.read()):
            cols = line.split("\t")
            location = cols[0].split(":")
            source = re.sub(r".*/", "", location[0], count=1)
            rows.append(f"{field(cols, 1)} {source}:{field(location, 1)}")

    def sort_n(row):  # sort -rn: leading number, then the whole line
        m = re.match(r"[ \t]*(-?[0-9]*\.?[0-9]*)", row)
        try:
            return float(m.group(1)), row.encode("utf-8", "surrogateescape")
        except ValueError:
            return 0.0, row.encode("utf-8", "surrogateescape")

    top = sorted(rows, key=sort_n, reverse=True)[:4]
    parts = []
    for row in top:
        f = fields(row)
        parts.append(f"{field(f, 0)} bytes ({field(f, 1)})")
    return ", ".join(parts)


def berkeley_sizes(*elfs):
    """arm-none-eabi-size's text, data, bss of each elf."""
    out = lines_of(output_of(["arm-none-eabi-size", *elfs]))
    return [fields(line) for line in out[1:]]


# --- 4. the Markdown section ---------------------------------------------------------------

def section_header(elapsed):
    cc_arm = first_line(["arm-none-eabi-gcc", "--version"])
    cc_x86 = first_line(["g++", "--version"])
    cc_a64 = first_line(["aarch64-linux-gnu-g++", "--version"])
    qemu_v = first_line(["qemu-system-arm", "--version"])
    vg_v = output_of(["valgrind", "--version"]).rstrip("\n")
    cpu = ""
    with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
        for line in f:
            if "model name" in line:
                cpu = field(line.rstrip("\n").split(": "), 1)
                break
    cores = output_of(["nproc"]).strip()
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    return [
        BEGIN_MARK,
        "## Footprint and instructions per call (targets)",
        "",
        f"Generated by `bash tools/footprint-report.sh` on {today} ({elapsed} s on this machine:",
        f"{cpu}, {cores} cores). Compilers: {cc_arm}; {cc_x86}; {cc_a64}. {qemu_v}; {vg_v}.",
        "All builds are the presets' (`-O2 -DNDEBUG`, toolchains/*.cmake; no `-march`). Probe sources:",
        "targets/footprint/. \"reproducible\" = the same probe built with `talus::reproducible`",
        "(`-ffp-contract=off`, `EIGEN_DONT_VECTORIZE`; targets/README.md).",
        "",
    ]


def section_aba_image(r):
    aba, base, abas, bases = r["aba"], r["baseline"], r["aba_os"], r["baseline_os"]
    out = [
        "### Cortex-M7 firmware image running solo12 ABA",
        "",
        "`talus_footprint_aba` (targets/footprint/aba_image.cpp): startup, port, and a loop of 100 ABA calls on",
        "generated states; `talus_footprint_baseline` is the same program with the ABA call replaced by a copy.",
        "Sizes from `arm-none-eabi-size -A`: flash = every loaded section (vectors, code, read-only data,",
        "init arrays) + .data; RAM = .data + .bss; the stack is a separate reserved region.",
        "",
        f"| image | flash (text + data) | RAM (data + bss) | stack high-water (of {aba['stack']} B reserved) | instructions per step() |",
        "|---|---:|---:|---:|---:|",
        f"| solo12 ABA, -O2 (the preset's) | {aba['flash']} B | {aba['ram']} B | {aba['hw']} B | {aba['med']} ({aba['min']}–{aba['max']}) |",
        f"| baseline (no talus), -O2 | {base['flash']} B | {base['ram']} B | {base['hw']} B | {base['med']} |",
        f"| **talus's share, -O2** | **{aba['flash'] - base['flash']} B** | **{aba['ram'] - base['ram']} B** | **{aba['hw'] - base['hw']} B** | |",
        f"| solo12 ABA, -Os | {abas['flash']} B | {abas['ram']} B | {abas['hw']} B | {abas['med']} ({abas['min']}–{abas['max']}) |",
        f"| baseline (no talus), -Os | {bases['flash']} B | {bases['ram']} B | {bases['hw']} B | {bases['med']} |",
        f"| **talus's share, -Os** | **{abas['flash'] - bases['flash']} B** | **{abas['ram'] - bases['ram']} B** | **{abas['hw'] - bases['hw']} B** | |",
        "",
        "\"instructions per step()\": median (min–max) over the image's 100 calls, SysTick under QEMU -icount as",
        "below, the call of `step()` included. -Os gives a larger and slower image here (GCC 12): talus's",
        "inner operators are forced inline (TALUS_INLINE), which -Os does not undo; we have not analysed",
        "further. -O2 is the better choice for talus on Cortex-M7.",
        "",
        "Where the ABA image's bytes go (`arm-none-eabi-nm -S`; \"harness\" = symbols the baseline has too):",
        "",
        "| part | flash | RAM |",
        "|---|---:|---:|",
    ]
    flash, ram, libs = r["breakdown"]
    for part in ABA_PARTS:
        if part not in flash and part not in ram:
            continue
        out.append(f"| {part} | {awk_d(flash.get(part, 0))} B | {awk_d(ram.get(part, 0))} B |")
    out += [
        "",
        f"libgcc / newlib functions pulled in by talus: {libs}.",
        "",
        "Stack: measured by painting. The image defines `talus_stack_paint`, so the startup code",
        "(port/cortex-m/startup.cpp) fills the whole stack with a pattern at reset, before static constructors",
        "run; after the 100 calls `stack_high_water()` finds the lowest overwritten word. The high-water mark",
        f"covers startup, static constructors, `main` ({aba['main']} B of it above `main`'s stack pointer: its frame",
        "holds the state vectors) and ABA. Static cross-check (`-fstack-usage`, largest frames of the image's",
        f"translation unit): {r['su_top'] or 'n/a'}.",
        "",
    ]
    return out


def section_controller_image(m, r):
    sizes, parts, ins = r["full_sizes"], r["full_parts"], r["full_ins"]
    bf_flash, bf_ram = sizes["full_baseline"][:2]
    bs_flash, bs_ram = sizes["full_baseline_os"][:2]
    out = [
        "### Cortex-M7 image: solo12 kinematics, CRBA, RNEA, ABA, Jacobians, 4-contact solve; fast and compact profiles",
        "",
        "`talus_footprint_full*` (targets/footprint/full_image.cpp, issue 13): startup, port, and per random state one",
        "call each of forward kinematics (q, v, a), CRBA, RNEA, ABA, the 6D Jacobians of the four feet",
        "(`compute_joint_jacobians` + 4 × `frame_jacobian`, world-aligned) and the constrained forward dynamics on the",
        "four feet as 3D point contacts (`ConstraintSet<solo12, 12>`, `forward_dynamics_range_space`), 100 states.",
        "**fast** = the default profile (TALUS_INLINE forces the spatial operators inline), the preset's -O2;",
        "**compact** = `talus::compact` (cmake/TalusCompact.cmake: `TALUS_COMPACT`, TALUS_INLINE a plain `inline`), the",
        "preset's -O2; both also at -Os, measured to choose the profile. The baselines are the same program with each",
        "call replaced by a copy, at -O2 and -Os; talus's share = image − baseline at the same -O.",
        "",
        "| image | flash (text + data) | RAM (data + bss) | talus's share of flash | instructions per call, sum of the six (median each) |",
        "|---|---:|---:|---:|---:|",
    ]
    for v in FULL_PROFILES:
        base_flash = bs_flash if v.endswith("_os") else bf_flash
        fl, ra = sizes[v][:2]
        total = "%.0f" % sum(awk_num(med) for med, _, _ in ins[v].values())
        out.append(f"| {FULL_PROFILE_NAME[v]} | {fl} B ({'%.1f' % (fl / 1024)} KiB) | {ra} B"
                   f" | {fl - base_flash} B | {total} |")
    out += [
        f"| baseline (no talus), -O2 | {bf_flash} B | {bf_ram} B | | |",
        f"| baseline (no talus), -Os | {bs_flash} B | {bs_ram} B | | |",
        "",
    ]
    cfl, ffl = sizes["full_compact"][0], sizes["full"][0]
    goal = "met" if cfl <= 128 * 1024 else "**not met**"
    out += [
        f"Goal of issue 13 (compact profile ≤ 128 KiB flash for this image): {goal}, {'%.1f' % (cfl / 1024)} KiB, {'%.0f%%' % (cfl / ffl * 100)} of the fast",
        "profile's flash. RAM is the same in every profile: model, `Data` workspace, the constraint set (its fixed-capacity",
        "solver workspace) and the Jacobians are static objects; the rest is the port's reserved stack.",
    ]
    if r["full_libs"]:
        out += [
            f"The -Os compact image links newlib's `{r['full_libs']}` (and with it malloc's and the stdio start-up's code):",
            "never called, but referenced by an out-of-line copy of Eigen's stack-buffer destructor (`handmade_aligned_free`,",
            "from `UnblockedLLT::solveInPlace` and `forward_dynamics_range_space`) that -O2 removes.",
        ]
    out += [
        "",
        "Flash per algorithm (`arm-none-eabi-nm -S --size-sort`, bytes of code and read-only data). Each algorithm is called",
        "from its own `noinline` function `run_<alg>`, so what GCC inlines lands there; a symbol counts for an algorithm",
        "when its name (without template arguments and parameter lists) is that function or one of the algorithm's own",
        "(`kinematics_pass` under kinematics, `crba_*`, `rnea_*`, `aba_*`, `*jacobian*`, the constrained solve's",
        "`forward_dynamics_range_space`, `constrained_system*`, `factorize_ltl`, `solve_kkt*`, `constraint_rows`). A function",
        "called by several algorithms counts once, under the one it is named after; what is named after none (joint and",
        "spatial-algebra functions GCC kept out of line, `check_model`, Eigen kernels) is \"shared\".",
        "",
        "| part | fast -O2 | compact -O2 | fast -Os | compact -Os |",
        "|---|---:|---:|---:|---:|",
    ]
    for part, name in FULL_PART_NAME.items():
        row = f"| {name} |"
        for v in FULL_PROFILES:
            row += f" {awk_d(parts[v][0].get(part, 0))} B |"
        out.append(row)
    ram = parts["full"][1]
    ram_of = [awk_d(ram.get(k, 0)) for k in ("model", "data", "cfd", "jac")]
    out += [
        "| RAM: model / workspace / constraint set / Jacobians (every variant) | "
        + " / ".join(ram_of) + " B | | | |",
        "",
        f"Instructions per call (SysTick under QEMU -icount shift={m.shift}, as below; median (min–max) over the image's 100",
        "states, the call of `run_<alg>` included, the empty window subtracted):",
        "",
        "| algorithm | fast -O2 | compact -O2 | compact / fast | fast -Os | compact -Os |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for alg, name in FULL_ALG_NAME.items():
        row = f"| {name} |"
        for v in ["full", "full_compact", "ratio", "full_fast_os", "full_compact_os"]:
            if v == "ratio":
                fast, compact = ins["full"].get(alg), ins["full_compact"].get(alg)
                row += f" {ratio(compact[0] if compact else '', fast[0] if fast else '')} |"
                continue
            med, lo, hi = ins[v].get(alg, ("", "", ""))
            row += f" {med} |" if lo == hi else f" {med} ({lo}–{hi}) |"
        out.append(row)
    out.append("")
    return out


def ratio(numerator, denominator):
    """"%.2f" of a / b; "" where awk gave up (division by zero)."""
    try:
        return "%.2f" % (awk_num(numerator) / awk_num(denominator))
    except ZeroDivisionError:
        return ""


def section_compact_probe(m):
    out = [
        "The same comparison on probe.cpp (its own translation unit, the five algorithms of the next section; median",
        "instructions per call over its 100 states), `talus_footprint_probe_compact` against the default probe:",
        "",
        "| algorithm | M7 fast | M7 compact | compact / fast | x86-64 fast | x86-64 compact | compact / fast |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for alg in ALGS:
        row = f"| {ALG_NAME[alg]} |"
        for default, compact in (("m7", "m7k"), ("x86", "x86k")):
            md = stats(m, default, alg)[2]
            mk = stats(m, compact, alg)[2]
            row += f" {md} | {mk} | {ratio(mk, md)} |"
        out.append(row)
    out.append("")
    return out


def section_checksums(m):
    sums = []
    for v in FULL_PROFILES:
        found = matches(r".*checksum (0x[0-9a-f]*)", m.outputs[f"img-{v}"])
        sums.append(f"{v} {chr(10).join(found)}")
    sums = "; ".join(sums)
    distinct = {fields(piece)[1] for piece in sums.split(";") if len(fields(piece)) == 2}
    out = ["Checksums of the outputs (sum of RNEA, ABA and constrained q̈ over the states):"
           f" {sums}."]
    if len(distinct) > 1:
        out += [
            "They differ in the last bits between variants: the same operations, but GCC contracts multiply-adds into FMA",
            "(Cortex-M7 FPv5) at different places when it inlines differently; with `talus::reproducible` (no",
            "contraction) that freedom is gone.",
        ]
    out.append("")
    return out


def before_file_default():
    """The newest targets/footprint/before-*.txt (ls -t | head -1), or ""."""
    files = glob.glob("targets/footprint/before-*.txt")
    if not files:
        return ""
    return sorted(files, key=lambda p: (-os.stat(p).st_mtime_ns, p))[0]


def change(before, after):
    """Relative change, "n/a" without a before number."""
    if before == "" or (AWK_NUMBER.fullmatch(before.strip()) and awk_num(before) == 0) \
            or before == "0":
        return "n/a"
    return "%+.1f%%" % ((awk_num(after) / awk_num(before) - 1) * 100)


def section_before_after(m, before_file):
    """Instructions per call of probe.cpp now against an older commit's (issue 13)."""
    if not before_file or not os.path.isfile(before_file):
        return []
    with open(before_file, encoding="utf-8", errors="surrogateescape", newline="") as f:
        before = [fields(line) for line in lines_of(f.read())]
    bcommit = "\n".join(field(f, 1) for f in before if field(f, 0) == "commit")
    head = output_of(["git", "rev-parse", "--short", "HEAD"]).rstrip("\n")
    dirty = output_of(["git", "status", "--porcelain", "--", "include",
                       "targets/footprint/probe.cpp", "targets/footprint/footprint.hpp",
                       "cmake"]).strip("\n")
    now_label = head
    if dirty:
        now_label = f"{head} + uncommitted changes in include/, cmake/ or the probe"
    out = [
        "### Before / after: instructions per call of probe.cpp, solo12 (issue 13)",
        "",
        f"Median over probe.cpp's 100 states (warm), as in the next table. **before** = commit {bcommit[:7]} (the issue's",
        "baseline), its own probe.cpp and presets, built in a git worktree and counted the same way",
        f"(`TALUS_FOOTPRINT_BEFORE={bcommit[:7]} bash tools/footprint-report.sh` wrote {before_file}); **after** = this run,",
        f"working tree at {now_label}. Both fast (default) profile, -O2. Cortex-M7: QEMU -icount; x86-64: callgrind.",
        "",
        "| algorithm | M7 before | M7 after | M7 change | x86-64 before | x86-64 after | x86-64 change |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for alg in ALGS:
        mb = "\n".join(field(f, 2) for f in before if field(f, 0) == "m7" and field(f, 1) == alg)
        xb = "\n".join(field(f, 2) for f in before if field(f, 0) == "x86" and field(f, 1) == alg)
        ma = stats(m, "m7", alg)[2]
        xa = stats(m, "x86", alg)[2]
        out.append(f"| {ALG_NAME[alg]} | {mb or 'n/a'} | {ma} | {change(mb, ma)}"
                   f" | {xb or 'n/a'} | {xa} | {change(xb, xa)} |")
    out.append("")
    return out


def section_probe_counts(m, r):
    """probe.cpp's instructions per call on every target, their spread and stack depth."""
    table_head = [
        "| algorithm | Cortex-M7 double | M7 reproducible | Cortex-M4F float | x86-64 | x86-64 reproducible | aarch64 | aarch64 reproducible |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    out = [
        "### Instructions per call, solo12 (median over 100 random states, warm)",
        "",
        "Each state: base position in [−1, 1]³, random unit quaternion, joint angles in [−π, π], v, a, τ in",
        "[−1, 1] (generated without libm; targets/footprint/footprint.hpp). One call on state 0 first (the",
        "\"cold\" call), then one measured call per state. Counts are of the call itself: the calling sequence,",
        "measured by an empty window, is subtracted, and a window of exactly 1000 `nop`s is checked to read",
        "1000 on every target.",
        "",
    ] + table_head
    for alg in ALGS:
        out.append(f"| {ALG_NAME[alg]} |" + "".join(f" {stats(m, c, alg)[2]} |" for c in CONFIGS))

    cost = ""
    for default, repro, name in (("m7", "m7r", "Cortex-M7"), ("x86", "x86r", "x86-64"),
                                 ("a64", "a64r", "aarch64")):
        part = " ".join("%+.0f%%" % ((awk_num(stats(m, repro, a)[2])
                                      / awk_num(stats(m, default, a)[2]) - 1) * 100)
                        for a in ALGS)
        cost += f" {name}: {part};"
    out += ["", "Reproducible profile against the default, instructions (FK q, FK q v a, CRBA,"
            f" RNEA, ABA):{cost.removesuffix(';')}."]

    cold = "".join(f" {c}/{a}: {stats(m, c, a)[0]};" for c in CONFIGS for a in ALGS
                   if stats(m, c, a)[0] != "0")
    out += ["", "Cold (first call, state 0) minus warm (same state, later): "
            f"{cold or ' 0 on every target and algorithm.'}"]

    out += ["", "Spread over the 100 states: min / median / max (number of distinct counts):", ""]
    out += table_head
    for alg in ALGS:
        row = f"| {ALG_NAME[alg]} |"
        for c in CONFIGS:
            _, lo, med, hi, distinct = stats(m, c, alg)
            row += f" {lo} (1) |" if lo == hi else f" {lo} / {med} / {hi} ({distinct}) |"
        out.append(row)
    out.append("")

    if not spread_follows_pattern(m):
        out += [
            "**Note: the spread no longer follows the pattern explained below (steps of 4 on M7, of 2 on x86-64,",
            "none on aarch64); the explanation needs re-checking.**",
            "",
        ]
    out += [
        "Why the counts spread (checked by disassembling these builds). The spread is about the same for",
        "every algorithm of a build, because it comes from the 12 joint placements, i.e. from `talus::sincos`,",
        "the only code here that branches on data:",
        "- Cortex-M7: `talus::sincos` converts the quadrant number to `std::int64_t`; Armv7-M has no",
        "  double → int64 instruction, so GCC calls libgcc's `__aeabi_d2lz`, whose path for negative numbers",
        "  is 4 instructions longer (a 32-bit conversion, one `vcvt`, would avoid the call: the quadrant is",
        "  far below 2^31). The quadrant selection is a branch (`bmi`) whose two paths differ by a few",
        "  instructions, depending on GCC's register allocation in each inlined copy: steps of 4 in the",
        "  default build, of 1 in the reproducible one.",
        "- x86-64: the quadrant selection (which of sin/cos, which sign) compiles to branches (`test/jne`,",
        "  `and/je` + `xorpd`): steps of 2.",
        "- aarch64: `fcvtzs` and `fcsel`, no branch: no spread at all.",
        "- Cortex-M4F (float): `talus::sincos(float)` calls newlib's `sinf` and `cosf`, whose argument",
        "  reduction and kernels branch on the argument's range: a few hundred instructions of spread.",
        "- The cold call: identical to the warm one except on aarch64 ABA, whose first call goes through the",
        "  dynamic linker's lazy binding of `memcpy`/`memset` (PLT); with `LD_BIND_NOW=1` it disappears.",
        f"- Firmware image vs probe: the same ABA, both -O2, takes {r['aba']['med']} instructions in the image and",
        f"  {stats(m, 'm7', 'aba')[2]} in the probe: GCC inlines differently depending on what else the translation unit",
        "  instantiates (the probe has all five algorithms).",
        "",
        "Stack depth of one call (Cortex-M, bytes from the stack pointer at the call to the lowest word",
        "written; stack repainted before every call, deepest of the 101 calls):",
        "",
        "| algorithm | Cortex-M7 double | M7 reproducible | Cortex-M4F float |",
        "|---|---:|---:|---:|",
    ]
    for alg in ALGS:
        row = f"| {ALG_NAME[alg]} |"
        for c in ("m7", "m7r", "m4f"):
            depth = "\n".join(b for label, b in m.stacks[c] if label == alg)
            row += f" {depth} B |"
        out.append(row)
    out.append("")
    return out


def spread_follows_pattern(m):
    """The explanation of the spread holds: steps of 4 on M7, of 2 on x86-64, none on aarch64."""
    for alg in ALGS:
        _, lo, _, hi, _ = stats(m, "m7", alg)
        if (hi - lo) % 4:
            return False
        _, lo, _, hi, _ = stats(m, "x86", alg)
        if (hi - lo) % 2:
            return False
        if stats(m, "a64", alg)[4] != 1:
            return False
    return True


def section_contact(m):
    """The contact-solve probe (targets/footprint/contact_probe.cpp)."""
    configs = ("m7c", "m4fc", "x86c")
    variants = {"rest": ("Lemke, feet at rest (n = 24)", "pivot"),
                "moving": ("Lemke, feet moving (n = 4)", "pivot"),
                "pgs": ("PGS, exact cones, at rest", "sweep")}
    cs, cf = {}, {}
    for c in configs:
        for v in variants:
            cs[c, v] = contact_stats(m, c, f"c_{v}")
            if cs[c, v] is None:
                die(f"{c}: no contact statistics for {v}")
        for v in variants:
            cf[c, v] = contact_fit(m, c, f"cap_{v}", f"c_{v}", v == "pgs")
            if cf[c, v] is None:
                die(f"{c}: cap fit {v}")
    out = [
        "### Contact solve: solo12 on four unilateral feet (instructions per call)",
        "",
        "`forward_dynamics_contact` at the acceleration level (targets/footprint/contact_probe.cpp), solo12's feet FL, FR,",
        "HL, HR as unilateral contacts on the ground (normal +z, μ = 0.7), as targets/contact_check.cpp checks it:",
        "**at rest** q̇ = 0 (sticking friction, 4-edge polygons, Lemke: an LCP of 24 unknowns), **moving** q̇ of the state",
        "(every foot sliding: kinetic friction, Lemke: 4 unknowns), **PGS** q̇ = 0 on exact cones (default options:",
        "100 sweeps, τ_r = √ε). The 100 random states of the probe above (random base orientation, joint angles,",
        "q̇, τ: feet pushing, lifting and slipping in every combination); one warm-up call first. The whole call:",
        "kinematics, CRBA, RNEA, the Delassus operator, the LCP or cone solve and the recovery of q̈ and the forces.",
        "",
        "| | Cortex-M7 double | Cortex-M4F float | x86-64 |",
        "|---|---:|---:|---:|",
    ]
    for v, (name, unit) in variants.items():
        rows = [f"| **{name}**: median / worst over the states |",
                f"| {name}: **worst the cap allows** |",
                f"| {name}: per {unit} (min–max over states); fixed part |",
                f"| {name}: {unit}s min–max; states not ok |"]
        for c in configs:
            med, hi, _, bad, count_min, count_max = cs[c, v]
            per_med, per_min, per_max, _, fixed, worst, att, _, cap = cf[c, v][:9]
            rows[0] += f" {med} / {hi} |"
            if v == "pgs":
                rows[1] += f" {human(worst)} ({cap} sweeps) |"
            else:
                rows[1] += f" {human(worst)} ({att} × {cap} pivots) |"
            rows[2] += f" {per_med} ({per_min}–{per_max}); {human(fixed)} |"
            rows[3] += f" {count_min}–{count_max}; {not_ok_text(bad)} |"
        out += rows
    row = "| stack of one call (Cortex-M) |"
    for c in ("m7c", "m4fc"):
        depth = {label: b for label, b in m.stacks[c]}
        row += (f" {depth.get('c_rest', '')} / {depth.get('c_moving', '')}"
                f" / {depth.get('c_pgs', '')} B |")
    out.append(row + " n/a |")
    pbytes = {c: "\n".join(matches(r".*problem_bytes ([0-9]*)", m.outputs[c])) for c in configs}
    out += [
        "| `ContactProblem<solo12, 4, 4>` (static; its workspace holds every matrix of the solve)"
        f" | {pbytes['m7c']} B | {pbytes['m4fc']} B | {pbytes['x86c']} B |",
        "",
    ]
    capmax7, ncap7 = cf["m7c", "pgs"][9:11]
    capmax4, ncap4 = cf["m4fc", "pgs"][9:11]
    res_max = "0"
    for c in configs:
        for v in variants:
            res = cf[c, v][11]
            if awk_num(res) > awk_num(res_max):
                res_max = res
    ms_worst = "%.0f" % (awk_num(cf["m7c", "rest"][5]) / 216e3)
    ms_med = "%.1f" % (awk_num(cs["m7c", "rest"][0]) / 216e3)
    out += [
        "\"Worst the cap allows\": the solve's work is bounded by its caps, not by the states tried. Measured by forcing the",
        "cap (`LcpOptions::max_pivots` = k = 1…8, 1…2 for moving; `ConeSolverOptions::max_iterations` = k = 1…8) at ten",
        "states each: instructions grow linearly in the pivots (sweeps) done; per state, a least-squares line gives the cost",
        f"per pivot (sweep) (the fits' relative residuals are ≤ {res_max}). Fixed part: the largest of the 100 natural",
        "solves once each of its pivots (sweeps) is charged at the largest per-pivot (per-sweep) cost, so the bound covers",
        "every solve measured. Lemke (lcp_lemke.hpp) runs at most the attempts measured at the cap (plain, two other",
        "covering vectors, three regularizations) of at most 10 n + 50 pivots each: worst = fixed part + attempts × (cap ×",
        "the largest per-pivot cost + the difference between the natural and the capped solves' intercepts, for a",
        "refinement and check per attempt). PGS: fixed part + 100 × the largest per-sweep cost; the states that reached the",
        f"cap naturally (not_converged) took up to {capmax7} (M7, {ncap7} states) and {capmax4} (M4F, {ncap4} states)",
        "instructions. At 216 MHz and one instruction per cycle (optimistic for the M7: QEMU does not model FP latency or",
        f"memory) the rest variant's cap-worst on the M7 is {ms_worst} ms, against a median of {ms_med} ms: a controller with a",
        "hard period sets `max_pivots` (or `max_iterations`) to what its period affords and handles `not_converged`.",
        "The states are random, so the feet are not at ground height: the acceleration level does not use the gap. Not run",
        "on aarch64: its counter is the QEMU exec trace, one log line per instruction, ~1.3e8 here (~12 GB).",
        "",
    ]
    return out


def not_ok_text(bad):
    """"3,2_not_converged,1_singular" -> "3 (2 not_converged, 1 singular)"."""
    parts = bad.split(",")
    if len(parts) == 1:
        return parts[0]
    return parts[0] + " (" + ", ".join(p.replace("_", " ", 1) for p in parts[1:]) + ")"


def section_freertos(m):
    images = ["targets/talus_target_test", "targets/freertos/talus_target_freertos_test",
              "targets/freertos/talus_target_freertos_loop"]
    out = [
        "### FreeRTOS images and kernel costs (issue 14)",
        "",
        "FreeRTOS V11.3.0 (kernel ports GCC_ARM_CM7, GCC_ARM_CM4F), the presets' builds. Sizes (`arm-none-eabi-size`,",
        "text / data / bss in bytes) of the on-target test program bare and inside a FreeRTOS task (the same objects),",
        "and of the loop test (targets/freertos/loop_test.cpp):",
        "",
        "| image | Cortex-M7 | Cortex-M4F |",
        "|---|---:|---:|",
    ]
    for img in images:
        row = f"| `{img.rsplit('/', 1)[-1]}`"
        for p in CORTEX_M_PRESETS:
            sizes = berkeley_sizes(f"build/{p}/{img}")
            cell = " / ".join(field(sizes[0], i) for i in range(3)) if sizes else ""
            row += f" | {cell}"
        out.append(row + " |")
    row = "| kernel + port (in a task − bare)"
    for p in CORTEX_M_PRESETS:
        sizes = berkeley_sizes(f"build/{p}/{images[0]}", f"build/{p}/{images[1]}")
        cell = ""
        if len(sizes) >= 2:
            bare, task = sizes[0], sizes[1]
            cell = " / ".join("+" + awk_d(awk_num(field(task, i)) - awk_num(field(bare, i)))
                              for i in range(3))
        row += f" | {cell}"
    out.append(row + " |")
    out += [
        "",
        "From the loop test's run (1 kHz control task: solo12 ABA + 4-feet constrained solve, 2000 periods; `-icount",
        "shift=1`: 2 ns of virtual time per instruction, so instructions = ns / 2; SysTick resolution 40 ns = 20",
        "instructions):",
        "",
    ]
    for p in CORTEX_M_PRESETS:
        log = m.outputs[f"rtos-{p}"]
        out += [
            f"- {p}: {grep_first(r'control: .*', log)}",
            f"  - {grep_first(r'control latency.*', log)}",
            f"  - {grep_first(r'control exec min/median/p99/max [0-9/ ]* ns', log)}",
            f"  - {grep_first(r'control task stack.*', log)}; the other tasks: logger 2048 B, load 1024 B (not measured)",
            f"  - {grep_first(r'kernel costs.*', log)}",
        ]
    out += [
        "",
        "The tick interrupt is the gap a spinning task sees in its clock at each tick; the switch is",
        "`xTaskNotifyGive` to a higher-priority task blocked in `ulTaskNotifyTake`, until it reads the clock; one",
        "`now_ns()` (a turn of the clock loop) is subtracted from both. Release → start latency = tick interrupt +",
        "switch + `wait_until`'s return.",
        "",
    ]
    return out


def section_counting(m):
    s = m.shift
    return [
        "How the instructions are counted:",
        f"- Cortex-M7 / M4F: QEMU `-icount shift={s}` makes virtual time advance 2^{s} ns per",
        "  instruction; SysTick counts the board's 25 MHz clock in virtual time, so instructions =",
        f"  ticks · 40 / 2^{s} (exact after rounding for shift ≥ 7). SysTick's 24-bit current value is read",
        "  directly around the call with interrupts masked, modulo 2^24 (windows < 5 M instructions).",
        "  Deterministic: the same counts on every run. QEMU counts instructions, not cycles: a real",
        "  Cortex-M7 dual-issues some pairs and stalls on FP latency and memory, so cycles differ.",
        "- x86-64: `valgrind --tool=callgrind --collect-atstart=no`, collection toggled on around the call and",
        "  dumped per call (Ir). Deterministic. The probe has no `-march` (valgrind cannot run AVX-512 code).",
        "- aarch64: Debian's QEMU has no TCG plugins (no libinsn.so, no qemu-plugin.h). `qemu-aarch64",
        "  -singlestep -d exec,nochain` logs one \"Trace\" line per executed instruction (one instruction per",
        "  translation block, no block chaining); the report counts the lines between the marker functions",
        "  `talus_fp_begin` / `talus_fp_end`, including any libc code called in between. `-d in_asm` alone",
        "  does not work: it prints each block once, when translated, not each execution.",
        END_MARK,
    ]


def image_results(m):
    """Sizes, stack and timings of the firmware images, from their runs and the ELF files."""
    r = {img: image_stats(m, img) for img in ("aba", "baseline", "aba_os", "baseline_os")}
    r["breakdown"] = aba_breakdown()
    r["full_sizes"] = {v: size_of(footprint_path("cortex-m7", f"talus_footprint_{v}"))
                       for v in FULL_VARIANTS}
    r["full_ins"] = {v: full_instructions(m, v) for v in FULL_VARIANTS}
    r["full_parts"] = {v: full_parts(v, "full_baseline_os" if v.endswith("_os")
                                     else "full_baseline") for v in FULL_PROFILES}
    r["full_libs"] = full_image_libs()
    r["su_top"] = stack_usage_top()
    return r


def render_section(m, r, before_file, elapsed):
    lines = (section_header(elapsed) + section_aba_image(r) + section_controller_image(m, r)
             + section_compact_probe(m) + section_checksums(m)
             + section_before_after(m, before_file) + section_probe_counts(m, r)
             + section_contact(m) + section_freertos(m) + section_counting(m))
    return "".join(line + "\n" for line in lines)


def write_section(results, section):
    """Replace the section between the markers of results, or append it."""
    try:
        with open(results, encoding="utf-8", errors="surrogateescape", newline="") as f:
            text = f.read()
    except FileNotFoundError:
        text = None
    if text is not None and any(BEGIN_MARK in line for line in lines_of(text)):
        out = []
        skip = False
        for line in lines_of(text):
            if BEGIN_MARK in line:
                out += lines_of(section)
                skip = True
            elif END_MARK in line:
                skip = False
            elif not skip:
                out.append(line)
        with open(results, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
            f.write("".join(line + "\n" for line in out))
    else:
        with open(results, "a", encoding="utf-8", errors="surrogateescape", newline="") as f:
            f.write("\n" + section)


# --- 0. "before" numbers of an older commit (issue 13) -----------------------------------

def measure_before(commit, jobs, shift, tmp, t_start):
    """Count an older commit's probe.cpp (Cortex-M7, x86-64) and write before-<commit>.txt.

    The commit is built from its own probe.cpp and presets in a git worktree and counted the
    same way as the report counts; the before/after table reads the file.
    """
    root = os.getcwd()
    full = output_of(["git", "rev-parse", "--verify", f"{commit}^{{commit}}"]).strip()
    if not full:
        die(f"no commit {commit}")
    short = output_of(["git", "rev-parse", "--short", full]).strip()
    tmpdir = os.environ.get("TMPDIR") or "/tmp"
    wt = os.environ.get("TALUS_FOOTPRINT_BEFORE_WORKTREE") or \
        f"{tmpdir}/talus-fp-before-{short}"
    own_worktree = False
    if not os.path.isdir(wt):
        status, _ = run(["git", "worktree", "add", "--detach", wt, full])
        if status:
            die(f"git worktree add {wt} failed")
        own_worktree = True
    if output_of(["git", "-C", wt, "rev-parse", "HEAD"]).strip() != full:
        die(f"{wt} is not at {full}")
    # the shared models and third-party sources live beside this checkout, not the worktree
    extra = [f"-DTALUS_MODELS_DIR={root}/../shared/models",
             f"-DTALUS_FREERTOS_KERNEL_DIR={root}/../shared/third_party/FreeRTOS-Kernel"]
    for p in ("cortex-m7", "x86-64"):
        say(f"before ({short}): building probe.cpp for {p} in {wt}")
        if not os.path.isfile(f"{wt}/build/{p}/CMakeCache.txt"):
            status, log = run(["cmake", "--preset", p] + extra, cwd=wt)
            if status:
                show(tail(log, 40))
                die(f"configuring {p} at {short} failed")
        status, log = run(["nice", "cmake", "--build", f"build/{p}", "-j", jobs,
                           "--target", "talus_footprint_probe"], cwd=wt)
        if status:
            show(tail(log, 40))
            die(f"building {p} at {short} failed")
    say(f"before ({short}): running the probes (Cortex-M7 under QEMU -icount, x86-64 under"
        " callgrind)")
    m = Measurements(shift, tmp)
    run_cortex_m(m, "m7", "mps2-an500",
                 os.path.join(wt, footprint_path("cortex-m7", "talus_footprint_probe")))
    run_callgrind(m, "x86", os.path.join(wt, footprint_path("x86-64", "talus_footprint_probe")))
    out_file = f"targets/footprint/before-{short}.txt"
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    lines = [
        f"# Instructions per call (median over probe.cpp's 100 states, warm) of solo12 at commit {full},",
        "# its own targets/footprint/probe.cpp and presets (-O2), counted as tools/footprint-report.sh does.",
        f"# Written by: TALUS_FOOTPRINT_BEFORE={commit} bash tools/footprint-report.sh ({today}).",
        "# Columns: config (m7 = Cortex-M7 double under QEMU -icount, x86 = x86-64 under callgrind) label median",
        f"commit {full}",
    ]
    for config in ("m7", "x86"):
        lines += [f"{config} {line}" for line in medians(m, config)
                  if fields(line)[0] != "nop1000"]
    text = "".join(line + "\n" for line in lines)
    with open(out_file, "w", encoding="utf-8") as f:
        f.write(text)
    show(text)
    if own_worktree:
        status, _ = run(["git", "worktree", "remove", "--force", wt])
        if status:
            say(f"could not remove the worktree {wt}")
    say(f"written {out_file} in {int(time.time()) - t_start} s")


# --- main ----------------------------------------------------------------------------------

def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    jobs = os.environ.get("TALUS_FOOTPRINT_JOBS") or "2"
    shift_text = os.environ.get("TALUS_FOOTPRINT_ICOUNT_SHIFT") or "7"
    results = os.environ.get("TALUS_FOOTPRINT_RESULTS") or "bench/RESULTS.md"
    before_commit = os.environ.get("TALUS_FOOTPRINT_BEFORE") or ""
    before_file = os.environ.get("TALUS_FOOTPRINT_BEFORE_FILE") or before_file_default()
    try:
        shift = int(shift_text)
    except ValueError:
        die("TALUS_FOOTPRINT_ICOUNT_SHIFT must be an integer")
    if shift < 7:
        die("TALUS_FOOTPRINT_ICOUNT_SHIFT must be >= 7 (exact conversion)")
    for tool in ("cmake", "qemu-system-arm", "qemu-aarch64", "valgrind",
                 "arm-none-eabi-size", "arm-none-eabi-nm"):
        if not shutil.which(tool):
            die(f"{tool} not found (bash tools/setup-debian.sh)")
    t_start = int(time.time())

    with tempfile.TemporaryDirectory() as tmp:
        if before_commit:
            measure_before(before_commit, jobs, shift, tmp, t_start)
            return
        build_probes(PRESETS, jobs)
        build_freertos_images(PRESETS, jobs)
        m = Measurements(shift, tmp)
        run_all(m)
        r = image_results(m)
        elapsed = int(time.time()) - t_start
        section = render_section(m, r, before_file, elapsed)

    sys.stdout.write(section)
    sys.stdout.flush()
    if results != "-":
        write_section(results, section)
        say(f"section written into {results}")
    say(f"done in {int(time.time()) - t_start} s")


if __name__ == "__main__":
    main()
