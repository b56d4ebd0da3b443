#!/usr/bin/env sh
# Install the harness and its pinned dependencies with the given pip (the Docker image runs this too).
#   scripts/install.sh PIP [--dev]
set -eu
pip="$1"; shift
here=$(cd "$(dirname "$0")/.." && pwd)
$pip install --disable-pip-version-check -q -r "$here/requirements.txt"
# pyserini without its dependencies: they pull torch and transformers, which we never import.
$pip install --disable-pip-version-check -q --no-deps -r "$here/requirements-nodeps.txt"
if [ "${1:-}" = "--dev" ]; then
  $pip install --disable-pip-version-check -q -r "$here/requirements-dev.txt"
fi
$pip install --disable-pip-version-check -q --no-deps --no-build-isolation -e "$here"
