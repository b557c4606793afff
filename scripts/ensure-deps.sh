#!/usr/bin/env bash
# Installs what Quiver's build, tests and demo need on Debian 12, only what is missing.
# Idempotent: a second run installs nothing and takes a second.
set -euo pipefail

APT_PACKAGES=(
  cmake ninja-build g++ pkg-config
  googletest libgtest-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
  emscripten node-acorn
  g++-aarch64-linux-gnu qemu-user
  clang libclang-rt-14-dev clang-format
  chromium   # browser tests (driven by playwright-core from npm, never a downloaded browser)
)

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
