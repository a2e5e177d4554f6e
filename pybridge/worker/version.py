"""The indexer's version, a leaf that the worker's client and the class-data archive's key share."""

INDEXER_VERSION = "9"
"""Must equal `Indexer.VERSION` in jvm/ (a test checks): snapshots include it, so that a new
indexer re-indexes everything, and the no-change resync can know it without starting a JVM."""
