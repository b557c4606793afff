#!/usr/bin/env bash
# The tree's C++ format (.clang-format, clang-format 14 from Debian 12): every tracked C++ file
# must be as clang-format writes it. Prints the files that are not and exits non-zero.
# `scripts/check-format.sh --fix` rewrites them instead.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cc' | grep -v '^tests/fuzz/corpus/')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ "${#bad[@]}" -gt 0 ]; then
  echo "not formatted (run scripts/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "format: ${#files[@]} C++ files as .clang-format writes them"
