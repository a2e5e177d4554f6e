"""Lombok: the indexer JVM runs with Lombok's agent, generated members are declared, marked and
referenced, a field's references include its generated accessors' calls, and an agent that cannot
load is a named limitation (samples/lombok, real Maven, the real agent from Maven Central)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pybridge.golden import build_names, render_file
from pybridge.live import LiveConfig, LiveIndex
from pybridge.store import Store
from pybridge.sync import store_path, sync
from pybridge.sync.meta import GenerationMeta
from pybridge.worker import IndexRequest, Worker
from pybridge.workspace import load_workspace, resolve_classpaths
from pybridge.workspace.lombok import agents_for, lombok_jar
from pybridge.workspace.maven.system import agent_hint
from tests.support.goldens import mismatched_goldens
from tests.support.query_support import SAMPLES, err, facade_for, key_of, ok, start

GOLDEN = Path(__file__).parent.parent / "golden" / "lombok"
SHOP = "src/main/java/com/acme/lombok/Shop.java"
ACCOUNT = "src/main/java/com/acme/lombok/Account.java"
WAIT = 120      # seconds: a bound for waits on a loaded machine, never a measured time


@pytest.fixture(scope="module")
def lombok_worker():
    """A worker of its own: syncing Lombok code gives it the agent (the session's worker stays as it is)."""
    with Worker(heap="1g") as w:
        yield w


@pytest.fixture(scope="module")
def synced(tmp_path_factory, lombok_worker):
    base = tmp_path_factory.mktemp("lombok")
    root = base / "lombok"
    shutil.copytree(SAMPLES / "lombok", root)
    state = base / "state"
    result = sync(root, state_dir=state, worker=lombok_worker)
    return root, state, result


@pytest.fixture(scope="module")
def facade(synced):
    root, state, _ = synced
    with facade_for((root, state)) as f:
        yield f


def test_a_classpath_with_lombok_runs_the_indexer_with_lomboks_agent_and_the_limitation_goes_away(
        synced, lombok_worker):
    _, _, result = synced
    assert [Path(a).name for a in lombok_worker.agents] == ["lombok-1.18.42.jar"]
    assert lombok_worker.agent_error is None and lombok_worker.info["agents"] == list(lombok_worker.agents)
    kinds = {lim["kind"] for lim in result.limitations}
    assert "annotation_processing_not_run" not in kinds and "lombok_agent_not_loaded" not in kinds
    [main] = [m for m in result.modules if m["scope"] == "main"]
    assert main["files"] == main["bindingComplete"] == 5 and main["problems"] == 0


def test_generated_members_are_declared_at_their_annotation_and_marked_generated(facade, synced):
    root = synced[0]
    [getter] = ok(facade, "find_symbol", {"query": "Account.getOwner"})["symbols"]
    assert getter["generated"] is True and getter["kind"] == "METHOD"
    line = (root / ACCOUNT).read_text(encoding="utf-8").split("\n")[7]
    rng = getter["declaration"]["range"]
    assert line[rng["start"]["character"]:rng["end"]["character"]] == "@Getter"
    [field] = ok(facade, "find_symbol", {"query": "Account.owner"})["symbols"]
    assert "generated" not in field        # flags appear only when true
    for name in ("Order.builder", "Order.OrderBuilder.build", "Customer.setName", "Money.getCents", "Shop.log"):
        [symbol] = ok(facade, "find_symbol", {"query": name})["symbols"]
        assert symbol["generated"] is True, name


def test_find_references_on_a_field_finds_the_calls_to_its_generated_getter_and_setter(facade):
    result = ok(facade, "find_references", {"symbolKey": key_of(facade, "Account.owner")})
    rows = [(r["path"], start(r), r["kind"], r["via"]["dottedPath"]) for r in result["references"]]
    assert rows == [
        (SHOP, (8, 16), "invocation", "com.acme.lombok.Account.setOwner"),
        (SHOP, (10, 42), "invocation", "com.acme.lombok.Account.getOwner"),
        (SHOP, (11, 23), "invocation", "com.acme.lombok.Account.getOwner"),
    ]
    assert result["meta"]["total"] == 3
    accessors = {s["dottedPath"] for s in result["relations"]["generatedAccessors"]}
    assert accessors == {"com.acme.lombok.Account.getOwner", "com.acme.lombok.Account.setOwner"}
    by_name = ok(facade, "findReferences", {"symbol": "Customer.visits"})
    assert [(r["kind"], r.get("via", {}).get("dottedPath")) for r in by_name["references"]] == [
        ("definition", None),
        ("invocation", "com.acme.lombok.Customer.setVisits"),
        ("invocation", "com.acme.lombok.Customer.getVisits"),
    ]


def test_get_callers_on_a_generated_builder_method_finds_the_call(facade):
    for symbol, column in (("Order.builder", 29), ("Order.OrderBuilder.quantity(int)", 51)):
        result = ok(facade, "get_callers", {"symbol": symbol})
        assert [(c["path"], c["line"], c["column"], c["caller_fn"]) for c in result["callers"]] == [
            (SHOP, 16, column, "com.acme.lombok.Shop.sell()")], symbol


def test_references_inside_generated_members_are_marked_generated(facade):
    log = ok(facade, "find_references", {"symbolKey": key_of(facade, "Shop.log")})
    assert [(start(r), r["kind"], r.get("generated", False)) for r in log["references"]] == [((10, 8), "read", False)]
    shop = ok(facade, "find_references", {"symbolKey": key_of(facade, "Shop", kind="CLASS")})
    # `Shop.class` in the generated `log = LoggerFactory.getLogger(Shop.class)`, at the annotation's name
    in_shop = [(start(r), r["kind"], r.get("generated", False), shop["containers"][r["container"]]["name"])
               for r in shop["references"] if r["path"] == SHOP]
    assert in_shop == [((5, 1), "type_use", True, "Shop.log")]


def test_the_lombok_sample_goldens_match_what_the_indexer_sees_with_the_agent(tmp_path, lombok_worker,
                                                                             update_goldens):
    root = SAMPLES / "lombok"
    classpaths = resolve_classpaths(load_workspace(root), tmp_path / "state")
    cp = classpaths[("dev.pybridge.samples:lombok", "main")]
    lombok_worker.use_agents(agents_for(classpaths))
    src = root / "src" / "main" / "java"
    files = sorted(str(p) for p in src.rglob("*.java"))
    result = lombok_worker.index(IndexRequest(files=files, sourcepath=[str(src)],
                                              classpath=[str(p) for p in cp.classpath]))
    names = build_names(result.files)
    rendered = {str(Path(ff.path).resolve().relative_to(root.resolve())):
                render_file(Path(ff.path).read_text(encoding="utf-8"), ff, names) for ff in result.files}
    mismatched = mismatched_goldens(GOLDEN, rendered, update_goldens)
    assert not mismatched, f"goldens differ (run pytest --update-goldens and review the diff): {mismatched}"
    assert {str(p.relative_to(GOLDEN))[:-len(".golden")] for p in GOLDEN.rglob("*.golden")} == {
        str(Path(f).resolve().relative_to(root.resolve())) for f in files}


def test_a_worker_whose_agent_cannot_load_starts_without_it_and_says_why(tmp_path):
    bogus = tmp_path / "lombok-1.18.42.jar"
    bogus.write_text("not a jar", encoding="utf-8")
    with Worker(heap="512m", agents=[bogus]) as w:
        w.start()
        assert w.pid is not None and w.loaded_agents == () and w.info["agents"] == []
        assert "lombok-1.18.42.jar" in (w.agent_error or "")
        assert w.use_agents([]) is True and w.agent_error is None and w.pid is None


def test_a_lombok_jar_that_cannot_load_is_the_named_limitation_lombok_agent_not_loaded(tmp_path):
    root = tmp_path / "ws"
    shutil.copytree(SAMPLES / "lombok", root)
    bogus = tmp_path / "jars" / "lombok-1.18.42.jar"
    bogus.parent.mkdir()
    bogus.write_text("not a jar", encoding="utf-8")
    pom = root / "pom.xml"
    pom.write_text(pom.read_text(encoding="utf-8").replace(
        "<scope>provided</scope>", f"<scope>system</scope>\n      <systemPath>{bogus}</systemPath>"),
        encoding="utf-8")
    assert lombok_jar(resolve_classpaths(load_workspace(root), tmp_path / "cp")[
        ("dev.pybridge.samples:lombok", "main")].classpath) == bogus
    with Worker(heap="512m") as w:
        result = sync(root, state_dir=tmp_path / "state", worker=w)
        assert w.agent_error is not None
    by_kind = {lim["kind"]: lim for lim in result.limitations if lim["scope"] == "main"}
    assert set(by_kind) >= {"lombok_agent_not_loaded", "annotation_processing_not_run"}
    assert "lombok-1.18.42.jar" in by_kind["lombok_agent_not_loaded"]["message"]
    [main] = [m for m in result.modules if m["scope"] == "main"]
    assert main["bindingComplete"] < main["files"]      # indexed without the agent: Shop's calls do not bind


def test_a_running_worker_is_kept_for_the_same_agents_and_replaced_for_another_set(synced, lombok_worker):
    hint = agent_hint(load_workspace(SAMPLES / "lombok"))      # the declared version, in the local repository
    assert [p.name for p in hint] == ["lombok-1.18.42.jar"]
    with Worker(heap="512m", agents=hint) as w:
        w.start()
        pid = w.pid
        assert w.use_agents(hint) is False and w.pid == pid            # same set: the warm JVM stays
        assert w.use_agents([]) is True and w.pid is None              # another set: stopped, restarts on use
        w.start()
        assert w.pid not in (None, pid) and w.info["agents"] == []


def test_a_server_starts_its_worker_with_the_published_agents_and_the_first_edit_restarts_nothing(
        tmp_path, lombok_worker):
    """The warm worker of `serve` used to start without Java agents; the first catch-up of a Lombok
    workspace then replaced the JVM to load Lombok's agent (restart cause `agents`), and the first edit
    waited for a cold JVM. It starts with the agents the published generation recorded."""
    root = tmp_path / "lombok"
    shutil.copytree(SAMPLES / "lombok", root)
    state = tmp_path / "state"
    sync(root, state_dir=state, worker=lombok_worker)
    with Store.open(store_path(state)) as store:
        info = store.current_generation()
        assert info is not None
        recorded = GenerationMeta.of(info).agents
    assert [Path(a).name for a in recorded] == ["lombok-1.18.42.jar"]
    config = LiveConfig(heap="1g", fresh_wait_s=WAIT, prewarm=True, auto_sync=False)
    with LiveIndex([("lombok", root, state)], config) as live:
        worker = live.worker
        assert worker.loaded_agents == lombok_worker.loaded_agents
        with worker.changed:
            assert worker.changed.wait_for(lambda: worker.describe()["warm"] or worker.last_crash, WAIT)
        assert worker.info["agents"] == list(lombok_worker.loaded_agents) and worker.last_crash is None
        shop = root / SHOP
        shop.write_text(shop.read_text(encoding="utf-8").replace(
            "return order.total(2);", "return order.total(3);"), encoding="utf-8")
        outcome = live.wait_fresh(root)
        assert outcome.state == "fresh" and outcome.generation == 2, outcome
        assert worker.restart_causes["agents"] == 0 and worker.restarts == 0, worker.restart_causes


def test_rename_refuses_a_generated_member_and_names_the_field_to_rename_instead(facade):
    getter = err(facade, "rename", {"symbolKey": key_of(facade, "Account.getOwner"), "newName": "getName"},
                 "rename_refused")
    assert getter["reason"] == "generated_member"
    assert "@Getter" in getter["error"] and "field `owner`" in getter["error"]
    assert [(p["path"], start(p), p["what"]) for p in getter["places"]] == [(ACCOUNT, (7, 4), "@Getter")]
    # the field's generated accessors are called: their calls would keep the old names
    field = err(facade, "rename", {"symbolKey": key_of(facade, "Account.owner"), "newName": "holder"},
                "rename_refused")
    assert field["reason"] == "generated_member" and "getOwner" in field["error"]
    assert [(p["path"], start(p)) for p in field["places"]] == [(SHOP, (8, 16)), (SHOP, (10, 42)), (SHOP, (11, 23))]


def test_check_edit_from_the_cli_runs_its_worker_with_lomboks_agent(facade, synced):
    """check_edit without serve starts a worker for the call: with the agent the last sync settled (from the
    recorded classpaths), the generated members exist, and a harmless edit adds no error."""
    root, _, _ = synced
    path = "src/main/java/com/acme/lombok/Shop.java"
    text = (root / path).read_text(encoding="utf-8") + "\n// an edit that changes nothing\n"
    answer = ok(facade, "check_edit", {"changes": [{"path": path, "text": text}]})
    assert answer["diagnostics"]["added"] == [] and answer["verdict"] == "clean", answer
