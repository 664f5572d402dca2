#!/usr/bin/env bash
# Runs a command beside a CPU hog of twice the cores (Debian's stress-ng), so that what a busy runner would break
# breaks here too: `bash scripts/ci/with-cpu-hog.sh npm test`. Exits with the command's status. The hog starts before
# the command and is always stopped after it, whatever ends the command (success, failure, a signal), and never
# outlives HOG_LIMIT even if this script is killed outright.
set -euo pipefail

# stress-ng's own limit, in case nothing is left to stop it (this script killed by SIGKILL): longer than any CI run.
HOG_LIMIT=40m

if [ "$#" -eq 0 ]; then
  echo "usage: $0 <command> [args...]" >&2
  exit 2
fi
if ! command -v stress-ng >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stress-ng >/dev/null
fi

workers=$((2 * $(nproc)))
# Its own process group (setsid execs in place: $! is the group's leader), so stopping it stops every worker it forked.
# Its stderr is dropped: stopping it makes each worker warn that it "finished prematurely".
setsid stress-ng --cpu "$workers" --timeout "$HOG_LIMIT" --quiet 2>/dev/null &
hog=$!
command_pid=
stop_hog() {
  kill -TERM -- "-$hog" 2>/dev/null || true
  wait "$hog" 2>/dev/null || true
}
# A signal to this script ends the command too, then the hog (bash runs a trap only once `wait` returns, at once).
on_signal() {
  [ -n "$command_pid" ] && kill -TERM "$command_pid" 2>/dev/null
  exit "$1"
}
trap stop_hog EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
sleep 0.5
if ! kill -0 "$hog" 2>/dev/null; then
  echo "with-cpu-hog: stress-ng did not start" >&2
  exit 1
fi
echo "with-cpu-hog: stress-ng --cpu $workers on $(nproc) cores (process group $hog), beside: $*" >&2

"$@" &
command_pid=$!
status=0
wait "$command_pid" || status=$?
exit "$status"
