"""Warnings on the command line: each :class:`~harness.errors.HarnessWarning` is printed once to
stderr as ``harness: warning: ...`` (no Python file and line: the message names the input's)."""

from __future__ import annotations

import sys
import warnings
from contextlib import contextmanager

from harness.errors import HarnessWarning

__all__ = ["harness_warnings"]


@contextmanager
def harness_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("always", HarnessWarning)  # each is worth seeing; they are few
        shown = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, HarnessWarning):
                print(f"harness: warning: {message}", file=sys.stderr)
            else:
                shown(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield
