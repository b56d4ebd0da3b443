"""Arrow's compute kernels called by name, through pyarrow's function registry: the numbers the
run and qrels readers parse (:mod:`harness.formats.tokenizer`) and the text the run writer joins
(:mod:`harness.formats.runs`).

``pyarrow.compute`` is the registry's Python face: importing it builds a wrapper with a parsed
docstring for each of its hundreds of kernels (30 ms of a command's start on the 2-core test
machine, ``import numpy, pyarrow.compute`` 154 ms against 126 ms for ``import numpy,
pyarrow._compute``, medians of 15, quiet), and the first number a command parsed paid it.
Each wrapper only calls ``call_function(name, args, options)`` of ``pyarrow._compute``, which is
what the functions here call: the same kernels with the same options, so every number and every
line of text is the one ``pyarrow.compute`` gives. An array's own ``.cast()`` imports
``pyarrow.compute`` too: the harness casts with :func:`cast` (tests/test_imports.py checks that
reading and writing runs leaves ``pyarrow.compute`` unloaded)."""

from __future__ import annotations

from harness import lazy

compute = lazy.module("pyarrow._compute")

__all__ = ["cast", "call"]


def cast(array, arrow_type):
    """``pyarrow.compute.cast(array, arrow_type)``: a safe cast (a value that does not fit, or
    a text that is not a number, raises ``ArrowInvalid``)."""
    return compute.call_function("cast", [array], compute.CastOptions.safe(arrow_type))


def call(name: str, *args):
    """``pyarrow.compute.<name>(*args)`` with the kernel's default options."""
    return compute.call_function(name, list(args))
