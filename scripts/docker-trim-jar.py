"""Cut Anserini's fatjar down in the image's build stage (scripts/docker-slim.sh): remove the
libraries the harness can never reach, and every class that refers to them, and nothing else.

    python scripts/docker-trim-jar.py JAR

SEEDS are whole packages: Anserini's REST server (Javalin, Jetty, the servlet APIs, Kotlin, which
only Javalin uses), its reproduction commands with their YAML resources, and the libraries no
class of the jar refers to outside themselves (Guava) or that only tests use (Mockito,
Objenesis). The cut is closed under references: `jdeps -verbose:class -filter:none` (the JDK's
own class-dependency analysis, over every class and every multi-release variant) lists which
class refers to which; every class that refers to a removed one is removed too, until none
does. So no class left in the jar names a class that is gone, and a class is never half
linkable. Reflection is the one thing jdeps cannot see: the `META-INF/services` files of removed
services (Jetty's) go, a provider line naming a removed class would be dropped (there are
none), and the script refuses to run when the closure reaches a class under PROTECTED (Lucene,
Log4j) or one of REQUIRED (what the harness calls, harness/engine/java/BatchSearcher.java's
imports included). `make docker-test` then checks the image's runs, reports and Thai search
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
    "io.anserini.index.generator.DefaultLuceneDocumentGenerator",
    "io.anserini.index.generator.DenseVectorDocumentGenerator",
    "io.anserini.rerank.lib.ScoreTiesAdjusterReranker",
    "io.anserini.rerank.lib.Rm3Reranker",
    "io.anserini.rerank.lib.RocchioReranker",
    "io.anserini.rerank.lib.BM25PrfReranker",
    "io.anserini.search.topicreader.TsvStringTopicReader",
    "io.anserini.search.topicreader.TrecTopicReader",
)
LINE = re.compile(r"^\s+(\S+)\s+->\s+(\S+)\s+(\S.*)?$")


def class_name(entry: str) -> str | None:
    """The class an entry holds (multi-release variants: their base class), else None."""
    if not entry.endswith(".class") or entry.endswith("module-info.class"):
        return None
    if entry.startswith("META-INF/versions/"):
        entry = entry.split("/", 3)[3]
    if "/" not in entry:  # a class in the unnamed package (trec_eval.class): jdeps refuses those
        return None
    return entry[: -len(".class")].replace("/", ".")


def edges(jar: Path, names: list[str]) -> dict[str, set[str]]:
    """class -> the classes of the jar it refers to, by jdeps, for the base classes and for
    each multi-release version (extracted to folders: jdeps refuses this jar as a module)."""
    refers = collections.defaultdict(set)
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
            for line in out.splitlines():
                m = LINE.match(line)
                if m:
                    refers[m.group(1)].add(m.group(2))
    return refers


def main(jar: Path) -> None:
    with zipfile.ZipFile(jar) as z:
        names = z.namelist()
        services = {n: z.read(n).decode("utf-8") for n in names if n.startswith("META-INF/services/") and n[18:]}
    classes = {c for n in names if (c := class_name(n))}
    referrers = collections.defaultdict(set)
    for a, bs in edges(jar, names).items():
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
        sys.exit(f"docker-trim-jar.py: refusing to cut {jar.name}: it would remove {hit}; missing from it: {missing}")
    drop = [n for n in names if class_name(n) in removed or n.startswith(SEED_RESOURCES)]
    drop += [n for n in names if not n.endswith("/") and any(n.startswith(s.replace(".", "/") + "/") for s in SEEDS)]
    rewrite = {}
    for n, text in services.items():
        if n[len("META-INF/services/") :] in removed:
            drop.append(n)  # the service itself is gone
        else:
            kept = [ln for ln in text.splitlines() if ln.split("#")[0].strip() not in removed]
            if kept != text.splitlines():
                rewrite[n] = "\n".join(kept) + "\n"
    drop = sorted(set(drop))
    before = jar.stat().st_size
    subprocess.run(["zip", "-q", "-d", str(jar), "-@"], input="\n".join(drop) + "\n", text=True, check=True)
    if rewrite:
        with tempfile.TemporaryDirectory() as tmp:
            for n, text in rewrite.items():
                Path(tmp, n).parent.mkdir(parents=True, exist_ok=True)
                Path(tmp, n).write_text(text, encoding="utf-8")
            subprocess.run(["zip", "-q", str(jar.resolve()), *rewrite], cwd=tmp, check=True)
    beyond = sorted(c for c in removed if not any(c == s or c.startswith(s + ".") for s in SEEDS))
    print(
        f"docker-trim-jar.py: {jar.name} {before / 1e6:.1f} -> {jar.stat().st_size / 1e6:.1f} MB: "
        f"{len(removed)} classes ({len(beyond)} outside the seed packages: {', '.join(beyond) or 'none'}), "
        f"{len(drop)} entries, {len(rewrite)} service files rewritten",
        file=sys.stderr,
    )


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isfile(sys.argv[1]):
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
