#!/usr/bin/env sh
# Create .venv with Python >= 3.12 and install everything pinned; a no-op when nothing changed.
#   scripts/setup.sh [--dev]
set -eu
cd "$(dirname "$0")/.."
stamp=.venv/.installed$( [ "${1:-}" = "--dev" ] && echo -dev || true)
want=$(cat requirements.txt requirements-nodeps.txt requirements-dev.txt pyproject.toml | cksum)
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
py=$(scripts/find-python)
[ -x .venv/bin/python ] || "$py" -m venv .venv
.venv/bin/python -m pip install --disable-pip-version-check -q --upgrade pip setuptools
# pyserini (installed --no-deps) goes last; out of the way while the rest is updated, pip has no
# reason to print its resolver report about the dependencies we leave out on purpose.
.venv/bin/python -m pip uninstall --disable-pip-version-check -y -q pyserini >/dev/null 2>&1 || true
scripts/install.sh ".venv/bin/python -m pip" "$@"
echo "$want" > "$stamp"
