"""What a config key is: :class:`Key`, the node of the schema tree (``harness.config.schema``)
that validation, the reference and the JSON Schema all walk, and how both validation and the
reference write a key's place (:func:`join_path`) and its range (:func:`range_text`)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from harness.specs.params import format_number

__all__ = ["Key", "join_path", "range_text"]


@dataclass(frozen=True)
class Key:
    """One config key. ``type`` selects its check (see ``harness.config.nodes.BASE_CHECKS``) and its reference row.

    Path keys: ``path_kind`` is "file", "dir" or None (either); ``must_exist`` says whether it
    must already exist. Sections (``type="section"``) hold their ``keys``; a section with a
    ``shorthand`` may also be written as a plain string, which then sets that one key; a ``switch``
    section may also be written ``true`` (on, with its defaults) or ``false`` (off). Numbers
    lie in [minimum, maximum], or in (minimum, maximum) when ``exclusive``. ``default_text``
    describes a default that depends on other keys (for the reference).
    """

    name: str
    type: str
    doc: str
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    exclusive: bool = False
    pattern: str | None = None
    path_kind: str | None = None
    must_exist: bool = False
    keys: tuple[Key, ...] = ()
    shorthand: str | None = None
    switch: bool = False
    default_text: str | None = None

    def key(self, name: str) -> Key | None:
        return next((k for k in self.keys if k.name == name), None)


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def join_path(path: str, key: str) -> str:
    """A key's place in messages: ``compare.alpha``, or ``expect["dirichlet mu=500"]`` for a key that is no name."""
    if _IDENT.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"


def range_text(key: Key) -> str:
    """'>= 0', '(0, 1)', '[0, 1]'."""
    assert key.minimum is not None  # asked only of a number key with a range
    if key.maximum is None:
        return f"{'>' if key.exclusive else '>='} {format_number(key.minimum)}"
    lo, hi = "(["[not key.exclusive], ")]"[not key.exclusive]
    return f"{lo}{format_number(key.minimum)}, {format_number(key.maximum)}{hi}"
