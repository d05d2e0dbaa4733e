#!/usr/bin/env bash
# The real checkers for gpuplan's launch files (tests/handoffs): Slurm (a throwaway controller
# with two fake 8-GPU nodes, for `sbatch --test-only`), shellcheck, Debian's PyTorch (torchrun's
# argument parser), python3-yaml/jsonschema, zsh and fish (completion syntax), groff (man page).
# Usage: .ci/setup-handoffs.sh   -> installs, starts munge + slurmctld, writes the config to
# $GPUPLAN_SLURM_DIR (default /tmp/gpuplan-slurm); tests find it through SLURM_CONF.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
PACKAGES="slurm-wlm munge shellcheck python3-torch python3-yaml python3-jsonschema zsh fish groff-base"
missing=""
for p in $PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [[ -n $missing && $(id -u) -eq 0 ]]; then
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
DIR=${GPUPLAN_SLURM_DIR:-/tmp/gpuplan-slurm}
mkdir -p "$DIR/state" "$DIR/spool/gpunode1" "$DIR/spool/gpunode2" "$DIR/log" "$DIR/dev"
# Stand-ins for /dev/nvidiaN: slurmd accepts only character or block devices as GPU files
# (a regular file is refused); these have /dev/null's numbers, so nothing can use them.
for i in 0 1 2 3 4 5 6 7; do
  [[ -c $DIR/dev/gpu$i ]] || { rm -f "$DIR/dev/gpu$i"; mknod "$DIR/dev/gpu$i" c 1 3; }
done
chown -R slurm:slurm "$DIR" 2>/dev/null || true
# Two slurmd on this host (-N NAME, one port each), each node with 8 fake GPUs: the controller
# accepts or refuses a job's shape, and a 2-node job really runs (a stub in place of torchrun).
cat >"$DIR/slurm.conf" <<CONF
ClusterName=gpuplan-ci
SlurmctldHost=$(hostname -s)
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
SlurmUser=slurm
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmdPidFile=$DIR/slurmd.%n.pid
SlurmdLogFile=$DIR/log/slurmd.%n.log
MailProg=/bin/true
MpiDefault=none
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=gpunode1 NodeHostname=localhost Port=16821 CPUs=16 RealMemory=64000 Gres=gpu:8 State=UNKNOWN
NodeName=gpunode2 NodeHostname=localhost Port=16822 CPUs=16 RealMemory=64000 Gres=gpu:8 State=UNKNOWN
PartitionName=gpu Nodes=gpunode[1-2] Default=YES MaxTime=INFINITE State=UP
CONF
cat >"$DIR/gres.conf" <<CONF
AutoDetect=off
NodeName=gpunode[1-2] Name=gpu File=$DIR/dev/gpu[0-7]
CONF
# munge: a key if the package did not make one, then the daemon.
if [[ ! -s /etc/munge/munge.key ]]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
  chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
fi
mkdir -p /run/munge && chown munge:munge /run/munge
pgrep -x munged >/dev/null || su -s /bin/sh munge -c munged || munged --force
export SLURM_CONF=$DIR/slurm.conf
if ! scontrol ping 2>/dev/null | grep -q UP; then
  slurmctld -f "$DIR/slurm.conf"
  for _ in $(seq 1 30); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 1; done
fi
scontrol ping | grep -q UP || { cat "$DIR/log/slurmctld.log" >&2; exit 1; }
for n in gpunode1 gpunode2; do
  [[ -f $DIR/slurmd.$n.pid ]] && kill -0 "$(cat "$DIR/slurmd.$n.pid")" 2>/dev/null || slurmd -N "$n" -f "$DIR/slurm.conf"
done
for _ in $(seq 1 30); do
  [[ $(sinfo -h -o %t | sort -u) == idle ]] && break
  scontrol update nodename=gpunode1,gpunode2 state=resume 2>/dev/null || true
  sleep 1
done
sinfo -h -o %t | grep -qx idle || { sinfo >&2; tail -5 "$DIR/log/slurmctld.log" >&2; exit 1; }
echo "slurmctld up: SLURM_CONF=$DIR/slurm.conf"
