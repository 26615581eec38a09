#!/usr/bin/env bash
# Checks that every C/C++ file git tracks (*.hpp *.cpp *.h *.c) is formatted as .clang-format
# says, with clang-format 14 (Debian 12's; tools/setup-debian.sh installs it). Changes nothing.
# Exit 0: all formatted; 1: the files listed are not; 2: clang-format missing or failing.
# Regions between "// clang-format off" and "// clang-format on" are left as written.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  echo "check-format: clang-format not found (apt-get install clang-format, or tools/setup-debian.sh)" >&2
  exit 2
fi
version=$(clang-format --version | grep -oE 'version [0-9]+' | grep -oE '[0-9]+' || true)
if [[ "${version}" != 14 ]]; then
  echo "check-format: warning: clang-format ${version:-?}, the style is set for 14: other versions may disagree" >&2
fi
mapfile -d '' files < <(git ls-files -z -- '*.hpp' '*.cpp' '*.h' '*.c')
if ((${#files[@]} == 0)); then
  echo "check-format: no C/C++ files"
  exit 0
fi
rc=0
out=$(printf '%s\0' "${files[@]}" | xargs -0 clang-format --style=file --dry-run -Werror 2>&1) || rc=$?
bad=$(grep -E ': error: code should be clang-formatted' <<<"${out}" | sed -E 's/:[0-9]+:[0-9]+: error: .*//' | sort -u || true)
if [[ -n "${bad}" ]]; then
  echo "check-format: $(wc -l <<<"${bad}") of ${#files[@]} files are not formatted:"
  sed 's/^/  /' <<<"${bad}"
  echo "fix: git ls-files -z -- '*.hpp' '*.cpp' '*.h' '*.c' | xargs -0 clang-format -i   (clang-format 14, from the repository root)"
  exit 1
fi
if ((rc != 0)); then
  echo "check-format: clang-format failed:" >&2
  echo "${out}" >&2
  exit 2
fi
echo "check-format: all ${#files[@]} C/C++ files formatted"
