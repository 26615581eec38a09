#!/usr/bin/env bash
# Fuzz campaign with clang + libFuzzer (fuzz/README.md).
#
#   bash tools/fuzz.sh [fuzz_dynamics|fuzz_constraints|fuzz_kkt|fuzz_linalg|fuzz_lcp|fuzz_cone|fuzz_contact|
#                       fuzz_estimation|fuzz_hil_protocol|fuzz_hil_controller|fuzz_rt_log|all] [seconds-per-target]
#
# (several targets: a comma-separated list, e.g. fuzz_kkt,fuzz_lcp; 0 seconds: build and report
# coverage only, e.g. after two campaigns run side by side with COVERAGE=0)
#
# Builds the libFuzzer targets (-fsanitize=fuzzer,address,undefined, -O1 -g, Eigen and talus
# asserts on) into build/fuzz-clang, runs each target for the given time (default 360 s: all
# ten ≈ 60 min) in fork mode (one worker: the machine has 2 cores; crashes, timeouts and
# OOMs do not stop the campaign), saves findings to fuzz/findings/<target>/, merges inputs with
# new coverage into fuzz/corpus/<target>/ (-merge=1), and prints executions, exec/s, libFuzzer's
# cov/ft counters and findings. The same build is instrumented for source coverage
# (-fprofile-instr-generate -fcoverage-mapping: one build, not two); with COVERAGE=1 (default),
# after the campaign each target replays its merged corpus once (-runs=0) and the script prints
# line coverage of include/talus and hil/ (llvm-profdata-14 / llvm-cov-14). COVERAGE=0 skips that.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
what=${1:-all}
secs=${2:-360}
coverage=${COVERAGE:-1}
build=$root/build/fuzz-clang
all=(fuzz_dynamics fuzz_constraints fuzz_kkt fuzz_linalg fuzz_lcp fuzz_cone fuzz_contact fuzz_estimation fuzz_hil_protocol fuzz_hil_controller fuzz_rt_log)
if [[ $what == all ]]; then targets=("${all[@]}"); else IFS=, read -ra targets <<<"$what"; fi
targets_fuzzed=("${targets[@]}")

profile_flags="-fprofile-instr-generate -fcoverage-mapping"  # always: COVERAGE=0 then reuses the build
nice -n 10 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=FuzzBuild -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_CXX_FLAGS_FUZZBUILD="-g0 $profile_flags" -DCMAKE_EXE_LINKER_FLAGS="${profile_flags%% *}" -DTALUS_FUZZ_OPT="${FUZZ_OPT:--O1}" -DTALUS_BUILD_BENCH=OFF -DTALUS_BUILD_FUZZ=ON -DTALUS_FUZZ_ENGINE=libfuzzer >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
for t in "${targets[@]}"; do
  start=$(date +%s)
  nice -n 10 cmake --build "$build" --target "$t" -j1 >"$build/$t.build.log" 2>&1 || { tail -50 "$build/$t.build.log"; exit 1; }
  echo "built $t in $(( $(date +%s) - start )) s"
done

summary=()
(( secs > 0 )) || targets_fuzzed=() # 0 s: build and (COVERAGE=1) report coverage only
for t in "${targets_fuzzed[@]}"; do
  corpus=$root/fuzz/corpus/$t
  work=$build/work/$t
  findings=$root/fuzz/findings/$t
  mkdir -p "$corpus" "$work" "$findings"
  log=$build/$t.fuzz.log
  echo "== $t: ${secs} s"
  # fork mode: the worker restarts after a finding; artifacts (crash-*, timeout-*, oom-*) go to findings/
  bin=$build/fuzz/$t  # the fuzz/ subdirectory's targets land in <build>/fuzz
  [[ -x $bin ]] || bin=$build/$t
  ( cd "$build" && LLVM_PROFILE_FILE="$work.campaign.profraw" nice -n 10 "$bin" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
      -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
      -artifact_prefix="$findings/" "$work" "$corpus" ) >"$log" 2>&1 || true
  last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1 || true)
  execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
  cov=$(sed -E 's/.* cov: ([0-9]+).*/\1/' <<<"$last")
  ft=$(sed -E 's/.* ft: ([0-9]+).*/\1/' <<<"$last")
  nfind=$(find "$findings" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  # minimised union: inputs of the work corpus that add coverage to the checked-in one
  before=$(find "$corpus" -type f | wc -l)
  ( cd "$build" && LLVM_PROFILE_FILE="$work.merge.profraw" nice -n 10 "$bin" -merge=1 -timeout=20 -rss_limit_mb=2048 "$corpus" "$work" ) >"$build/$t.merge.log" 2>&1 || true
  after=$(find "$corpus" -type f | wc -l)
  rate=$(( ${execs:-0} / (secs > 0 ? secs : 1) ))
  summary+=("$t: ${execs:-?} executions (~${rate}/s), cov ${cov:-?}, ft ${ft:-?}, corpus ${before} -> ${after} files, findings in fuzz/findings/$t: ${nfind}")
  grep -h 'TALUS FUZZ FINDING\|ERROR: AddressSanitizer\|runtime error\|Assertion\|ERROR: libFuzzer' "$log" | sort | uniq -c | sort -rn | head -20 || true
done

if [[ $coverage == 1 ]]; then
  objs=()
  rm -f "$build"/cov-*.profraw
  for t in "${targets[@]}"; do
    bin=$build/fuzz/$t
    [[ -x $bin ]] || bin=$build/$t
    # the corpus only (no findings): a finding aborts the replay and loses its profile
    ( cd "$build" && LLVM_PROFILE_FILE="$build/cov-$t.profraw" "$bin" -runs=0 -timeout=20 -rss_limit_mb=0 "$root/fuzz/corpus/$t" ) \
      >"$build/$t.cov.log" 2>&1 || echo "warning: $t replay of the corpus failed (see $build/$t.cov.log)"
    objs+=(-object "$bin")
  done
  llvm-profdata-14 merge -sparse "$build"/cov-*.profraw -o "$build/all.profdata"
  echo "== line coverage of include/talus and hil/ (corpus replay, ${targets[*]})"
  llvm-cov-14 report "${objs[@]:1}" -instr-profile="$build/all.profdata" "$root/include/talus" "$root/hil" | tail -60
fi

echo "== summary"
printf '%s\n' "${summary[@]}"
