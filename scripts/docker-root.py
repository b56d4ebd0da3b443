"""The image's root file system from declared Debian packages (Dockerfile, stage `root`).

    python3 scripts/docker-root.py PACKAGES LEAVE_OUT LOADED TARGET

PACKAGES (scripts/docker-packages) names the Debian packages the image runs, one a line with why.
TARGET gets, from this stage's installed system (packages installed by apt, maintainer scripts
run), exactly:
  - the files of those packages (dpkg -L), and of every package that owns a shared library
    something in the image links, found by the dynamic loader itself (as ldd finds them) over every
    program and library of those packages and of /opt (the venv and Java the Dockerfile copied
    here), repeated until nothing new is needed;
  - the bytecode of those of their Python modules that are listed in LOADED (the standard
    library's modules the harness's demo loaded, scripts/docker-bytecode.py: Debian compiles
    every module when python3 is installed);
  - /opt as it is here;
  - GENERATED: what maintainer scripts made and no package owns (the accounts, nsswitch.conf
    with libnss-myhostname's entry, the loader's cache, the time zone link).
less what LEAVE_OUT (scripts/docker-leave-out) names, each pattern with why. Nothing else: no apt, dpkg, debconf, Perl, shell or login tools, unless a package above needs
them. It refuses, naming what, when a declared package is not installed, a listed file is
missing (but for dpkg's path-excludes: the base leaves documentation out), a linked library
belongs to no package, a generated file is missing, a LEAVE_OUT pattern matches nothing, or, in TARGET, a program or library does not
find a library it links (checked with TARGET's own loader, chrooted).
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re
import subprocess
import sys
from pathlib import Path

LOADER = "/usr/lib64/ld-linux-x86-64.so.2"
GENERATED = (
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/root",
)
# Java's own libraries find libjvm.so through the launcher, which loads it first.
LAUNCHER_LOADED = re.compile(r"^/opt/java/lib/.*: libjvm\.so$")
LISTED = re.compile(r"^\s*(\S+) => (\S+) \(0x[0-9a-f]+\)$|^\s*(\S+) => not found$")


def fail(why: str) -> None:
    sys.exit(f"docker-root.py: {why}")


def declared(path: Path) -> list[str]:
    return [line.split("#")[0].strip() for line in path.read_text().splitlines() if line.split("#")[0].strip()]


def owners() -> dict[str, str]:
    """Every installed file's path (and its /usr-merged aliases' real path) -> its package."""
    out = {}
    for listing in glob.glob("/var/lib/dpkg/info/*.list"):
        package = Path(listing).stem.split(":")[0]
        for line in Path(listing).read_text().splitlines():
            out[line] = package
            if os.path.lexists(line):
                out.setdefault(os.path.realpath(line), package)
    return out


def excluded(path: str, rules: list[tuple[str, str]]) -> bool:
    """dpkg's own verdict: the last path-exclude/path-include pattern matching the path wins."""
    verdict = False
    for kind, pattern in rules:
        if fnmatch.fnmatch(path, pattern):
            verdict = kind == "path-exclude"
    return verdict


def dpkg_rules() -> list[tuple[str, str]]:
    rules = []
    for cfg in sorted(glob.glob("/etc/dpkg/dpkg.cfg.d/*")):
        for line in Path(cfg).read_text().splitlines():
            kind, _, pattern = line.strip().partition("=")
            if kind in ("path-exclude", "path-include"):
                rules.append((kind, pattern))
    return rules


def package_files(package: str, rules) -> list[str]:
    r = subprocess.run(["dpkg-query", "-L", package], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"package {package} is not installed here: {r.stderr.strip()}")
    paths = [p for p in r.stdout.splitlines() if p.startswith("/")]
    if missing := [p for p in paths if not os.path.lexists(p) and not excluded(p, rules)]:
        fail(f"{package} lists files that are not here: {missing[:5]}")
    return [p for p in paths if os.path.lexists(p)]


