"""What a config key is: :class:`Key`, the node of the schema tree (``harness.config.schema``)
that validation, the reference and the JSON Schema all walk."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Key"]


@dataclass(frozen=True)
class Key:
    """One config key. ``type`` selects its check (see ``harness.config.nodes.BASE_CHECKS``) and its reference row.

    Path keys: ``path_kind`` is "file", "dir" or None (either); ``must_exist`` says whether it
    must already exist. Sections (``type="section"``) hold their ``keys``; a section with a
    ``shorthand`` may also be written as a plain string, which then sets that one key. Numbers
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
    default_text: str | None = None

    def key(self, name: str) -> Key | None:
        return next((k for k in self.keys if k.name == name), None)
