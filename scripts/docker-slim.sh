#!/bin/sh
# The image's build stage, after install.sh: remove from the venv what the harness never loads.
#   scripts/docker-slim.sh SITE_PACKAGES
# Local set-ups keep everything; the figures are in docs/deployment.md (Docker, "Size and start").
set -eu
site=$1
# The packages' own test suites (~103 MB: numpy, scipy, pandas, dask, distributed, tornado...):
# only their test runners (np.test(), pd.test()...) import them.
find "$site" -mindepth 2 -type d -name tests -prune -exec rm -rf {} +
rm -rf "$site/tornado/test"
# Native libraries inside Anserini's fatjar for its neural query encoders: ONNX Runtime and
# HuggingFace tokenizers, each for four platforms (~45 MB compressed). Only Anserini's dense and
# learned-sparse encoders load them, and the harness has no way to call those. Every class
# Lucene and Anserini run stays as shipped (the jar is not signed); `make docker-test` checks
# the container's runs byte-identical to a local run on the untouched jar.
for jar in "$site"/pyserini/resources/jars/anserini-*-fatjar.jar; do
  zip -q -d "$jar" 'ai/onnxruntime/native/*' 'native/lib/*'
done
# pyserini's Python code (~4 MB): the harness never imports pyserini (the import-linter contract
# forbids it), it only finds the package to read the jar under resources/.
find "$site/pyserini" -mindepth 1 -maxdepth 1 ! -name __init__.py ! -name resources -exec rm -rf {} +
# pyarrow's parts the harness never loads (it uses pyarrow's core, compute and csv): Arrow Flight
# (libarrow_flight, 32 MB, and its Python bindings), the S3 file system (libarrow_s3, 17 MB, and
# _s3fs, its bindings, which link it: only pyarrow.fs loads them, and that import tolerates their
# absence), C++ headers and Cython sources,
# and the two extra copies of libarrow_python (the wheel stores each symlink as a file: only the
# .so.<ABI> name is linked against). tests/test_docker_image.py runs the readers and the writer in
# the image and compares their files with a local run's.
pa="$site/pyarrow"
rm -rf "$pa/include" "$pa/src" "$pa"/libarrow_flight.so* "$pa"/libarrow_python_flight.so* "$pa"/_flight*.so \
  "$pa/flight.py" "$pa"/libarrow_s3.so* "$pa"/_s3fs.*.so "$pa"/_pyarrow_cpp_tests*.so
find "$pa" -name '*.pyx' -o -name '*.pxd' -o -name '*.pxi' | xargs rm -f
for lib in libarrow_python libarrow_python_parquet_encryption; do
  rm -f "$pa/$lib.so" "$pa/$lib.so".*.*.*
done
# Anserini's fatjar carries native libraries of zstd-jni and snappy for a dozen other platforms
# (FreeBSD, macOS, Windows, s390x, ppc64...), which a linux/amd64 container can never load; the
# linux/amd64 and Linux/x86_64 ones stay.
for jar in "$site"/pyserini/resources/jars/anserini-*-fatjar.jar; do
  python -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$jar" \
    | grep -E '^(freebsd|darwin|win|linux/(s390x|ppc64|ppc64le|mips64|i386|arm|aarch64))/.|^org/xerial/snappy/native/(AIX|FreeBSD|Mac|SunOS|Windows|Linux/(aarch64|android-arm|arm|armv6|armv7|ppc|ppc64|ppc64le|s390x|x86))/.' \
    | zip -q -d "$jar" -@
done
# Then the libraries of the fatjar the harness can never reach (Anserini's REST server with Jetty,
# Javalin and Kotlin, its reproduction commands, Guava, the test libraries), with every class
# that refers to them, by the JDK's jdeps (~11 MB; scripts/docker-trim-jar.py says how).
for jar in "$site"/pyserini/resources/jars/anserini-*-fatjar.jar; do
  python scripts/docker-trim-jar.py "$jar"
done
# scipy's subpackages that neither scipy.stats nor anything it imports loads (checked: no import
# of them outside their own folders and tests, but in docstrings): io, signal, odr, misc,
# datasets, cluster, fftpack (~12 MB).
for sub in io signal odr misc datasets cluster fftpack; do rm -rf "$site/scipy/$sub"; done
# What only building or testing against numpy uses (~2 MB): its C headers and static library,
# and _simd, the extension its own SIMD tests import (f2py stays: scipy's array API layer runs
# `from numpy import *`, which imports it); type stubs (.pyi) and Cython declarations (.pxd) of
# every package, which only type checkers and compilers read.
rm -rf "$site/numpy/_core/include" "$site/numpy/_core/lib" "$site/numpy/random/_examples" \
  "$site"/numpy/_core/_simd.*
find "$site" \( -name '*.pyi' -o -name '*.pxd' \) -type f -delete
# Debug symbols of the wheels' shared libraries (numpy, scipy, pyarrow, pandas, pyjnius...):
# strip --strip-unneeded keeps every symbol the dynamic linker resolves and drops the rest.
find "$site" \( -name '*.so' -o -name '*.so.*' \) -type f -print0 | xargs -0 strip --strip-unneeded
