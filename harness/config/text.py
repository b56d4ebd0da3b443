"""A config file's text and its YAML node tree, before the schema looks at it: what can be read
as a config at all. Every failure is a ConfigError naming the file and, where there is one, the
line; none is a traceback.

- Only a regular file is opened: a FIFO would block ``validate`` for ever, ``/dev/zero`` would
  fill the memory.
- At most :data:`~harness.config.limits.MAX_CONFIG_BYTES` are read (a corpus or a run given as
  the config by mistake is refused at once instead of parsed for minutes).
- The text is UTF-8 (a leading byte-order mark is fine); an error names the line.
- A character YAML does not allow (NUL, most control characters: a binary file) names its line,
  as does a syntax error; a document nested too deeply for the parser is refused, not a
  RecursionError.
- The document is a mapping (:func:`open_config`), with the ``--set``/API overrides applied.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import yaml
from yaml.nodes import MappingNode, Node

from harness.config.limits import MAX_CONFIG_BYTES
from harness.config.nodes import Ctx, describe, is_null
from harness.config.overrides import Override, apply_overrides
from harness.config.validated import LocatedProblem
from harness.errors import AccessError, ConfigError, DataError, read_error
from harness.formats.hygiene import regular_file

__all__ = ["config_text", "parse", "too_deep", "ConfigTree", "open_config"]


def _fail(source: str, message: str, line: int | None = None) -> NoReturn:
    where = f"{source}:{line}" if line else None
    raise ConfigError(source, [LocatedProblem("", message, where)])


def config_text(file: Path, source: str) -> str:
    """The text of the config file ``file`` (``source``: how errors name it)."""
    try:
        regular_file(file, "file")
    except AccessError:
        raise  # the permissions (exit 3), as for every input file: not a problem of the config
    except DataError as e:
        reason = str(e).split(": ", 1)[1]
        _fail(source, f"config file not found: {file}" if reason == "file not found" else f"{file}: {reason}")
    try:
        with open(file, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as e:
        if isinstance(e, PermissionError):
            raise read_error(file, f"cannot read the config file: {e.strerror or e}", e) from None
        _fail(source, f"cannot read the config file {file}: {e.strerror or e}")
    if len(data) > MAX_CONFIG_BYTES:
        _fail(
            source,
            f"the config file is larger than {MAX_CONFIG_BYTES:,} bytes; a config is a short YAML "
            "file (is this a collection, run or qrels file given as the config?)",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        _fail(source, f"not UTF-8 (byte {data[e.start]:#04x}); save the config as UTF-8", line)


def parse(text: str, source: str) -> tuple[yaml.SafeLoader, Node | None]:
    """A loader over ``text`` and the node tree of its one YAML document (None when it is
    empty); the caller disposes of the loader."""
    try:
        loader = yaml.SafeLoader(text)  # checks every character at once
        return loader, loader.get_single_node()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        detail = " ".join(x for x in (e.context, e.problem) if x)
        _fail(source, f"YAML syntax error: {detail}", mark.line + 1 if mark else None)
    except yaml.reader.ReaderError as e:  # a character YAML refuses: NUL, most control characters
        line = text[: e.position].count("\n") + 1
        code = f"U+{e.character:04X}" if isinstance(e.character, int) else repr(e.character)
        _fail(source, f"character {code} is not allowed in YAML; a config is text (is this a binary file?)", line)
    except yaml.YAMLError as e:
        _fail(source, f"cannot read the YAML: {e}")
    except RecursionError:
        too_deep(source)


def too_deep(source: str) -> NoReturn:
    """The error for a config nested deeper than the parser's (or the checks') recursion allows."""
    _fail(source, "the config is nested too deeply to read (hundreds of levels); a config needs a few: flatten it")


@dataclass(frozen=True)
class ConfigTree:
    """A config read and parsed, not yet validated: ``root`` is its mapping (overrides applied),
    ``loader`` the YAML loader that made it (its constructor turns nodes into values)."""

    source: str  # how errors name the config (the path as given, or <config>)
    file: Path  # resolved; for a config in no file, where it would be (its paths resolve there)
    text: str
    in_memory: bool  # given as text (the Python API's dicts and strings), not read from `file`
    loader: yaml.SafeLoader
    root: MappingNode


@contextmanager
def open_config(
    path: str | os.PathLike, *, text: str | None = None, overrides: Sequence[Override] = (), keys: str = ""
) -> Iterator[ConfigTree]:
    """The config at ``path`` (or ``text``, placed at ``path``) as a :class:`ConfigTree` for the
    ``with`` block, its loader disposed after it. A config that is not a mapping is a ConfigError
    (``keys``: the top-level keys, for the message); a document nested too deeply for the checks
    inside the block is refused as one too deep for the parser."""
    source = str(path)
    file = Path(path).expanduser().resolve()
    in_memory = text is not None
    if text is None:
        text = config_text(file, source)
    loader, root = parse(text, source)
    try:
        if overrides and isinstance(root, MappingNode):
            apply_overrides(root, overrides, source, Path.cwd())
        if root is None or is_null(root):
            _fail(source, f"the config is empty; expected a mapping with keys {keys}", 1)
        if not isinstance(root, MappingNode):
            got = describe(Ctx(source, file.parent, loader), root)
            _fail(source, f"expected a mapping with keys {keys} at the top level, got {got}", root.start_mark.line + 1)
        yield ConfigTree(source, file, text, in_memory, loader, root)
    except RecursionError:  # the parser's limit is met first, but the checks recurse too
        too_deep(source)
    finally:
        loader.dispose()
