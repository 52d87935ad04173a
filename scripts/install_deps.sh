#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages simctl needs, only those missing (idempotent).
# Extra packages named as arguments are installed too (scripts/fig9.sh asks for gnuplot-nox).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libsuitesparse-dev libmetis-dev libcjson-dev libpng-dev
      libopenblas-dev tetgen "$@")
missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "simctl: installing missing packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "simctl: error: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
