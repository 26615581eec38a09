#!/usr/bin/env bash
# Footprint and instruction-count report of talus on its targets (issue 4). One command:
#
#   bash tools/footprint-report.sh
#
# Builds the probes of targets/footprint (target talus_footprint) in the presets' build
# directories build/{cortex-m7,cortex-m4f,x86-64,aarch64} (configuring them if needed), runs
#   - Cortex-M7 (double) and Cortex-M4F (float) under qemu-system-arm -icount shift=N, with
#     SysTick as the instruction counter (targets/footprint/probe.cpp),
#   - x86-64 under valgrind --tool=callgrind (client requests around each call),
#   - aarch64 under qemu-aarch64 -singlestep -d exec,nochain (one log line per executed
#     instruction, counted between two marker functions),
#   - the Cortex-M7 ABA firmware image and its baseline (sizes, stack painted at reset),
#   - the Cortex-M7 solo12 controller image (kinematics, CRBA, RNEA, ABA, feet Jacobians,
#     4-contact constrained solve) in the fast and compact profiles, at -O2 and -Os, and its
#     baselines (sizes, flash per algorithm from arm-none-eabi-nm, instructions per call),
#   - probe.cpp in the compact profile (Cortex-M7, x86-64),
#   - a before/after table against the numbers of an older commit kept in
#     targets/footprint/before-<commit>.txt (written by TALUS_FOOTPRINT_BEFORE=<commit>, below),
# prints a Markdown section and writes it into bench/RESULTS.md between the markers
# <!-- footprint-report:begin --> and <!-- footprint-report:end --> (appended if absent).
#
# Environment: TALUS_FOOTPRINT_JOBS (build jobs, default 2), TALUS_FOOTPRINT_ICOUNT_SHIFT
# (default 7; ≥ 7 keeps the SysTick conversion exact), TALUS_FOOTPRINT_RESULTS (file to
# update, default bench/RESULTS.md; "-" to only print), TALUS_FOOTPRINT_BEFORE=<commit> (no
# report: count that commit's probe.cpp on Cortex-M7 and x86-64 in a temporary git worktree and
# write targets/footprint/before-<commit>.txt; TALUS_FOOTPRINT_BEFORE_WORKTREE: use an existing
# checkout of it instead), TALUS_FOOTPRINT_BEFORE_FILE (the file the
# before/after table reads; default the newest targets/footprint/before-*.txt). Needs: what tools/setup-debian.sh
# installs (cross compilers, qemu-system-arm, qemu-user, valgrind). Took about 4 minutes from
# a fresh clone on 2 cores before issue 13, mostly compiling; the controller images and compact
# probes of issue 13 add about 4.5 minutes of compiling at -j1 (and seconds of running); about
# a minute and a half when everything is built.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${TALUS_FOOTPRINT_JOBS:-2}
shift_n=${TALUS_FOOTPRINT_ICOUNT_SHIFT:-7}
results=${TALUS_FOOTPRINT_RESULTS:-bench/RESULTS.md}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say() { echo "footprint-report: $*" >&2; }
die() {
  say "error: $*"
  exit 1
}
if [ "$shift_n" -lt 7 ]; then die "TALUS_FOOTPRINT_ICOUNT_SHIFT must be >= 7 (exact conversion)"; fi
for tool in cmake qemu-system-arm qemu-aarch64 valgrind arm-none-eabi-size arm-none-eabi-nm awk; do
  command -v "$tool" >/dev/null || die "$tool not found (bash tools/setup-debian.sh)"
done
t_start=$(date +%s)
fp() { echo "build/$1/targets/footprint/$2"; }

# --- 0. "before" numbers of an older commit (issue 13) ----------------------------------------
# TALUS_FOOTPRINT_BEFORE=<commit>: instead of the report, build that commit's probe.cpp for
# Cortex-M7 and x86-64 in a temporary git worktree, count its instructions per call the same
# way as below, and write them to targets/footprint/before-<commit>.txt, which the report's
# before/after table reads (TALUS_FOOTPRINT_BEFORE_FILE, default: the newest such file).
before_commit=${TALUS_FOOTPRINT_BEFORE:-}
before_file=${TALUS_FOOTPRINT_BEFORE_FILE:-$(ls -t targets/footprint/before-*.txt 2>/dev/null | head -1 || true)}

# --- 1. build ------------------------------------------------------------------------------
presets=(cortex-m7 cortex-m4f x86-64 aarch64)
[ -n "$before_commit" ] && presets=()
for p in "${presets[@]}"; do
  say "configuring and building the probes for ${p} (build/${p}, target talus_footprint)"
  cmake --preset "$p" >"$tmp/configure-$p.log" 2>&1 || { cat "$tmp/configure-$p.log"; die "configuring ${p} failed"; }
  cmake --build "build/$p" -j "$jobs" --target talus_footprint >"$tmp/build-$p.log" 2>&1 ||
    { tail -40 "$tmp/build-$p.log"; die "building ${p} failed"; }
done
# FreeRTOS (issue 14): the on-target test bare and in a task, and the loop test, Cortex-M
for p in "${presets[@]}"; do
  case $p in cortex-m7 | cortex-m4f) ;; *) continue ;; esac
  say "building the FreeRTOS images for ${p} (preset ${p}-freertos)"
  cmake --build "build/$p" -j "$jobs" --target talus_target_test talus_target_freertos_test talus_target_freertos_loop \
    >"$tmp/build-rtos-$p.log" 2>&1 || { tail -40 "$tmp/build-rtos-$p.log"; die "building ${p}'s FreeRTOS images failed"; }
done

# --- 2. run --------------------------------------------------------------------------------
# Every run leaves "$tmp/<config>.win": lines "label state instructions", calibrated.
qemu_mps2() {  # board elf -> output on stdout
  TALUS_QEMU_ICOUNT=$shift_n TALUS_QEMU_TIMEOUT=120 toolchains/qemu-mps2.sh "$1" "$2"
}

# raw lines "win <i> <label> <state> <raw>" -> "<label> <state> <instructions>", where raw is
# SysTick ticks (unit=ticks) or instructions; subtracts the "empty" window (calling sequence)
# and checks that "nop1000" comes out at exactly 1000.
cal_min=500  # fewest windows a probe must report (the contact probe has fewer: set below)
calibrate() {  # unit config < raw
  awk -v unit="$1" -v cfg="$2" -v shift_n="$shift_n" -v min="$cal_min" '
    $1 == "win" {
      raw = $5
      if (unit == "ticks") v = int(raw * 40 / (2 ^ shift_n) + 0.5); else v = raw + 0
      n++; lab[n] = $3; st[n] = $4; val[n] = v
      if ($3 == "empty") { if (!(v in seen)) { seen[v] = 1; ne++ } empty = v }
    }
    END {
      if (n < min) { print cfg ": only " n " windows" > "/dev/stderr"; exit 1 }
      if (ne != 1) { print cfg ": the empty window is not constant" > "/dev/stderr"; exit 1 }
      for (i = 1; i <= n; i++) {
        if (lab[i] == "empty") continue
        x = val[i] - empty
        if (lab[i] == "nop1000" && x != 1000) { print cfg ": nop1000 measured " x " instructions, not 1000" > "/dev/stderr"; exit 1 }
        print lab[i], st[i], x
      }
    }'
}

run_cortex_m() {  # config board elf
  local out="$tmp/$1.out"
  qemu_mps2 "$2" "$3" >"$out" 2>&1 || { cat "$out"; die "$1: probe failed"; }
  grep -q "^done windows .* bad_status 0" "$out" || { cat "$out"; die "$1: probe incomplete"; }
  calibrate ticks "$1" <"$out" >"$tmp/$1.win" || die "$1: calibration failed"
  awk '$1 == "stack" { print $2, $3 }' "$out" >"$tmp/$1.stack"
}

run_callgrind() {  # config exe
  local out="$tmp/$1.out" cg="$tmp/$1.cg"
  valgrind --tool=callgrind --collect-atstart=no --combine-dumps=yes --dump-line=no \
    --callgrind-out-file="$cg" "$2" >/dev/null 2>"$out" || { tail -20 "$out"; die "$1: callgrind run failed"; }
  grep -q "^done windows .* bad_status 0" "$out" || { tail -20 "$out"; die "$1: probe incomplete"; }
  # Ir of each dump ("Trigger: Client Request: win <i>"), joined to the probe's window lines.
  awk 'FNR == NR {
         if ($0 ~ /^desc: Trigger: Client Request: win /) w = $NF
         else if ($1 == "summary:" && w != "") { ir[w] = $2; w = "" }
         next
       }
       $1 == "win" { if (!($2 in ir)) { print "no dump for window " $2 > "/dev/stderr"; exit 1 } $5 = ir[$2]; print }' \
    "$cg" "$out" | calibrate instructions "$1" >"$tmp/$1.win" || die "$1: calibration failed"
  rm -f "$cg"
}

