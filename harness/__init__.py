"""harness: a Lucene-backed retrieval experiment harness.

Importing it is instant and needs no Java: the JVM starts on first use, in ``harness.engine.lucene``.
"""

__version__ = "0.1.0"
