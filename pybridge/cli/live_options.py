"""`serve`'s live-index options (`--no-watch`, `--no-auto-sync`, `--poll`, `--fresh-wait`, `--worker-idle`,
`--worker-max-rss`) and the wiring of the live index around the facade."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

import click

_OPTIONS = [
    click.option("--no-watch", "no_watch", is_flag=True, default=None, envvar="PYBRIDGE_NO_WATCH",
                 help="Do not watch the workspaces: answers come from the last sync until `sync` is called, and "
                      "exact tools say stale_snapshot after an edit (env PYBRIDGE_NO_WATCH=1)."),
    click.option("--no-auto-sync", "no_auto_sync", is_flag=True, default=None, envvar="PYBRIDGE_NO_AUTO_SYNC",
                 help="Do not sync a never-synced workspace in the background at start: its tools say not_synced "
                      "until `sync` is called (env PYBRIDGE_NO_AUTO_SYNC=1). Without it, tools wait for that first "
                      "sync up to --fresh-wait, then answer `indexing` with its progress."),
    click.option("--poll", "poll", is_flag=True, default=None, envvar="PYBRIDGE_WATCH_POLL",
                 help="Watch by polling the files instead of OS file events (network or container file systems "
                      "that give no events; env PYBRIDGE_WATCH_POLL=1). Polling is used anyway where the OS "
                      "gives no events."),
    click.option("--fresh-wait", "fresh_wait", type=click.FloatRange(min=0), default=None, metavar="SECONDS",
                 help="How long an exact tool (find_references, symbol_at) that finds the workspace edited waits "
                      "for the background catch-up before it says stale_snapshot (default 5; env "
                      "PYBRIDGE_FRESH_WAIT)."),
    click.option("--worker-idle", "worker_idle", type=click.FloatRange(min=0.1), default=None, metavar="SECONDS",
                 help="Let the indexer JVM go after this many seconds without a sync (default 600; env "
                      "PYBRIDGE_WORKER_IDLE); the next sync starts a new one."),
    click.option("--worker-max-rss", "worker_max_rss", type=click.FloatRange(min=1), default=None, metavar="MB",
                 help="Let the indexer JVM go after a sync that left its resident memory above MB megabytes "
                      "(default 3072; env PYBRIDGE_WORKER_MAX_RSS)."),
]


def live_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Adds the options to a command, which receives them as one `live` argument (a `LiveConfig`)."""

    @functools.wraps(f)
    def command(*args: Any, no_watch: bool | None, no_auto_sync: bool | None, poll: bool | None,
                fresh_wait: float | None,
                worker_idle: float | None, worker_max_rss: float | None, **kwargs: Any) -> Any:
        from pybridge.live import LiveConfig

        try:
            config = LiveConfig.from_env(
                watch=None if no_watch is None else not no_watch, poll=poll, fresh_wait_s=fresh_wait,
                auto_sync=None if no_auto_sync is None else not no_auto_sync,
                worker_idle_s=worker_idle, worker_max_rss_mb=worker_max_rss)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        return f(*args, live=config, **kwargs)

    for option in reversed(_OPTIONS):
        command = option(command)
    return command


@contextlib.contextmanager
def live_serving(facade: Any, config: Any) -> Iterator[Any]:
    """Run a live index over the facade's workspaces for the life of the server."""
    from pybridge.live import LiveIndex

    live = LiveIndex([(ws.slug, ws.root, ws.state) for ws in facade.spaces.served], config,
                     build_tool=facade.build_tool)
    facade.attach_live(live, worker=live.worker)
    live.start()
    try:
        yield live
    finally:
        live.close()
