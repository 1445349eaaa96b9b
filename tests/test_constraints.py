"""CONSTRAINTS.md is the operational contract: generated from the rule files, complete,
and every rule in it is shown at work by at least one snapshot."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

import wireschema
from wireschema.docgen import REGENERATE, render

from conftest import ROOT

CONSTRAINTS = ROOT / "CONSTRAINTS.md"
SNAPSHOTS = ROOT / "snapshots"

# ids the engine reports itself; `bypass` needs no snapshot (it is the absence of rules)
ENGINE_IDS = ("budget/depth", "budget/nodes", "budget/literal", "input/not-a-schema")


def shipped_targets() -> dict:
    """Every shipped target, compiled, by name."""
    return {info.name: wireschema.load_rules(info.path)[info.name] for info in wireschema.targets()}


def shared_base():
    """The abstract `_base` file every shipped target extends, compiled on its own."""
    rules_dir = Path(wireschema.targets()[0].path).parent
    return wireschema.load_rules(rules_dir / "_base.yaml")["_base"]


def rule_ids(target) -> list[str]:
    return [rule.id for rule in (*target.rules, *target.checks)]


def documented_rule_ids(text: str) -> list[str]:
    """The ids CONSTRAINTS.md lists as rules: the `#### `id`` headings of its Rules section."""
    section = text.split("\n## Rules\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^#### `([^`]+)`$", section, flags=re.MULTILINE)


def reported_ids(document) -> set[str]:
    """Rule ids a snapshot shows at work: the first token of each change (and of each
    violation, for snapshots that record `violations` as strings or as objects with a
    `check` or `rule` field)."""
    documents = document if isinstance(document, list) else [document]
    ids: set[str] = set()
    for doc in documents:
        if not isinstance(doc, dict):
            continue
        for change in doc.get("changes") or []:
            if isinstance(change, str) and change.strip():
                ids.add(change.split()[0])
        for violation in doc.get("violations") or []:
            if isinstance(violation, str) and violation.strip():
                ids.add(violation.split()[0])
            elif isinstance(violation, dict):
                ids.update(v for k in ("check", "rule") if isinstance(v := violation.get(k), str))
    return ids


def exercised_ids() -> set[str]:
    ids: set[str] = set()
    for path in sorted(SNAPSHOTS.rglob("*.json")):
        ids |= reported_ids(json.loads(path.read_text(encoding="utf-8")))
    return ids


def test_constraints_md_is_current():
    expected = render()
    current = CONSTRAINTS.read_text(encoding="utf-8") if CONSTRAINTS.is_file() else ""
    if current != expected:
        diff = list(difflib.unified_diff(
            current.splitlines(), expected.splitlines(), "CONSTRAINTS.md", "generated", lineterm="", n=1))
        shown = "\n".join(diff[:40]) + ("\n..." if len(diff) > 40 else "")
        raise AssertionError(f"CONSTRAINTS.md is stale: regenerate it with `{REGENERATE}`\n{shown}")


def test_every_rule_is_documented():
    documented = documented_rule_ids(CONSTRAINTS.read_text(encoding="utf-8"))
    assert len(documented) == len(set(documented)), "a rule is listed twice in CONSTRAINTS.md"

    compiled = {**shipped_targets(), "_base": shared_base()}
    missing = {name: sorted(set(rule_ids(t)) - set(documented)) for name, t in compiled.items()}
    missing = {name: ids for name, ids in missing.items() if ids}
    assert not missing, f"rules missing from CONSTRAINTS.md (regenerate with `{REGENERATE}`): {missing}"

    known = {rid for t in compiled.values() for rid in rule_ids(t)}
    unknown = sorted(set(documented) - known)
    assert not unknown, f"CONSTRAINTS.md lists rules no shipped file defines: {unknown}"


def test_every_rule_is_exercised_by_a_snapshot():
    exercised = exercised_ids()
    required = {name: rule_ids(t) for name, t in shipped_targets().items()}
    required["engine"] = list(ENGINE_IDS)
    missing = {name: [rid for rid in ids if rid not in exercised] for name, ids in required.items()}
    missing = {name: ids for name, ids in missing.items() if ids}
    listing = "\n".join(f"  {name}: {', '.join(ids)}" for name, ids in missing.items())
    assert not missing, f"no snapshot shows these ids at work (add a case whose changes name them):\n{listing}"
