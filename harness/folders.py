"""Folders the harness owns: markers, locks, atomic replacement and the cleanup of interrupted runs.

The rules (docs/experiments.md "Safety"):

- **Only what it created.** The harness deletes or replaces a folder only when it wrote it: a
  report folder holds the marker :data:`OUTPUT_MARKER` listing every file the harness put there
  (a file it did not write makes the folder foreign), an index folder holds ``harness-index.json``.
  Report folders of harness versions before the marker are recognised by their exact contents
  (:func:`is_legacy_report`).
- **Only its own experiment's.** A report folder's marker also names the experiment that wrote it
  (:class:`Experiment`: its config file and its ``name:``); another experiment's folder is replaced
  only when the user asks (``--replace``; harness.config.paths says so before anything runs).
- **One atomic step.** A new folder is built complete in a hidden sibling
  (``.<name>.writing-<pid>`` or ``.<name>.building-<pid>``) and swapped with the old one by
  ``renameat2(RENAME_EXCHANGE)``: at every instant ``<name>`` is either the whole previous folder
  or the whole new one, and it stays a plain folder (``ls``, ``cp -r``, Docker bind mounts of the
  parent see no symlink). Where the file system cannot exchange (EINVAL: e.g. some network file
  systems), two renames with the old folder parked at ``.<name>.old-<pid>``; an interruption between
  them leaves no ``<name>`` at all (never a wrong one), and the next run renames the parked
  previous folder back.
- **No swap under a reader.** A run searching an index holds a shared flock on
  ``.<name>.in-use`` beside it (:func:`in_use`) from the moment it has built or reused it until
  its runs are cached; a rebuild (another config's options at the same ``index.path``) takes it
  exclusively for the swap, so it waits for them instead of replacing the index under them.
- **One writer at a time.** ``.<name>.lock`` beside the folder (flock) serialises processes that
  write the same folder: the second waits and says for whom. The kernel releases a lock when its
  process dies, even by SIGKILL, so a hidden temp folder whose lock is free belongs to a dead run
  and is removed (with a note) by the next one. Lock files are removed on release (the inode is
  re-checked after locking, so removing them is race-free).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import re
import shutil
import socket
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from harness import lazy
from harness.events import Cleaned, Emit, InUse, Waiting, ignore
from harness.files import fsync_dir, write_json_atomic

metadata = lazy.module("importlib.metadata")  # the harness's version, for a marker (harness.lazy)

__all__ = [
    "OUTPUT_MARKER",
    "TEMP_KINDS",
    "locked",
    "in_use",
    "temp_sibling",
    "replace_folder",
    "clean_interrupted",
    "sweep_interrupted",
    "Experiment",
    "write_marker",
    "read_marker",
    "recorded_experiment",
    "foreign_entries",
    "is_legacy_report",
    "listed_entries",
    "fsync_tree",
    "remove_tree",
    "check_writable",
]

OUTPUT_MARKER = ".harness-output.json"
INDEX_MANIFEST = "harness-index.json"  # an index folder the harness built (harness.engine.index)
TEMP_KINDS = ("building", "writing", "old")
_TEMP = re.compile(r"^\.(?P<name>.+)\.(?P<kind>building|writing|old)-(?P<pid>\d+)$")

# ------------------------------------------------------------------------------ locks
_held: dict[str, list] = {}  # lock path -> [fd, depth]: re-entrant within one process
_held_guard = threading.Lock()


def _lock_path(target: Path) -> Path:
    return target.parent / f".{target.name}.lock"


def _try_open_locked(lock: Path, blocking: bool):
    """An fd of ``lock`` holding its flock, or None when another process holds it (non-blocking)."""
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except PermissionError:
            check_writable(lock.parent, tree=False)  # names the folder, not the hidden lock file
            raise
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        try:  # the holder before us may have removed the file: then lock the new one
            same = os.fstat(fd).st_ino == os.stat(lock, follow_symlinks=False).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)


@contextmanager
def locked(target: Path, on: Emit = ignore, blocking: bool = True):
    """Hold the lock of ``target`` (a folder the harness writes). Waits for another process
    holding it, saying so once; with ``blocking=False`` yields False instead of waiting."""
    target = Path(target)
    lock = _lock_path(target)
    key = str(lock)
    with _held_guard:
        if key in _held:
            _held[key][1] += 1
            entry = _held[key]
        else:
            entry = None
    if entry is not None:
        try:
            yield True
        finally:
            with _held_guard:
                entry[1] -= 1
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = _try_open_locked(lock, blocking=False)
    if fd is None:
        if not blocking:
            yield False
            return
        on(Waiting(str(target), _holder(lock)))
        fd = _try_open_locked(lock, blocking=True)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n{socket.gethostname()}\n".encode(), 0)  # for _holder, elsewhere
        with _held_guard:
            _held[key] = [fd, 1]
        yield True
    finally:
        with _held_guard:
            _held.pop(key, None)
        try:
            os.unlink(lock)  # still holding it: a waiter re-checks the inode and retries
        except OSError:
            pass
        os.close(fd)


def _holder(lock: Path) -> str:
    """Who holds ``lock``, as its file says: a pid, and the host when it is another machine's
    (a folder shared over NFS, where the server keeps the lock), or "?"."""
    try:
        pid, _, host = lock.read_text().partition("\n")
    except (OSError, UnicodeDecodeError):
        return "?"
    pid, host = pid.strip() or "?", host.strip()
    return f"{pid} on host {host}" if host and host != socket.gethostname() else pid


def _holds(target: Path) -> bool:
    with _held_guard:
        return str(_lock_path(target)) in _held


@contextmanager
def in_use(target: Path, exclusive: bool = False, on: Emit = ignore):
    """Hold ``.<name>.in-use`` beside ``target`` shared (a run searching the index) or
    exclusive (a rebuild swapping it; it waits for the searches, saying so once). The last one
    out removes the file (the inode is re-checked after locking, as for :func:`locked`). Where
    the folder cannot hold it (read-only), nothing is locked: nothing there can be rebuilt either."""
    target = Path(target)
    path = target.parent / f".{target.name}.in-use"
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    said = False
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError:
            yield
            return
        try:
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
            except BlockingIOError:
                if exclusive and not said:
                    on(InUse(str(target)))
                    said = True
                fcntl.flock(fd, mode)
            try:
                same = os.fstat(fd).st_ino == os.stat(path, follow_symlinks=False).st_ino
            except FileNotFoundError:
                same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            break
        os.close(fd)
    try:
        yield
    finally:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # nobody else holds it: remove it
            os.unlink(path)
        except OSError:
            pass
        os.close(fd)


# ------------------------------------------------------------------------------ temp folders
def temp_sibling(target: Path, kind: str) -> Path:
    """The hidden sibling ``.<name>.<kind>-<pid>`` where ``target`` is built or parked."""
    assert kind in TEMP_KINDS
    return target.parent / f".{target.name}.{kind}-{os.getpid()}"


def remove_tree(path: Path) -> None:
    """Remove a folder (or a file, or a symlink: never what it points to)."""
    if path.is_symlink() or not path.is_dir():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)
        if path.exists():  # e.g. a read-only folder inside: make it writable and retry
            for root, dirs, _ in os.walk(path):
                for d in [".", *dirs]:
                    try:
                        os.chmod(os.path.join(root, d), 0o700)
                    except OSError:
                        pass
            shutil.rmtree(path)


def _can_change(folder: str) -> bool:
    mode = os.W_OK | os.X_OK
    if os.access in os.supports_effective_ids:
        return os.access(folder, mode, effective_ids=True)
    return os.access(folder, mode)


def check_writable(folder: Path, tree: bool = True) -> None:
    """Raise PermissionError (EACCES) naming ``folder``, or the first folder below it (``tree``),
    that this process may not change: checked before anything is built or moved, so that a folder
    the user made read-only stays exactly where and as it was. Renaming a folder within its
    parent does not need write permission on it, so without this check the swap would succeed
    and only removing the previous folder would fail, leaving it hidden beside the new one."""
    folder = Path(folder)
    if not folder.is_dir() or folder.is_symlink():
        return
    walk = os.walk(folder) if tree else [(str(folder), [], [])]
    for root, dirs, _files in walk:
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        if not _can_change(root):
            mode = os.stat(root).st_mode
            raise PermissionError(
                errno.EACCES,
                f"this user may not change this folder (mode {mode & 0o777:o}); the harness leaves it as it is",
                root,
            )


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # our own pid on a leftover: a previous process that had it (containers)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_interrupted(target: Path, on: Emit = ignore) -> list[str]:
    """With the lock of ``target`` held: remove its leftover temp siblings (a dead process's:
    whoever wrote them held this lock), and when ``target`` is missing but an interrupted
    two-rename replace parked the previous folder, put that back. Returns the notes logged."""
    assert _holds(target), f"clean_interrupted({target}) without its lock"
    notes: list[str] = []
    try:
        names = os.listdir(target.parent)
    except OSError:
        return notes
    leftovers = []
    for n in names:
        m = _TEMP.match(n)
        if m and m["name"] == target.name and not _pid_alive(int(m["pid"])):
            leftovers.append((m["kind"], n))
    for kind, n in sorted(leftovers, key=lambda x: x[0] != "old"):
        p = target.parent / n
        if kind == "old" and not os.path.lexists(target):
            os.rename(p, target)
            notes.append(f"note: restored the previous {target} (a replace was interrupted; it was kept as {n})")
            continue
        remove_tree(p)
        notes.append(f"note: removed {p}, left by an interrupted run")
    for note in notes:
        on(Cleaned(note))
    return notes


def sweep_interrupted(folder: Path, on: Emit = ignore) -> list[str]:
    """Clean the leftovers of every target in ``folder`` whose lock is free (e.g. the temp
    folders of an index whose fingerprint, and so its name, has changed since)."""
    notes: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return notes
    targets = sorted({m["name"] for n in names if (m := _TEMP.match(n))})
    for name in targets:
        target = Path(folder) / name
        if _holds(target):
            notes += clean_interrupted(target, on)
            continue
        with locked(target, blocking=False) as got:
            if got:
                notes += clean_interrupted(target, on)
    return notes


# ------------------------------------------------------------------------------ atomic replace
RENAME_EXCHANGE = 2  # linux/fs.h
_libc = None


def _exchange(a: Path, b: Path) -> None:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); OSError(EINVAL) if unsupported."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    fn = getattr(_libc, "renameat2", None)
    if fn is None:
        raise OSError(errno.ENOSYS, "renameat2 is not available")
    AT_FDCWD = -100
    if fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), str(a), None, str(b))


def replace_folder(new: Path, target: Path) -> Path | None:
    """Put the finished folder ``new`` at ``target`` (a sibling, same file system) in one
    atomic step. Returns where the previous folder went (to be removed), or None."""
    parent = target.parent
    check_writable(target)  # the previous folder must be removable once swapped out
    fsync_dir(parent)
    if not os.path.lexists(target):
        os.rename(new, target)  # succeeds over nothing; fails if someone created a folder there
        fsync_dir(parent)
        return None
    try:
        _exchange(new, target)
        fsync_dir(parent)
        return new  # now holds the previous folder
    except OSError as e:
        if e.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
            raise
    old = temp_sibling(target, "old")
    os.rename(target, old)
    os.rename(new, target)  # killed before this line: the next run renames `old` back
    fsync_dir(parent)
    return old


def fsync_tree(folder: Path) -> None:
    """fsync every file and folder below ``folder`` (before it is renamed into place)."""
    for root, _dirs, files in os.walk(folder):
        for f in files:
            fd = os.open(os.path.join(root, f), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fsync_dir(Path(root))


# ------------------------------------------------------------------------------ markers
@dataclass(frozen=True)
class Experiment:
    """What identifies an experiment in the marker of the folder it writes: its ``name:`` and its
    config file (resolved), or no file for a config given in memory (the Python API's dict or
    YAML text), which is known by its name alone. Two configs are one experiment when both are
    equal: a rerun of the same file (whatever else changed in it) replaces its own report; a copy
    of the file, a renamed experiment (``--set name=...``) or a dict over a file's report is
    another experiment."""

    name: str
    config: Path | None  # absolute and resolved; None: given in memory

    def record(self, folder: Path) -> dict:
        """As the marker of ``folder`` (absolute and resolved) keeps it: the config's path
        relative to the folder, so that a project moved or mounted elsewhere (a Docker bind
        mount of it at another path) still knows its own reports."""
        config = None if self.config is None else os.path.relpath(self.config, folder)
        return {"name": self.name, "config": config}

    def __str__(self) -> str:
        return f"'{self.name}' " + ("given in Python" if self.config is None else f"of {self.config}")


def write_marker(folder: Path, kind: str, files: list[str], experiment: dict | None = None) -> None:
    """Write the marker saying the harness created ``folder``, which files it put there and, for
    an output folder, the experiment that wrote it (:meth:`Experiment.record`)."""
    try:
        v = metadata.version("harness")
    except metadata.PackageNotFoundError:
        v = "unknown"
    write_json_atomic(
        Path(folder) / OUTPUT_MARKER,
        {
            "written_by": "harness",
            "harness_version": v,
            "kind": kind,
            "written_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            **({"experiment": experiment} if experiment is not None else {}),
            "files": sorted(set(files)),
        },
    )


def read_marker(folder: Path) -> dict | None:
    try:
        m = json.loads((Path(folder) / OUTPUT_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(m, dict) or m.get("written_by") != "harness" or not isinstance(m.get("files"), list):
        return None
    return m


def recorded_experiment(folder: Path) -> Experiment | None:
    """The experiment the marker of ``folder`` names, or None: no marker, or one of a harness
    version before the experiment was recorded (or edited out of shape), which says nothing of
    whose the folder is and is treated as before: any experiment may replace it."""
    m = read_marker(folder)
    e = m.get("experiment") if m is not None else None
    if (
        not isinstance(e, dict)
        or not isinstance(e.get("name"), str)
        or not isinstance(e.get("config"), (str, type(None)))
    ):
        return None
    if e["config"] is None:
        return Experiment(e["name"], None)
    return Experiment(e["name"], Path(os.path.normpath(Path(folder).resolve() / e["config"])))


def _entries(folder: Path) -> list[str]:
    """Every file below ``folder``, relative, with '/' (folders holding nothing are listed with '/')."""
    out = []
    for root, dirs, files in os.walk(folder):
        rel = os.path.relpath(root, folder)
        for f in files:
            out.append(f if rel == "." else f"{rel}/{f}")
        for d in dirs:
            p = os.path.join(root, d)
            if os.path.islink(p):
                out.append(d if rel == "." else f"{rel}/{d}")
            elif not os.listdir(p):
                out.append((d if rel == "." else f"{rel}/{d}") + "/")
    return out


def listed_entries(folder: Path) -> list[str]:
    """Every file below ``folder`` as a marker lists it."""
    return [e for e in _entries(folder) if not e.endswith("/")]


def foreign_entries(folder: Path) -> list[str] | None:
    """Files in ``folder`` the harness did not write (by its marker), or None when the folder has
    no marker. Lock and temp files of the harness are its own."""
    m = read_marker(folder)
    if m is None:
        return None
    listed = set(m["files"]) | {OUTPUT_MARKER}
    return sorted(
        e
        for e in _entries(folder)
        if e not in listed
        and not e.endswith("/")
        and not _TEMP.match(e.rsplit("/", 1)[-1])
        and not re.match(r"^\..+\.\d+\.[^.]+\.tmp$", e.rsplit("/", 1)[-1])
    )


# The files of a report folder as harness versions before the marker wrote them: nothing else.
LEGACY_REPORT_FILES = frozenset(
    {
        "summary.md",
        "summary.csv",
        "summary.json",
        "per_topic.csv",
        "manifest.json",
        "report.html",
        "report.tex",
        "comparisons.csv",
        "comparisons.json",
    }
)


def is_legacy_report(folder: Path) -> bool:
    """A report folder written by a harness version before markers: exactly its report files
    (summary.md, manifest.json, ... and runs/*.trec), and a manifest.json that describes those
    runs with the harness's provenance keys. Anything else in it (a user's notes, a config, a
    collection) and it is not one: the harness then refuses to replace it."""
    folder = Path(folder)
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(manifest, dict) or not {"config", "versions", "index", "runs"} <= manifest.keys():
        return False
    versions, runs = manifest["versions"], manifest["runs"]
    if not isinstance(versions, dict) or "harness" not in versions or not isinstance(runs, list):
        return False
    run_files = {r.get("file") for r in runs if isinstance(r, dict)}
    for e in _entries(folder):
        if e in LEGACY_REPORT_FILES or (e.startswith("runs/") and e in run_files):
            continue
        return False
    return True
