"""pybridge: compiler-exact Java code intelligence for coding agents.

Importing this package never starts a JVM: only the worker child process
(`pybridge.worker.child`) imports `jpype`.
"""

__version__ = "0.1.0"
