#!/usr/bin/env bash
# Builds the peer timing harness: talus, Pinocchio 3.7.0, RBDL 3.3.1 and MuJoCo 2.2.2 timed side
# by side in one process (README.md beside this file says what is timed and how).
#
#   bash build.sh TALUS_DIR [options]
#
#   TALUS_DIR              a talus checkout (its top-level CMakeLists.txt); required
#   --work DIR             work directory (sources, builds, binary); default $PEERS_WORK or
#                          ${TMPDIR:-/tmp}/talus-peers
#   --pinocchio-git SRC    Pinocchio git repository: a local (bare) git dir or a clone URL
#   --rbdl-git SRC         RBDL git repository (dir or URL)
#   --urdfparser-git SRC   ORB-HD/URDF_Parser git repository (dir or URL; RBDL's urdfreader submodule)
#                          (defaults: $PINOCCHIO_GIT, $RBDL_GIT, $URDFPARSER_GIT, else the plain
#                          trees in TALUS_DIR/../shared/third_party; needed only until the sources
#                          are unpacked in the work dir)
#   --models DIR           robot URDFs (default TALUS_DIR/../shared/models)
#   --jobs N               parallel compile jobs (default 2; the harness TUs are large)
#   --flags "..."          optimisation flags for RBDL and the harness (default
#                          "-O3 -march=native -DNDEBUG"; never -ffast-math)
#   --bundle               also make WORK/bundle: the same objects linked with RPATH $ORIGIN/lib,
#                          every shared library they need except glibc's own (urdfdom, tinyxml,
#                          console_bridge, MuJoCo, libstdc++, libgcc_s) copied into bundle/lib,
#                          and the robot models in bundle/models (README.md, "Another machine")
#   --apt                  install the Debian packages it needs with apt-get first
#
# Result: WORK/build/harness/talus_peers (run: talus_peers --help). Rebuilds are incremental.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

# Pinned versions (README.md).
pinocchio_commit=c51d9234f9e34be97ed73bdb2772bd4a61469719   # v3.7.0
rbdl_commit=d2ca037245722504b60c90c439cb5ed028c2b33a        # v3.3.1 + 3 urdfreader fixes (master)
urdfparser_commit=8fcc3174743cf3e7561ffb6625524f8133161df4  # RBDL's submodule pin at that commit

talus_dir=""
work=${PEERS_WORK:-${TMPDIR:-/tmp}/talus-peers}
# Defaults below (after the arguments): TALUS_DIR/../shared/third_party/... and
# TALUS_DIR/../shared/models (this copy lives in talus's bench/peers/harness).
pinocchio_git=${PINOCCHIO_GIT:-}
rbdl_git=${RBDL_GIT:-}
urdfparser_git=${URDFPARSER_GIT:-}
models_dir=""
jobs=2
flags="-O3 -march=native -DNDEBUG"
bundle=0
apt=0
while [ $# -gt 0 ]; do
  case "$1" in
    --work) work=$2; shift 2 ;;
    --pinocchio-git) pinocchio_git=$2; shift 2 ;;
    --rbdl-git) rbdl_git=$2; shift 2 ;;
    --urdfparser-git) urdfparser_git=$2; shift 2 ;;
    --models) models_dir=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --flags) flags=$2; shift 2 ;;
    --bundle) bundle=1; shift ;;
    --apt) apt=1; shift ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    -*) echo "build.sh: unknown option $1" >&2; exit 2 ;;
    *) if [ -z "$talus_dir" ]; then talus_dir=$1; shift; else echo "build.sh: extra argument $1" >&2; exit 2; fi ;;
  esac
done
if [ -z "$talus_dir" ] || [ ! -f "$talus_dir/CMakeLists.txt" ] || [ ! -d "$talus_dir/include/talus" ]; then
  echo "build.sh: give the talus checkout as the first argument (bash build.sh TALUS_DIR)" >&2
  exit 2
