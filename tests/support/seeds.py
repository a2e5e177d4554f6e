"""The fixture of the seed conformance tests (tests/test_seed_*.py): a small Maven project that mirrors
the seed documents' examples (../shared/seeds/), synced once per session, and what the tests compare
with.

`toy-repo` (a git repository, so the envelope's `commit` is a string as the seeds show it):

- seed 000 (`findReferences`) and 003 (`callHierarchy`): `toy.Greeter` with `greet`, `sayHi` (whose
  body calls `greet`; nothing calls `sayHi`) and `unusedHelper`; `toy.Constants` refers to `greet`
  (`new Greeter()::greet`), so `greet` has three occurrences: that one, its definition and the call in
  `sayHi`, in the seed's order. `dup` is declared in `a.C` and `b.D` (ambiguous).
- seed 002 (`get_callers`): `shop.services.PaymentService.charge`, called from
  `shop.controllers.OrderController.submit`, `shop.jobs.BillingJob.run` and a test
  (`src/test/java/shop/services/PaymentServiceTest.java`).
- seed 001 (`find_references`): `toy.Counter` and its `tick()`, called 150 times and referenced once
  more (`counter::tick`) from `toy.Ticks`, so pages of 100 have something to page; the seven reference
  kinds among `Counter`, `Counter.count` and `Counter.tick`; `toy.Lonely.orphan()` has no reference but
  `toy.Unbound` calls an `orphan()` on a type that does not resolve, so its empty list certifies nothing.

`other-repo` is a second served workspace without any of these names (get_callers without `repo`
searches every served workspace).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pybridge.query import Facade
from pybridge.sync import default_state_dir, sync
from tests.support.mcp_session import CHANNELS, NODE

GROUP = "dev.pybridge.seeds"
TOY = "toy-repo"
SCIP = f"scip-java maven {GROUP}/{TOY} 0.0.1 "
ENVELOPE = {"commit": "abc1234", "generated_at": "2026-07-08T12:00:00+00:00", "stale": False,
            "freshness": "fresh", "checked_at": "2026-07-08T12:00:05+00:00"}
"""The freshness envelope as the seeds show it (values are examples; the types are the contract)."""

TICKS_PER_METHOD = 50
TICK_METHODS = 3
TICK_REFERENCES = TICKS_PER_METHOD * TICK_METHODS + 1      # the calls and `counter::tick`

POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>{group}</groupId>
  <artifactId>{artifact}</artifactId>
  <version>0.0.1</version>
  <packaging>jar</packaging>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <build>
    <pluginManagement>
      <plugins>
        <plugin>
          <groupId>org.apache.maven.plugins</groupId>
          <artifactId>maven-compiler-plugin</artifactId>
          <version>3.13.0</version>
        </plugin>
      </plugins>
    </pluginManagement>
  </build>
</project>
"""

TICKS = "".join(
    f"\n    public void ticks{m}() {{\n" + "        counter.tick();\n" * TICKS_PER_METHOD + "    }\n"
    for m in range(TICK_METHODS))

SOURCES = {
    "src/main/java/toy/Greeter.java": """package toy;

public class Greeter {
    public String greet(String name) {
        return "Hello, " + name;
    }

    public void unusedHelper() {
    }

    public String sayHi() {
        return greet("world");
    }
}
""",
    "src/main/java/toy/Constants.java": """package toy;

import java.util.function.Function;

public final class Constants {
    public static final Function<String, String> GREETING = new Greeter()::greet;

    private Constants() {
    }
}
""",
    "src/main/java/a/C.java": "package a;\n\npublic class C {\n    public void dup() {\n    }\n}\n",
    "src/main/java/b/D.java": "package b;\n\npublic class D {\n    public void dup() {\n    }\n}\n",
    "src/main/java/shop/Order.java": """package shop;

public class Order {
    public long amount;
    public String card;
}
""",
    "src/main/java/shop/services/PaymentService.java": """package shop.services;

public class PaymentService {
    public boolean charge(long amount, String card) {
        return amount > 0 && card != null;
    }
}
""",
    "src/main/java/shop/controllers/OrderController.java": """package shop.controllers;

import shop.Order;
import shop.services.PaymentService;

public class OrderController {
    private final PaymentService paymentService = new PaymentService();

    public boolean submit(Order order) {
        return this.paymentService.charge(order.amount, order.card);
    }
}
""",
    "src/main/java/shop/jobs/Subscription.java": """package shop.jobs;

public class Subscription {
    public long amount;
    public String paymentMethod;
}
""",
    "src/main/java/shop/jobs/BillingJob.java": """package shop.jobs;

import shop.services.PaymentService;

public class BillingJob {
    private final PaymentService paymentService = new PaymentService();

    public void run(Subscription sub) {
        paymentService.charge(sub.amount, sub.paymentMethod);
    }
}
""",
    "src/test/java/shop/services/PaymentServiceTest.java": """package shop.services;

public class PaymentServiceTest {
    public void chargesAPositiveAmount() {
        if (!new PaymentService().charge(5, "card")) {
            throw new AssertionError("charge refused");
        }
    }
}
""",
    "src/main/java/toy/Counter.java": """package toy;

public class Counter {
    private int count;

    public void tick() {
        count++;
    }

    public void reset() {
        count = 0;
    }

    public int current() {
        return count;
    }
}
""",
    "src/main/java/toy/Ticks.java": f"""package toy;

public class Ticks {{
    private final Counter counter = new Counter();

    public Runnable later() {{
        return counter::tick;
    }}
{TICKS}}}
""",
    "src/main/java/toy/Lonely.java": "package toy;\n\npublic class Lonely {\n    public void orphan() {\n    }\n}\n",
    "src/main/java/toy/Unbound.java": """package toy;

public class Unbound {
    void haunt(Ghost ghost) {
        ghost.orphan();
    }
}
""",
}

