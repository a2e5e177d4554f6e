"""Certificates on a broken real workspace (issue 10, part 3), measured against javac.

    .venv/bin/python bench/broken_reactor.py [--out bench/broken-reactor.json]

The project: a two-module Maven reactor of two real Apache projects where one
depends on the other, composed from what Maven Central publishes:
`commons-lang3` (org.apache.commons:commons-lang3:3.13.0, main sources) and
`commons-text` (org.apache.commons:commons-text:1.11.0, main and test
sources), whose published POM depends on commons-lang3 3.13.0. In the
reactor, commons-text's dependency names the sibling module
(`pybridge.bench:commons-lang3:3.13.0-reactor`, a version no repository has),
as an unpublished internal dependency would. The broken copy drops the
commons-lang3 module, so that commons-text's dependency is unresolvable.

Truth: the javac extractor (bench/javac_refs) on the FULL reactor, for
commons-text's jobs (main, test), its targets normalized against the full
reactor's pybridge store as bench/javac_diff.py does. For every declaration
of the broken copy that javac sees referenced from a file the broken copy
still has: is it certified (`referenceCoverage` true in the broken copy's
find_references answer), and if so, does the broken copy's answer have every
one of those references (file + token span)? A certified declaration whose
answer misses one is a false certificate.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "javac_refs"))

import driver  # noqa: E402 - bench/ is not a package
import javac_diff  # noqa: E402
import measure  # noqa: E402
import workspaces  # noqa: E402

from pybridge.query.coverage import coverage  # noqa: E402
from pybridge.store import Store  # noqa: E402
from pybridge.sync import sync  # noqa: E402
from pybridge.sync.state import store_path  # noqa: E402
from pybridge.worker import Worker  # noqa: E402

WORK = workspaces.WORK
STATES = Path(tempfile.gettempdir()) / "pybridge-broken-reactor"   # state folders: outside bench/


@dataclass(frozen=True)
class BrokenReactor:
    """A reactor of real projects and the module its broken copy drops (the core, which the others use)."""
    name: str
    core: workspaces.Artifact
    consumers: tuple[workspaces.Artifact, ...]   # in dependency order: one may use an earlier one
    version: str                                 # the reactor's version of every module: no repository has it
    note: str

    @property
    def modules(self) -> tuple[workspaces.Artifact, ...]:
        return (self.core, *self.consumers)


def _rng(artifact: str, tests: bool) -> workspaces.Artifact:
    return workspaces.Artifact(artifact, "org.apache.commons", artifact, "1.5", tests, main_deps_only=not tests)


BROKEN_REACTORS = {
    "text": BrokenReactor(
        "text-reactor",
        workspaces.Artifact("commons-lang3", "org.apache.commons", "commons-lang3", "3.13.0", False,
                            main_deps_only=True),
        (workspaces.Artifact("commons-text", "org.apache.commons", "commons-text", "1.11.0", True),),
        "3.13.0-reactor", "commons-text and the commons-lang3 it depends on"),
    # Apache Commons RNG 1.5 as its own build has it: commons-rng-client-api is the core (the
    # UniformRandomProvider interfaces), which commons-rng-core, -simple and -sampling all use
    "rng": BrokenReactor(
        "rng-reactor", _rng("commons-rng-client-api", False),
        (_rng("commons-rng-core", True), _rng("commons-rng-simple", True), _rng("commons-rng-sampling", True)),
        "1.5-reactor", "commons-rng-client-api and the commons-rng core, simple and sampling modules that use it"),
}


def _module(br: BrokenReactor, a: workspaces.Artifact, dest: Path, dl: Path) -> None:
    pom = workspaces.copy(f"{a.gav}:pom", dl)
    deps, release, encoding = workspaces.read_effective_pom(pom, dl)
    if a.main_deps_only:
        deps = [d for d in deps if d["scope"] != "test"]
    # the modules before this one (as bench/workspaces.py: commons-lang3's tests use commons-text,
    # which stays on Maven Central's jar rather than make a cycle)
    siblings = {(m.group, m.artifact) for m in br.modules[:br.modules.index(a)]}
    for d in deps:
        if (d["groupId"], d["artifactId"]) in siblings and not d.get("classifier") \
                and d.get("type") in (None, "jar"):
            # the sibling module, at a version no repository has: a sibling that Maven could fetch
            # from Central would bring the dropped core back as its transitive dependency
            d.update(groupId=workspaces.BENCH_GROUP, version=br.version)
    workspaces.unpack(workspaces.copy(f"{a.gav}:jar:sources", dl), dest / "src/main/java")
    if a.test_sources:
        workspaces.unpack(workspaces.copy(f"{a.gav}:jar:test-sources", dl), dest / "src/test/java")
    text = workspaces.render_pom(a, deps, release, encoding)
    text = text.replace(f"<version>{a.version}</version>", f"<version>{br.version}</version>", 1)
    (dest / "pom.xml").write_text(text, encoding="utf-8")


def _root_pom(br: BrokenReactor, modules: list[str]) -> str:
    lines = "\n".join(f"    <module>{m}</module>" for m in modules)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by bench/broken_reactor.py: {br.note}, as one reactor. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>pybridge.bench</groupId>
  <artifactId>{br.name}</artifactId>
  <version>1.0</version>
  <packaging>pom</packaging>
  <modules>
{lines}
  </modules>
</project>
"""


