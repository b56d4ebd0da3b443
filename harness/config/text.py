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
"""

from __future__ import annotations

from pathlib import Path

import yaml
from yaml.nodes import Node

from harness.config.limits import MAX_CONFIG_BYTES
from harness.config.validated import LocatedProblem
from harness.errors import AccessError, ConfigError, DataError, read_error
from harness.formats.hygiene import regular_file

__all__ = ["config_text", "parse", "too_deep"]


def _fail(source: str, message: str, line: int | None = None):
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


def too_deep(source: str):
    """The error for a config nested deeper than the parser's (or the checks') recursion allows."""
    _fail(source, "the config is nested too deeply to read (hundreds of levels); a config needs a few: flatten it")