fi
talus_dir=$(cd "$talus_dir" && pwd)
shared=$talus_dir/../shared
[ -n "$pinocchio_git" ] || pinocchio_git=$shared/third_party/pinocchio
[ -n "$rbdl_git" ] || rbdl_git=$shared/third_party/rbdl
[ -n "$urdfparser_git" ] || urdfparser_git=$shared/third_party/rbdl/addons/urdfreader/thirdparty/urdfparser
[ -n "$models_dir" ] || models_dir=$shared/models
if [ ! -d "$models_dir" ]; then
  echo "build.sh: no models directory $models_dir (give --models DIR)" >&2
  exit 2
fi
models_dir=$(cd "$models_dir" && pwd)
case "$flags" in *fast-math*) echo "build.sh: no -ffast-math" >&2; exit 2 ;; esac
mkdir -p "$work"
work=$(cd "$work" && pwd)
t_start=$(date +%s)
log() { printf '[build.sh %4ds] %s\n' $(( $(date +%s) - t_start )) "$*"; }

# --- Debian packages --------------------------------------------------------------------------
pkgs="g++ cmake git libeigen3-dev libboost-dev liburdfdom-dev libmujoco-dev"
if [ "$apt" = 1 ]; then
  apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkgs >/dev/null
fi
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  echo "build.sh: missing Debian packages:$missing (apt-get install$missing, or rerun with --apt)" >&2
  exit 1
fi

# --- sources ----------------------------------------------------------------------------------
# unpack NAME SRC COMMIT DEST: the tree of COMMIT from SRC (git dir or URL) into DEST, once.
unpack() {
  local name=$1 src=$2 commit=$3 dest=$4
  if [ -f "$dest/.commit" ] && [ "$(cat "$dest/.commit")" = "$commit" ]; then return 0; fi
  if [ -z "$src" ]; then
    echo "build.sh: no $name sources in $dest: give --$name-git (a git dir or URL)" >&2
    exit 1
  fi
  # A plain source tree (../third_party/<name>, already at the pinned release): copy it.
  if [ -d "$src" ] && [ ! -d "$src/.git" ] && [ ! -f "$src/HEAD" ]; then
    rm -rf "$dest"
    mkdir -p "$dest"
    cp -a "$src/." "$dest/"
    echo "$commit" >"$dest/.commit"
    log "copied $name from $src"
    return 0
  fi
  local gitdir=$src
  if [ ! -d "$src" ]; then
    gitdir="$work/git/$name.git"
    [ -d "$gitdir" ] || git clone -q --bare "$src" "$gitdir"
  elif [ -d "$src/.git" ]; then
    gitdir="$src/.git"
  fi
  git --git-dir="$gitdir" cat-file -e "$commit^{commit}" 2>/dev/null || {
    echo "build.sh: $name: commit $commit not in $src" >&2
    exit 1
  }
  rm -rf "$dest"
  mkdir -p "$dest"
  git --git-dir="$gitdir" archive "$commit" | tar -x -C "$dest"
  echo "$commit" >"$dest/.commit"
  log "unpacked $name $commit"
}
unpack pinocchio "$pinocchio_git" "$pinocchio_commit" "$work/src/pinocchio"
unpack rbdl "$rbdl_git" "$rbdl_commit" "$work/src/rbdl"
unpack urdfparser "$urdfparser_git" "$urdfparser_commit" "$work/src/rbdl/addons/urdfreader/thirdparty/urdfparser"

