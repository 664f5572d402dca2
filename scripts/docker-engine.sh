#!/usr/bin/env bash
# Starts a Docker engine for the container tests (clients/container/) when none answers, and waits until it does.
#
#   bash scripts/docker-engine.sh        # idempotent: does nothing when `docker version` already reaches an engine
#
# Made for a sandboxed Debian machine run as root, with no registry and no network but loopback: no bridge and no
# iptables (containers use the host's network), overlay2 when the kernel mounts it here, else fuse-overlayfs, else vfs.
# Installs Debian's docker.io when dockerd or the docker CLI is missing. Exits non-zero, saying why on stderr, when
# no engine answers in the end.
#
# Settings (environment): DOCKER_ENGINE_DATA_ROOT (default /var/lib/docker), DOCKER_ENGINE_LOG (default
# /var/log/dockerd.log), DOCKER_ENGINE_STORAGE_DRIVER (default: chosen as above), DOCKER_ENGINE_WAIT_S (default 60).
set -euo pipefail

DATA_ROOT=${DOCKER_ENGINE_DATA_ROOT:-/var/lib/docker}
LOG=${DOCKER_ENGINE_LOG:-/var/log/dockerd.log}
WAIT_S=${DOCKER_ENGINE_WAIT_S:-60}
PIDFILE=/var/run/docker.pid

say() { echo "docker-engine: $*" >&2; }
fail() {
  say "$*"
  exit 1
}
# `docker version` reaches the engine only when the server part answers; bounded so a wedged socket cannot hang us.
answers() { timeout 5 docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }
server_version() { timeout 5 docker version --format '{{.Server.Version}} (API {{.Server.APIVersion}})' 2>/dev/null; }

if command -v docker >/dev/null && answers; then
  say "an engine already answers: Docker $(server_version)"
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then fail "no engine answers, and starting dockerd needs root (this is uid $(id -u))"; fi
if [[ -n ${DOCKER_HOST:-} && ${DOCKER_HOST} != unix:///var/run/docker.sock && ${DOCKER_HOST} != unix:///run/docker.sock ]]; then
  fail "DOCKER_HOST=${DOCKER_HOST} does not answer, and this script only starts an engine on the default socket; unset DOCKER_HOST or start that engine"
fi

if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null; then
  say "dockerd or the docker CLI is missing: installing Debian's docker.io"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || fail "apt-get update failed: cannot install docker.io"
  apt-get install -y -qq --no-install-recommends docker.io >&2 || fail "apt-get install docker.io failed"
  command -v dockerd >/dev/null || fail "docker.io is installed but dockerd is still not on PATH ($PATH)"
fi

# Whether a pid is a live process (not a zombie: PID 1 on these machines does not reap orphans, so a killed dockerd
# stays one), optionally with a given command name.
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  [[ $(awk '{print $1}' <<<"${stat##*)}") != [ZX] ]] || return 1
  [[ -z ${2:-} || $(cat "/proc/$1/comm" 2>/dev/null) == "$2" ]]
}

# A dockerd may be running but still starting (or wedged): wait for it rather than start a second one on its pidfile.
running_pid=''
if [[ -s $PIDFILE ]] && alive "$(cat "$PIDFILE")" dockerd; then running_pid=$(cat "$PIDFILE"); fi

# Whether the kernel mounts overlayfs on the filesystem holding the data root (not the case on top of another overlay).
overlay_mounts() {
  local check
  mkdir -p "$DATA_ROOT"
  check=$(mktemp -d "$DATA_ROOT/.overlay-check.XXXXXX")
  mkdir -p "$check/lower" "$check/upper" "$check/work" "$check/merged"
  local ok=1
  if mount -t overlay overlay -o "lowerdir=$check/lower,upperdir=$check/upper,workdir=$check/work" "$check/merged" 2>/dev/null; then
    umount "$check/merged"
    ok=0
  fi
  rm -rf "$check"
  return $ok
}

if [[ -n $running_pid ]]; then
  say "dockerd (pid $running_pid) is running but does not answer yet: waiting for it"
  dockerd_pid=$running_pid
else
  driver=${DOCKER_ENGINE_STORAGE_DRIVER:-}
  if [[ -z $driver ]]; then
    if overlay_mounts; then
      driver=overlay2
    elif command -v fuse-overlayfs >/dev/null && [[ -c /dev/fuse ]]; then
      driver=fuse-overlayfs
    else
      driver=vfs
    fi
  fi
  mkdir -p "$(dirname "$LOG")"
  say "starting dockerd (storage driver $driver, data root $DATA_ROOT, log $LOG)"
  # No bridge and no iptables: nothing here may change the host's network; containers run with --network host.
  # setsid + nohup: the engine outlives this script and the shell that ran it.
  setsid nohup dockerd \
    --bridge=none --iptables=false --ip6tables=false \
    --storage-driver="$driver" --data-root="$DATA_ROOT" --pidfile="$PIDFILE" \
    >>"$LOG" 2>&1 </dev/null &
  dockerd_pid=$!
fi

started=$SECONDS
while ! answers; do
  if ! alive "$dockerd_pid"; then
    say "dockerd exited before it answered; the end of $LOG:"
    tail -n 25 "$LOG" >&2 || true
    exit 1
  fi
  if ((SECONDS - started >= WAIT_S)); then
    say "dockerd (pid $dockerd_pid) did not answer within ${WAIT_S} s; the end of $LOG:"
    tail -n 25 "$LOG" >&2 || true
    exit 1
  fi
  sleep 0.5
done
say "the engine answers after $((SECONDS - started)) s: Docker $(server_version)"
