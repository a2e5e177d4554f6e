"""The indexer worker: a child process that hosts the JDT indexer's JVM through JPype.

The parent (CLI, MCP server, tests) uses `Worker`; only `child` imports jpype.
"""

from pybridge.worker.client import IndexRequest, IndexResult, IndexTask, Worker, jars_dir
from pybridge.worker.version import INDEXER_VERSION

__all__ = ["INDEXER_VERSION", "IndexRequest", "IndexResult", "IndexTask", "Worker", "jars_dir"]
