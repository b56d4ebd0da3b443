"""Cut Anserini's fatjar down in the image's build stage (scripts/docker-java.sh): remove the
libraries the harness can never reach, with every class that refers to them, and the native
libraries of other platforms; refuse, loudly, whenever the evidence for a cut is missing.

    python scripts/docker-trim-jar.py JAR MODULES_OUT

Classes. SEEDS are whole packages: Anserini's REST server (Javalin, Jetty, the servlet APIs,
Kotlin, which only Javalin uses), its reproduction commands with their YAML resources, and the
libraries no class of the jar refers to outside themselves (Guava) or that only tests use
(Mockito, Objenesis). The cut is closed under references: `jdeps -verbose:class -filter:none`
(the JDK's own class-dependency analysis, over every class and every multi-release variant)
lists which class refers to which; every class that refers to a removed one is removed too,
until none does, so no class left names a class that is gone. The script refuses to cut:
  - when jdeps's map is missing a class of the jar (an empty or partial map, e.g. a jdeps whose
    output format changed, would otherwise remove the seeds and nothing that refers to them);
  - when the closure reaches a class under PROTECTED (Lucene, Log4j: kept whole) or one of
    REQUIRED (what the harness calls, harness/engine/java's imports included);
  - when a class or resource left names a removed class by its dotted name: what Anserini
    (and any library) loads by reflection. `Class.forName` takes a string constant, which the
    class file keeps as the dotted name ("io.anserini.collection.JsonCollection"), or a package
    prefix ("io.anserini.collection." + a config's name: every class of that package), while a
    class's linked references are slash-separated and are jdeps's business. META-INF/services
    providers and Log4j's plugin index are resources naming classes the same way. Each such name
    found in what stays must stay, or be declared in OPTIONAL (a name looked up in a try/catch,
    with the reason): an undeclared one stops the build, naming both classes.
Native libraries (.so, .dll, .dylib, .jnilib): the image is linux/x86_64, so only the libraries
under a linux x86_64 folder (linux/amd64, Linux/x86_64, linux-x64, linux-x86_64) can ever load;
the others go. Each family of them (the folder above the platform folders: zstd-jni's, snappy's,
ONNX Runtime's, the HuggingFace tokenizers') must keep one, or the layout changed and the
script refuses.
MODULES_OUT gets the JDK modules the classes left refer to (jdeps's third column), one a line,
for jlink. `make docker-test` then checks the image's runs, reports and Thai search
byte-identical to a local run on the untouched jar and to Anserini in the container.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

SEEDS = (
    "io.javalin",
    "org.eclipse.jetty",
    "jakarta.servlet",
    "javax.servlet",
    "kotlin",
    "io.anserini.api",
    "io.anserini.server",
    "io.anserini.reproduce",
    "com.google.common",
    "com.google.thirdparty",
    "org.mockito",
    "org.objenesis",
)
# Resource folders only the seeds read: the reproductions' YAML (io.anserini.reproduce).
SEED_RESOURCES = ("reproduce/",)
PROTECTED = ("org.apache.lucene.", "org.apache.logging.")
REQUIRED = (
    "io.anserini.index.IndexCollection",
    "io.anserini.index.IndexFlatDenseVectors",
    "io.anserini.index.IndexHnswDenseVectors",
    "io.anserini.index.IndexReaderUtils",
    "io.anserini.search.SimpleSearcher",
    "io.anserini.search.SearchCollection",
    "io.anserini.analysis.AnalyzerMap",
    "io.anserini.analysis.AnalyzerUtils",
    "io.anserini.analysis.DefaultEnglishAnalyzer",
    "io.anserini.collection.JsonCollection",
    "io.anserini.collection.JsonDenseVectorCollection",
    "io.anserini.collection.TrecCollection",
    "io.anserini.collection.HtmlCollection",
    # impact collections and BEIR folders: IndexCollection loads them by a name it builds
    "io.anserini.collection.JsonVectorCollection",
    "io.anserini.collection.BeirFlatCollection",
    "io.anserini.collection.BeirMultifieldCollection",
    "io.anserini.search.similarity.ImpactSimilarity",
    "io.anserini.search.query.BagOfWordsQueryGenerator",
    "io.anserini.index.generator.DefaultLuceneDocumentGenerator",
    "io.anserini.index.generator.DenseVectorDocumentGenerator",
    "io.anserini.rerank.lib.ScoreTiesAdjusterReranker",
    "io.anserini.rerank.lib.Rm3Reranker",
    "io.anserini.rerank.lib.RocchioReranker",
    "io.anserini.rerank.lib.BM25PrfReranker",
    "io.anserini.search.topicreader.TsvStringTopicReader",
    "io.anserini.search.topicreader.TrecTopicReader",
)
# (class that names, removed name prefix): why the lookup tolerates its absence.
OPTIONAL = {
    ("org.apache.logging.log4j.util.Constants", "jakarta.servlet."): "Log4j asks whether it runs in a servlet "
    "container (isClassAvailable, IS_WEB_APP); without the servlet API it is a plain application's logger",
}
# What of the jar is only documentation or build metadata, never read at run time: Maven's poms,
# ProGuard's rules, the manifest, licences (they name classes too).
METADATA = re.compile(
    r"^META-INF/(maven|proguard)/|^META-INF/[^/]*\.(MF|SF|RSA|DSA|txt|md)$|(^|/)(LICENSE|NOTICE|README)[^/]*$", re.I
)
LINE = re.compile(r"^\s+(\S+)\s+->\s+(\S+)\s+(\S.*)?$")
DOTTED = re.compile(rb"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+\.?")
NATIVE = re.compile(r"\.(so|dll|dylib|jnilib)$")
PLATFORM_DIR = re.compile(r"(?:^|/)(?:linux|darwin|osx|mac|win|windows|freebsd|aix|sunos)(?:[/-])", re.I)
THIS_PLATFORM = re.compile(r"(?:^|/)linux[/-](?:x86_64|amd64|x64)/", re.I)


def class_name(entry: str) -> str | None:
    """The class an entry holds (multi-release variants: their base class), else None."""
    if not entry.endswith(".class") or entry.endswith("module-info.class"):
        return None
    if entry.startswith("META-INF/versions/"):
        entry = entry.split("/", 3)[3]
    if "/" not in entry:  # a class in the unnamed package (trec_eval.class): jdeps refuses those
        return None
    return entry[: -len(".class")].replace("/", ".")


def refuse(why: str) -> None:
    sys.exit(f"docker-trim-jar.py: refusing to cut the jar: {why}")


def jdeps(jar: Path, names: list[str]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(class -> the classes it refers to, class -> the JDK modules it refers to), by jdeps,
    for the base classes and each multi-release version (extracted to folders: jdeps refuses
    this jar as a module). Refuses when a class of the jar is missing from the map."""
    refers, modules = collections.defaultdict(set), collections.defaultdict(set)
    jdk = {
        m.split("@")[0]
        for m in subprocess.run(["java", "--list-modules"], capture_output=True, text=True, check=True).stdout.split()
    }
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(jar) as z:
        roots = collections.defaultdict(list)
        for n in names:
            if class_name(n) is None:
                continue
            version = n.split("/")[2] if n.startswith("META-INF/versions/") else "base"
            roots[version].append(n)
        for version, entries in roots.items():
            root = Path(tmp, version)
            for n in entries:
                target = root / (n.split("/", 3)[3] if version != "base" else n)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(z.read(n))
        for version in roots:
            argv = ["jdeps", "-verbose:class", "-filter:none"]
            if version != "base":
                argv += ["-cp", str(Path(tmp, "base"))]
            out = subprocess.run([*argv, str(Path(tmp, version))], capture_output=True, text=True, check=True).stdout
            seen = set()
            for line in out.splitlines():
                m = LINE.match(line)
                if m:
                    seen.add(m.group(1))
                    refers[m.group(1)].add(m.group(2))
                    # the third column: the archive, a JDK module's name ("JDK internal API (java.base)")
                    modules[m.group(1)].update(w for w in re.findall(r"[\w.]+", m.group(3) or "") if w in jdk)
            # Every class refers to something (java.lang.Object at least), so with -filter:none
            # each one has lines: a class without any means jdeps did not read it.
            want = {class_name(n) for n in roots[version]}
            if missing := sorted(want - seen):
                refuse(
                    f"jdeps listed the dependencies of {len(want) - len(missing)} of the {len(want)} classes of "
                    f"{jar.name} ({version}); none for {missing[:5]}{' ...' if len(missing) > 5 else ''}"
                )
    return refers, modules


