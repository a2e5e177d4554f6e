"""The indexer worker: a child process that hosts the JDT indexer's JVM through JPype.

The parent (CLI, MCP server, tests) uses `Worker`; only `child` imports jpype.
"""

from pybridge.worker.client import INDEXER_VERSION, IndexRequest, IndexResult, IndexTask, Worker, jars_dir

__all__ = ["INDEXER_VERSION", "IndexRequest", "IndexResult", "IndexTask", "Worker", "jars_dir"]
