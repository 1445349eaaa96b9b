"""Corpus report: what each target keeps, spills, drops and falls back on.

    python -m wireschema.report ../shared/corpus/*.jsonl [--targets gemini,openai-strict]
    python -m wireschema.report --validators [FILES] [--targets ...]

Reads JSON Lines records with a `schema` field (or bare schemas), normalizes each for
every target, and prints a Markdown table: fallback rate, strict fail-open rate, and
the keywords most often spilled or dropped.

`--validators` judges every output instead by the real validators that speak for its
target's wire (`rules/_wire.yaml`: the providers' protos and SDK types, the grammar
compilers behind constrained decoding, the 2020-12 meta-schema with ECMA-262 patterns)
and prints, per target and validator, how many outputs were judged and rejected. They
come with `pip install 'wireschema[wire]'`; one that is not installed is named so.
Without FILES it reads the shared corpus beside the repository.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable

import attrs

from . import normalize, targets
from .positions import unescape


def read_schemas(paths: Iterable[str]) -> list[Any]:
    """The schemas of JSON Lines files: each line a schema, or a record with a `schema` field."""
    out = []
    for path in paths:
        with Path(path).open(encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    rec = json.loads(line)
                    out.append(rec["schema"] if isinstance(rec, dict) and "schema" in rec else rec)
    return out


def _keyword(pointer: str) -> str:
    return unescape(pointer.rsplit("/", 1)[-1]) if pointer else "(root)"


def tally(schemas: list[Any], target: str) -> dict[str, Any]:
    """Counts for one target over the schemas."""
    fallback = failed_open = 0
    spilled: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    for schema in schemas:
        result = normalize(schema, target)
        fallback += result.used_fallback
        failed_open += result.strict_reason is not None
        for change in result.changes:
            if change.action == "spilled":
                spilled[_keyword(change.pointer)] += 1
            elif change.action == "dropped":
                dropped[_keyword(change.pointer)] += 1
    return {"n": len(schemas), "fallback": fallback, "failed_open": failed_open, "spilled": spilled, "dropped": dropped}


def _top(counter: Counter[str], k: int = 5) -> str:
    return ", ".join(f"{name} {count}" for name, count in counter.most_common(k)) or "-"


def render(schemas: list[Any], names: list[str]) -> str:
    lines = [
        "| target | schemas | fallback | strict failed open | spilled | dropped | most spilled | most dropped |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for name in names:
        t = tally(schemas, name)
        n = t["n"] or 1
        lines.append(
            f"| `{name}` | {t['n']} | {t['fallback']} ({100 * t['fallback'] / n:.1f}%) "
            f"| {t['failed_open']} ({100 * t['failed_open'] / n:.1f}%) "
            f"| {sum(t['spilled'].values())} | {sum(t['dropped'].values())} "
            f"| {_top(t['spilled'])} | {_top(t['dropped'])} |"
        )
    return "\n".join(lines)


# --- real validators -------------------------------------------------------------------
#
# Each judges one wire schema as the code behind a wire reads it and returns why it refuses
# it (None: accepted). They import their packages when first used, so the report runs with
# whichever are installed.

_ROLES = ("parameters", "output")


@attrs.frozen
class Validator:
    """A validator nobody on the team wrote: `judge(schema, role)` is None or the refusal."""

    name: str
    what: str
    distribution: str
    load: Callable[[], Callable[[Any, str], "str | None"]]


def _proto_types(schema: Any) -> Any:
    """A copy with every schema's `type` upper-cased.

    Python's `json_format` matches proto enum names case-sensitively (`OBJECT`), while the
    services also take lowercase (googleapis/js-genai#875), which is what the wire
    outputs use: upper-cased first, a lowercase type is not read as a rejection.
    """
    top: dict[str, Any] = {}
    stack: list[tuple[Any, dict | list, Any]] = [(schema, top, "s")]
    while stack:
        node, parent, key = stack.pop()
        if isinstance(node, dict):
            copy: dict[str, Any] = {}
            parent[key] = copy
            for k, v in node.items():
                if k == "type" and isinstance(v, str):
                    copy[k] = v.upper()
                elif k in ("properties", "defs") and isinstance(v, dict):
                    copy[k] = {}
                    for name, sub in v.items():
                        stack.append((sub, copy[k], name))
                elif k in ("items", "additionalProperties") and isinstance(v, dict):
                    stack.append((v, copy, k))
                elif k == "anyOf" and isinstance(v, list):
                    copy[k] = [None] * len(v)
                    for i, sub in enumerate(v):
                        stack.append((sub, copy[k], i))
                else:
                    copy[k] = v
        else:
            parent[key] = node
    return top["s"]


def _proto(declaration: Any, schema_message: Any) -> Callable[[Any, str], "str | None"]:
    from google.protobuf import json_format

    def judge(schema: Any, role: str) -> str | None:
        schema = _proto_types(schema)
        if role == "parameters":
            message, doc = declaration.pb()(), {"name": "f", "parameters": schema}
        else:
            message, doc = schema_message.pb()(), schema
        try:
            json_format.ParseDict(doc, message, ignore_unknown_fields=False)
        except (json_format.ParseError, TypeError, ValueError) as e:
            return str(e)
        return None

    return judge


def _gemini_proto() -> Callable[[Any, str], "str | None"]:
    from google.ai.generativelanguage_v1beta.types import FunctionDeclaration, Schema

    return _proto(FunctionDeclaration, Schema)


def _vertex_proto() -> Callable[[Any, str], "str | None"]:
    from google.cloud.aiplatform_v1beta1.types import FunctionDeclaration, Schema

    return _proto(FunctionDeclaration, Schema)


def _protobuf_value() -> Callable[[Any, str], "str | None"]:
    from google.protobuf import json_format, struct_pb2

    def judge(schema: Any, role: str) -> str | None:
        try:
            json_format.ParseDict(schema, struct_pb2.Value())
        except (json_format.ParseError, OverflowError, ValueError, TypeError) as e:
            return f"{type(e).__name__}: {e}"
        return None

    return judge


def _genai() -> Callable[[Any, str], "str | None"]:
    import pydantic
    from google.genai import types

    def judge(schema: Any, role: str) -> str | None:
        try:
            if role == "parameters":
                types.FunctionDeclaration.model_validate({"name": "f", "parameters": schema})
            else:
                types.Schema.model_validate(schema)
        except pydantic.ValidationError as e:
            return str(e)
        return None

    return judge


def _ecma_regex(pattern: str) -> bool:
    import regress

    # valid ECMA-262 in either mode: `\p{L}` needs the u flag, `[\w-_.]` is Annex B
    for flags in ("u", ""):
        try:
            regress.Regex(pattern, flags)
            return True
        except regress.RegressError:
            pass
    return False


def _meta_2020_12() -> Callable[[Any, str], "str | None"]:
    import jsonschema
    import jsonschema_rs
    import regress  # noqa: F401 - fail to load here, not on the first pattern

    # the meta-schema document as jsonschema ships it, judged by jsonschema-rs (Rust):
    # hundreds of times faster on it than jsonschema's own validator, which is what
    # makes the whole corpus through every target affordable in CI; formats are
    # checked, and `regex` (pattern, patternProperties names) as ECMA-262
    validator = jsonschema_rs.Draft202012Validator(
        jsonschema.Draft202012Validator.META_SCHEMA, validate_formats=True, formats={"regex": _ecma_regex}
    )

    def judge(schema: Any, role: str) -> str | None:
        for error in validator.iter_errors(schema):
            where = "/".join(str(p) for p in error.instance_path)
            return f"/{where}: {error.message}"
        return None

    return judge


def _llguidance() -> Callable[[Any, str], "str | None"]:
    from llguidance import LLMatcher

    def judge(schema: Any, role: str) -> str | None:
        # the defaults: lenient false (unknown keywords refused), coerce_one_of false
        try:
            grammar = LLMatcher.grammar_from_json_schema(json.dumps(schema))
        except ValueError as e:
            return str(e)
        is_error, messages = LLMatcher.validate_grammar_with_warnings(grammar)
        return "; ".join(messages) if is_error else None

    return judge


def _xgrammar() -> Callable[[Any, str], "str | None"]:
    import xgrammar

    def judge(schema: Any, role: str) -> str | None:
        try:
            xgrammar.Grammar.from_json_schema(json.dumps(schema), strict_mode=True)
        except Exception as e:  # noqa: BLE001 - its errors are RuntimeErrors of the C++ core
            return f"{type(e).__name__}: {e}"
        return None

    return judge


def _openai_walker() -> Callable[[Any, str], "str | None"]:
    import copy

    from openai.lib._pydantic import _ensure_strict_json_schema

    def judge(schema: Any, role: str) -> str | None:
        mine = copy.deepcopy(schema)
        try:
            theirs = _ensure_strict_json_schema(mine, path=(), root=mine)
        except Exception as e:  # noqa: BLE001 - it asserts and raises TypeError on what it cannot walk
            return f"{type(e).__name__}: {e}"
        where = _first_difference(schema, theirs)
        return None if where is None else f"it changes {where}"

    return judge


def _first_difference(a: Any, b: Any) -> str | None:
    """The pointer of the first place `b` differs from `a` (`required` read as a set:
    the walker lists it in property order, the API reads names)."""
    stack: list[tuple[Any, Any, str]] = [(a, b, "")]
    while stack:
        x, y, at = stack.pop()
        if isinstance(x, dict) and isinstance(y, dict):
            if list(x) != list(y) and set(x) != set(y):
                return at or "/"
            for k in x:
                if k == "required" and isinstance(x[k], list) and isinstance(y.get(k), list):
                    if sorted(map(str, x[k])) != sorted(map(str, y[k])):
                        return f"{at}/required"
                    continue
                stack.append((x[k], y.get(k), f"{at}/{k}"))
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return at or "/"
            stack.extend((u, v, f"{at}/{i}") for i, (u, v) in enumerate(zip(x, y)))
        elif type(x) is not type(y) or x != y:
            return at or "/"
    return None


VALIDATORS = {
    v.name: v
    for v in (
        Validator("gemini-proto", "Gemini API v1beta FunctionDeclaration / Schema protos (json_format)", "google-ai-generativelanguage", _gemini_proto),
        Validator("vertex-proto", "Vertex AI aiplatform v1beta1 FunctionDeclaration / Schema protos (json_format)", "google-cloud-aiplatform", _vertex_proto),
        Validator("genai", "google-genai FunctionDeclaration / Schema types (pydantic, extra forbidden)", "google-genai", _genai),
        Validator("protobuf-value", "protobuf's google.protobuf.Value (json_format), numbers as doubles", "protobuf", _protobuf_value),
        Validator("json-schema-2020-12", "the 2020-12 meta-schema (jsonschema-rs), formats checked, patterns as ECMA-262 (regress)", "jsonschema-rs", _meta_2020_12),
        Validator("llguidance", "llguidance JSON Schema grammar compiler, default options", "llguidance", _llguidance),
        Validator("xgrammar", "xgrammar Grammar.from_json_schema, strict_mode", "xgrammar", _xgrammar),
        Validator("openai-strict-walker", "openai-python _ensure_strict_json_schema leaves the schema as it is", "openai", _openai_walker),
    )
}


@attrs.frozen
class Assignment:
    """One validator speaking for one target's wire (an entry of `rules/_wire.yaml`)."""

    target: str
    validator: str
    strict_only: bool
    why: str


def assignments(path: Path | None = None) -> list[Assignment]:
    """The entries of `rules/_wire.yaml`, in file order."""
    from .listing import shipped_dir
    from .yamlsource import load_marked

    path = path or shipped_dir() / "_wire.yaml"
    doc = load_marked(path.read_text(encoding="utf-8"))
    out = []
    for target, entries in doc["targets"].items():
        for e in entries:
            if e["validator"] not in VALIDATORS:
                raise ValueError(f"{path}: {target}: unknown validator {e['validator']!r}")
            out.append(Assignment(target, e["validator"], e.get("when") == "strict", e["why"]))
    return out


def loaded(names: Iterable[str]) -> dict[str, Any]:
    """Each named validator's judge, or the ImportError that says it is not installed."""
    out: dict[str, Any] = {}
    for name in names:
        try:
            out[name] = VALIDATORS[name].load()
        except ImportError as e:
            out[name] = e
    return out


def corpus(paths: Iterable[str]) -> list[tuple[str, str, Any]]:
    """(id, role, schema) per record: outputs as structured outputs, tool schemas as
    parameters, and the general schemas (SchemaStore, test suite) as both."""
    out = []
    for path in paths:
        with Path(path).open(encoding="utf-8") as f:
            for n, line in enumerate(f):
                if not line.strip():
                    continue
                rec = json.loads(line)
                if not (isinstance(rec, dict) and "schema" in rec):
                    rec = {"schema": rec}
                ident = str(rec.get("id", f"{Path(path).name}:{n + 1}"))
                kind = rec.get("kind")
                roles = ("output",) if kind == "output" else _ROLES if kind == "general" else ("parameters",)
                out.extend((ident, role, rec["schema"]) for role in roles)
    return out


def wire_outputs(records: list[tuple[str, str, Any]], target: str) -> list[tuple[str, str, Any, bool]]:
    """(id, role, wire schema, sent strict) per record, each normalized once for `target`."""
    from . import normalize_output

    out = []
    for ident, role, schema in records:
        result = normalize(schema, target) if role == "parameters" else normalize_output(schema, target)
        out.append((ident, role, result.schema, result.strict))
    return out


@attrs.frozen
class Verdict:
    target: str
    validator: str
    judged: int
    rejected: tuple[tuple[str, str, str], ...]
    """(id, role, reason) of each rejected output."""
    missing: str | None = None
    """Why the validator could not run (not installed)."""


def judge(outputs: list[tuple[str, str, Any, bool]], target: str, judges: dict[str, Any], entries: Iterable[Assignment]) -> list[Verdict]:
    """Every output of one target through each validator assigned to it."""
    verdicts = []
    for a in entries:
        if a.target != target:
            continue
        fn = judges[a.validator]
        if isinstance(fn, ImportError):
            verdicts.append(Verdict(target, a.validator, 0, (), f"not installed ({fn.name or fn})"))
            continue
        judged, rejected = 0, []
        for ident, role, schema, strict in outputs:
            if a.strict_only and not strict:
                continue
            judged += 1
            reason = fn(schema, role)
            if reason is not None:
                rejected.append((ident, role, reason))
        verdicts.append(Verdict(target, a.validator, judged, tuple(rejected)))
    return verdicts


def _version(distribution: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "-"


def render_validators(verdicts: list[Verdict], *, examples: int = 1) -> str:
    lines = [
        "| target | validator | version | judged | rejected | first rejection |",
        "|---|---|---|---:|---:|---|",
    ]
    for v in verdicts:
        first = v.missing or "; ".join(f"{i} ({r}): {_cell(m)}" for i, r, m in v.rejected[:examples]) or "-"
        lines.append(
            f"| `{v.target}` | {v.validator} | {_version(VALIDATORS[v.validator].distribution)} "
            f"| {v.judged} | {len(v.rejected)} | {first} |"
        )
    return "\n".join(lines)


def _cell(text: str, limit: int = 160) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _default_corpus() -> list[str]:
    here = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
    return [str(p) for p in sorted(here.glob("*.jsonl"))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wireschema.report", description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="JSON Lines files of schemas or records with a schema field")
    parser.add_argument("--targets", help="comma-separated target names (default: all shipped)")
    parser.add_argument("--validators", action="store_true", help="judge the outputs by the real validators of each wire")
    args = parser.parse_args(argv)
    names = args.targets.split(",") if args.targets else [t.name for t in targets()]
    if args.validators:
        files = args.files or _default_corpus()
        if not files:
            parser.error("no corpus files given and none found beside the repository")
        records = corpus(files)
        entries = assignments()
        judges = loaded(sorted({a.validator for a in entries if a.target in names}))
        verdicts = [v for name in names for v in judge(wire_outputs(records, name), name, judges, entries)]
        print(render_validators(verdicts))
        return 1 if any(v.rejected for v in verdicts) else 0
    if not args.files:
        parser.error("give the corpus files to report on")
    print(render(read_schemas(args.files), names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