# --- Pinocchio: the three headers its CMake (jrl-cmakemodules) would generate -------------------
# Written from jrl-cmakemodules' config.hh.cmake / deprecated.hh.cmake / warning.hh.cmake for a
# library used without its compiled part (PINOCCHIO_STATIC: no visibility attributes).
gen="$work/gen/pinocchio/include/pinocchio"
mkdir -p "$gen"
cat >"$gen/config.hpp.new" <<'EOF'
// Generated by bench/peers/harness/build.sh (stands in for jrl-cmakemodules' config.hh.cmake).
#ifndef PINOCCHIO_CONFIG_HH
#define PINOCCHIO_CONFIG_HH
#define PINOCCHIO_VERSION_UNKNOWN_TAG 0
#define PINOCCHIO_VERSION "3.7.0"
#define PINOCCHIO_MAJOR_VERSION 3
#define PINOCCHIO_MINOR_VERSION 7
#define PINOCCHIO_PATCH_VERSION 0
#define PINOCCHIO_VERSION_AT_LEAST(major, minor, patch)                                           \
  (PINOCCHIO_MAJOR_VERSION > major                                                                \
   || (PINOCCHIO_MAJOR_VERSION >= major                                                           \
       && (PINOCCHIO_MINOR_VERSION > minor                                                        \
           || (PINOCCHIO_MINOR_VERSION >= minor && PINOCCHIO_PATCH_VERSION >= patch))))
#define PINOCCHIO_VERSION_AT_MOST(major, minor, patch)                                            \
  (PINOCCHIO_MAJOR_VERSION < major                                                                \
   || (PINOCCHIO_MAJOR_VERSION <= major                                                           \
       && (PINOCCHIO_MINOR_VERSION < minor                                                        \
           || (PINOCCHIO_MINOR_VERSION <= minor && PINOCCHIO_PATCH_VERSION <= patch))))
#define PINOCCHIO_DLLIMPORT
#define PINOCCHIO_DLLEXPORT
#define PINOCCHIO_DLLLOCAL
#define PINOCCHIO_DLLAPI
#define PINOCCHIO_LOCAL
#define PINOCCHIO_EXPLICIT_INSTANTIATION_DECLARATION extern template
#define PINOCCHIO_EXPLICIT_INSTANTIATION_DECLARATION_DLLAPI
#define PINOCCHIO_EXPLICIT_INSTANTIATION_DEFINITION_DLLAPI
#endif
EOF
cat >"$gen/deprecated.hpp.new" <<'EOF'
// Generated by bench/peers/harness/build.sh (stands in for jrl-cmakemodules' deprecated.hh.cmake).
#ifndef PINOCCHIO_DEPRECATED_HH
#define PINOCCHIO_DEPRECATED_HH
#define PINOCCHIO_DEPRECATED [[deprecated]]
#define PINOCCHIO_DEPRECATED_MESSAGE(message) [[deprecated(#message)]]
#ifndef PINOCCHIO_PRAGMA
#define PINOCCHIO_PRAGMA(X) _Pragma(#X)
#endif
#define PINOCCHIO_DEPRECATED_HEADER(MSG) PINOCCHIO_PRAGMA(GCC warning MSG)
#endif
EOF
cat >"$gen/warning.hpp.new" <<'EOF'
// Generated by bench/peers/harness/build.sh (stands in for jrl-cmakemodules' warning.hh.cmake).
#ifndef PINOCCHIO_WARNING_HH
#define PINOCCHIO_WARNING_HH
#define PINOCCHIO_WARN_STRINGISE_IMPL(x) #x
#define PINOCCHIO_WARN_STRINGISE(x) PINOCCHIO_WARN_STRINGISE_IMPL(x)
#define PINOCCHIO_WARN(exp) ("WARNING: " exp)
#endif
EOF
# pinocchio/parsers/config.hpp: Pinocchio 3 generates one per component library; the URDF
# parser's (pinocchio_parsers: PINOCCHIO_PARSERS_DLLAPI on its functions) is needed here.
mkdir -p "$gen/parsers"
cat >"$gen/parsers/config.hpp.new" <<'EOF'
// Generated by bench/peers/harness/build.sh (stands in for jrl-cmakemodules' config.hh.cmake,
// LIBRARY_NAME PINOCCHIO_PARSERS, used without its compiled part).
#ifndef PINOCCHIO_PARSERS_CONFIG_HH
#define PINOCCHIO_PARSERS_CONFIG_HH
#define PINOCCHIO_PARSERS_VERSION "3.7.0"
#define PINOCCHIO_PARSERS_DLLIMPORT
#define PINOCCHIO_PARSERS_DLLEXPORT
#define PINOCCHIO_PARSERS_DLLLOCAL
#define PINOCCHIO_PARSERS_DLLAPI
#define PINOCCHIO_PARSERS_LOCAL
#endif
EOF
for f in config deprecated warning parsers/config; do  # keep the old file (and its mtime) when unchanged
  if cmp -s "$gen/$f.hpp.new" "$gen/$f.hpp"; then rm "$gen/$f.hpp.new"; else mv "$gen/$f.hpp.new" "$gen/$f.hpp"; fi
