"""What a run was made with beyond its config: the versions of the engine and the libraries
(:func:`harness.engine.lucene.versions`), the machine (CPU, RAM, operating system) and the
harness's own source (its git repository and commit, when installed from a checkout). Gathered
once per experiment by the run and search verbs (:func:`gather`), kept in the ExperimentResult,
written into manifest.json and each run's ir_metadata (harness.report.tables, harness.report.ir_metadata).

On Dask the machine is the one that ran ``harness run`` (the client's), not the workers'.
Nothing here fails a run: a fact that cannot be read is left out.
"""

from __future__ import annotations

import json
import os
import platform
import re
import struct
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

import harness
from harness import lazy
from harness.engine import lucene
from harness.experiment.result import ExperimentResult

metadata = lazy.module("importlib.metadata")  # how the harness was installed (harness.lazy)

__all__ = ["gather", "machine", "source", "checkout"]


def gather(result: ExperimentResult) -> ExperimentResult:
    """``result`` with its versions (the JVM started if it is not running, see
    :func:`harness.engine.lucene.versions`), its machine and the harness's source."""
    return replace(result, versions=lucene.versions(), platform={"machine": machine(), "source": source()})


def machine() -> dict:
    """The CPU (model, architecture, bits, logical cores), the RAM in bytes and the operating
    system (system, kernel release, distribution), as repro_eval's MetadataHandler reads them:
    /proc/cpuinfo's model name (py-cpuinfo's brand), ``os.cpu_count()``, the physical pages
    times their size, and /etc/os-release's PRETTY_NAME (else ``platform.version()``)."""
    out: dict = {
        "cpu": {
            "model": _cpu_model(),
            "architecture": platform.machine(),
            "bits": struct.calcsize("P") * 8,
            "cores": os.cpu_count(),
        },
        "os": {"system": platform.system(), "kernel": platform.release(), "distribution": _distribution()},
    }
    try:
        out["ram_bytes"] = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # no such sysconf name here (not Linux)
        pass
    return out


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "Hardware", "cpu model") and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _distribution() -> str:
    try:
        return platform.freedesktop_os_release()["PRETTY_NAME"]
    except (OSError, KeyError):
        return platform.version()


def source() -> dict:
    """The harness's own source, from its installation record (PEP 610's direct_url.json):
    installed from a git URL, that URL and the commit pip recorded; installed editable from a
    folder that is a git checkout holding the running code, the checkout's remote and the commit
    it is at now (:func:`checkout`). Otherwise (a wheel, a copy) nothing: {}."""
    try:
        record = metadata.distribution("harness").read_text("direct_url.json")
        direct = json.loads(record) if record else None
    except (metadata.PackageNotFoundError, ValueError, OSError):
        return {}
    if not isinstance(direct, dict) or not isinstance(direct.get("url"), str):
        return {}
    vcs = direct.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and isinstance(vcs.get("commit_id"), str):
        return {"repository": _public(direct["url"]), "commit": vcs["commit_id"]}
    editable = isinstance(direct.get("dir_info"), dict) and direct["dir_info"].get("editable") is True
    url = urlsplit(direct["url"])
    if not editable or url.scheme != "file":
        return {}
    folder = Path(unquote(url.path))
    if not Path(harness.__file__).resolve().is_relative_to(folder.resolve()):
        return {}  # the record names another folder than the code running
    return checkout(folder)


_HEX = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?\Z")  # a SHA-1 or SHA-256 object name


def checkout(folder: Path) -> dict:
    """{"repository": its remote's URL (origin's, else the first one's; none without a remote),
    "commit": the commit checked out} of the git checkout ``folder``, read from its files without
    a git binary: ``.git`` (a folder, or a worktree's "gitdir:" file and its ``commondir``),
    HEAD, the loose ref or packed-refs, and the config's remotes. {} when it is none, or when
    something cannot be read. Whether the working tree has changes since the commit is not told
    (that needs the index and every file)."""
    try:
        gitdir = folder / ".git"
        if gitdir.is_file():
            text = gitdir.read_text(encoding="utf-8").strip()
            if not text.startswith("gitdir:"):
                return {}
            gitdir = (folder / text.removeprefix("gitdir:").strip()).resolve()
        if not (gitdir / "HEAD").is_file():
            return {}
        common = gitdir
        if (gitdir / "commondir").is_file():
            common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
        commit = _resolve((gitdir / "HEAD").read_text(encoding="utf-8").strip(), gitdir, common)
        if commit is None:
            return {}
        out = {"commit": commit}
        remote = _remote(common / "config")
        if remote:
            out = {"repository": remote, **out}
        return out
    except (OSError, UnicodeDecodeError):
        return {}


def _resolve(head: str, gitdir: Path, common: Path) -> str | None:
    if not head.startswith("ref:"):
        return head if _HEX.match(head) else None  # a detached HEAD
    ref = head.removeprefix("ref:").strip()
    for base in (gitdir, common):
        if (base / ref).is_file():
            value = (base / ref).read_text(encoding="utf-8").strip()
            return value if _HEX.match(value) else None
    packed = common / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == ref and _HEX.match(parts[0]):
                return parts[0]
    return None  # a branch without a commit yet


_SECTION = re.compile(r'\s*\[\s*remote\s+"(.*)"\s*\]')


def _remote(config: Path) -> str | None:
    """origin's URL, else the first remote's, from a git config file (userinfo taken out)."""
    if not config.is_file():
        return None
    urls: dict[str, str] = {}
    remote = None
    for line in config.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("["):
            m = _SECTION.match(line)
            remote = m.group(1) if m else None
            continue
        key, eq, value = line.partition("=")
        if remote is not None and eq and key.strip().lower() == "url":
            urls.setdefault(remote, value.strip().strip('"'))
    url = urls.get("origin") or next(iter(urls.values()), None)
    return _public(url) if url else None


def _public(url: str) -> str:
    """``url`` without a user name or password (a token in an https remote stays out of the metadata)."""
    parts = urlsplit(url)
    if parts.scheme and parts.netloc and "@" in parts.netloc:
        return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))
    return url
