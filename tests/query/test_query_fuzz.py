"""Whatever the arguments, every tool answers with a result or a known error code, and never raises."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pybridge.query import CODES, TOOL_NAMES, TOOLS
from tests.support.query_support import ENVELOPE, facade_for, ok, synced_sample

SETTINGS = settings(max_examples=600, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
COUNTER = "src/main/java/com/acme/kitchen/Counter.java"


@pytest.fixture(scope="module")
def pools(tmp_path_factory, worker):
    kitchen = synced_sample("kitchen-sink", tmp_path_factory, worker)
    reactor = synced_sample("reactor", tmp_path_factory, worker)
    facade = facade_for(kitchen, reactor, worker=worker)     # check_edit and rename compile on it
    keys = [s["symbolKey"] for q in ("Counter.count", "Greeter", "Greeter.Config", "Kitchen.main")
            for s in ok(facade, "find_symbol", {"repo": "kitchen-sink", "query": q})["symbols"]]
    keys.append(ok(facade, "symbol_at", {"repo": "kitchen-sink", "path": COUNTER, "line": 42,
                                         "character": 12})["symbol"]["symbolKey"])
    cursors = [ok(facade, "find_symbol", {"repo": "kitchen-sink", "query": "greet",
                                          "limit": 1})["nextCursor"],
               ok(facade, "find_references", {"symbolKey": keys[0], "limit": 2})["nextCursor"]]
    yield {
        "facade": facade, "keys": keys, "cursors": cursors,
        "repos": ["kitchen-sink", "reactor", str(kitchen[0]), str(reactor[0]) + "/", "nope", ""],
        "names": ["greet", "Greeter.greet(String)", "Counter.count", "com.acme.core.Greeter.greet",
                  "src/main/java/com/acme/kitchen/Greeter.java#greet", "Box(T)", "sum(int...)",
                  "scip-java maven dev.pybridge.samples/kitchen-sink 1.0 com/acme/kitchen/Counter#count.",
                  "com/acme/kitchen/Greeter#greet().", "local 3", "größe", "Greeter$Config", "a..b",
                  "x(", "(", ")", "#", ".java#", "scip-java", "<T>", "Greeter#"],
        "paths": [COUNTER, "/" + COUNTER, "../etc/passwd", "/etc/passwd", "src", ".", "",
                  str(kitchen[0] / COUNTER), "src/main/java/com/acme/kitchen/Kitchen.java", "a\0b"],
        "modules": ["core", "dev.pybridge.samples:core", "dev.pybridge.samples:kitchen-sink", ":", ""],
    }
    facade.close()


def mutated(pool: list[str]) -> st.SearchStrategy[str]:
    def mutate(token: str, data: st.DataObject) -> str:
        if not token:
            return token
        i = data.draw(st.integers(0, len(token) - 1))
        how = data.draw(st.sampled_from(["cut", "flip", "append", "drop", "same"]))
        if how == "cut":
            return token[:i]
        if how == "flip":
            return token[:i] + data.draw(st.characters()) + token[i + 1:]
        if how == "append":
            return token + data.draw(st.text(max_size=4))
        if how == "drop":
            return token[:i] + token[i + 1:]
        return token
    return st.builds(mutate, st.sampled_from(pool), st.data())


ANY = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                   lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                 max_size=3),
                   max_leaves=6)


def field_strategy(name: str, p: dict, typed: bool = False) -> st.SearchStrategy:
    text = st.text(max_size=30)
    if name == "apply":      # never a write: the synced samples are shared by the session's tests
        return st.just(False) | st.none() | st.sampled_from(["true", 1])
    by_name = {
        "repo": st.sampled_from(p["repos"][:2]) if typed else (
            st.sampled_from(p["repos"]) | mutated(p["repos"][:4]) | text),
        "query": st.sampled_from(p["names"]) | mutated(p["names"]) | text,
        "symbol": st.sampled_from(p["names"]) | mutated(p["names"]) | text,
        "symbolKey": st.sampled_from(p["keys"]) | mutated(p["keys"]) | text,
        "cursor": st.sampled_from(p["cursors"]) | mutated(p["cursors"]) | text,
        "path": st.sampled_from(p["paths"]) | mutated(p["paths"]) | text,
        "line": st.integers(-3, 130) | st.integers(),
        "character": st.integers(-3, 80) | st.integers(),
        "limit": st.integers(-2, 600) | st.integers(),
        "max_results": st.integers(-2, 600) | st.integers(),
        "kind": st.sampled_from(["METHOD", "class", "LOCAL", "nope"]) | text,
        "module": st.sampled_from(p["modules"]) | text,
        "scope": st.sampled_from(["main", "test", "tests"]),
        "include_tests": st.booleans(),
        "include_javadoc": st.booleans(),
        "include_imports": st.booleans(),
        "kinds": st.lists(st.sampled_from(["read", "write", "invocation", "type_use", "call", "READ"]),
                          max_size=4),
        "direction": st.sampled_from(["in", "out", "super", "sub", "both", "up"]),
        "depth": st.integers(-1, 7) | st.integers(),
        "newName": st.sampled_from(["renamed", "class", "1x", "count", "Greeter", "_", "a b"]) | text,
        "base": st.none() | st.dictionaries(st.sampled_from(p["paths"]) | text, st.text(max_size=70), max_size=2),
        "changes": st.lists(st.fixed_dictionaries({"path": st.sampled_from(p["paths"]) | text,
                                                   "text": st.none() | text}), max_size=2),
        "patch": text,
    }
    if typed:
        narrow = {"limit": st.integers(1, 500), "max_results": st.integers(1, 500),
                  "kinds": st.lists(st.sampled_from(["read", "write", "invocation", "type_use"]), min_size=1,
                                    max_size=3, unique=True),
                  "kind": st.sampled_from(["METHOD", "class", "FIELD"]),
                  "module": st.sampled_from(p["modules"][:3]), "line": st.integers(0, 70),
                  "character": st.integers(0, 40)}
        return narrow[name] if name in narrow else by_name[name]
    return by_name.get(name, text) | ANY


def check(tool, result, is_error) -> None:
    assert isinstance(result, dict) and isinstance(is_error, bool)
    json.dumps(result, ensure_ascii=False).encode("utf-8")
    if is_error:
        assert result["code"] in CODES and isinstance(result["error"], str) and result["error"]
        assert not result.get("internal"), result
    else:
        assert ENVELOPE <= result.keys(), (tool, result)


@SETTINGS
@given(data=st.data())
def test_every_tool_answers_any_mix_of_valid_garbled_and_random_arguments(pools, data):
    tool = data.draw(st.sampled_from([t for t in TOOL_NAMES if t != "sync"]))
    model = TOOLS[tool].args
    typed = data.draw(st.sampled_from([True, True, True, False]))   # mostly well-typed: reach past validation
    if typed:
        required = [n for n, f in model.model_fields.items() if f.is_required() or n == "repo"]
        optional = [n for n in model.model_fields if n not in required]
        chosen = required + data.draw(st.lists(st.sampled_from(optional), unique=True)) \
            if optional else required
    else:
        fields = list(model.model_fields) + ["extra"]
        chosen = data.draw(st.lists(st.sampled_from(fields), unique=True, max_size=len(fields)))
    args = {name: data.draw(field_strategy(name, pools, typed)) for name in chosen}
    result, is_error = pools["facade"].call(tool, args)
    check(tool, result, is_error)


@SETTINGS
@given(tool=st.sampled_from(list(TOOL_NAMES)) | st.text(max_size=15) | ANY, args=ANY)
def test_any_tool_name_and_any_json_value_as_arguments_get_an_answer(pools, tool, args):
    if tool == "sync":   # a real sync is no fuzzing matter: only refusals
        assume(not isinstance(args, dict) or args.get("repo") not in pools["repos"][:4])
    result, is_error = pools["facade"].call(tool, args)
    check(tool, result, is_error)
