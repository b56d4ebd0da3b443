#!/usr/bin/env bash
# `make docker-test`: build the image from this repository and check it against a local run.
#  1. installs what is missing (docker.io, docker-compose, mmdebstrap) when run as root;
#  2. uses the Docker engine the docker CLI reaches (DOCKER_HOST, or the default socket), or,
#     when there is none, starts its own dockerd in a scratch folder (its own data root, exec
#     root and socket; no iptables, no bridge) and stops exactly that process, by its PID, at
#     exit. Another daemon on the machine is never touched;
#  3. bootstraps the base (scripts/docker-base.sh) and builds the image (scripts/docker-build.sh,
#     the only step with a network);
#  4. prints the image's size and the start time of `docker run ... doctor` (docs/deployment.md figures),
#     then runs tests/test_docker_image.py: the demo with `docker run --network none`, every
#     `docker-compose run` command of docs/deployment.md (configs, compare, lab), the Python API and
#     every file reader and writer in the image, each compared with a local run; Thai against
#     Anserini in the image; file ownership; one Java, no shell; the image's size.
# Environment: HARNESS_DOCKERD_STORAGE (default overlay2; vfs where overlay mounts are refused,
# tried by itself when overlay2 fails), and those of docker-base.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "docker-test: $*" >&2; }

# 1. tools
need=()
engine_up() { docker info >/dev/null 2>&1; }
if ! command -v docker >/dev/null || { ! command -v dockerd >/dev/null && ! engine_up; }; then
  need+=(docker.io)
fi
command -v docker-compose >/dev/null || need+=(docker-compose)
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    say "missing ${need[*]}: install them (sudo apt-get install ${need[*]}) or run as root"
    exit 1
  fi
  say "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null   # with recommends: the set measured to work
fi

# 2. the engine
scratch=""
pid=""
stop_daemon() {  # only the dockerd this script started, by its PID
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    say "stopping the dockerd it started (pid $pid)"
    kill -TERM "$pid"
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    wait "$pid" 2>/dev/null || true
  fi
  pid=""
}
cleanup() {
  stop_daemon
  # the daemon unmounts its layers on exit but leaves its network namespace mounted
  [ -n "$scratch" ] || return 0
  grep -o " $scratch/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount 2>/dev/null || true
  rm -rf "$scratch" 2>/dev/null || say "left $scratch (still busy)"
}
start_daemon() {  # $1: storage driver
  rm -rf "${scratch:?}/data" "${scratch:?}/exec"
  dockerd --iptables=false --ip6tables=false --bridge=none --storage-driver="$1" \
    --data-root "$scratch/data" --exec-root "$scratch/exec" -H "unix://$scratch/docker.sock" \
    --pidfile "$scratch/dockerd.pid" >"$scratch/dockerd.log" 2>&1 &
  pid=$!
  export DOCKER_HOST="unix://$scratch/docker.sock"
  for _ in $(seq 120); do
    engine_up && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  say "dockerd --storage-driver=$1 did not come up; its log:"
  tail -n 20 "$scratch/dockerd.log" >&2
  stop_daemon
  return 1
}

if engine_up; then
  say "using the running Docker engine ($(docker info --format '{{.Name}} {{.ServerVersion}}'))"
else
  if [ "$(id -u)" != 0 ]; then
    say "no Docker engine is reachable; start one (or run as root: this script starts its own)"
    exit 1
  fi
  scratch=$(mktemp -d /tmp/harness-dockerd.XXXXXX)   # short: socket paths have a length limit
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  driver=${HARNESS_DOCKERD_STORAGE:-overlay2}
  if ! start_daemon "$driver"; then
    [ "$driver" != vfs ] || exit 1
    say "retrying with --storage-driver=vfs"
    start_daemon vfs
  fi
  say "started dockerd (pid $pid, $DOCKER_HOST, $(docker info --format '{{.Driver}}'))"
fi

# 3. base and image
t=$SECONDS
scripts/docker-base.sh
say "base ready in $((SECONDS - t)) s"; t=$SECONDS
scripts/docker-build.sh
image=$(sed -n 's/^[[:space:]]*image:[[:space:]]*\([^[:space:]]*\).*/\1/p' docker-compose.yml | head -1)
say "built $image in $((SECONDS - t)) s: $(docker image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}')"
times=()
for _ in 1 2 3 4 5; do   # the start-up figure of docs/deployment.md: the first run after the build, and the median
  t0=$(date +%s%N); docker run --rm --network none "$image" doctor >/dev/null; t1=$(date +%s%N)
  times+=("$(( (t1 - t0) / 1000000 ))")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
say "docker run --rm --network none $image doctor: first ${times[0]} ms, median of 5 $median ms"

# 4. the checks
HARNESS_DOCKER_IMAGE=$image scripts/pytest-tidy -q -p no:cacheprovider tests/test_docker_image.py  # nothing left in /tmp
