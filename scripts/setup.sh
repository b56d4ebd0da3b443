#!/usr/bin/env sh
# Create .venv with Python >= 3.12 and install everything pinned; a no-op when nothing changed.
#   scripts/setup.sh [--dev]
set -eu
cd "$(dirname "$0")/.."
stamp=.venv/.installed$( [ "${1:-}" = "--dev" ] && echo -dev || true)
# what is installed, and what is compiled (scripts/bytecode.py: a change there runs set-up again)
want=$(cat requirements.txt requirements-nodeps.txt requirements-dev.txt pyproject.toml scripts/bytecode.py | cksum)
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
py=$(scripts/find-python)
[ -x .venv/bin/python ] || "$py" -m venv .venv
.venv/bin/python -m pip install --disable-pip-version-check -q --upgrade pip setuptools
# pyserini (installed --no-deps) goes last; out of the way while the rest is updated, pip has no
# reason to print its resolver report about the dependencies we leave out on purpose.
.venv/bin/python -m pip uninstall --disable-pip-version-check -y -q pyserini >/dev/null 2>&1 || true
# --no-compile: pip compiled every module of every package to bytecode ahead (pandas, scipy,
# pyarrow...), most of which the harness never imports (set-up in a fresh clone 37.6 -> 23.5 s
# without); scripts/bytecode.py then writes the bytecode of what the harness imports (7 s), which
# Python would not write itself under PYTHONDONTWRITEBYTECODE, compiling it again in every process;
# with --dev also of what the tests import (their collection, ~10 s, saves 6 s a pytest worker).
scripts/install.sh ".venv/bin/python -m pip" "$@" --no-compile
.venv/bin/python scripts/bytecode.py "$@"
echo "$want" > "$stamp"