def reflective_names(z: zipfile.ZipFile, entries: list[str], classes: set[str]) -> dict[str, set[str]]:
    """removed-or-not class -> the entries that name it by its dotted name (or its package's
    dotted prefix), among `entries`."""
    packages = collections.defaultdict(set)
    for c in classes:
        packages[c.rsplit(".", 1)[0] + "."].add(c)
    named = collections.defaultdict(set)
    for n in entries:
        for token in set(DOTTED.findall(z.read(n))):
            name = token.decode("ascii")
            if name in classes:
                named[name].add(n)
            elif name in packages:
                for c in packages[name]:
                    named[c].add(n)
    return named


def natives(names: list[str]) -> list[str]:
    """The native libraries of other platforms than linux/x86_64; refuses when a family of
    them (the folder above its platform folders) would keep none."""
    families = collections.defaultdict(lambda: [0, []])
    for n in names:
        if not NATIVE.search(n):
            continue
        m = PLATFORM_DIR.search(n)
        if m is None:
            continue  # a native library in no platform's folder: kept
        family = families[n[: m.start() + (m.group(0)[0] == "/")]]
        if THIS_PLATFORM.search(n):
            family[0] += 1
        else:
            family[1].append(n)
    if not families:
        refuse("it has no native libraries in platform folders any more: look at what changed")
    if empty := sorted(f or "/" for f, (kept, _) in families.items() if kept == 0):
        refuse(f"no native library for linux/x86_64 left under {empty}: the layout changed")
    return [n for _, gone in families.values() for n in gone]


