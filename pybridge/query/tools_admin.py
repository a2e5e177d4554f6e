"""sync and status.

Results (plus the freshness envelope)::

    sync    {"repo", "generation", "durationSeconds", "reusedFiles", "reindexedFiles",
             "published" (false: no input changed, the current generation stays current),
             "unchanged" (= not published), "incremental" (planned from the previous generation),
             "counts": {"files", "declarations", "references", "problems",
                        "filesNotBindingComplete", "modules", "symbols", "limitations"},
             "coverage": {"bindingComplete": bool, "scopes": [{"module", "scope", "files",
                          "bindingComplete", "problems"}]},
             "limitations": [{"kind", "module", "scope", "message"}]}
    status  {"repo", "root", "stateDir", "state" (ready: a generation is served; indexing: the
             first sync runs in the background, its progress in "indexing": {"filesDone",
             "filesTotal", "etaSeconds", "phase"}; failed: that sync failed, its error object in
             "syncError"; not_synced: never synced, and no first sync runs),
             "synced", "generation" (null before the first sync),
             "generations" (kept, newest first), "modules": [{"module", "groupId",
             "artifactId", "version", "release", "encoding", "scopes"}],
             "scopes": [{"module", "scope", "files", "bindingComplete", "failedFiles",
             "references", "problems", "limitations"}], "counts", "limitations", "hint"?,
             "live"? (under `serve`: watching, watchMode, pending, syncing, lagSeconds,
             lastCatchUp, freshWaitSeconds, worker; see `pybridge.live.index`)}

`status` without `repo` while several workspaces are served answers
`{"workspaces": [status…]}` plus a combined envelope (stale when any is) and
a combined `state` (the first of failed, indexing, not_synced, ready that any
workspace is in).

`status` of a never-synced workspace is an answer, not an error: `synced`
false, `generation` null, a `hint` to call sync, and a stale envelope. A
failed sync is `sync_failed` (`stale_snapshot` when files changed while it
ran); the previous generation stays served either way.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from pybridge.errors import PybridgeError
from pybridge.sync import StaleSnapshotError, sync
from pybridge.sync.meta import GenerationMeta

from .errors import QueryError
from .freshness import combine, envelope, indexing_fields
from .models import StatusArgs, SyncArgs
from .registry import Call, tool
from .results import StatusResult, SyncResult
from .view import viewing
from .workspace import Served

log = logging.getLogger("pybridge.query")
Progress = Callable[[float, "float | None", str], None]


def _camel(name: str) -> str:
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), name)


def _progress_adapter(progress: Progress | None) -> Callable[[dict[str, Any]], None]:
    done = 0.0
    total: float | None = None

    def on_event(event: dict[str, Any]) -> None:
        nonlocal done, total
        if progress is None:
            return
        try:
            if event.get("phase") == "index":
                done = max(done, float(event.get("done") or 0))
                total = float(event["total"]) if event.get("total") else total
                message = (f"indexing {event.get('module')} ({event.get('scope')}): "
                           f"{int(done)}/{int(total or 0)} files")
            else:
                if event.get("phase") in ("check", "publish") and total is not None:
                    done = total
                message = str(event.get("message") or event.get("phase") or "syncing")
            progress(done, total, message)
        except Exception:  # progress is best effort; the sync goes on
            log.debug("progress callback failed", exc_info=True)

    return on_event


def _still_served(message: str) -> str:
    """The message, saying once (never twice) that the previous generation is still served."""
    if "previous generation" in message or "published generation" in message:
        return message
    return f"{message.rstrip()} The previous generation, if any, is still served."


@tool("sync", args=SyncArgs, result=SyncResult, read_only=False, progress=True, description="""
    Compile the workspace with the Eclipse compiler and publish a new generation of facts. Call
    it first (status says when) and after the code changed; the previous generation answers
    until then. Reports progress.""")
def sync_tool(call: Call, a: SyncArgs) -> SyncResult:
    ws = call.spaces.pick(a.repo)
    try:
        return SyncResult.model_validate(sync_served(ws, call.progress, allow_online=call.allow_online,
                                               heap=call.heap, worker=call.worker, wait=call.wait,
                                               build_tool=build_tool_of(ws, call.build_tool)))
    finally:
        ws.freshness.invalidate()    # whatever happened, the next answer checks the files anew


def build_tool_of(ws: Served, build_tool: str) -> str:
    """The build tool a sync of `ws` uses: the one asked for, else (auto) the one its current generation
    was read with (a root with both a pom.xml and a build.gradle synced with --build-tool gradle stays
    Gradle's), else auto."""
    if build_tool != "auto":
        return build_tool
    current = ws.current()
    recorded = GenerationMeta.of(current).build_tool if current is not None else None
    return recorded or build_tool


def sync_served(ws: Served, progress: Progress | None, *, allow_online: bool, heap: str | None,
                worker: Any, wait: bool, build_tool: str) -> dict[str, Any]:
    """Sync a served workspace as the sync tool does (rename's apply without serve too): its answer's
    fields, or the QueryError its failure maps to."""
    try:
        result = sync(ws.root, state_dir=ws.state, allow_online=allow_online, wait=wait,
                      progress=_progress_adapter(progress), worker=worker, heap=heap, build_tool=build_tool)
    except StaleSnapshotError as exc:
        raise QueryError("stale_snapshot", exc.message, changed=list(exc.changed),
                         hint="wait until the edits are done, then call sync again") from exc
    except PybridgeError as exc:
        raise QueryError("sync_failed", f"The sync of {ws.slug} failed: {_still_served(exc.message)}",
                         cause=getattr(exc, "cause", None) or type(exc).__name__) from exc
    except Exception as exc:  # whatever broke, the caller gets an answer
        log.exception("sync of %s failed", ws.root)
        raise QueryError("sync_failed", f"The sync of {ws.slug} failed unexpectedly "
                         f"({type(exc).__name__}: {exc}); the previous generation, if any, is still "
                         f"served. Retry; if it persists, report it.") from exc
    scopes = [{"module": m["module"], "scope": m["scope"], "files": m["files"],
               "bindingComplete": m["bindingComplete"], "problems": m["problems"]}
              for m in result.modules]
    with viewing(ws) as v:
        env = v.envelope()
    return {
        "repo": ws.slug,
        "generation": result.generation,
        "durationSeconds": round(result.duration_s, 3),
        "reusedFiles": result.reused_files,
        "reindexedFiles": result.reindexed_files,
        "published": result.published,
        "unchanged": result.unchanged,
        "incremental": result.incremental,
        "counts": {_camel(k): v for k, v in result.counts.items()},
        "coverage": {"bindingComplete": all(s["files"] == s["bindingComplete"] for s in scopes),
                     "scopes": scopes},
        "limitations": [{k: lim.get(k) for k in ("kind", "module", "scope", "message")}
                        for lim in result.limitations],
        **env,
    }


@tool("status", args=StatusArgs, result=StatusResult, description="""
    What is indexed: generation, freshness, modules, scopes, counts and limitations. Cheap; call it
    to decide whether to sync.""")
def status(call: Call, a: StatusArgs) -> StatusResult:
    spaces = call.spaces
    if a.repo is None and len(spaces.served) > 1:
        each = [_status(ws) for ws in spaces.served]
        state = next(s for s in ("failed", "indexing", "not_synced", "ready") if any(w["state"] == s for w in each))
        return StatusResult.model_validate({"workspaces": each, "state": state, **combine(each)})
    return StatusResult.model_validate(_status(spaces.pick(a.repo)))


def _status(ws: Served) -> dict[str, Any]:
    base: dict[str, Any] = {"repo": ws.slug, "root": str(ws.root), "stateDir": str(ws.state)}
    live = ws.freshness.live_fields()    # the live index of `serve` (watching, lag, last catch-up)
    if live is not None:
        base["live"] = live
    if ws.current() is None:
        hook = ws.freshness.live
        first = hook.first_sync(ws.root) if hook is not None else None
        state: dict[str, Any] = {
            "state": "not_synced",
            "hint": f"{ws.slug} has not been synced yet: call sync (repo {ws.slug!r}) to index it."}
        if first is not None and first.state == "indexing":
            state = {"state": "indexing", "indexing": indexing_fields(first),
                     "hint": f"{ws.slug} is being indexed for the first time; tools answer when it is done "
                             f"(they wait up to {hook.bound() if hook else 0:g} s, then answer `indexing`)."}
        elif first is not None and first.state == "failed":
            state = {"state": "failed", "syncError": first.error,
                     "hint": f"The first sync of {ws.slug} failed (syncError says why): fix that, then call sync."}
        return {**base, **state, "synced": False, "generation": None, "generations": [], "modules": [],
                "scopes": [], "counts": {}, "limitations": [], **envelope(None, None)}
    with viewing(ws) as v:
        meta = GenerationMeta.of(v.gen)
        failed = {(ms.module, ms.scope): ms.failed_files for ms in v.r.module_scopes()}
        modules = []
        for m in meta.modules:
            mine = meta.scopes_of(m.id)
            group, _, artifact = m.id.partition(":")
            modules.append({
                "module": m.id, "groupId": group, "artifactId": artifact, "version": m.version,
                "release": mine[0].release if mine else None,
                "encoding": mine[0].encoding if mine else None,
                "scopes": [s.scope for s in mine],
            })
        scopes = [{
            "module": s.module, "scope": s.scope, "files": s.files, "bindingComplete": s.binding_complete,
            "failedFiles": failed.get((s.module, s.scope), 0), "references": s.references,
            "problems": s.problems, "limitations": list(s.limitations),
        } for s in meta.scopes]
        env = v.envelope()
        out = {
            **base, "state": "ready", "synced": True, "generation": v.gen.number,
            "generations": ws.generations(), "publishedAt": v.gen.published_at,
            "modules": modules, "scopes": scopes,
            "counts": {_camel(k): n for k, n in meta.counts.to_json().items()},
            "limitations": v.limitations(),
        }
        if env["stale"]:
            out["hint"] = (f"Files changed since generation {v.gen.number}: call sync to index them; "
                           f"until then exact tools (find_references, symbol_at) refuse to answer.")
        return {**out, **env}
