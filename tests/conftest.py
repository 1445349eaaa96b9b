"""Shared test fixtures: snapshots of whole documents live in the top-level snapshots/."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import pytest
from hypothesis import settings
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

import wireschema

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
CASES = ROOT / "tests" / "cases"

# No example has a deadline: speed is the benchmark's to show, and a busy machine is slow.
# Derandomized with no database: every run draws the same examples.
settings.register_profile("wireschema", deadline=None, derandomize=True, database=None, print_blob=True)
settings.load_profile("wireschema")
_CASE_FIELDS = ("name", "note", "options", "schema")


def targets_with_kind(kind: str) -> tuple[str, ...]:
    """The shipped targets that have a rule of `kind`, as their rule files say."""
    return tuple(t.name for t in wireschema.targets() if any(r.kind == kind for r in wireschema._target(t.name).rules))


def rule_ids_of_kind(kind: str) -> frozenset[str]:
    """The ids of the shipped targets' rules of `kind`."""
    return frozenset(r.id for name in targets_with_kind(kind) for r in wireschema._target(name).rules if r.kind == kind)


def targets_without_kind(kind: str, directory: Path) -> dict[str, wireschema.Target]:
    """Each shipped target that has a rule of `kind`, loaded again from `directory` with
    those rules disabled (what the target's other rules make of an input)."""
    names = targets_with_kind(kind)
    for name in names:
        target = wireschema._target(name)
        disabled = "".join(f"  - id: {r.id}\n    disabled: true\n" for r in target.rules if r.kind == kind)
        # where the target sends what it cannot take, as it does (a file changing its rules states it)
        related = "".join(f"{f}: {getattr(target, f)}\n" for f in ("fail_open", "non_strict", "strict_variant") if getattr(target, f))
        if target.output.get("variant"):
            related += f"output: {{variant: {target.output['variant']}}}\n"
        (directory / f"{name}-without.yaml").write_text(f"extends: {name}\n{related}rules:\n{disabled}", encoding="utf-8")
    loaded = wireschema.load_rules(directory)
    return {name: loaded[f"{name}-without"] for name in names}


def containers(value) -> list[int]:
    """The id of every dict and list within a JSON value, once per place it stands."""
    out = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (dict, list)):
            out.append(id(v))
            stack.extend(v.values() if isinstance(v, dict) else v)
    return out


def refused_by(result: wireschema.Result, ids: frozenset[str]) -> bool:
    """Whether a rule of `ids` refused the input (a refusal is the result's first change)."""
    return bool(result.changes) and result.changes[0].rule in ids


class WireSnapshot(SingleFileSnapshotExtension):
    """One readable JSON file per case, key order kept (order is part of the output)."""

    _write_mode = WriteMode.TEXT
    file_extension = "json"

    def serialize(self, data, **_kwargs):
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def dirname(cls, *, test_location):
        return str(ROOT / "snapshots" / Path(test_location.filepath).stem)


@pytest.fixture
def snap(snapshot):
    return snapshot.use_extension(WireSnapshot)


def write_rules(directory: Path, name: str, text: str) -> Path:
    """A rule file `name` in `directory`, its text dedented."""
    import textwrap

    path = directory / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def rule_error(path: Path) -> str:
    """The message of the RuleFileError that loading `path` raises."""
    with pytest.raises(wireschema.RuleFileError) as info:
        wireschema.load_rules(path)
    return str(info.value)