done

# --- RBDL (static, with its URDF reader) ------------------------------------------------------
rbdl_build="$work/build/rbdl"
if [ ! -f "$rbdl_build/CMakeCache.txt" ] || ! grep -qF "CMAKE_CXX_FLAGS_RELEASE:STRING=$flags" "$rbdl_build/CMakeCache.txt"; then
  log "configuring RBDL"
  cmake -S "$work/src/rbdl" -B "$rbdl_build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="$flags" -DRBDL_BUILD_STATIC=ON -DRBDL_BUILD_ADDON_URDFREADER=ON \
    -DRBDL_BUILD_EXECUTABLES=OFF -DRBDL_BUILD_TESTS=OFF -DRBDL_BUILD_PYTHON_WRAPPER=OFF \
    -DRBDL_ENABLE_LOGGING=OFF >"$work/rbdl-configure.log" 2>&1 || { tail -20 "$work/rbdl-configure.log"; exit 1; }
fi
log "building RBDL (-j$jobs)"
cmake --build "$rbdl_build" -j"$jobs" --target rbdl-static rbdl_urdfreader-static >"$work/rbdl-build.log" 2>&1 ||
  { tail -30 "$work/rbdl-build.log"; exit 1; }

# --- the harness ------------------------------------------------------------------------------
harness_build="$work/build/harness"
log "configuring the harness"
cmake -S "$here" -B "$harness_build" -DCMAKE_BUILD_TYPE=Release -DTALUS_DIR="$talus_dir" \
  -DPEERS_WORK="$work" -DPEERS_MODELS_DIR="$models_dir" -DPEERS_FLAGS="$flags" \
  -DPEERS_BUNDLE="$bundle" >"$work/harness-configure.log" 2>&1 || { tail -30 "$work/harness-configure.log"; exit 1; }
log "building the harness (-j$jobs)"
cmake --build "$harness_build" -j"$jobs" >"$work/harness-build.log" 2>&1 || { grep -E "error|Error" "$work/harness-build.log" | head -40; exit 1; }
bin="$harness_build/talus_peers"
log "built $bin"

if [ "$bundle" = 1 ]; then
  out="$work/bundle"
  rm -rf "$out"
  mkdir -p "$out/lib"
  cp "$harness_build/talus_peers_bundle" "$out/talus_peers"
  # every shared library the binary needs except glibc's own (libc, libm, ld-linux, ...)
  ldd "$out/talus_peers" | awk '/=> \//{print $3}' | while read -r so; do
    case "$(basename "$so")" in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*) ;;
      *) cp -L "$so" "$out/lib/" ;;
    esac
  done
  cp -r "$models_dir" "$out/models"
  chmod -R u+w "$out/models"
  cp "$harness_build/models/rbd_benchmarks/atlas_psd.urdf" "$out/models/rbd_benchmarks/"  # CMakeLists.txt
  log "bundle: $out (run: $out/talus_peers --models $out/models)"
  ldd "$out/talus_peers" | sed 's/^/  /'
fi
log "done"