run_trace() {  # config exe
  local out="$tmp/$1.out" fifo="$tmp/$1.fifo" counts="$tmp/$1.counts"
  mkfifo "$fifo"
  # One "Trace" line per executed instruction (-singlestep: one instruction per block;
  # nochain: every block execution is logged). Window: after talus_fp_begin returns, up to
  # the first instruction of talus_fp_end.
  awk '/^Trace/ {
         s = (NF >= 5) ? $5 : ""
         if (s == "talus_fp_begin") { inb = 1; next }
         if (s == "talus_fp_end") { if (inw) print cnt; inw = 0; inb = 0; next }
         if (inb) { inw = 1; inb = 0; cnt = 0 }
         if (inw) cnt++
       }' "$fifo" >"$counts" &
  local awk_pid=$!
  timeout 600 qemu-aarch64 -L /usr/aarch64-linux-gnu -singlestep -d exec,nochain -D "$fifo" "$2" >/dev/null 2>"$out" ||
    { tail -20 "$out"; die "$1: qemu-aarch64 run failed"; }
  wait "$awk_pid"
  rm -f "$fifo"
  grep -q "^done windows .* bad_status 0" "$out" || { tail -20 "$out"; die "$1: probe incomplete"; }
  awk 'FNR == NR { c[FNR - 1] = $1; next }
       $1 == "win" { if (!($2 in c)) { print "no trace window " $2 > "/dev/stderr"; exit 1 } $5 = c[$2]; print }' \
    "$counts" "$out" | calibrate instructions "$1" >"$tmp/$1.win" || die "$1: calibration failed"
}

# median instructions per call of each probe.cpp label: config -> "label median" lines
medians() {
  awk '$1 !~ /^cold_/ { print $1, $3 }' "$tmp/$1.win" | sort -k1,1 -k2,2n |
    awk '{ n[$1]++; v[$1, n[$1]] = $2 }
      END { for (l in n) { k = n[l]; m = (k % 2) ? v[l, (k + 1) / 2] : (v[l, k / 2] + v[l, k / 2 + 1]) / 2; print l, m } }' | sort
}

if [ -n "$before_commit" ]; then
  full=$(git rev-parse --verify "${before_commit}^{commit}") || die "no commit ${before_commit}"
  short=$(git rev-parse --short "$full")
  # TALUS_FOOTPRINT_BEFORE_WORKTREE: an existing checkout of that commit to use (and keep)
  wt="${TALUS_FOOTPRINT_BEFORE_WORKTREE:-${TMPDIR:-/tmp}/talus-fp-before-${short}}"
  own_wt=0
  if [ ! -d "$wt" ]; then
    git worktree add --detach "$wt" "$full" >/dev/null 2>&1 || die "git worktree add ${wt} failed"
    own_wt=1
  fi
  [ "$(git -C "$wt" rev-parse HEAD)" = "$full" ] || die "${wt} is not at ${full}"
  # the shared models and third-party sources live beside this checkout, not beside the worktree
  extra=(-DTALUS_MODELS_DIR="$root/../shared/models" -DTALUS_FREERTOS_KERNEL_DIR="$root/../shared/third_party/FreeRTOS-Kernel")
  for p in cortex-m7 x86-64; do
    say "before (${short}): building probe.cpp for ${p} in ${wt}"
    [ -f "$wt/build/$p/CMakeCache.txt" ] || (cd "$wt" && cmake --preset "$p" "${extra[@]}" >"$tmp/configure-before-$p.log" 2>&1) ||
      { tail -40 "$tmp/configure-before-$p.log"; die "configuring ${p} at ${short} failed"; }
    (cd "$wt" && nice cmake --build "build/$p" -j "$jobs" --target talus_footprint_probe >"$tmp/build-before-$p.log" 2>&1) ||
      { tail -40 "$tmp/build-before-$p.log"; die "building ${p} at ${short} failed"; }
  done
  say "before (${short}): running the probes (Cortex-M7 under QEMU -icount, x86-64 under callgrind)"
  run_cortex_m m7 mps2-an500 "$wt/$(fp cortex-m7 talus_footprint_probe)"
  run_callgrind x86 "$wt/$(fp x86-64 talus_footprint_probe)"
  out_file="targets/footprint/before-${short}.txt"
  {
    echo "# Instructions per call (median over probe.cpp's 100 states, warm) of solo12 at commit ${full},"
    echo "# its own targets/footprint/probe.cpp and presets (-O2), counted as tools/footprint-report.sh does."
    echo "# Written by: TALUS_FOOTPRINT_BEFORE=${before_commit} bash tools/footprint-report.sh ($(date -u +%Y-%m-%d))."
    echo "# Columns: config (m7 = Cortex-M7 double under QEMU -icount, x86 = x86-64 under callgrind) label median"
    echo "commit ${full}"
    medians m7 | awk '$1 != "nop1000" { print "m7", $0 }'
    medians x86 | awk '$1 != "nop1000" { print "x86", $0 }'
  } >"$out_file"
  cat "$out_file"
  if [ "$own_wt" = 1 ]; then git worktree remove --force "$wt" || say "could not remove the worktree ${wt}"; fi
  say "written ${out_file} in $(($(date +%s) - t_start)) s"
  exit 0
fi

say "running: Cortex-M7 (QEMU mps2-an500, -icount shift=${shift_n})"
run_cortex_m m7 mps2-an500 "$(fp cortex-m7 talus_footprint_probe)"
run_cortex_m m7r mps2-an500 "$(fp cortex-m7 talus_footprint_probe_repro)"
run_cortex_m m7k mps2-an500 "$(fp cortex-m7 talus_footprint_probe_compact)"
say "running: Cortex-M4F (QEMU mps2-an386, -icount shift=${shift_n})"
run_cortex_m m4f mps2-an386 "$(fp cortex-m4f talus_footprint_probe)"
say "running: x86-64 under callgrind"
run_callgrind x86 "$(fp x86-64 talus_footprint_probe)"
run_callgrind x86r "$(fp x86-64 talus_footprint_probe_repro)"
run_callgrind x86k "$(fp x86-64 talus_footprint_probe_compact)"
say "running: aarch64 under qemu-aarch64 -singlestep -d exec,nochain (about 30 s each)"
run_trace a64 "$(fp aarch64 talus_footprint_probe)"
run_trace a64r "$(fp aarch64 talus_footprint_probe_repro)"

say "running: solo12 contact-solve probes (Cortex-M7, Cortex-M4F, x86-64)"
cal_min=400
run_cortex_m m7c mps2-an500 "$(fp cortex-m7 talus_footprint_contact)"
run_cortex_m m4fc mps2-an386 "$(fp cortex-m4f talus_footprint_contact)"
run_callgrind x86c "$(fp x86-64 talus_footprint_contact)"
cal_min=500

say "running: FreeRTOS loop tests (Cortex-M7, Cortex-M4F; -icount shift=1 as in ctest)"
for p in cortex-m7 cortex-m4f; do
  board=mps2-an500
  [ "$p" = cortex-m4f ] && board=mps2-an386
  TALUS_QEMU_ICOUNT=1 TALUS_QEMU_TIMEOUT=300 toolchains/qemu-mps2.sh "$board" \
    "build/$p/targets/freertos/talus_target_freertos_loop" >"$tmp/rtos-$p.out" 2>&1 ||
    { cat "$tmp/rtos-$p.out"; die "$p: FreeRTOS loop test failed"; }
done

say "running: Cortex-M7 ABA images and baselines (-O2, -Os)"
for img in aba baseline aba_os baseline_os; do
  qemu_mps2 mps2-an500 "$(fp cortex-m7 talus_footprint_$img)" >"$tmp/img-$img.out" 2>&1 ||
    { cat "$tmp/img-$img.out"; die "image $img failed"; }
done
say "running: Cortex-M7 solo12 controller images (fast and compact profiles, -O2 and -Os) and baselines"
full_variants=(full full_compact full_fast_os full_compact_os full_baseline full_baseline_os)
for img in "${full_variants[@]}"; do
  qemu_mps2 mps2-an500 "$(fp cortex-m7 talus_footprint_$img)" >"$tmp/img-$img.out" 2>&1 ||
    { cat "$tmp/img-$img.out"; die "image $img failed"; }
  grep -q "^full image: .* 0 failed" "$tmp/img-$img.out" || { cat "$tmp/img-$img.out"; die "image $img: a call failed"; }
done

