"""The promises every target keeps, checked over the whole shared corpus of real schemas
(MCP servers, BFCL, SchemaStore, the JSON-Schema-Test-Suite, pydantic models)."""

from __future__ import annotations

import json

import pytest

import wireschema
from conftest import CORPUS


def _corpus():
    records = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            records.extend(json.loads(line) for line in f)
    return records


RECORDS = _corpus() if CORPUS.is_dir() else []
TARGETS = [t.name for t in wireschema.targets()]


def _effective(target: str, result: wireschema.Result) -> str:
    """The target whose wire the output is for: a strict target that failed open
    produced its non-strict sibling's output."""
    compiled = wireschema._target(target)
    if compiled.strict and not result.strict:
        return compiled.fail_open
    return target


@pytest.mark.skipif(not RECORDS, reason="the shared corpus is not beside the repository")
@pytest.mark.parametrize("target", TARGETS)
def test_corpus_guarantees(target):
    """No exception; caller's input unchanged; same bytes twice; JSON-serializable;
    passes the residual checks of its wire; normalizing the output again is a fixed point."""
    problems = []
    for record in RECORDS:
        schema = record["schema"]
        before = json.dumps(schema)
        first = wireschema.normalize(schema, target)
        second = wireschema.normalize(schema, target)
        out = json.dumps(first.schema)
        if json.dumps(schema) != before:
            problems.append((record["id"], "input mutated"))
        if json.dumps(second.schema) != out or second.changes != first.changes:
            problems.append((record["id"], "not deterministic"))
        wire = _effective(target, first)
        violations = wireschema.check(first.schema, wire)
        if violations:
            problems.append((record["id"], f"breaks {violations[0]}"))
        if not first.used_fallback:
            again = wireschema.normalize(first.schema, wire)
            if json.dumps(again.schema) != out:
                problems.append((record["id"], "not a fixed point"))
    assert not problems, f"{len(problems)} of {len(RECORDS)}: {problems[:10]}"
