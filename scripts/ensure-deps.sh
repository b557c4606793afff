#!/usr/bin/env bash
# Installs what Quiver's build, tests and demo need on Debian 12, only what is missing.
# Idempotent: a second run installs nothing and takes a second.
set -euo pipefail

#   scripts/ensure-deps.sh            everything
#   scripts/ensure-deps.sh --native   what the native builds, their tests and the format check need
#   scripts/ensure-deps.sh --rest     the rest: the cross and wasm toolchains, clang, Chromium and
#                                     the npm dev dependencies (npm test installs these in the
#                                     background while the native configurations build and run)
part="${1:-all}"
case "$part" in all|--native|--rest) ;; *) echo "ensure-deps: unknown argument $part" >&2; exit 2 ;; esac
NATIVE_PACKAGES=(
  cmake ninja-build g++ pkg-config
  googletest libgtest-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
  clang-format
)
REST_PACKAGES=(
  emscripten node-acorn
  g++-aarch64-linux-gnu qemu-user
  clang libclang-rt-14-dev
  chromium   # browser tests (driven by playwright-core from npm, never a downloaded browser)
)
case "$part" in
  all) APT_PACKAGES=("${NATIVE_PACKAGES[@]}" "${REST_PACKAGES[@]}") ;;
  --native) APT_PACKAGES=("${NATIVE_PACKAGES[@]}") ;;
  # With clang-19, which only the tests' relaxed-simd build needs (scripts/ensure-relaxed-toolchain.sh
  # would install it in the foreground of that build).
  --rest) APT_PACKAGES=("${REST_PACKAGES[@]}" clang-19) ;;
esac

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  echo "ensure-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "$part" = --native ] && exit 0
# npm dev dependencies (none are needed at run time).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if grep -q '"devDependencies"' "$root/package.json"; then
  # The edge-runtime tests run these binaries from the dev dependencies (npm 11 does not run
  # their install scripts, and they do not need them: TOOLCHAIN.md).
  runtimes=(node_modules/.bin/workerd node_modules/.bin/bun node_modules/.bin/esbuild node_modules/@deno/linux-x64-glibc/deno)
  missing_runtime=0
  for bin in "${runtimes[@]}"; do [ -x "$root/$bin" ] || missing_runtime=1; done
  if [ ! -d "$root/node_modules" ] || [ "$root/package.json" -nt "$root/node_modules/.package-lock.json" ] || ((missing_runtime)); then
    echo "ensure-deps: installing npm dev dependencies"
    (cd "$root" && npm install --no-audit --no-fund --loglevel=error)
  fi
fi
