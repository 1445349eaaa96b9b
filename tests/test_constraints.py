"""CONSTRAINTS.md is the operational contract: generated from the rule files, complete,
and every rule in it is shown at work by at least one snapshot."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

import wireschema
from wireschema.docgen import REGENERATE, render

from conftest import CASES, ROOT

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


def case_files(target: str) -> list[Path]:
    """The data files holding a target's snapshot cases (tests/cases/<group>/<target>.json)."""
    return sorted(CASES.glob(f"*/{target}.json"))


def missing_cases(exercised: set[str]) -> list[str]:
    """One line per rule or check of a shipped target that no snapshot shows at work,
    naming the case to add: the file it goes in and what its input must hold."""
    lines = []
    seen: set[str] = set()
    targets = shipped_targets()
    for name, target in targets.items():
        for rule in (*target.rules, *target.checks):
            if rule.id in exercised or rule.id in seen:
                continue
            seen.add(rule.id)
            # a case for the file that declares the rule, where that file is a target
            home = Path(rule.origins[0][0]).stem
            name = home if home in targets else name
            files = case_files(name) or [CASES / "targets" / f"{name}.json"]
            where = " or ".join(str(f.relative_to(ROOT)) for f in files)
            keys = rule.spec.trigger_keys(rule.options)
            holds = f"a schema with {', '.join(sorted(keys)[:4])}" if keys else "a schema it acts on"
            if rule in target.checks:
                what = (f"{holds} that the output still breaks (a strict target then fails open and reports "
                        f"the check), or a case of tests/test_checks*.py")
            else:
                what = f"{holds}, whose report names {rule.id}"
            lines.append(f"  {name}: {rule.id} ({rule.kind}) - add to {where} {what}")
    for rid in ENGINE_IDS:
        if rid not in exercised:
            lines.append(f"  engine: {rid} - add a case to tests/test_prepare.py that reaches it")
    return lines


def test_every_rule_is_exercised_by_a_snapshot():
    missing = missing_cases(exercised_ids())
    listing = "\n".join(missing)
    assert not missing, f"no snapshot shows these ids at work (add the case each line names):\n{listing}"


def test_a_rule_that_loses_its_last_case_is_named_with_the_case_to_add():
    lines = missing_cases(exercised_ids() - {"openai-strict/formats", "gemini/check-enums"})
    assert sorted(lines) == [
        "  gemini: gemini/check-enums (enum-values) - add to tests/cases/targets/gemini.json a schema with enum "
        "that the output still breaks (a strict target then fails open and reports the check), or a case of "
        "tests/test_checks*.py",
        "  openai-strict: openai-strict/formats (format-allow) - add to tests/cases/targets/openai-strict.json "
        "a schema with format, whose report names openai-strict/formats",
    ]