def ensure(br: BrokenReactor = BROKEN_REACTORS["text"], say=print) -> tuple[Path, Path]:
    """The full reactor and its broken copy (the core module dropped), built once under bench/work/."""
    full, broken = WORK / br.name, WORK / f"{br.name}-broken"
    if not (full / "pom.xml").exists():
        say(f"  building {br.name} from Maven Central sources")
        partial = WORK / f".{br.name}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        with tempfile.TemporaryDirectory(prefix="bench-dl-") as tmp:
            for a in br.modules:
                _module(br, a, partial / a.artifact, Path(tmp))
        (partial / "pom.xml").write_text(_root_pom(br, [a.artifact for a in br.modules]))
        partial.rename(full)
    if not (broken / "pom.xml").exists():
        shutil.copytree(full, broken)
        shutil.rmtree(broken / br.core.artifact)
        (broken / "pom.xml").write_text(_root_pom(br, [a.artifact for a in br.consumers]))
    return full, broken


def measure_certificates(full: Path, broken: Path, full_state: Path, broken_state: Path, work: Path,
                         modules: tuple[str, ...] = ("commons-text",), say=print) -> dict:
    """The certified share and the false certificates of the broken copy, against javac on the full project."""
    truth: dict[javac_diff.Key, set[str]] = {}
    for job in measure.compile_jobs(full, full_state):
        if not any(m in job["module"] for m in modules):
            continue
        t0 = time.perf_counter()
        refs, log = driver.extract(job, full, work / f"full-{job['scope']}.tsv", work)
        say(f"  javac on the full reactor, {job['module']}:{job['scope']}: {len(refs)} references "
            f"in {time.perf_counter() - t0:.0f} s ({log.splitlines()[-1] if log else ''})")
        part = javac_diff.javac_refs(refs)
        javac_diff.normalize(part, javac_diff.pybridge_refs(full_state, job["module"], job["scope"]),
                             javac_diff.javac_alternatives(refs))
        for key, kinds in part.items():
            truth.setdefault(key, set()).update(kinds)
    store = Store.open(store_path(broken_state))
    r = store.reader()
    files = {f.path for f in r.files()}
    by_target: dict[str, set[tuple[str, int, int, int]]] = {}
    for (path, line, char, end, target) in truth:
        if path in files:
            by_target.setdefault(target, set()).add((path, line, char, end))
    referenced = certified = 0
    per_kind: Counter[str] = Counter()
    per_kind_certified: Counter[str] = Counter()
    false: list[dict] = []
    blockers: Counter[str] = Counter()
    by_reason: Counter[str] = Counter()
    by_name: Counter[tuple[str, str, str]] = Counter()
    for f in r.files():
        for d in r.file_declarations(f.path):
            if d.kind == "INITIALIZER" or d.dotted.endswith("<anonymous>"):
                continue   # an anonymous class has no name to refer to; an enum constant's body shares its span
            expected = by_target.get(f"src|{d.path}|{d.name_span[0]}|{d.name_span[1]}")
            if not expected:
                continue
            referenced += 1
            per_kind[d.kind] += 1
            cov = coverage(r, r.symbol(d.symbol_id), d, None, None, callers=False)   # blockers: the references'
            if not cov["referenceCoverage"]:
                for place in (cov.get("coverageBlockers") or {}).get("places", [])[:1]:
                    blockers[place.get("reason", "?")] += 1
                    by_reason[_reason_key(place.get("reason", ""))] += 1
                    by_name[(d.kind, place.get("name") or "*", _reason_key(place.get("reason", "")))] += 1
                continue
            certified += 1
            per_kind_certified[d.kind] += 1
            found = {(x.path, x.span[0], x.span[1], x.span[3])
                     for x in r.references(d.symbol_id) if x.span[0] == x.span[2]}
            missing = expected - found
            if missing:
                false.append({"declaration": d.dotted, "kind": d.kind, "at": f"{d.path}:{d.name_span[0] + 1}",
                              "missing": sorted(f"{p}:{ln + 1}:{c + 1}" for p, ln, c, _ in missing)[:10]})
    return {
        "referenced": referenced, "certified": certified,
        "certified_share": certified / referenced if referenced else None,
        "false_certificates": len(false), "false": false[:50],
        "per_kind": {k: {"referenced": n, "certified": per_kind_certified[k]} for k, n in per_kind.most_common()},
        "uncertified_by_reason": dict(by_reason.most_common()),
        "uncertified_top_names": [{"kind": k, "name": n, "reason": why, "declarations": c}
                                  for (k, n, why), c in by_name.most_common(40)],
        "first_blocker_reasons": dict(blockers),
    }


