#!/usr/bin/env bash
# Sets up a drtriton checkout from nothing, and does only what is missing when run again:
#   1. the Debian packages the C++ build needs (apt-get, only if one is missing),
#   2. .venv with the Python side (python/requirements.txt, again only when it changed),
#   3. build/ configured with CMake and Ninja (Release), then built.
# `make setup`, `make demo` and `make test` run it. Environment knobs:
#   PYTHON=python3.11        the interpreter that makes .venv (default python3)
#   DRTRITON_SKIP_APT=1      do not check or install Debian packages
#   BUILD_TYPE=Debug         the CMake build type of a new build/ (default Release)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PYTHON="${PYTHON:-python3}"
BUILD_TYPE="${BUILD_TYPE:-Release}"
VENV="$ROOT/.venv"
REQUIREMENTS="python/requirements.txt"
STAMP="$VENV/.drtriton-requirements.sha256"

APT_PACKAGES=(
  g++ make cmake ninja-build pkg-config clang-format python3-venv
  nlohmann-json3-dev libcli11-dev libfmt-dev libsqlite3-dev libcpp-httplib-dev
  libgtest-dev libbenchmark-dev
)
# Modules that must be importable from .venv (checked without importing them: fast).
PY_MODULES=(torch triton numpy pytest matplotlib transformers tokenizers peft tqdm scikit_build_core)

step_name="start"
step() {
  step_name="$1"
  echo "==> setup: $1"
}
on_error() {
  echo "setup.sh: FAILED while: $step_name (exit code $1)" >&2
  echo "setup.sh: fix the error above and run 'bash scripts/setup.sh' again." >&2
}
trap 'on_error $?' ERR

# --- 1. Debian packages --------------------------------------------------------------
if [[ "${DRTRITON_SKIP_APT:-0}" == "1" ]]; then
  echo "==> setup: skipping Debian packages (DRTRITON_SKIP_APT=1)"
else
  step "checking Debian packages"
  if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "setup.sh: dpkg-query not found: this script installs packages on Debian only." >&2
    echo "setup.sh: install the equivalents of: ${APT_PACKAGES[*]}" >&2
    echo "setup.sh: then run again with DRTRITON_SKIP_APT=1." >&2
    exit 1
  fi
  missing=()
  for pkg in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  if ((${#missing[@]} == 0)); then
    echo "    all ${#APT_PACKAGES[@]} Debian packages are installed"
  else
    step "installing Debian packages: ${missing[*]}"
    SUDO=()
    if [[ "$(id -u)" -ne 0 ]]; then
      if ! command -v sudo >/dev/null 2>&1; then
        echo "setup.sh: not root and no sudo: install as root: apt-get install ${missing[*]}" >&2
        exit 1
      fi
      SUDO=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${SUDO[@]}" apt-get update
    "${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
  fi
fi

# --- 2. Python virtual environment ----------------------------------------------------
step "checking the Python interpreter ($PYTHON)"
[[ -f "$REQUIREMENTS" ]] || { echo "setup.sh: $REQUIREMENTS is missing from the checkout" >&2; exit 1; }
if ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "setup.sh: '$PYTHON' not found; set PYTHON=/path/to/python3.11" >&2
  exit 1
fi
"$PYTHON" -c 'import sys; assert sys.version_info >= (3, 10), sys.version' || {
  echo "setup.sh: drtriton needs Python >= 3.10 (3.11 for the local torch wheel)" >&2
  exit 1
}

if [[ -x "$VENV/bin/python" ]] && ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
  echo "    .venv is broken (its interpreter does not run): making it again"
  rm -rf "$VENV"
fi
if [[ ! -x "$VENV/bin/python" ]]; then
  step "creating .venv with $("$PYTHON" --version 2>&1)"
  "$PYTHON" -m venv "$VENV"
fi

# The stamp holds a hash of what decides .venv's contents; a changed requirements file or
# interpreter reinstalls, and so does a module that is missing.
want_hash="$( {
  cat "$REQUIREMENTS"
  "$VENV/bin/python" --version 2>&1
} | sha256sum | cut -d' ' -f1)"
have_hash="$(cat "$STAMP" 2>/dev/null || true)"
modules_ok=1
"$VENV/bin/python" - "${PY_MODULES[@]}" <<'EOF' || modules_ok=0
import importlib.util, sys
missing = [m for m in sys.argv[1:] if importlib.util.find_spec(m) is None]
if missing:
    print("    not importable from .venv: " + ", ".join(missing))
    sys.exit(1)
EOF

if [[ "$want_hash" == "$have_hash" && "$modules_ok" == 1 ]]; then
  echo "==> setup: .venv is up to date with $REQUIREMENTS"
else
  step "installing $REQUIREMENTS into .venv (a few minutes the first time)"
  rm -f "$STAMP"
  "$VENV/bin/python" -m pip install -r "$REQUIREMENTS"
  step "checking that torch and triton import"
  "$VENV/bin/python" -c 'import torch, triton; print("    torch", torch.__version__, "| triton", triton.__version__)'
  echo "$want_hash" >"$STAMP"
fi

# python/ goes on .venv's import path through a .pth file, so `import drtriton` sees the
# working tree as it is edited (what an editable install does, with no build step).
site_packages="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
pth="$site_packages/drtriton-source.pth"
if [[ "$(cat "$pth" 2>/dev/null || true)" != "$ROOT/python" ]]; then
  step "putting $ROOT/python on .venv's import path ($pth)"
  echo "$ROOT/python" >"$pth"
fi

# --- 3. C++ build ---------------------------------------------------------------------
if [[ -f build/CMakeCache.txt ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' build/CMakeCache.txt; then
  echo "    build/ was configured with another generator: configuring it again with Ninja"
  rm -rf build/CMakeCache.txt build/CMakeFiles
fi
# `pip install .` (pyproject.toml) builds in build/ too, without the C++ tests: turn them on.
if [[ -f build/build.ninja ]] &&
  grep -qiE '^DRTRITON_BUILD_TESTS:BOOL=(OFF|FALSE|NO|N|0)$' build/CMakeCache.txt; then
  step "configuring build/ again with the C++ tests (pip install turned them off)"
  cmake -S . -B build -DDRTRITON_BUILD_TESTS=ON
fi
if [[ ! -f build/build.ninja ]]; then
  step "configuring build/ (CMake, Ninja, $BUILD_TYPE)"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DDRTRITON_BUILD_TESTS=ON \
    -DDRTRITON_PYTHON="$VENV/bin/python"
fi
step "building (cmake --build build)"
cmake --build build

echo "==> setup: done (binaries in build/, Python in .venv/)"