# --- 3. report -----------------------------------------------------------------------------
configs=(m7 m7r m4f x86 x86r a64 a64r)
algs=(fk_q fk_qva crba rnea aba)
alg_name() {
  case $1 in
    fk_q) echo "forward kinematics (q)" ;;
    fk_qva) echo "forward kinematics (q, v, a)" ;;
    crba) echo "CRBA (mass matrix)" ;;
    rnea) echo "RNEA (inverse dynamics)" ;;
    aba) echo "ABA (forward dynamics)" ;;
  esac
}
# stats config label -> "cold-minus-warm(state 0) min median max distinct"
stats() {
  local cold
  cold=$(awk -v l="$2" '$1 == "cold_" l { c = $3 } $1 == l && $2 == 0 { w = $3 } END { print c - w }' "$tmp/$1.win")
  awk -v l="$2" '$1 == l { print $3 }' "$tmp/$1.win" | sort -n | awk -v cold="$cold" '
    { v[NR] = $1; if (!($1 in d)) { d[$1] = 1; nd++ } }
    END {
      med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%s %d %s %d %d\n", cold, v[1], med, v[NR], nd
    }'
}

# --- the contact-solve probe (targets/footprint/contact_probe.cpp) ---------------------------
# contact_stats config label -> "median max min not_ok count_min count_max": instructions over
# the 100 states, how many solves did not return ok ("n,k_status,..."), the range of pivots
# (Lemke) or sweeps (PGS)
contact_stats() {
  awk -v l="$2" 'FNR == NR { if ($1 == l) ins[$2] = $3; next }
    $1 == "cinfo" && $2 == l {
      if (!($3 in ins)) { print "no window for cinfo " l " " $3 > "/dev/stderr"; exit 1 }
      n++; v[n] = ins[$3]; if ($4 != 0) { bad++; nb[$4]++ }
      if (n == 1 || $5 < cmin) cmin = $5
      if ($5 > cmax) cmax = $5
    }
    END {
      if (n < 1) exit 1
      for (i = 2; i <= n; i++) { x = v[i]; j = i - 1; while (j > 0 && v[j] > x) { v[j + 1] = v[j]; j-- } v[j + 1] = x }
      med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      split("invalid_input singular not_converged capacity_exceeded overflow", sn, " ")
      b = bad + 0
      for (k in nb) b = b "," nb[k] "_" sn[k]
      printf "%d %d %d %s %d %d\n", med, v[n], v[1], b, cmin, cmax
    }' "$tmp/$1.win" "$tmp/$1.out"
}
# contact_fit config cap_label natural_label pgs(0|1) -> "per_med per_min per_max fixed_cap
# fixed_nat worst attempts n cap at_cap_max at_cap_count fit_residual":
#   per pivot (sweep): the slope of instructions against pivots (sweeps) of the forced-cap runs
#   (cap_*: every attempt stops at k pivots, or PGS at k sweeps), per state, median (min–max);
#   fixed_cap: their intercept (median); fixed_nat: the largest natural solve (one attempt that
#   ends with its refinement, check and recovery of q̈ and the forces, or more) minus its
#   pivots (sweeps) at per_max each, so that the bound covers every solve measured;
#   worst = what the cap allows: Lemke fixed_nat + attempts · (cap · per_max + R), cap = 10 n + 50
#   pivots per attempt, R = max(0, intercept of the natural solves − fixed_cap) for the
#   refinement and check each attempt may end with (an overestimate: R also holds the
#   recovery); PGS fixed_nat + 100 · per_max (each sweep includes its check); at_cap_max: the
#   largest natural solve that reached
#   the cap (not_converged), at_cap_count of them; fit_residual: the largest relative residual of
#   the per-state fits.
contact_fit() {
  awk -v lab="$2" -v nat="$3" -v pgs="$4" 'FNR == NR { ins[$1, $2] = $3; next }
    $1 != "cinfo" { next }
    $2 == lab && (($2, $3) in ins) {
      s = $3 % 1000; np[s]++; X[s, np[s]] = $5; Y[s, np[s]] = ins[$2, $3]; att = $6; nn = $7
    }
    $2 == nat && (($2, $3) in ins) {
      x = $5; y = ins[$2, $3]; m++; sx += x; sy += y; sxx += x * x; sxy += x * y; NX[m] = x; NY[m] = y
      if ($4 == 3) { ncap++; if (y > capmax) capmax = y }
    }
    END {
      ns = 0; rmax = 0
      for (s in np) {
        k = np[s]; tx = ty = txx = txy = 0
        for (i = 1; i <= k; i++) { tx += X[s, i]; ty += Y[s, i]; txx += X[s, i] ^ 2; txy += X[s, i] * Y[s, i] }
        b = (k * txy - tx * ty) / (k * txx - tx * tx); a = (ty - b * tx) / k
        for (i = 1; i <= k; i++) { r = Y[s, i] - (a + b * X[s, i]); if (r < 0) r = -r; if (r / Y[s, i] > rmax) rmax = r / Y[s, i] }
        ns++; B[ns] = b; A[ns] = a
      }
      if (ns < 1 || m < 2) exit 1
      for (i = 2; i <= ns; i++) { x = B[i]; j = i - 1; while (j > 0 && B[j] > x) { B[j + 1] = B[j]; j-- } B[j + 1] = x }
      for (i = 2; i <= ns; i++) { x = A[i]; j = i - 1; while (j > 0 && A[j] > x) { A[j + 1] = A[j]; j-- } A[j + 1] = x }
      bmed = (ns % 2) ? B[(ns + 1) / 2] : (B[ns / 2] + B[ns / 2 + 1]) / 2
      amed = (ns % 2) ? A[(ns + 1) / 2] : (A[ns / 2] + A[ns / 2 + 1]) / 2
      bn = (m * sxy - sx * sy) / (m * sxx - sx * sx); an = (sy - bn * sx) / m
      # fixed part: the largest of the natural solves once each pivot (sweep) is charged at the
      # largest per-pivot cost, so that the bound covers every solve measured
      F = 0
      for (i = 1; i <= m; i++) if (NY[i] - B[ns] * NX[i] > F) F = NY[i] - B[ns] * NX[i]
      if (pgs) { cap = 100; worst = F + cap * B[ns] }
      else { cap = 10 * nn + 50; R = an - amed; if (R < 0) R = 0; worst = F + att * (cap * B[ns] + R) }
      printf "%.0f %.0f %.0f %.0f %.0f %.0f %d %d %d %d %d %.2g\n", bmed, B[1], B[ns], amed, F, worst, att, nn, cap, capmax, ncap, rmax
    }' "$tmp/$1.win" "$tmp/$1.out"
}
# 12345678 -> 12.3 M, 123456 -> 123 k
human() { awk -v x="$1" 'BEGIN { if (x >= 1e6) printf "%.1f M", x / 1e6; else if (x >= 1e4) printf "%.0f k", x / 1e3; else printf "%d", x }'; }

size_of() {  # elf -> "flash ram data bss stack"
  arm-none-eabi-size -A "$1" | awk '
    $1 ~ /^\.(debug|comment|ARM\.attributes)/ || NF < 3 || $2 !~ /^[0-9]+$/ { next }
    $1 == ".stack" { stack += $2; next }
    $1 == ".data" { data += $2; next }
    $1 == ".bss" { bss += $2; next }
    { text += $2 }
    END { printf "%d %d %d %d %d\n", text + data, data + bss, data, bss, stack }'
}

