#!/usr/bin/env bash
# End to end on a real SLURM: brings up a one-node cluster on this machine from Debian's
# packages (munge, slurmctld, slurmd; state under a temporary directory), submits
# tests/slurm/study.toml in 4 shards with `flitsim slurm --submit`, waits for the merge job,
# compares every table byte for byte with a single-machine run, and tears the cluster down,
# stopping only the daemons it started (by their pid files). The output directory's name holds
# what the shell or SLURM would read otherwise (quotes, $(...), backticks, ';', a glob, a '%'
# field of SLURM's log names): the jobs and their logs must find it, and nothing of it may run
# (no MARKER file appears).
# Usage: bash tests/slurm/e2e.sh   (from anywhere; needs root and apt-get, else it says why and
# skips; a cluster that cannot start here is also a skip, with its logs, while anything that
# fails once it runs is a failure). About 15 seconds after the build.
set -euo pipefail
cd "$(dirname "$0")/../.."
skip() { echo "tests/slurm/e2e.sh: SKIPPED: $1"; exit 0; }
[ "$(id -u)" = 0 ] || skip "not root (the cluster's daemons run as root and munge)"
command -v apt-get > /dev/null || skip "no apt-get to install SLURM from Debian's packages"
if ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y slurmd slurmctld slurm-client munge \
    > /dev/null 2>&1 || skip "apt-get install slurmd slurmctld slurm-client munge failed"
fi
# The flitsim to test: $FLITSIM_BIN (.ci/run passes the one `cargo test` built), else a release
# build.
bin=${FLITSIM_BIN:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=$(.ci/target-dir)/release/flitsim
fi

tmp=$(mktemp -d -t flitsim-slurm.XXXXXX)
chmod 755 "$tmp"
started_munge=0
cleanup() {
  local f
  for f in "$tmp/slurmd.pid" "$tmp/slurmctld.pid"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2> /dev/null || true
  done
  if [ $started_munge = 1 ] && [ -f "$tmp/munge/munged.pid" ]; then
    kill "$(cat "$tmp/munge/munged.pid")" 2> /dev/null || true
  fi
  sleep 1
  rm -rf "$tmp"
}
trap cleanup EXIT

# munge: as the munge user, with its directories owned by it.
if ! (munge -n | unmunge) > /dev/null 2>&1; then
  mkdir -p /run/munge /var/log/munge /var/lib/munge /etc/munge
  chown munge: /run/munge /var/log/munge /var/lib/munge /etc/munge
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2> /dev/null
  fi
  chown munge: /etc/munge/munge.key
  chmod 400 /etc/munge/munge.key
  install -d -o munge "$tmp/munge"
  runuser -u munge -- /usr/sbin/munged --pid-file="$tmp/munge/munged.pid"
  started_munge=1
  for _ in $(seq 50); do (munge -n | unmunge) > /dev/null 2>&1 && break; sleep 0.1; done
fi

host=$(hostname -s)
mkdir -p "$tmp/state" "$tmp/spool"
export SLURM_CONF=$tmp/slurm.conf
cat > "$SLURM_CONF" << CONF
ClusterName=flitsim
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
NodeName=$host CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
(munge -n | unmunge) > /dev/null 2>&1 || skip "munged does not answer on this machine"
slurmctld || skip "slurmctld does not start here"
slurmd || skip "slurmd does not start here"
for _ in $(seq 100); do
  sinfo -h -o %T 2> /dev/null | grep -qE '^(idle|mixed)' && break
  sleep 0.2
done
if ! sinfo -h -o %T 2> /dev/null | grep -qE '^(idle|mixed)'; then
  tail -3 "$tmp/slurmctld.log" "$tmp/slurmd.log" 2> /dev/null || true
  skip "the one-node cluster did not come up on this machine (logs above)"
fi

out="$tmp/cluster it's \"q\" \$(touch MARKER1) \`touch MARKER2\`; * 100%a z"
"$bin" slurm tests/slurm/study.toml --tasks 4 --cpus 1 --out "$out" --submit
deadline=$((SECONDS + 150))
until [ -f "$out/summary.csv" ] && ! squeue -h | grep -q .; do
  if [ $SECONDS -gt $deadline ]; then
    echo "the merge job did not finish in time"; squeue; cat "$out"/slurm/*.log || true; exit 1
  fi
  sleep 1
done
grep -q "merged 24 points" "$out/slurm/merge.log" || { cat "$out/slurm/merge.log"; exit 1; }
for i in 1 2 3 4; do
  [ -f "$out/slurm/shard-$i.log" ] || { echo "no log of task $i in $out/slurm"; exit 1; }
done
ran=$(find "$tmp" -name 'MARKER*'; ls -d ./MARKER* /MARKER* ~/MARKER* 2> /dev/null || true)
[ -z "$ran" ] || { echo "something in the scripts ran: $ran"; exit 1; }

"$bin" run tests/slurm/study.toml --out "$tmp/single" --quiet
n=0
for f in "$tmp/single"/*.csv; do
  cmp "$f" "$out/$(basename "$f")"
  n=$((n + 1))
done
echo "tests/slurm/e2e.sh: $n tables of 4 SLURM shards merged into \"$(basename "$out")\" equal the single-machine run's, byte for byte; no MARKER file: nothing in the path ran"
