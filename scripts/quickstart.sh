#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds gpuplan, and runs a real estimate on the shipped data.
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGES="cmake g++ ninja-build libcli11-dev nlohmann-json3-dev libfmt-dev libyaml-cpp-dev catch2 libsqlite3-dev libpq-dev libcurl4-openssl-dev"
missing=""
for p in $PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [[ -n "$missing" ]]; then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  echo "installing:$missing" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build
./build/gpuplan estimate --model llama-3.1-8b --method qlora --gpu rtx-4090 --gpu l4 --gpu h100-sxm