# image -> "flash ram stack_reserved high_water above_main step_median step_min step_max"
image_stats() {
  local out="$tmp/img-$1.out" hw main
  hw=$(sed -n 's/.*stack high-water since reset \([0-9]*\) bytes.*/\1/p' "$out")
  main=$(sed -n 's/.*above main.s stack pointer \([0-9]*\) bytes.*/\1/p' "$out")
  [ -n "$hw" ] && [ -n "$main" ] || die "image $1 did not report its stack"
  read -r flash ram _ _ stack <<<"$(size_of "$(fp cortex-m7 "talus_footprint_$1")")"
  steps=$(awk -v shift_n="$shift_n" '
      function instr(t) { return int(t * 40 / (2 ^ shift_n) + 0.5) }
      $1 == "ticks" && $2 == "empty" { e = instr($3) }
      $1 == "ticks" && $2 == "step" { n++; v[n] = instr($3) }
      END {
        if (n < 1) exit 1
        for (i = 1; i <= n; i++) v[i] -= e
        for (i = 2; i <= n; i++) { x = v[i]; j = i - 1; while (j > 0 && v[j] > x) { v[j + 1] = v[j]; j-- } v[j + 1] = x }
        med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        print med, v[1], v[n]
      }' "$out") || die "image $1 did not report its timings"
  echo "$flash $ram $stack $hw $main $steps"
}
read -r aba_flash aba_ram aba_stack aba_hw aba_main aba_med aba_min aba_max <<<"$(image_stats aba)"
read -r base_flash base_ram base_stack base_hw _ base_med _ _ <<<"$(image_stats baseline)"
read -r abas_flash abas_ram _ abas_hw _ abas_med abas_min abas_max <<<"$(image_stats aba_os)"
read -r bases_flash bases_ram _ bases_hw _ bases_med _ _ <<<"$(image_stats baseline_os)"
aba_elf=$(fp cortex-m7 talus_footprint_aba)
base_elf=$(fp cortex-m7 talus_footprint_baseline)

# Where the ABA image's bytes go: symbols also in the baseline are the harness (startup, port,
# state generator); talus's own code by name; the rest is libgcc/newlib pulled in by talus.
arm-none-eabi-nm -S -C -t d "$base_elf" | awk 'NF >= 4 { name = $0; sub(/^[0-9]+ [0-9]+ . /, "", name); print name }' |
  sort -u >"$tmp/base.syms"
breakdown=$(arm-none-eabi-nm -S -C -t d --size-sort "$aba_elf" | awk -v basefile="$tmp/base.syms" '
  BEGIN { while ((getline l < basefile) > 0) base[l] = 1 }
  NF >= 4 {
    size = $2 + 0; type = $3
    name = $0; sub(/^[0-9]+ [0-9]+ . /, "", name)
    ram = (type ~ /[bBdD]/)
    if (name in base) k = "harness"
    else if (name ~ /make_model/) k = "model construction (make_model)"
    else if (name ~ /g_model/) k = "model (g_model)"
    else if (name ~ /g_data/) k = "workspace (g_data)"
    else if (name ~ /^talus::Data</) k = "workspace constructor"
    else if (name ~ /talus::|Eigen::/) k = "ABA code"
    else if (name ~ /^_GLOBAL__sub_I_/) k = "static constructors (model, workspace)"
    else k = "libgcc / newlib"
    if (ram) r[k] += size; else t[k] += size
    if (!ram && k == "libgcc / newlib") lib = lib (lib ? ", " : "") name
  }
  END {
    for (k in t) printf "text|%s|%d\n", k, t[k]
    for (k in r) printf "ram|%s|%d\n", k, r[k]
    printf "libs|%s\n", lib
  }')

# --- the solo12 controller image (full_image.cpp), fast and compact profiles ---------------
# full_ticks variant -> lines "alg median min max": instructions per call of run_<alg> (call
# included, the empty window subtracted), over the image's 100 states
full_ticks() {
  awk -v shift_n="$shift_n" '
    function instr(t) { return int(t * 40 / (2 ^ shift_n) + 0.5) }
    $1 == "ticks" && $2 == "empty" { e = instr($3); next }
    $1 == "ticks" { n[$2]++; v[$2, n[$2]] = instr($3) }
    END {
      for (a in n) {
        k = n[a]
        for (i = 1; i <= k; i++) w[i] = v[a, i] - e
        for (i = 2; i <= k; i++) { x = w[i]; j = i - 1; while (j > 0 && w[j] > x) { w[j + 1] = w[j]; j-- } w[j + 1] = x }
        med = (k % 2) ? w[(k + 1) / 2] : (w[k / 2] + w[k / 2 + 1]) / 2
        print a, med, w[1], w[k]
      }
    }' "$tmp/img-$1.out"
}
# full_parts variant baseline -> lines "text|part|bytes" and "ram|part|bytes": the image's
# symbols (arm-none-eabi-nm -S) by algorithm. Each algorithm is called from its own noinline
# run_<alg> in full_image.cpp; a symbol counts for an algorithm when its name (template
# arguments and parameter lists removed) is that run_<alg> or one of the algorithm's functions
# (forward_kinematics and its kinematics_pass, crba*, rnea*, aba*, *jacobian*, the constrained
# solve's forward_dynamics_range_space / constrained_system / factorize_ltl / solve_kkt /
# constraint_rows ...). A function that several algorithms call counts once, under the
# algorithm it is named after (the kinematics pass under kinematics); what no algorithm is
# named in is "other talus" / "Eigen" (shared), the model, the constraint set's set-up, the
# harness (names the baseline image has too) or libgcc/newlib.
full_parts() {
  arm-none-eabi-nm -S -C -t d "$(fp cortex-m7 "talus_footprint_$2")" |
    awk 'NF >= 4 { name = $0; sub(/^[0-9]+ [0-9]+ . /, "", name); print name }' | sort -u >"$tmp/$2.syms"
  arm-none-eabi-nm -S -C -t d --size-sort "$(fp cortex-m7 "talus_footprint_$1")" | awk -v basefile="$tmp/$2.syms" '
    function simplify(s) {
      gsub(/\(anonymous namespace\)::/, "", s)
      while (gsub(/<[^<>]*>/, "", s)) {}
      while (gsub(/\([^()]*\)/, "", s)) {}
      return s
    }
    BEGIN { while ((getline l < basefile) > 0) base[simplify(l)] = 1 }
    NF >= 4 {
      size = $2 + 0; type = $3
      name = $0; sub(/^[0-9]+ [0-9]+ . /, "", name)
      s = simplify(name)
      if (s ~ /(^| )run_fk/ || s ~ /forward_kinematics|kinematics_pass/) k = "fk"
      else if (s ~ /(^| )run_cfd/ || s ~ /forward_dynamics_range_space|constrain|factorize_ltl|solve_kkt|check_tau|g_feet_storage/) k = "cfd"
      else if (s ~ /(^| )run_jac/ || s ~ /jacobian|g_jac|g_foot_frame/) k = "jac"
      else if (s ~ /(^| )run_aba/ || s ~ /talus::(detail::)?aba/) k = "aba"
      else if (s ~ /(^| )run_crba/ || s ~ /talus::(detail::)?crba/) k = "crba"
      else if (s ~ /(^| )run_rnea/ || s ~ /talus::(detail::)?rnea/) k = "rnea"
      else if (s ~ /g_model/) k = "model"
      else if (s ~ /g_data/) k = "data"
      else if (s in base) k = "harness"
      else if (s ~ /make_model|frame_id/) k = "make_model"
      else if (s ~ /setup|ConstraintSet|add_contact|bind/) k = "setup"
      else if (s ~ /^talus::Data/) k = "data_ctor"
      else if (s ~ /_GLOBAL__sub_I_/) k = "static_ctors"
      else if (s ~ /talus::/) k = "talus_shared"
      else if (s ~ /Eigen::/) k = "eigen_shared"
      else k = "lib"
      if (type ~ /[bBdD]/) r[k] += size; else t[k] += size
    }
    END {
      for (k in t) printf "text|%s|%d\n", k, t[k]
      for (k in r) printf "ram|%s|%d\n", k, r[k]
    }'
}
declare -A fsz fparts fins
for v in "${full_variants[@]}"; do
  fsz[$v]=$(size_of "$(fp cortex-m7 "talus_footprint_$v")")
  fins[$v]=$(full_ticks "$v")
done
for v in full full_compact full_fast_os full_compact_os; do
  b=full_baseline
  [[ $v == *_os ]] && b=full_baseline_os
  fparts[$v]=$(full_parts "$v" "$b")
done
full_libs=$(arm-none-eabi-nm -S -C "$(fp cortex-m7 talus_footprint_full_compact_os)" | awk '$3 ~ /[tT]/ && ($4 == "free" || $4 == "malloc") { print $4 }' | sort -u | tr '\n' ' ')

su_file=$(ls build/cortex-m7/targets/footprint/CMakeFiles/talus_footprint_aba.dir/*.su 2>/dev/null | head -1 || true)
su_top=""
if [ -n "$su_file" ]; then
  su_top=$(awk -F'\t' '{ split($1, a, ":"); f = a[1]; sub(/.*\//, "", f); print $2, f ":" a[2] }' "$su_file" |
    sort -rn | head -4 | awk '{ printf "%s%s bytes (%s)", (NR > 1 ? ", " : ""), $1, $2 }')
fi

cc_arm=$(arm-none-eabi-gcc --version | head -1)
cc_x86=$(g++ --version | head -1)
cc_a64=$(aarch64-linux-gnu-g++ --version | head -1)
qemu_v=$(qemu-system-arm --version | head -1)
vg_v=$(valgrind --version)
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
elapsed=$(($(date +%s) - t_start))

section="$tmp/section.md"
{
  echo "<!-- footprint-report:begin -->"
  echo "## Footprint and instructions per call (targets)"
  echo
  echo "Generated by \`bash tools/footprint-report.sh\` on $(date -u +%Y-%m-%d) (${elapsed} s on this machine:"
  echo "${cpu}, $(nproc) cores). Compilers: ${cc_arm}; ${cc_x86}; ${cc_a64}. ${qemu_v}; ${vg_v}."
  echo "All builds are the presets' (\`-O2 -DNDEBUG\`, toolchains/*.cmake; no \`-march\`). Probe sources:"
  echo "targets/footprint/. \"reproducible\" = the same probe built with \`talus::reproducible\`"
  echo "(\`-ffp-contract=off\`, \`EIGEN_DONT_VECTORIZE\`; targets/README.md)."
  echo
  echo "### Cortex-M7 firmware image running solo12 ABA"
  echo
  echo "\`talus_footprint_aba\` (targets/footprint/aba_image.cpp): startup, port, and a loop of 100 ABA calls on"
  echo "generated states; \`talus_footprint_baseline\` is the same program with the ABA call replaced by a copy."
  echo "Sizes from \`arm-none-eabi-size -A\`: flash = every loaded section (vectors, code, read-only data,"
  echo "init arrays) + .data; RAM = .data + .bss; the stack is a separate reserved region."
  echo
  echo "| image | flash (text + data) | RAM (data + bss) | stack high-water (of ${aba_stack} B reserved) | instructions per step() |"
  echo "|---|---:|---:|---:|---:|"
  echo "| solo12 ABA, -O2 (the preset's) | ${aba_flash} B | ${aba_ram} B | ${aba_hw} B | ${aba_med} (${aba_min}–${aba_max}) |"
  echo "| baseline (no talus), -O2 | ${base_flash} B | ${base_ram} B | ${base_hw} B | ${base_med} |"
  echo "| **talus's share, -O2** | **$((aba_flash - base_flash)) B** | **$((aba_ram - base_ram)) B** | **$((aba_hw - base_hw)) B** | |"
  echo "| solo12 ABA, -Os | ${abas_flash} B | ${abas_ram} B | ${abas_hw} B | ${abas_med} (${abas_min}–${abas_max}) |"
  echo "| baseline (no talus), -Os | ${bases_flash} B | ${bases_ram} B | ${bases_hw} B | ${bases_med} |"
  echo "| **talus's share, -Os** | **$((abas_flash - bases_flash)) B** | **$((abas_ram - bases_ram)) B** | **$((abas_hw - bases_hw)) B** | |"
  echo
  echo "\"instructions per step()\": median (min–max) over the image's 100 calls, SysTick under QEMU -icount as"
  echo "below, the call of \`step()\` included. -Os gives a larger and slower image here (GCC 12): talus's"
  echo "inner operators are forced inline (TALUS_INLINE), which -Os does not undo; we have not analysed"
  echo "further. -O2 is the better choice for talus on Cortex-M7."
  echo
  if [ -n "$breakdown" ]; then
    echo "Where the ABA image's bytes go (\`arm-none-eabi-nm -S\`; \"harness\" = symbols the baseline has too):"
    echo
    echo "| part | flash | RAM |"
    echo "|---|---:|---:|"
    for k in "ABA code" "model construction (make_model)" "workspace constructor" "static constructors (model, workspace)" "model (g_model)" "workspace (g_data)" "libgcc / newlib" "harness"; do
      t=$(printf '%s\n' "$breakdown" | awk -F'|' -v k="$k" '$1 == "text" && $2 == k { print $3 }')
      r=$(printf '%s\n' "$breakdown" | awk -F'|' -v k="$k" '$1 == "ram" && $2 == k { print $3 }')
      [ -z "$t$r" ] && continue
      echo "| ${k} | ${t:-0} B | ${r:-0} B |"
    done
    libs=$(printf '%s\n' "$breakdown" | awk -F'|' '$1 == "libs" { print $2 }')
    echo
    echo "libgcc / newlib functions pulled in by talus: ${libs}."
    echo
  fi
  echo "Stack: measured by painting. The image defines \`talus_stack_paint\`, so the startup code"
  echo "(port/cortex-m/startup.cpp) fills the whole stack with a pattern at reset, before static constructors"
  echo "run; after the 100 calls \`stack_high_water()\` finds the lowest overwritten word. The high-water mark"
  echo "covers startup, static constructors, \`main\` (${aba_main} B of it above \`main\`'s stack pointer: its frame"
  echo "holds the state vectors) and ABA. Static cross-check (\`-fstack-usage\`, largest frames of the image's"
  echo "translation unit): ${su_top:-n/a}."
  echo
  echo "### Cortex-M7 image: solo12 kinematics, CRBA, RNEA, ABA, Jacobians, 4-contact solve; fast and compact profiles"
  echo
  echo "\`talus_footprint_full*\` (targets/footprint/full_image.cpp, issue 13): startup, port, and per random state one"
  echo "call each of forward kinematics (q, v, a), CRBA, RNEA, ABA, the 6D Jacobians of the four feet"
  echo "(\`compute_joint_jacobians\` + 4 × \`frame_jacobian\`, world-aligned) and the constrained forward dynamics on the"
  echo "four feet as 3D point contacts (\`ConstraintSet<solo12, 12>\`, \`forward_dynamics_range_space\`), 100 states."
  echo "**fast** = the default profile (TALUS_INLINE forces the spatial operators inline), the preset's -O2;"
  echo "**compact** = \`talus::compact\` (cmake/TalusCompact.cmake: \`TALUS_COMPACT\`, TALUS_INLINE a plain \`inline\`), the"
  echo "preset's -O2; both also at -Os, measured to choose the profile. The baselines are the same program with each"
  echo "call replaced by a copy, at -O2 and -Os; talus's share = image − baseline at the same -O."
  echo
  read -r bf_flash bf_ram _ _ _ <<<"${fsz[full_baseline]}"
  read -r bs_flash bs_ram _ _ _ <<<"${fsz[full_baseline_os]}"
  echo "| image | flash (text + data) | RAM (data + bss) | talus's share of flash | instructions per call, sum of the six (median each) |"
  echo "|---|---:|---:|---:|---:|"
  for v in full full_compact full_fast_os full_compact_os; do
    case $v in
      full) vn="**fast** (default), -O2"; bfl=$bf_flash ;;
      full_compact) vn="**compact** (\`talus::compact\`), -O2"; bfl=$bf_flash ;;
      full_fast_os) vn="fast, -Os"; bfl=$bs_flash ;;
      full_compact_os) vn="compact, -Os"; bfl=$bs_flash ;;
    esac
    read -r fl ra _ _ _ <<<"${fsz[$v]}"
    sum=$(printf '%s\n' "${fins[$v]}" | awk '{ s += $2 } END { printf "%.0f", s }')
    echo "| ${vn} | ${fl} B ($(awk -v x="$fl" 'BEGIN { printf "%.1f", x / 1024 }') KiB) | ${ra} B | $((fl - bfl)) B | ${sum} |"
  done
  echo "| baseline (no talus), -O2 | ${bf_flash} B | ${bf_ram} B | | |"
  echo "| baseline (no talus), -Os | ${bs_flash} B | ${bs_ram} B | | |"
  echo
  read -r cfl _ _ _ _ <<<"${fsz[full_compact]}"
  read -r ffl _ _ _ _ <<<"${fsz[full]}"
  goal="met"
  [ "$cfl" -le $((128 * 1024)) ] || goal="**not met**"
  echo "Goal of issue 13 (compact profile ≤ 128 KiB flash for this image): ${goal}, $(awk -v x="$cfl" 'BEGIN { printf "%.1f", x / 1024 }') KiB, $(awk -v a="$cfl" -v b="$ffl" 'BEGIN { printf "%.0f%%", a / b * 100 }') of the fast"
  echo "profile's flash. RAM is the same in every profile: model, \`Data\` workspace, the constraint set (its fixed-capacity"
  echo "solver workspace) and the Jacobians are static objects; the rest is the port's reserved stack."
  if [ -n "$full_libs" ]; then
    echo "The -Os compact image links newlib's \`${full_libs% }\` (and with it malloc's and the stdio start-up's code):"
    echo "never called, but referenced by an out-of-line copy of Eigen's stack-buffer destructor (\`handmade_aligned_free\`,"
    echo "from \`UnblockedLLT::solveInPlace\` and \`forward_dynamics_range_space\`) that -O2 removes."
  fi
  echo
  echo "Flash per algorithm (\`arm-none-eabi-nm -S --size-sort\`, bytes of code and read-only data). Each algorithm is called"
  echo "from its own \`noinline\` function \`run_<alg>\`, so what GCC inlines lands there; a symbol counts for an algorithm"
  echo "when its name (without template arguments and parameter lists) is that function or one of the algorithm's own"
  echo "(\`kinematics_pass\` under kinematics, \`crba_*\`, \`rnea_*\`, \`aba_*\`, \`*jacobian*\`, the constrained solve's"
  echo "\`forward_dynamics_range_space\`, \`constrained_system*\`, \`factorize_ltl\`, \`solve_kkt*\`, \`constraint_rows\`). A function"
  echo "called by several algorithms counts once, under the one it is named after; what is named after none (joint and"
  echo "spatial-algebra functions GCC kept out of line, \`check_model\`, Eigen kernels) is \"shared\"."
  echo
  echo "| part | fast -O2 | compact -O2 | fast -Os | compact -Os |"
  echo "|---|---:|---:|---:|---:|"
  for k in fk crba rnea aba jac cfd talus_shared eigen_shared make_model setup data_ctor static_ctors lib harness; do
    case $k in
      fk) kn="forward kinematics (and the kinematics pass others share)" ;;
      crba) kn="CRBA" ;;
      rnea) kn="RNEA" ;;
      aba) kn="ABA" ;;
      jac) kn="Jacobians (joint Jacobians, 4 frame Jacobians)" ;;
      cfd) kn="constrained solve (range space, 4 point contacts)" ;;
      talus_shared) kn="other talus (shared)" ;;
      eigen_shared) kn="Eigen (shared)" ;;
      make_model) kn="model construction (make_model)" ;;
      setup) kn="constraint set-up (ConstraintSet, start-up only)" ;;
      data_ctor) kn="workspace constructor" ;;
      static_ctors) kn="static constructors" ;;
      lib) kn="libgcc / newlib (beyond the baseline's)" ;;
      harness) kn="harness (names the baseline has too)" ;;
    esac
    row="| ${kn} |"
    for v in full full_compact full_fast_os full_compact_os; do
      row+=" $(printf '%s\n' "${fparts[$v]}" | awk -F'|' -v k="$k" '$1 == "text" && $2 == k { x = $3 } END { print x + 0 }') B |"
    done
    echo "$row"
  done
  row="| RAM: model / workspace / constraint set / Jacobians (every variant) |"
  ram_of() { printf '%s\n' "${fparts[full]}" | awk -F'|' -v k="$1" '$1 == "ram" && $2 == k { x = $3 } END { print x + 0 }'; }
  echo "$row $(ram_of model) / $(ram_of data) / $(ram_of cfd) / $(ram_of jac) B | | | |"
  echo
  echo "Instructions per call (SysTick under QEMU -icount shift=${shift_n}, as below; median (min–max) over the image's 100"
  echo "states, the call of \`run_<alg>\` included, the empty window subtracted):"
  echo
  echo "| algorithm | fast -O2 | compact -O2 | compact / fast | fast -Os | compact -Os |"
  echo "|---|---:|---:|---:|---:|---:|"
  for a in fk crba rnea aba jac cfd; do
    case $a in
      fk) an="forward kinematics (q, v, a)" ;;
      crba) an="CRBA" ;;
      rnea) an="RNEA" ;;
      aba) an="ABA" ;;
      jac) an="Jacobians of the 4 feet" ;;
      cfd) an="constrained solve, 4 point contacts" ;;
    esac
    row="| ${an} |"
    for v in full full_compact ratio full_fast_os full_compact_os; do
      if [ "$v" = ratio ]; then
        f=$(printf '%s\n' "${fins[full]}" | awk -v a="$a" '$1 == a { print $2 }')
        c=$(printf '%s\n' "${fins[full_compact]}" | awk -v a="$a" '$1 == a { print $2 }')
        row+=" $(awk -v f="$f" -v c="$c" 'BEGIN { printf "%.2f", c / f }') |"
        continue
      fi
      read -r med mn mx <<<"$(printf '%s\n' "${fins[$v]}" | awk -v a="$a" '$1 == a { print $2, $3, $4 }')"
      if [ "$mn" = "$mx" ]; then row+=" ${med} |"; else row+=" ${med} (${mn}–${mx}) |"; fi
    done
    echo "$row"
  done
  echo
  echo "The same comparison on probe.cpp (its own translation unit, the five algorithms of the next section; median"
  echo "instructions per call over its 100 states), \`talus_footprint_probe_compact\` against the default probe:"
  echo
  echo "| algorithm | M7 fast | M7 compact | compact / fast | x86-64 fast | x86-64 compact | compact / fast |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for a in "${algs[@]}"; do
    row="| $(alg_name "$a") |"
    for pair in "m7 m7k" "x86 x86k"; do
      read -r d k <<<"$pair"
      read -r _ _ md _ _ <<<"$(stats "$d" "$a")"
      read -r _ _ mk _ _ <<<"$(stats "$k" "$a")"
      row+=" ${md} | ${mk} | $(awk -v f="$md" -v c="$mk" 'BEGIN { printf "%.2f", c / f }') |"
    done
    echo "$row"
  done
  echo
  sums=$(for v in full full_compact full_fast_os full_compact_os; do
    printf '%s %s; ' "$v" "$(sed -n 's/.*checksum \(0x[0-9a-f]*\).*/\1/p' "$tmp/img-$v.out")"; done | sed 's/; $//')
  nsums=$(printf '%s\n' "$sums" | tr ';' '\n' | awk 'NF == 2 { print $2 }' | sort -u | wc -l)
  echo "Checksums of the outputs (sum of RNEA, ABA and constrained q̈ over the states): ${sums}."
  if [ "$nsums" -gt 1 ]; then
    echo "They differ in the last bits between variants: the same operations, but GCC contracts multiply-adds into FMA"
    echo "(Cortex-M7 FPv5) at different places when it inlines differently; with \`talus::reproducible\` (no"
    echo "contraction) that freedom is gone."
  fi
  echo
  if [ -n "$before_file" ] && [ -f "$before_file" ]; then
    bcommit=$(awk '$1 == "commit" { print $2 }' "$before_file")
    head_c=$(git rev-parse --short HEAD)
    dirty=$(git status --porcelain -- include targets/footprint/probe.cpp targets/footprint/footprint.hpp cmake | head -1)
    now_label="${head_c}"
    [ -n "$dirty" ] && now_label="${head_c} + uncommitted changes in include/, cmake/ or the probe"
    echo "### Before / after: instructions per call of probe.cpp, solo12 (issue 13)"
    echo
    echo "Median over probe.cpp's 100 states (warm), as in the next table. **before** = commit ${bcommit:0:7} (the issue's"
    echo "baseline), its own probe.cpp and presets, built in a git worktree and counted the same way"
    echo "(\`TALUS_FOOTPRINT_BEFORE=${bcommit:0:7} bash tools/footprint-report.sh\` wrote ${before_file}); **after** = this run,"
    echo "working tree at ${now_label}. Both fast (default) profile, -O2. Cortex-M7: QEMU -icount; x86-64: callgrind."
    echo
    echo "| algorithm | M7 before | M7 after | M7 change | x86-64 before | x86-64 after | x86-64 change |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for a in "${algs[@]}"; do
      mb=$(awk -v a="$a" '$1 == "m7" && $2 == a { print $3 }' "$before_file")
      xb=$(awk -v a="$a" '$1 == "x86" && $2 == a { print $3 }' "$before_file")
      read -r _ _ ma _ _ <<<"$(stats m7 "$a")"
      read -r _ _ xa _ _ <<<"$(stats x86 "$a")"
      chg() { awk -v b="$1" -v a="$2" 'BEGIN { if (b == "" || b == 0) print "n/a"; else printf "%+.1f%%", (a / b - 1) * 100 }'; }
      echo "| $(alg_name "$a") | ${mb:-n/a} | ${ma} | $(chg "$mb" "$ma") | ${xb:-n/a} | ${xa} | $(chg "$xb" "$xa") |"
    done
    echo
  fi
  echo "### Instructions per call, solo12 (median over 100 random states, warm)"
  echo
  echo "Each state: base position in [−1, 1]³, random unit quaternion, joint angles in [−π, π], v, a, τ in"
  echo "[−1, 1] (generated without libm; targets/footprint/footprint.hpp). One call on state 0 first (the"
  echo "\"cold\" call), then one measured call per state. Counts are of the call itself: the calling sequence,"
  echo "measured by an empty window, is subtracted, and a window of exactly 1000 \`nop\`s is checked to read"
  echo "1000 on every target."
  echo
  echo "| algorithm | Cortex-M7 double | M7 reproducible | Cortex-M4F float | x86-64 | x86-64 reproducible | aarch64 | aarch64 reproducible |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for a in "${algs[@]}"; do
    row="| $(alg_name "$a") |"
    for c in "${configs[@]}"; do
      read -r cold mn med mx nd <<<"$(stats "$c" "$a")"
      row+=" ${med} |"
    done
    echo "$row"
  done
  cost_line=""
  for pair in "m7 m7r Cortex-M7" "x86 x86r x86-64" "a64 a64r aarch64"; do
    read -r d r name <<<"$pair"
    part=""
    for a in "${algs[@]}"; do
      read -r _ _ med_d _ _ <<<"$(stats "$d" "$a")"
      read -r _ _ med_r _ _ <<<"$(stats "$r" "$a")"
      part+="$(awk -v a="$med_d" -v b="$med_r" 'BEGIN { printf "%+.0f%%", (b / a - 1) * 100 }') "
    done
    cost_line+=" ${name}: ${part% };"
  done
  echo
  echo "Reproducible profile against the default, instructions (FK q, FK q v a, CRBA, RNEA, ABA):${cost_line%;}."
  cold_line=""
  for c in "${configs[@]}"; do
    for a in "${algs[@]}"; do
      read -r cold mn med mx nd <<<"$(stats "$c" "$a")"
      [ "$cold" != "0" ] && cold_line+=" ${c}/${a}: ${cold};"
    done
  done
  echo
  echo "Cold (first call, state 0) minus warm (same state, later): ${cold_line:- 0 on every target and algorithm.}"
  echo
  echo "Spread over the 100 states: min / median / max (number of distinct counts):"
  echo
  echo "| algorithm | Cortex-M7 double | M7 reproducible | Cortex-M4F float | x86-64 | x86-64 reproducible | aarch64 | aarch64 reproducible |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for a in "${algs[@]}"; do
    row="| $(alg_name "$a") |"
    for c in "${configs[@]}"; do
      read -r cold mn med mx nd <<<"$(stats "$c" "$a")"
      if [ "$mn" = "$mx" ]; then row+=" ${mn} (1) |"; else row+=" ${mn} / ${med} / ${mx} (${nd}) |"; fi
    done
    echo "$row"
  done
  echo
  pattern_ok=1
  for a in "${algs[@]}"; do
    read -r _ mn _ mx nd <<<"$(stats m7 "$a")"; [ $(((mx - mn) % 4)) -eq 0 ] || pattern_ok=0
    read -r _ mn _ mx nd <<<"$(stats x86 "$a")"; [ $(((mx - mn) % 2)) -eq 0 ] || pattern_ok=0
    read -r _ mn _ mx nd <<<"$(stats a64 "$a")"; [ "$nd" -eq 1 ] || pattern_ok=0
  done
  if [ "$pattern_ok" -eq 0 ]; then
    echo "**Note: the spread no longer follows the pattern explained below (steps of 4 on M7, of 2 on x86-64,"
    echo "none on aarch64); the explanation needs re-checking.**"
    echo
  fi
  echo "Why the counts spread (checked by disassembling these builds). The spread is about the same for"
  echo "every algorithm of a build, because it comes from the 12 joint placements, i.e. from \`talus::sincos\`,"
  echo "the only code here that branches on data:"
  echo "- Cortex-M7: \`talus::sincos\` converts the quadrant number to \`std::int64_t\`; Armv7-M has no"
  echo "  double → int64 instruction, so GCC calls libgcc's \`__aeabi_d2lz\`, whose path for negative numbers"
  echo "  is 4 instructions longer (a 32-bit conversion, one \`vcvt\`, would avoid the call: the quadrant is"
  echo "  far below 2^31). The quadrant selection is a branch (\`bmi\`) whose two paths differ by a few"
  echo "  instructions, depending on GCC's register allocation in each inlined copy: steps of 4 in the"
  echo "  default build, of 1 in the reproducible one."
  echo "- x86-64: the quadrant selection (which of sin/cos, which sign) compiles to branches (\`test/jne\`,"
  echo "  \`and/je\` + \`xorpd\`): steps of 2."
  echo "- aarch64: \`fcvtzs\` and \`fcsel\`, no branch: no spread at all."
  echo "- Cortex-M4F (float): \`talus::sincos(float)\` calls newlib's \`sinf\` and \`cosf\`, whose argument"
  echo "  reduction and kernels branch on the argument's range: a few hundred instructions of spread."
  echo "- The cold call: identical to the warm one except on aarch64 ABA, whose first call goes through the"
  echo "  dynamic linker's lazy binding of \`memcpy\`/\`memset\` (PLT); with \`LD_BIND_NOW=1\` it disappears."
  echo "- Firmware image vs probe: the same ABA, both -O2, takes ${aba_med} instructions in the image and"
  echo "  $(stats m7 aba | awk '{ print $3 }') in the probe: GCC inlines differently depending on what else the translation unit"
  echo "  instantiates (the probe has all five algorithms)."
  echo
  echo "Stack depth of one call (Cortex-M, bytes from the stack pointer at the call to the lowest word"
  echo "written; stack repainted before every call, deepest of the 101 calls):"
  echo
  echo "| algorithm | Cortex-M7 double | M7 reproducible | Cortex-M4F float |"
  echo "|---|---:|---:|---:|"
  for a in "${algs[@]}"; do
    row="| $(alg_name "$a") |"
    for c in m7 m7r m4f; do row+=" $(awk -v l="$a" '$1 == l { print $2 }' "$tmp/$c.stack") B |"; done
    echo "$row"
  done
  echo
  echo "### Contact solve: solo12 on four unilateral feet (instructions per call)"
  echo
  echo "\`forward_dynamics_contact\` at the acceleration level (targets/footprint/contact_probe.cpp), solo12's feet FL, FR,"
  echo "HL, HR as unilateral contacts on the ground (normal +z, μ = 0.7), as targets/contact_check.cpp checks it:"
  echo "**at rest** q̇ = 0 (sticking friction, 4-edge polygons, Lemke: an LCP of 24 unknowns), **moving** q̇ of the state"
  echo "(every foot sliding: kinetic friction, Lemke: 4 unknowns), **PGS** q̇ = 0 on exact cones (default options:"
  echo "100 sweeps, τ_r = √ε). The 100 random states of the probe above (random base orientation, joint angles,"
  echo "q̇, τ: feet pushing, lifting and slipping in every combination); one warm-up call first. The whole call:"
  echo "kinematics, CRBA, RNEA, the Delassus operator, the LCP or cone solve and the recovery of q̈ and the forces."
  echo
  echo "| | Cortex-M7 double | Cortex-M4F float | x86-64 |"
  echo "|---|---:|---:|---:|"
  declare -A cs cf
  for c in m7c m4fc x86c; do
    for v in rest moving pgs; do
      cs[$c,$v]=$(contact_stats "$c" "c_$v") || die "$c: no contact statistics for $v"
    done
    cf[$c,rest]=$(contact_fit "$c" cap_rest c_rest 0) || die "$c: cap fit rest"
    cf[$c,moving]=$(contact_fit "$c" cap_moving c_moving 0) || die "$c: cap fit moving"
    cf[$c,pgs]=$(contact_fit "$c" cap_pgs c_pgs 1) || die "$c: cap fit pgs"
  done
  for v in rest moving pgs; do
    case $v in
      rest) vn="Lemke, feet at rest (n = 24)"; unit="pivot" ;;
      moving) vn="Lemke, feet moving (n = 4)"; unit="pivot" ;;
      pgs) vn="PGS, exact cones, at rest"; unit="sweep" ;;
    esac
    row1="| **${vn}**: median / worst over the states |"
    row2="| ${vn}: **worst the cap allows** |"
    row3="| ${vn}: per ${unit} (min–max over states); fixed part |"
    row4="| ${vn}: ${unit}s min–max; states not ok |"
    for c in m7c m4fc x86c; do
      read -r med mx mn bad cmin cmax <<<"${cs[$c,$v]}"
      read -r pmed pmin pmax fcap fnat worst att n cap capmax ncap res <<<"${cf[$c,$v]}"
      row1+=" ${med} / ${mx} |"
      if [ "$v" = pgs ]; then
        row2+=" $(human "$worst") (${cap} sweeps) |"
      else
        row2+=" $(human "$worst") (${att} × ${cap} pivots) |"
      fi
      row3+=" ${pmed} (${pmin}–${pmax}); $(human "$fnat") |"
      bad_text=$(awk -v b="$bad" 'BEGIN { n = split(b, p, ","); t = p[1]; if (n > 1) { t = t " ("; for (i = 2; i <= n; i++) { sub("_", " ", p[i]); t = t (i > 2 ? ", " : "") p[i] } t = t ")" } print t }')
      row4+=" ${cmin}–${cmax}; ${bad_text} |"
    done
    echo "$row1"
    echo "$row2"
    echo "$row3"
    echo "$row4"
  done
  row="| stack of one call (Cortex-M) |"
  for c in m7c m4fc; do row+=" $(awk '$1 == "c_rest" { r = $2 } $1 == "c_moving" { m = $2 } $1 == "c_pgs" { p = $2 } END { printf "%s / %s / %s B", r, m, p }' "$tmp/$c.stack") |"; done
  echo "$row n/a |"
  pbytes() { sed -n 's/.*problem_bytes \([0-9]*\).*/\1/p' "$tmp/$1.out"; }
  echo "| \`ContactProblem<solo12, 4, 4>\` (static; its workspace holds every matrix of the solve) | $(pbytes m7c) B | $(pbytes m4fc) B | $(pbytes x86c) B |"
  echo
  read -r _ _ _ _ _ _ _ _ _ capmax7 ncap7 _ <<<"${cf[m7c,pgs]}"
  read -r _ _ _ _ _ _ _ _ _ capmax4 ncap4 _ <<<"${cf[m4fc,pgs]}"
  res_max=0
  for c in m7c m4fc x86c; do
    for v in rest moving pgs; do
      read -r _ _ _ _ _ _ _ _ _ _ _ res <<<"${cf[$c,$v]}"
      res_max=$(awk -v a="$res_max" -v b="$res" 'BEGIN { print (b > a ? b : a) }')
    done
  done
  echo "\"Worst the cap allows\": the solve's work is bounded by its caps, not by the states tried. Measured by forcing the"
  read -r _ _ _ _ _ w7 _ <<<"${cf[m7c,rest]}"
  read -r m7 _ <<<"${cs[m7c,rest]}"
  ms_worst=$(awk -v w="$w7" 'BEGIN { printf "%.0f", w / 216e3 }')
  ms_med=$(awk -v w="$m7" 'BEGIN { printf "%.1f", w / 216e3 }')
  echo "cap (\`LcpOptions::max_pivots\` = k = 1…8, 1…2 for moving; \`ConeSolverOptions::max_iterations\` = k = 1…8) at ten"
  echo "states each: instructions grow linearly in the pivots (sweeps) done; per state, a least-squares line gives the cost"
  echo "per pivot (sweep) (the fits' relative residuals are ≤ ${res_max}). Fixed part: the largest of the 100 natural"
  echo "solves once each of its pivots (sweeps) is charged at the largest per-pivot (per-sweep) cost, so the bound covers"
  echo "every solve measured. Lemke (lcp_lemke.hpp) runs at most the attempts measured at the cap (plain, two other"
  echo "covering vectors, three regularizations) of at most 10 n + 50 pivots each: worst = fixed part + attempts × (cap ×"
  echo "the largest per-pivot cost + the difference between the natural and the capped solves' intercepts, for a"
  echo "refinement and check per attempt). PGS: fixed part + 100 × the largest per-sweep cost; the states that reached the"
  echo "cap naturally (not_converged) took up to ${capmax7} (M7, ${ncap7} states) and ${capmax4} (M4F, ${ncap4} states)"
  echo "instructions. At 216 MHz and one instruction per cycle (optimistic for the M7: QEMU does not model FP latency or"
  echo "memory) the rest variant's cap-worst on the M7 is ${ms_worst} ms, against a median of ${ms_med} ms: a controller with a"
  echo "hard period sets \`max_pivots\` (or \`max_iterations\`) to what its period affords and handles \`not_converged\`."
  echo "The states are random, so the feet are not at ground height: the acceleration level does not use the gap. Not run"
  echo "on aarch64: its counter is the QEMU exec trace, one log line per instruction, ~1.3e8 here (~12 GB)."
  echo
  echo "### FreeRTOS images and kernel costs (issue 14)"
  echo
  echo "FreeRTOS V11.3.0 (kernel ports GCC_ARM_CM7, GCC_ARM_CM4F), the presets' builds. Sizes (\`arm-none-eabi-size\`,"
  echo "text / data / bss in bytes) of the on-target test program bare and inside a FreeRTOS task (the same objects),"
  echo "and of the loop test (targets/freertos/loop_test.cpp):"
  echo
  echo "| image | Cortex-M7 | Cortex-M4F |"
  echo "|---|---:|---:|"
  for img in targets/talus_target_test targets/freertos/talus_target_freertos_test targets/freertos/talus_target_freertos_loop; do
    row="| \`${img##*/}\`"
    for p in cortex-m7 cortex-m4f; do
      row="$row | $(arm-none-eabi-size "build/$p/$img" | awk 'NR == 2 { print $1 " / " $2 " / " $3 }')"
    done
    echo "$row |"
  done
  row="| kernel + port (in a task − bare)"
  for p in cortex-m7 cortex-m4f; do
    row="$row | $(arm-none-eabi-size "build/$p/targets/talus_target_test" "build/$p/targets/freertos/talus_target_freertos_test" |
      awk 'NR == 2 { t = $1; d = $2; b = $3 } NR == 3 { printf "+%d / +%d / +%d", $1 - t, $2 - d, $3 - b }')"
  done
  echo "$row |"
  echo
  echo "From the loop test's run (1 kHz control task: solo12 ABA + 4-feet constrained solve, 2000 periods; \`-icount"
  echo "shift=1\`: 2 ns of virtual time per instruction, so instructions = ns / 2; SysTick resolution 40 ns = 20"
  echo "instructions):"
  echo
  for p in cortex-m7 cortex-m4f; do
    echo "- ${p}: $(grep -o 'control: .*' "$tmp/rtos-$p.out" | head -1)"
    echo "  - $(grep -o 'control latency.*' "$tmp/rtos-$p.out" | head -1)"
    echo "  - $(grep -o 'control exec min/median/p99/max [0-9/ ]* ns' "$tmp/rtos-$p.out" | head -1)"
    echo "  - $(grep -o 'control task stack.*' "$tmp/rtos-$p.out" | head -1); the other tasks: logger 2048 B, load 1024 B (not measured)"
    echo "  - $(grep -o 'kernel costs.*' "$tmp/rtos-$p.out" | head -1)"
  done
  echo
  echo "The tick interrupt is the gap a spinning task sees in its clock at each tick; the switch is"
  echo "\`xTaskNotifyGive\` to a higher-priority task blocked in \`ulTaskNotifyTake\`, until it reads the clock; one"
  echo "\`now_ns()\` (a turn of the clock loop) is subtracted from both. Release → start latency = tick interrupt +"
  echo "switch + \`wait_until\`'s return."
  echo
  echo "How the instructions are counted:"
  echo "- Cortex-M7 / M4F: QEMU \`-icount shift=${shift_n}\` makes virtual time advance 2^${shift_n} ns per"
  echo "  instruction; SysTick counts the board's 25 MHz clock in virtual time, so instructions ="
  echo "  ticks · 40 / 2^${shift_n} (exact after rounding for shift ≥ 7). SysTick's 24-bit current value is read"
  echo "  directly around the call with interrupts masked, modulo 2^24 (windows < 5 M instructions)."
  echo "  Deterministic: the same counts on every run. QEMU counts instructions, not cycles: a real"
  echo "  Cortex-M7 dual-issues some pairs and stalls on FP latency and memory, so cycles differ."
  echo "- x86-64: \`valgrind --tool=callgrind --collect-atstart=no\`, collection toggled on around the call and"
  echo "  dumped per call (Ir). Deterministic. The probe has no \`-march\` (valgrind cannot run AVX-512 code)."
  echo "- aarch64: Debian's QEMU has no TCG plugins (no libinsn.so, no qemu-plugin.h). \`qemu-aarch64"
  echo "  -singlestep -d exec,nochain\` logs one \"Trace\" line per executed instruction (one instruction per"
  echo "  translation block, no block chaining); the report counts the lines between the marker functions"
  echo "  \`talus_fp_begin\` / \`talus_fp_end\`, including any libc code called in between. \`-d in_asm\` alone"
  echo "  does not work: it prints each block once, when translated, not each execution."
  echo "<!-- footprint-report:end -->"
} >"$section"

cat "$section"
if [ "$results" != "-" ]; then
  if grep -q "<!-- footprint-report:begin -->" "$results"; then
    awk -v sec="$section" '
      /<!-- footprint-report:begin -->/ { while ((getline l < sec) > 0) print l; skip = 1; next }
      /<!-- footprint-report:end -->/ { skip = 0; next }
      !skip { print }' "$results" >"$tmp/results.md"
    cat "$tmp/results.md" >"$results"
  else
    { echo; cat "$section"; } >>"$results"
  fi
  say "section written into ${results}"
fi
say "done in $(($(date +%s) - t_start)) s"
