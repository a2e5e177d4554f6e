"""Issue 8's acceptance on a real project: a real MCP client session (`pybridge serve` over stdio,
watching on) on a copy of commons-lang3 3.14.0 (main and test, built from Maven Central by
bench/workspaces.py).

Edit a method's body, then ask `find_references` with a key obtained before the edit: the answer
is fresh, from a newer generation, without a `sync` call, with the same key. Rename a method: the
old key says `stale_key` with the renamed method as `replacement`.

Needs bench/work/commons-lang3 (bench/live.py, bench/run.py and the long differential test build
it); skipped without it unless PYBRIDGE_REAL_PROJECTS=1, which builds it (network to Maven
Central). The first sync of the copy takes about a minute here.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from pybridge.sync import default_state_dir, sync
from tests.live.test_live import ENV, call, err, ok
from tests.support.mcp_session import serve

ROOT = Path(__file__).resolve().parent.parent.parent
WORK = ROOT / "bench" / "work"
STRING_UTILS = "src/main/java/org/apache/commons/lang3/StringUtils.java"


@pytest.fixture(scope="module")
def lang(tmp_path_factory, worker):
    source = WORK / "commons-lang3"
    if not (source / "pom.xml").exists():
        if os.environ.get("PYBRIDGE_REAL_PROJECTS") != "1":
            pytest.skip("bench/work/commons-lang3 is not built (run bench/live.py, or set PYBRIDGE_REAL_PROJECTS=1)")
        from bench.workspaces import ARTIFACTS, ensure

        source = ensure(ARTIFACTS["commons-lang3"], say=lambda _m: None)
    base = tmp_path_factory.mktemp("live-real")
    root, home = base / "commons-lang3", base / "home"
    shutil.copytree(source, root, ignore=shutil.ignore_patterns("target"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYBRIDGE_STATE_HOME", str(home))
        sync(root, state_dir=default_state_dir(root), worker=worker)
    return root, home


def _key(client, query: str) -> str:
    [symbol] = ok(client, "find_symbol", {"query": query})["symbols"]
    return symbol["symbolKey"]


def test_commons_lang3_a_key_from_before_an_edit_answers_fresh_and_a_rename_names_its_successor(lang):
    root, home = lang
    path = root / STRING_UTILS
    with serve([root], home, ENV) as client:
        key = _key(client, "StringUtils.isEmpty(CharSequence)")
        before = ok(client, "find_references", {"symbolKey": key, "limit": 1})
        text = path.read_text(encoding="utf-8")
        assert text.count("return !isEmpty(cs);") == 1
        path.write_text(text.replace("return !isEmpty(cs);", "return !isEmpty(cs) && !isEmpty(cs);"),
                        encoding="utf-8")                   # a method body edit: isNotEmpty calls it twice
        after = ok(client, "find_references", {"symbolKey": key, "limit": 1})    # no sync call
        assert after["freshness"] == "fresh" and after["symbol"]["symbolKey"] == key
        assert after["meta"]["generation"] > before["meta"]["generation"]
        assert after["meta"]["total"] == before["meta"]["total"] + 1

        old = _key(client, "StringUtils.isAllLowerCase")
        for rel in (STRING_UTILS, "src/main/java/org/apache/commons/lang3/LocaleUtils.java",
                    "src/test/java/org/apache/commons/lang3/StringUtilsTest.java"):
            f = root / rel
            f.write_text(re.sub(r"\bisAllLowerCase\b", "isEveryLetterLowerCase", f.read_text(encoding="utf-8")),
                         encoding="utf-8")
        payload, is_error = call(client, "find_references", {"symbolKey": old})
        assert is_error and payload["code"] == "stale_key", payload
        renamed = ok(client, "find_references", {"symbolKey": payload["replacement"]})
        assert renamed["symbol"]["dottedPath"] == "org.apache.commons.lang3.StringUtils.isEveryLetterLowerCase"
        assert renamed["meta"]["total"] >= 1 and renamed["freshness"] == "fresh"
        assert err(client, "find_references", {"symbolKey": old}, "stale_key")["replacement"] == payload["replacement"]
