"""Warnings on the command line: each :class:`~harness.errors.HarnessWarning` is printed once to
stderr as ``harness: warning: ...`` (no Python file and line: the message names the input's). And
one note, ``harness: note: ...``: the ir_metadata files a list of runs left out."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from contextlib import contextmanager

from harness.errors import HarnessWarning

__all__ = ["harness_warnings", "note_left_out"]


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


def note_left_out(descriptions: Sequence[str]) -> None:
    """One line on stderr naming how many ir_metadata files given with their runs (``compare``'s
    and ``fuse``'s RUN...) the verb leaves out (harness.formats.run_files.runs_and_descriptions),
    if any.

    The line, not a silent skip: the user named those files (a glob names them too), and 5 files
    given for 3 runs should not be a puzzle (fuse's "two runs or more", ``--weights``' one per
    run); one line, not one per file nor a warning (nothing in the result depends on them, and the
    output on stdout is the same as with the run files alone). The Python API leaves them out
    without a word: its caller builds the list in code."""
    if descriptions:
        n = len(descriptions)
        what = (
            f"{n} ir_metadata files given with the runs they describe"
            if n > 1
            else "the ir_metadata file given with the run it describes"
        )
        print(
            f"harness: note: left out {what}, not runs ({descriptions[0]}{', ...' if n > 1 else ''})",
            file=sys.stderr,
            flush=True,
        )