def load_cases(group: str) -> list:
    """The snapshot cases of `tests/cases/<group>/<target>.json` (one file per target,
    cases in file order) as pytest params `target, case, schema, options`, ids
    `target:case`. A case is data: its `note` says why it is there, `options` are
    keyword arguments of `normalize` (such as `strict`; `output: true` normalizes the
    schema as a structured output, `normalize_output`)."""
    params = []
    for path in sorted((CASES / group).glob("*.json")):
        target = path.stem
        data = json.loads(path.read_text(encoding="utf-8"))
        if set(data) != {"cases"} or not isinstance(data["cases"], list):
            raise ValueError(f"{path}: a case file is {{\"cases\": [...]}}")
        seen = set()
        for i, case in enumerate(data["cases"]):
            unknown = set(case) - set(_CASE_FIELDS)
            if unknown or "name" not in case or "schema" not in case:
                raise ValueError(f"{path}: case {i} needs name and schema, may have {', '.join(_CASE_FIELDS)}; got {sorted(case)}")
            if case["name"] in seen:
                raise ValueError(f"{path}: case {case['name']!r} twice")
            seen.add(case["name"])
            options = case.get("options", {})
            params.append(pytest.param(target, case["name"], case["schema"], options, id=f"{target}:{case['name']}"))
    if not params:
        raise ValueError(f"no case files in {CASES / group}")
    return params


def document(schema, target, *, deep=False, output=False, **kwargs):
    """Normalize and describe the whole outcome: what a snapshot records.

    `deep`: the input nests beyond what json.dumps can encode, so the check that it
    is unchanged is left to the hostile-input tests. `output`: the schema is a
    structured output's (`normalize_output`).
    """
    before = None if deep else json.dumps(schema)
    result = (wireschema.normalize_output if output else wireschema.normalize)(schema, target, **kwargs)
    # every call leaves the caller's object as it was
    assert deep or json.dumps(schema) == before
    return describe(schema, result)


def describe(schema, result):
    out = {
        "target": result.target,
        "input": schema,
        "output": result.schema,
        "strict": result.strict,
        "used_fallback": result.used_fallback,
        "changes": [str(c) for c in result.changes],
    }
    if result.fallback_reason:
        out["fallback_reason"] = result.fallback_reason
    if result.strict_reason:
        out["strict_reason"] = result.strict_reason
    return out


class Runaway(BaseException):
    """Raised by the call counter: a BaseException, so no `except Exception` in the
    engine can swallow it."""


# Python calls a hostile case may make: each makes well under a tenth of this
WORK_LIMIT = 30_000_000


@contextlib.contextmanager
def counting(limit: int = WORK_LIMIT):
    """Count the Python calls the block makes (a one-item list, read after it), and cut
    it off past `limit` as a runaway. Calls, not seconds: a busy machine counts the same."""
    count = [0]

    def _profile(_frame, event, _arg):
        if event == "call":
            count[0] += 1
            if count[0] > limit:
                raise Runaway(f"more than {limit:,} Python calls")

    previous = sys.getprofile()
    sys.setprofile(_profile)
    try:
        yield count
    except Runaway as exc:
        pytest.fail(f"cut off: {exc}")
    finally:
        sys.setprofile(previous)


def bounded(limit: int = WORK_LIMIT):
    """Assert the block finishes within `limit` Python calls (see `counting`)."""
    return counting(limit)


def calls_of(call) -> tuple[object, int]:
    """(result, Python calls) of `call()`, counted on a second run after a first that
    warms whatever is loaded or compiled once per process."""
    call()
    with counting() as count:
        result = call()
    return result, count[0]


def checked(target: str, schema) -> dict:
    """A check case's snapshot: the violations `check` finds (at least one), after
    normalizing the same schema has not raised."""
    violations = wireschema.check(schema, target)
    assert violations
    json.dumps(wireschema.normalize(schema, target).schema)
    return {"target": target, "schema": schema, "violations": [str(v) for v in violations]}


def damaged(good: bytes, damage: str) -> bytes:
    """A cache file's bytes (see `bytecache`) spoiled one way: emptied, cut short, one
    byte flipped near the end, or its header changed."""
    if damage == "empty":
        return b""
    if damage == "truncated":
        return good[: len(good) // 2]
    if damage == "flipped":
        return good[:-10] + bytes([good[-10] ^ 0xFF]) + good[-9:]
    if damage == "header":
        return b"X" + good[1:]
    raise ValueError(damage)