def elf(path: str) -> bool:
    if os.path.islink(path) or not os.path.isfile(path):
        return False
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def linked(path: str, root: str | None = None) -> list[tuple[str, str | None]]:
    """(name, the path the loader finds it at, or None) for each library `path` links: what
    ldd prints, from the loader itself (LD_TRACE_LOADED_OBJECTS), in `root` when given."""
    chroot = (lambda: os.chroot(root)) if root else None  # noqa: E731  (the loader of `root`, in it)
    r = subprocess.run(
        [LOADER, path], capture_output=True, text=True, env={"LD_TRACE_LOADED_OBJECTS": "1"}, preexec_fn=chroot
    )
    if r.returncode != 0:
        if "not a dynamic executable" in r.stderr:  # a static program: links nothing
            return []
        fail(f"the loader cannot read {path}{' in ' + root if root else ''}: {r.stderr.strip()}")
    out = []
    for line in r.stdout.splitlines():
        if m := LISTED.match(line):
            out.append((m.group(1), m.group(2)) if m.group(1) else (m.group(3), None))
    return out


def pycache(paths: list[str], loaded: set[str]) -> list[str]:
    out = []
    for p in paths:
        if p.endswith(".py") and p in loaded:
            d, name = os.path.split(p)
            found = glob.glob(os.path.join(glob.escape(d), "__pycache__", glob.escape(name[:-3]) + ".*.pyc"))
            out += found + [os.path.dirname(f) for f in found]
    return out


def main(packages_file: Path, leave_out_file: Path, loaded_file: Path, target: Path) -> None:
    rules = dpkg_rules()
    owner = owners()
    wanted = declared(packages_file)
    leave_out = declared(leave_out_file)
    loaded = set(loaded_file.read_text().splitlines())
    packages, files, checked = set(), set(), set()
    opt = [str(p) for p in Path("/opt").rglob("*")]
    left_out = set()
    for pattern in leave_out:
        matched = {p for p in glob.glob(pattern, recursive=True) if not os.path.isdir(p) or os.path.islink(p)}
        if not matched:
            fail(f"{leave_out_file.name}: {pattern} matches no file (what changed?)")
        left_out |= matched
    opt = [p for p in opt if p not in left_out]
    queue = list(wanted)
    reasons = {}
    while queue:
        for package in queue:
            packages.add(package)
            files.update(p for p in package_files(package, rules) if p not in left_out)
        queue = []
        for path in sorted(f for f in files | set(opt) if f not in checked and elf(f)):
            checked.add(path)
            for name, found in linked(path):
                if found is None:
                    if not LAUNCHER_LOADED.match(f"{path}: {name}"):
                        fail(f"{path} links {name}, which the loader does not find here")
                    continue
                if found.startswith("/opt/"):
                    continue
                package = owner.get(found) or owner.get(os.path.realpath(found))
                if package is None:
                    fail(f"{path} links {found}, which no package owns")
                if package not in packages and package not in queue:
                    queue.append(package)
                    reasons[package] = f"{name} ({path})"
    for g in GENERATED:
        if not os.path.lexists(g):
            fail(f"{g} is not here (a maintainer script used to make it)")
    every = sorted(files | set(pycache(sorted(files), loaded)) | set(opt) | set(GENERATED) | {"/opt"})
    listing = "".join(p.lstrip("/") + "\0" for p in every)
    target.mkdir(parents=True, exist_ok=True)
    tar = subprocess.Popen(["tar", "-C", "/", "--no-recursion", "--null", "-T", "-", "-cf", "-"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE)  # fmt: skip
    unpack = subprocess.Popen(["tar", "-C", str(target), "--keep-directory-symlink", "-xpf", "-"], stdin=tar.stdout)
    tar.stdout.close()
    tar.stdin.write(listing.encode())
    tar.stdin.close()
    if tar.wait() or unpack.wait():
        fail("copying the files failed")
    # The result, with its own loader: every program and library finds what it links.
    broken = [
        f"{p}: {name}"
        for p in sorted(checked)
        for name, found in linked(p, str(target))
        if found is None and not LAUNCHER_LOADED.match(f"{p}: {name}")
    ]
    if broken:
        fail(f"in {target}, these do not find a library they link: {broken[:10]}")
    size = sum(os.lstat(os.path.join(d, f)).st_size for d, _, fs in os.walk(target) for f in fs)
    added = ", ".join(f"{p} for {why}" for p, why in sorted(reasons.items()))
    print(
        f"docker-root.py: {len(packages)} packages ({len(wanted)} declared; for the libraries linked: {added}), "
        f"{len(left_out)} files left out, {len(every)} paths, {size / 1e6:.1f} MB with /opt",
        file=sys.stderr,
    )


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*map(Path, sys.argv[1:]))
