"""Compile every harness/engine/java/*.java (package harness) against the bundled Anserini fatjar.

The compiled classes are committed (users need no Java compiler), with the SHA-256 of each source
they came from in NAME.sha256; a test checks that the two agree. Lucene 10 classes are
Java 21 class files, which javac 17 refuses to read, so we use the Eclipse compiler `ecj`
(Debian package ecj), targeting Java 17 bytecode, which any Java >= 21 runs.
"""

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "harness" / "engine" / "java"


def main() -> int:
    sys.path.insert(0, str(HERE.parents[1]))
    from harness.engine.lucene import anserini_jar

    ecj = shutil.which("ecj")
    if not ecj:
        print("ecj not found: apt-get install ecj", file=sys.stderr)
        return 2
    sources = sorted(HERE.glob("*.java"))  # every source, whatever its name
    for stale in (HERE / "harness").glob("*.class"):  # an inner class that no longer exists must go
        stale.unlink()
    for stale in HERE.glob("*.sha256"):  # a source that no longer exists leaves no checksum
        stale.unlink()
    subprocess.run(
        [ecj, "-17", "-proc:none", "-nowarn", "-d", str(HERE), "-cp", str(anserini_jar()), *map(str, sources)],
        check=True,
    )
    for src in sources:
        (HERE / f"{src.stem}.sha256").write_text(hashlib.sha256(src.read_bytes()).hexdigest() + "\n")
        print("built", HERE / "harness" / f"{src.stem}.class")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
