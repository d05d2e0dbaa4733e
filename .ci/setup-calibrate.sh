#!/usr/bin/env bash
# The probe's CI check (ctest "probe") runs a tiny model on CPU through
# tools/probe/gpuplan_probe.py with Debian's python3-torch.
set -euo pipefail
if ! /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-torch >/dev/null
fi
