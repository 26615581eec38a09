#!/usr/bin/env bash
# Build weight of a user's source (issue 13): bench/build_weight/anymal_user.cpp (ANYmal C: every
# algorithm, three constrained solvers and two impulses on four feet) compiled header-only and
# against the compiled model library (talus_add_model(... COMPILED CONSTRAINT_ROWS 12)), at -O2,
# one compile at a time, each timed by /usr/bin/time (wall seconds, peak memory). Both programs
# are run: their checksums must agree to the last bit. Prints Markdown tables: the build
# weight, and the two executables' sizes.
#   bash tools/build-weight.sh [build dir]        (default build/build-weight)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/build-weight}
rm -rf "$build"
cmake -S bench/build_weight -B "$build" -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-O2 > /dev/null
cmake --build "$build" -j2 --target talus_urdf_gen > /dev/null
cmake --build "$build" -j2 --target anymal_header_only_generate anymal_compiled_generate > /dev/null
# One compile at a time (-j1): the times are not shared with another compiler.
cmake --build "$build" -j1 --target user_header_only > /dev/null
cmake --build "$build" -j1 --target anymal_compiled > /dev/null
cmake --build "$build" -j1 --target user_compiled > /dev/null
a=$("$build/user_header_only")
b=$("$build/user_compiled")
echo "header-only: $a"
echo "compiled:    $b"
[ "$a" = "$b" ] || { echo "build-weight: the two programs disagree" >&2; exit 1; }
lib_s=$(awk '{s += $1} END {printf "%.0f", s}' "$build/anymal_compiled.time")
lib_kb=$(awk '$3 > m {m = $3} END {print m}' "$build/anymal_compiled.time")
lib_n=$(wc -l < "$build/anymal_compiled.time")
echo
echo "| anymal_user.cpp at -O2 ($(g++ -dumpfullversion), $(nproc) cores) | wall s | peak MB |"
echo "|---|---|---|"
read -r s _ kb _ < "$build/user_header_only.time"
echo "| header-only (talus_add_model without COMPILED) | ${s} | $((kb / 1024)) |"
read -r s _ kb _ < "$build/user_compiled.time"
echo "| against the compiled model library | ${s} | $((kb / 1024)) |"
echo "| the compiled library itself, once per build ($lib_n units, serial sum / largest) | ${lib_s} | $((lib_kb / 1024)) |"
# What the user pays at link time: the executables' sizes (text / data / bss, bytes).
echo
echo "| executable | text | data | bss |"
echo "|---|---:|---:|---:|"
for t in user_header_only user_compiled; do
  read -r text data bss _ < <(size "$build/$t" | tail -1)
  echo "| $t | $text | $data | $bss |"
done
