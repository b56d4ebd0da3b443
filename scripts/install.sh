#!/usr/bin/env sh
# Install the harness and its pinned dependencies with the given pip (the Docker image runs this too).
#   scripts/install.sh PIP [--dev] [PIP INSTALL OPTIONS...]
# (the Docker image passes --no-compile: the packages it installs carry no bytecode)
set -eu
pip="$1"; shift
dev=""
if [ "${1:-}" = "--dev" ]; then dev=1; shift; fi
here=$(cd "$(dirname "$0")/.." && pwd)
$pip install --disable-pip-version-check -q "$@" -r "$here/requirements.txt"
if [ -n "$dev" ]; then
  $pip install --disable-pip-version-check -q "$@" -r "$here/requirements-dev.txt"
fi
$pip install --disable-pip-version-check -q "$@" --no-deps --no-build-isolation -e "$here"
# pyserini last and without its dependencies: they pull torch and transformers, which we never
# import (we use only its Anserini jar). Installed last, pip has nothing left to resolve against it,
# so it prints no "dependency conflicts" report for the dependencies we leave out on purpose.
$pip install --disable-pip-version-check -q "$@" --no-deps -r "$here/requirements-nodeps.txt"