def main(jar: Path, modules_out: Path) -> None:
    with zipfile.ZipFile(jar) as z:
        names = z.namelist()
        classes = {c for n in names if (c := class_name(n))}
        refers, uses = jdeps(jar, names)
        referrers = collections.defaultdict(set)
        for a, bs in refers.items():
            for b in bs:
                if b in classes and b != a:
                    referrers[b].add(a)
        removed = {c for c in classes if any(c == s or c.startswith(s + ".") for s in SEEDS)}
        todo = list(removed)
        while todo:
            for a in referrers[todo.pop()]:
                if a not in removed:
                    removed.add(a)
                    todo.append(a)
        hit = sorted(c for c in removed if c.startswith(PROTECTED) or c in REQUIRED)
        missing = sorted(c for c in REQUIRED if c not in classes)
        if hit or missing:
            refuse(f"it would remove {hit}; missing from it: {missing}")
        drop = {n for n in names if class_name(n) in removed or n.startswith(SEED_RESOURCES)}
        drop |= {
            n for n in names if not n.endswith("/") and any(n.startswith(s.replace(".", "/") + "/") for s in SEEDS)
        }
        services = [n for n in names if n.startswith("META-INF/services/") and not n.endswith("/")]
        drop |= {n for n in services if n[len("META-INF/services/") :] in removed}  # the service itself is gone
        # What stays and names a removed class by reflection (services providers included).
        kept = [
            n
            for n in names
            if n not in drop and not n.endswith("/") and not NATIVE.search(n) and not METADATA.search(n)
        ]
        broken = []
        for c, by in sorted(reflective_names(z, kept, classes).items()):
            if c not in removed:
                continue
            by = {b for b in by if not any((class_name(b) or b).startswith(k) and c.startswith(r) for k, r in OPTIONAL)}
            if by:
                broken.append(f"{c} (named by {', '.join(sorted(by)[:3])})")
        if broken:
            refuse(f"what stays loads {len(broken)} removed classes by name: {'; '.join(broken[:10])}")
        other = natives(names)
        drop |= set(other)
    drop = sorted(drop)
    before = jar.stat().st_size
    subprocess.run(["zip", "-q", "-d", str(jar), "-@"], input="\n".join(drop) + "\n", text=True, check=True)
    need = sorted({m for c, ms in uses.items() if c not in removed for m in ms})
    if "java.base" not in need:
        refuse(f"jdeps named no JDK module the classes use ({need})")
    modules_out.write_text("".join(m + "\n" for m in need))
    beyond = sorted(c for c in removed if not any(c == s or c.startswith(s + ".") for s in SEEDS))
    print(
        f"docker-trim-jar.py: {jar.name} {before / 1e6:.1f} -> {jar.stat().st_size / 1e6:.1f} MB: "
        f"{len(removed)} classes ({len(beyond)} outside the seed packages: {', '.join(beyond) or 'none'}), "
        f"{len(other)} native libraries of other platforms, {len(drop)} entries; JDK modules: {', '.join(need)}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    if len(sys.argv) != 3 or not os.path.isfile(sys.argv[1]):
        sys.exit(__doc__)
    main(Path(sys.argv[1]), Path(sys.argv[2]))