_REASON_KEYS = (("could not bind", "unbound"), ("bound with an argument type", "uncertain_call"),
                ("supertypes are not all resolved", "incomplete_hierarchy"), ("syntax error", "syntax"),
                ("Javadoc", "javadoc"), ("any name in this file", "whole_file"))


def _reason_key(text: str) -> str:
    """The reason (pybridge.facts.BLOCK_REASONS, or whole_file) a coverage blocker's text says."""
    return next((key for words, key in _REASON_KEYS if words in text), "?")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=None,
                    help="default bench/broken-reactor.json (text), bench/broken-reactor-NAME.json (others)")
    ap.add_argument("--reactor", choices=sorted(BROKEN_REACTORS), default="text",
                    help="text: commons-lang3 dropped from commons-text's reactor; "
                         "rng: commons-rng-client-api dropped from commons-rng's")
    ap.add_argument("--resync", action="store_true", help="sync both copies into fresh state folders")
    a = ap.parse_args(argv)
    br = BROKEN_REACTORS[a.reactor]
    out_path = a.out or HERE / ("broken-reactor.json" if a.reactor == "text" else f"broken-reactor-{a.reactor}.json")
    full, broken = ensure(br)
    full_state, broken_state = STATES / f"state-{br.name}", STATES / f"state-{br.name}-broken"
    work = STATES / f"javac-diff-{br.name}"
    work.mkdir(parents=True, exist_ok=True)
    worker = Worker()
    try:
        for root, state in ((full, full_state), (broken, broken_state)):
            if a.resync or not (state / "store.sqlite").exists():
                shutil.rmtree(state, ignore_errors=True)
                t0 = time.perf_counter()
                result = sync(root, state_dir=state, worker=worker)
                modules = [(m["module"], m["scope"], m["files"], m["bindingComplete"])
                           for m in result.to_json()["modules"]]
                print(f"  synced {root.name} in {time.perf_counter() - t0:.0f} s: {modules}")
    finally:
        worker.close()
    out = measure_certificates(full, broken, full_state, broken_state, work,
                               tuple(m.artifact for m in br.consumers))
    out["limitations"] = [x for x in json.loads((broken_state / "workspace.json").read_text()).get("limitations", [])] \
        if (broken_state / "workspace.json").exists() else []
    print(json.dumps({k: v for k, v in out.items() if k != "false"}, indent=1))
    for f in out["false"][:20]:
        print("FALSE CERTIFICATE", f)
    out_path.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
