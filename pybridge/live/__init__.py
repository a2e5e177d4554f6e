"""The live index of `pybridge serve`: a warm worker, a watcher, background catch-ups (DESIGN section 5).

    live = LiveIndex([(slug, root, state_dir)], LiveConfig.from_env()).start()
    facade.attach_live(live, worker=live.worker)
    ...
    live.close()

The query layer never imports this package: it sees a `LiveHook`
(`pybridge.query.freshness`). Modules: `config` (settings, env vars),
`worker` (the warm worker), `watcher` (file events, polling fallback),
`index` (debounce, catch-ups, the hook).
"""

from pybridge.live.config import LiveConfig
from pybridge.live.index import LiveIndex, Outcome
from pybridge.live.worker import WarmWorker

__all__ = ["LiveConfig", "LiveIndex", "Outcome", "WarmWorker"]