OTHER = {"src/main/java/other/Thing.java":
         "package other;\n\npublic class Thing {\n    public void run() {\n    }\n}\n"}


def write_project(root: Path, artifact: str, sources: dict[str, str]) -> None:
    """A one-module Maven project at `root` with `sources`, committed to a new git repository."""
    for rel, text in {"pom.xml": POM.format(group=GROUP, artifact=artifact), **sources}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    git = ["git", "-C", str(root), "-c", "user.name=pybridge", "-c", "user.email=tests@pybridge.invalid"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the seeds' fixture"]):
        subprocess.run([*git, *args], check=True, capture_output=True)


def head(root: Path) -> str:
    return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


def sync_in(home: Path, root: Path, worker: Any) -> None:
    """Sync `root` into its default state folder under the state home `home` (as the server finds it)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYBRIDGE_STATE_HOME", str(home))
        mp.delenv("PYBRIDGE_STATE_DIR", raising=False)
        sync(root, state_dir=default_state_dir(root), worker=worker)


def keys(home: Path, root: Path, *queries: str) -> list[str]:
    """The symbolKey of each query (one declaration each) in the current generation of `root`."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYBRIDGE_STATE_HOME", str(home))
        state = default_state_dir(root)
    with Facade([root], {root: state}) as facade:
        out = []
        for query in queries:
            result, is_error = facade.call("find_symbol", {"query": query})
            assert not is_error and len(result["symbols"]) == 1, result
            out.append(result["symbols"][0]["symbolKey"])
    return out


def edit(root: Path, rel: str, old: str, new: str) -> None:
    text = (root / rel).read_text(encoding="utf-8")
    assert old in text, (rel, old)
    (root / rel).write_text(text.replace(old, new), encoding="utf-8")


def copy_synced(tmp_path_factory: pytest.TempPathFactory, name: str, worker: Any) -> Path:
    """A copy of `toy-repo` (its git folder too) named `name`, synced; the test may edit it."""
    dest = tmp_path_factory.mktemp(f"seed-{name}") / name
    shutil.copytree(synced(TOY, tmp_path_factory, worker), dest)
    sync_in(seed_home(tmp_path_factory), dest, worker)
    return dest


def at(root: Path, rel: str, needle: str, token: str, nth: int = 0) -> dict:
    """The LSP range of `token` inside the `nth` line of `rel` that contains `needle` (ASCII sources)."""
    lines = [(i, line) for i, line in enumerate((root / rel).read_text(encoding="utf-8").split("\n"))
             if needle in line]
    i, line = lines[nth]
    start = line.index(token, line.index(needle))
    return {"start": {"line": i, "character": start}, "end": {"line": i, "character": start + len(token)}}


def conforms(answer: Any, example: Any, where: str = "answer") -> None:
    """Every field the seed's example shows is in `answer`, with the same JSON type, all the way down
    (each item of an answer's list against the example list's first item); `answer` may have more."""
    if isinstance(example, dict):
        assert isinstance(answer, dict), f"{where} is {answer!r}, the seed shows an object"
        for key, value in example.items():
            assert key in answer, f"{where} has no `{key}`, which the seed shows: {answer!r}"
            conforms(answer[key], value, f"{where}.{key}")
    elif isinstance(example, list):
        assert isinstance(answer, list), f"{where} is {answer!r}, the seed shows an array"
        for i, item in enumerate(answer if example else []):
            conforms(item, example[0], f"{where}[{i}]")
    elif isinstance(example, bool):
        assert isinstance(answer, bool), f"{where} is {answer!r}, the seed shows a boolean"
    elif isinstance(example, int):
        assert isinstance(answer, int) and not isinstance(answer, bool), f"{where} is {answer!r}, not an integer"
    elif isinstance(example, str):
        assert isinstance(answer, str), f"{where} is {answer!r}, the seed shows a string"


def ok(answers: dict, label: str) -> dict:
    row = answers[label]
    assert row["isError"] is False, row["structuredContent"]
    payload: dict = row["structuredContent"]
    return payload


def err(answers: dict, label: str, code: str) -> dict:
    row = answers[label]
    assert row["isError"] is True, row["structuredContent"]
    payload: dict = row["structuredContent"]
    assert payload["code"] == code and isinstance(payload["error"], str) and payload["error"], payload
    return payload


def channels() -> list:
    """The four channels as pytest params (the TypeScript ones skipped, with the reason, without node)."""
    no_node = pytest.mark.skipif(NODE is None, reason="node is not installed: the TypeScript SDK client cannot run")
    return [pytest.param(c, id=c, marks=[no_node] if c.startswith("typescript") else []) for c in CHANNELS]


_SYNCED: dict[str, Path] = {}


def seed_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The state home of every seed workspace (their state folders are its default ones)."""
    if "home" not in _SYNCED:
        _SYNCED["home"] = tmp_path_factory.mktemp("seed-state-home")
    return _SYNCED["home"]


def synced(name: str, tmp_path_factory: pytest.TempPathFactory, worker: Any) -> Path:
    """`toy-repo` or `other-repo`, written and synced once per session; tests must not edit them."""
    if name not in _SYNCED:
        home = seed_home(tmp_path_factory)
        root = tmp_path_factory.mktemp(f"seed-{name}") / name
        root.mkdir()
        write_project(root, name, SOURCES if name == TOY else OTHER)
        sync_in(home, root, worker)
        _SYNCED[name] = root
    return _SYNCED[name]
