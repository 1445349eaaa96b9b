"""Generate CONSTRAINTS.md, the operational contract, from the rule files and kind tables.

    python -m wireschema.docgen                            # print the document
    python -m wireschema.docgen --write CONSTRAINTS.md     # write it (default path: ./CONSTRAINTS.md)
    python -m wireschema.docgen --check CONSTRAINTS.md     # exit 1 if the file is stale

Everything below the hand-written language reference is read from the shipped rule
files (`rules/`), the vocabulary and the `KINDS` / `CHECKS` tables, so the document
cannot drift from what the engine does. The output is deterministic: no absolute
paths, no dates, sets sorted.
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
from pathlib import Path
from types import MappingProxyType
from typing import Any, Sequence

import attrs
import yaml

from .passes import CHECKS, KINDS, Kind
from .rulefields import INHERIT, SUB_FIELDS, TOP_FIELDS
from .listing import shipped_dir
from .models import CATALOG, Catalog, read_catalog
from .ruletable import Registry, Rule, Target, Vocabulary

REGENERATE = "python -m wireschema.docgen --write CONSTRAINTS.md"

# ids the engine reports itself, not declared in any rule file: (id, what triggers it)
ENGINE_IDS: tuple[tuple[str, str], ...] = (
    (
        "budget/depth",
        "JSON objects and arrays nest deeper than `Options.max_depth` (default 96), counted while "
        "the input is copied, again after `$ref` expansion, and in the rewritten schema. Action "
        "`fallback`: the target's fallback schema, never fail-open (the non-strict sibling would fail "
        "the same way).",
    ),
    (
        "budget/nodes",
        "More than `Options.max_nodes` (default 32,768) JSON objects, arrays and boolean subschemas, "
        "counted while the input is copied (a subtree a Python input holds twice counts twice), for "
        "every subtree that `$ref` expansion copies, for the subschemas a rewrite makes, and in the "
        "rewritten schema. Fallback, never fail-open.",
    ),
    (
        "budget/literal",
        "More than `Options.max_literal_bytes` (default 8 MiB) of object keys and strings, counted "
        "in characters (not UTF-8 bytes), and one more for every array item; a list of more than "
        "1,024 plain values with numbers among them costs its JSON text instead (past 8,192 values, "
        "the text of 8,192 evenly spaced ones, scaled to the list's length). Counted while copying, "
        "after `$ref` expansion, as spilled text is written (writing stops there) and in the rewritten "
        "schema. Fallback, never fail-open.",
    ),
    (
        "input/not-a-schema",
        "The input is JSON but neither an object nor a boolean (an array, a string, a number, null). "
        "Fallback, never fail-open. Input that is not JSON at all raises `SchemaInputError` instead.",
    ),
    (
        "input/text",
        "A string of the input (a value or an object key) holds a lone surrogate, half of a "
        "character (JSON text's `\\ud83d`), which no UTF-8 text holds: it is written as that "
        "escape, six characters of text, and a surrogate pair held as two characters as the one "
        "it encodes. Action `rewritten`, at the string's pointer (a key at the key it becomes); a "
        "tool's description and the fields it keeps are mended alike, reported as `tool/text`. "
        "Made while the input is copied, so also under `bypass` and in `check`; a key that would "
        "then be another key of its object is a `SchemaInputError`.",
    ),
    (
        "bypass",
        "`Options(bypass=True)` or the environment variable `WIRESCHEMA_NO_NORMALIZATION=1`: the "
        "input is returned as a validated copy, untouched, with `strict=False` and this one change "
        "(action `kept`).",
    ),
)

_ORDER_TEXT = {
    "pre": "pre (top-down, before the node's children)",
    "post": "post (bottom-up, after the node's children)",
    "tree": "tree (once, on the whole tree)",
}

INTRO = f"""\
# CONSTRAINTS

The operational contract of wireschema: every rule the shipped targets apply, what it
does, which targets use it, and why the wire needs it, together with the language the
rule files are written in.

This file is generated from the rule files in `rules/`, the vocabulary and the kind
tables in `engine/passes/`; do not edit it by hand. Regenerate it with

    {REGENERATE}

`tests/test_constraints.py` fails while the committed file differs from what the rule
files and kinds say.
"""

LANGUAGE = """\
## The rule-file language

A target is one YAML file in `rules/` (or a user's file given to `wireschema.load_rules`).
It says what to rewrite, in which order, and what the output must satisfy. Every mistake
is a `RuleFileError` naming file, line and column, raised when the file is compiled; a
message about an unknown name suggests the nearest known one. `wireschema rules explain
TARGET` prints a target's merged rule list with where each rule came from, and
`wireschema rules new NAME --extends T` writes a starting file.
"""

MERGING = """\
Merging with `extends`: the parents are merged first, in listed order, a later parent
over an earlier one; then the file's own fields over the result, each as the table above
says. Any inherited field can be unset with `null` (`strict_variant: null`, `tool:
{strict: null}`): its default applies, as if no file in the chain had set it. Of two
parents that both carry a field (or a key of a mapping field, or a named list), the later
parent's wins unless it has it only from a file the earlier one extends too: a shared
ancestor cannot undo an override.

Named lists (`lists:`) are how one list serves a rule and its check, and how a file that
extends another changes a list without restating it:

```yaml
# openai-strict.yaml
lists:
  keys: [type, description, properties, required, ...]
rules:
  - {id: openai-strict/keep-only, kind: keep-only, keys: list:keys, spill: [group:spillable], why: ...}
checks:
  - {id: openai-strict/check-keys, kind: allowed-keys, keys: list:keys, why: ...}
# openai-strict-compat.yaml: both the rule and the check take the edited list
extends: openai-strict
lists:
  keys: {remove: [const, pattern, format]}
```

A list is a list of strings, or a mapping of a type to a list of strings (for `typemap`
options such as a format allow-list: `{add: {integer: [enum]}}` edits one type). A flat
list may include another as an item (`sent: [list:fields]`), read as that list stands in
the file that uses it. Removing an item the list does not have, or adding one it has, is
an error: the edit says something that is not so.

Rules and checks are merged by id:

- a new id is appended (or placed with `before:` / `after:`);
- an inherited id **without** `kind:` is a partial override: the fields given replace the
  inherited ones, the others (kind, options, `why`, `where`) stay;
- an inherited id **with** `kind:` replaces the inherited rule entirely (unset options
  take the kind's defaults);
- `disabled: true` removes the inherited rule (only `why` may stand beside it);
- an overridden or replaced rule keeps its place unless it says `before:` / `after:`.

Of two parents that both carry an id, the later parent's version wins, unless it comes
unchanged from a file the earlier parent also extends (a shared ancestor cannot undo an
override); a rule only the later parent has goes right after the rule it follows there.
Ids are unique within a file, and across the rules and checks of a target. A check kind
listed under `rules:` (or a rule kind under `checks:`) is refused with where it belongs.

### Fields of a rule or check

| field | meaning |
| --- | --- |
| `id` | Required. Lower case, matching `^[a-z0-9][a-z0-9._/-]*$`; by convention `file/what` (`gemini/nullable`). Every change and failure is reported under it. |
| `kind` | Required for a new rule: a rule kind in `rules:`, a check kind in `checks:`. |
| `why` | Required, non-empty: in one line, why the wire needs this (the error message the provider gives, where there is one). |
| `where` | Optional JSONPath starting with `$`: the rule visits only the object schema nodes it selects. Only schema positions count: a path into a literal payload (`enum`, `const`, `default`, `examples`, ...) selects nothing, and with recursive descent the last step must be a keyword (`$..items`), so a property named like a keyword is not taken for it (and `$..properties.*` selects nothing). The selection is made when the rule's walk starts: nodes created during that walk are not selected. A selector that can select no schema in any document (`$.propertes.a`, a step into a literal) is refused. `tree` kinds refuse it. |
| `before` / `after` | Optional id of a rule in the same list (as merged so far): put this one just before / after it. One of the two at most. |
| `disabled` | `true` removes the inherited rule of that id. |
| any other field | An option of the kind, checked against the kind's option table. |

### Option types

| type | value |
| --- | --- |
| `keys` | A keyword or list of keywords; `group:NAME` stands for a vocabulary group, `list:NAME` for a named list of the file. A set: order and repeats do not matter. Each keyword must be one of the vocabulary's (JSON Schema's), one the file declares in `keywords:`, or an extension starting with `x-`. |
| `map` | A mapping, or `map:NAME` for a vocabulary map. |
| `typemap` | A mapping from a type name to a list of strings (`string: [date-time, uuid]`), or `list:NAME` for a named type map. |
| `strlist` | A list of strings, order kept; `list:NAME` stands for a named list (alone, or as an item). |
| `choice` | One of the listed strings. |
| `json` | Any YAML value, taken as JSON (usually a schema). |
| `regex` | A Python regular expression, compiled when the file is compiled. |
| `int` | A non-negative integer. |
| `ranges` | A list of inclusive `[low, high]` number ranges, either end `null` for none (`[[null, -1], [1, 100]]`). |
| `bool` | `true` or `false`. |
| `str` | A string. |

### How a target runs

1. The input is copied and validated (JSON only; budgets counted: see Engine ids). The
   copy also takes the input's census: the keywords it holds.
2. The rules run in listed order, in stages. Consecutive node rules make one walk of the
   schema tree: at each node the walk's `pre` rules run top-down, before the node's
   children are found, and its `post` rules bottom-up, after them; each may replace the
   node. A `pre` rule listed after a `post` rule starts a new walk, so that listed order
   is kept. A `tree` kind runs once on the whole tree, between walks. Subschemas created
   during a walk (a new `anyOf` branch, a replaced node) are walked too, by every rule
   of that walk; finished nodes are not visited twice. A node kind sees boolean
   subschemas only if the table below says so; otherwise only objects.
3. The checks run last, all node checks in one top-down walk, the tree checks in listed
   order around it. A check never rewrites: it fails.

That is the reference a compiled target keeps to, while doing less where the kinds'
contracts (below: what each kind reads, makes, adds and may fail on) allow it. A stage
none of whose rules can have work on this input (its trigger keywords are neither in
the census nor among those an earlier rule may add, or a keyword the kind requires,
such as inline-refs' `$ref`, is in neither) is skipped, and a walk holds only the rules
that the census, or what their own or an earlier stage that runs may add, can wake up
(a keyword a rule adds brings its boolean-schema markers where the kind may write a
boolean schema); consecutive walks fuse
into one where no rule reads what another walk has not finished; the node checks run
inside the last walk where only a root-scoped tree stage follows it. Every walk is
Python source generated once per target and plan, its rules' triggers and cheap tests
written inline. Where a fused run does not go as planned (a check fails, a budget runs
out), the staged run decides, from the start: the output, report and order of changes
are the staged run's in every case.
4. A failed check, or a rule that finds the schema unrepresentable, stops the run. A
   `strict: true` file with `fail_open` normalizes the original input again with that
   non-strict target (`Result.strict` false, `strict_reason` says why, the first change
   is the failure; where only rules that change nothing had run, such as the limits,
   the sibling takes over the strict run's copy of the input instead of copying it
   again); budget and input failures skip this step. Otherwise the result is
   the file's `fallback` schema with `used_fallback` true and `fallback_reason` naming
   the rule.
"""


# ---------------------------------------------------------------------------
# the shipped rule files, compiled


@attrs.frozen
class Shipped:
    """Every shipped rule file compiled: the targets, and every file of their chains."""

    registry: Registry
    targets: tuple[Target, ...]  # the non-abstract targets, in `wireschema.targets()` order
    files: tuple[Target, ...]  # abstract files first (by name), then the targets


def shipped(rules_dir: Path | None = None) -> Shipped:
    """Compile the rule files afresh from `rules_dir` (default: the shipped ones)."""
    d = rules_dir or shipped_dir()
    registry = Registry([d], Vocabulary(d / "_vocabulary.yaml"))
    targets = tuple(t for t in (registry.get(n) for n in registry.names()) if t is not None and not t.abstract)
    chain_names = sorted({Path(f).stem for t in targets for f in t.files})
    abstract = tuple(
        t for t in (registry.get(n) for n in chain_names) if t is not None and t.abstract
    )
    return Shipped(registry, targets, abstract + targets)


def _file_of(rule: Rule) -> str:
    """The rule file (name only) that last wrote this rule."""
    return Path(rule.source.rsplit(":", 2)[0]).name


def _all_rules(target: Target) -> tuple[Rule, ...]:
    return target.rules + target.checks


def _is_check(target: Target, rid: str) -> bool:
    return any(r.id == rid for r in target.checks)


def _rule(target: Target, rid: str) -> Rule | None:
    return next((r for r in _all_rules(target) if r.id == rid), None)


# ---------------------------------------------------------------------------
# rendering values


def _plain(value: Any, vocab: Vocabulary | None = None) -> Any:
    """A compiled option value as plain YAML data (sets sorted, vocabulary names restored)."""
    if isinstance(value, frozenset):
        if vocab is not None:
            for name, words in vocab.groups.items():
                if value == frozenset(words):
                    return f"group:{name}"
        return sorted(value)
    if isinstance(value, re.Pattern):
        return value.pattern
    if isinstance(value, (dict, MappingProxyType)):
        if vocab is not None:
            for name, mapping in vocab.maps.items():
                if dict(value) == mapping:
                    return f"map:{name}"
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _flow(value: Any) -> str:
    """One line of YAML flow style."""
    text = yaml.safe_dump(value, default_flow_style=True, width=10**9, allow_unicode=True, sort_keys=False)
    text = text.strip()
    if text.endswith("\n..."):
        text = text[: -len("\n...")].strip()
    elif text.endswith("..."):
        text = text[:-3].strip()
    return text


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    return f"`{text}`" if "`" not in text else f"`` {text} ``"


def _option_lines(rule: Rule, table: dict[str, Kind], vocab: Vocabulary) -> list[str]:
    """`name: value` per option, in the kind's declared order; `where:` first."""
    lines = []
    if rule.where is not None:
        lines.append(f"where: {_flow(rule.where)}")
    declared = list(table[rule.kind].options) if rule.kind in table else []
    names = sorted(rule.options, key=lambda n: (declared.index(n) if n in declared else len(declared), n))
    for name in names:
        lines.append(f"{name}: {_flow(_plain(rule.options[name], vocab))}")
    return lines


def _options_block(lines: list[str], base: list[str] | None = None) -> list[str]:
    """A YAML block of option lines; with `base`, the lines that differ from it are marked."""
    if not lines:
        return ["No options."]
    if base is not None:
        lines = [line if line in base else f"{line}  # overridden" for line in lines]
    return ["```yaml", *lines, "```"]


# ---------------------------------------------------------------------------
# sections


def _reads_text(k: Kind) -> str:
    reads = "depends on its options" if callable(k.reads) else k.reads
    if k.reads_via is not None:
        via = "its options' keywords" if callable(k.reads_via) else ", ".join(f"`{w}`" for w in k.reads_via)
        within = "its node" if k.reads_within == "node" else k.reads_within
        reads += f" (only through {via}: without them, {within})"
    return reads


def _contract_text(k: Kind) -> str:
    """What a kind declares it needs and does (see `Kind`), as one line of CONSTRAINTS.md."""
    phase = "any" if k.phase is None else ("set by its options" if callable(k.phase) else k.phase)
    if k.adds is None:
        adds = "any keyword"
    elif callable(k.adds):
        adds = "keywords its options name"
    else:
        adds = ", ".join(f"`{a}`" for a in sorted(k.adds)) or "nothing"
    parts = [
        f"phase {phase}",
        f"reads {_reads_text(k)}",
        "may make new subschemas, as its options say" if callable(k.creates) else f"{'may make' if k.creates else 'makes no'} new subschemas",
        f"may add {adds} (and `description`)",
        "may find the schema unrepresentable" if k.fails else "never fails",
    ]
    if not k.mutates:
        parts[2:4] = ["changes nothing"]
    if k.adds != () and k.writes_bools is not True:
        held = "puts no boolean schema under a keyword that held none"
        if isinstance(k.writes_bools, dict):
            moved = ", ".join(f"under `{to}` from `{src}`" for to, src in sorted(k.writes_bools.items()))
            held = f"{held}, but for those it moves ({moved})"
        elif isinstance(k.writes_bools, frozenset):
            held = f"{held} but {', '.join(f'`{kw}`' for kw in sorted(k.writes_bools))}"
        elif k.writes_bools is not False:
            held = f"{held}, unless its options say"
        parts.insert(4, held)
    if k.scope == "root":
        parts.append("changes only the root")
    if k.edits_told:
        parts.append("tells each node it changes, which the checks see again")
    if k.respells_defs is not None:
        parts.append("may leave the root's definitions under a keyword its options name, where the checks judge them too")
    if callable(k.requires):
        parts.append("has work only where the input holds keywords its options name")
    elif k.requires:
        parts.append("has work only where the input holds " + " and ".join(f"`{r}`" for r in sorted(k.requires)))
    for label, value in (("needs", k.needs), ("makes", k.makes), ("comes before whatever makes", k.precedes)):
        if callable(value):
            parts.append(f"{label} facts set by its options")
        elif value:
            parts.append(f"{label} " + ", ".join(f"`{v}`" for v in value))
    return "; ".join(parts)


def _fields_section() -> list[str]:
    """The top-level field tables, from the very tables the loader validates with."""
    out = [
        "### Top-level fields",
        "",
        "| field | value | inherited | meaning |",
        "| --- | --- | --- | --- |",
    ]
    for name, field in TOP_FIELDS.items():
        out.append(f"| `{name}` | {_cell(field.value)} | {_cell(INHERIT[field.inherit])} | {_cell(field.doc)} |")
    for name, table in SUB_FIELDS.items():
        out += ["", f"#### `{name}` fields", "", "| field | value | meaning |", "| --- | --- | --- |"]
        for key, sub in table.items():
            out.append(f"| `{name}.{key}` | {_cell(sub.value)} | {_cell(sub.doc)} |")
    out.append("")
    return out


def _kinds_section(title: str, table: dict[str, Kind]) -> list[str]:
    out = [f"## {title}", ""]
    for name in sorted(table):
        k = table[name]
        out += [f"### `{name}`", ""]
        if k.phase == "check":
            order = "once on the whole tree" if k.order == "tree" else "on every node, top-down, in one pass with the other node checks"
            out.append(f"Runs: {order}. Reads: {_reads_text(k)}.")
        else:
            bools = "" if k.order == "tree" else f" Sees boolean schemas: {'yes' if k.bools else 'no'}."
            out.append(f"Order: {_ORDER_TEXT.get(k.order, k.order)}.{bools}")
            out.append("")
            out.append(f"Contract: {_contract_text(k)}.")
        out.append("")
        doc = inspect.cleandoc(k.fn.__doc__ or "") or k.doc
        if doc:
            out += [doc, ""]
        if not k.options:
            out += ["No options.", ""]
            continue
        out += ["| option | type | default | choices | doc |", "| --- | --- | --- | --- | --- |"]
        for oname, opt in k.options.items():
            if opt.required:
                default = "required"
            elif opt.default is None:
                default = "none"
            else:
                default = _code(_flow(_plain(opt.default)))
            choices = ", ".join(_code(c) for c in opt.choices)
            out.append(
                f"| `{oname}` | {opt.type} | {_cell(default)} | {_cell(choices)} | {_cell(opt.doc)} |"
            )
        out.append("")
    return out


def _vocabulary_section(vocab: Vocabulary) -> list[str]:
    out = [
        "## Vocabulary",
        "",
        "From `rules/_vocabulary.yaml`. A `keys` option may say `group:NAME`, a `map` option `map:NAME`.",
        "",
        "### Groups",
        "",
        "| group | keywords (expanded) |",
        "| --- | --- |",
    ]
    for name, words in vocab.groups.items():
        out.append(f"| `{name}` | {_cell(', '.join(_code(w) for w in words))} |")
    out += ["", "### Maps", ""]
    for name, mapping in vocab.maps.items():
        out += [f"#### `map:{name}`", "", "| from | to |", "| --- | --- |"]
        for k, v in mapping.items():
            out.append(f"| {_code(_flow(k))} | {_cell(_code(_flow(_plain(v))))} |")
        out.append("")
    return out


def _rules_section(s: Shipped) -> list[str]:
    vocab = s.registry.vocabulary
    order = {Path(f.path).name: i for i, f in enumerate(s.files)}
    # which files write each id (a file writes an id when its own entry is the last word)
    writers: dict[str, list[Target]] = {}
    for f in s.files:
        for r in _all_rules(f):
            if _file_of(r) == Path(f.path).name:
                writers.setdefault(r.id, []).append(f)
    # the defining file: the writer nearest the root of the extends chains
    defined_in: dict[str, Target] = {
        rid: min(ws, key=lambda f: (len(f.files), order[Path(f.path).name])) for rid, ws in writers.items()
    }
    out = [
        "## Rules",
        "",
        "Every rule and check of the shipped targets, grouped by the file that defines it, in",
        "pipeline order. Options are shown as compiled (defaults filled in). Where a target",
        "overrides an inherited rule, its own kind, options and reason follow.",
        "",
    ]
    for f in s.files:
        fname = Path(f.path).name
        ids = [r.id for r in _all_rules(f) if defined_in.get(r.id) is f]
        if not ids:
            continue
        out += [f"### From `{fname}`", ""]
        for rid in ids:
            base = _rule(f, rid)
            assert base is not None
            table = CHECKS if _is_check(f, rid) else KINDS
            what = "Check" if table is CHECKS else "Rule"
            base_lines = _option_lines(base, table, vocab)
            users = [t for t in s.targets if _rule(t, rid) is not None]
            used = ", ".join(_code(t.name) for t in users) or "no shipped target"
            out += [f"#### `{rid}`", ""]
            out += [f"{what} kind `{base.kind}`. Used by: {used}.", ""]
            out += [f"Why: {base.why}", ""]
            out += _options_block(base_lines)
            out.append("")
            for t in users:
                mine = _rule(t, rid)
                assert mine is not None
                lines = _option_lines(mine, table, vocab)
                if (mine.kind, mine.why, lines) == (base.kind, base.why, base_lines):
                    continue
                kind_note = f" (kind `{mine.kind}`)" if mine.kind != base.kind else ""
                out += [f"In `{t.name}`{kind_note}: {mine.why}", ""]
                out += _options_block(lines, base_lines if mine.kind == base.kind else None)
                out.append("")
    return out


def _engine_section() -> list[str]:
    out = [
        "## Engine ids",
        "",
        "Reported by the engine itself, in no rule file.",
        "",
        "| id | when |",
        "| --- | --- |",
    ]
    for rid, text in ENGINE_IDS:
        out.append(f"| `{rid}` | {_cell(text)} |")
    out.append("")
    return out


def _stage_text(target: Target, checks: bool) -> list[str]:
    lines = []
    for stage in target.check_stages if checks else target.stages:
        if stage.tree is not None:
            lines.append(f"tree: `{stage.tree[0].id}`")
            continue
        parts = []
        if stage.pre:
            parts.append("pre " + ", ".join(f"`{r.id}`" for r, *_ in stage.pre))
        if stage.post:
            parts.append("post " + ", ".join(f"`{r.id}`" for r, *_ in stage.post))
        lines.append("walk: " + "; ".join(parts))
    return lines


def _targets_section(s: Shipped) -> list[str]:
    out = [
        "## Targets",
        "",
        "| target | description | strict | fail_open / non_strict / strict_variant | extends chain | fallback |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for t in s.targets:
        related = [
            f"{label}: `{value}`"
            for label, value in (("fail_open", t.fail_open), ("non_strict", t.non_strict), ("strict_variant", t.strict_variant))
            if value
        ]
        chain = " → ".join(_code(Path(f).name) for f in t.files)
        fallback = _code(_flow(_plain(t.fallback)))
        out.append(
            f"| `{t.name}` | {_cell(t.description)} | {'yes' if t.strict else 'no'} | "
            f"{_cell(', '.join(related)) or '—'} | {chain} | {_cell(fallback)} |"
        )
    out += ["", "### Pipelines", "", "The stages each target runs, in order (see How a target runs).", ""]
    for t in s.targets:
        out += [f"#### `{t.name}`", "", "Rules:", ""]
        out += [f"{i}. {line}" for i, line in enumerate(_stage_text(t, False), 1)] or ["none"]
        out += ["", "Checks:", ""]
        out += [f"{i}. {line}" for i, line in enumerate(_stage_text(t, True), 1)] or ["none"]
        out.append("")
    return out


def _objects_section(rules_dir: Path) -> list[str]:
    """The framework objects `normalize_tool` reads by attribute, and the parameters
    frameworks pass their tool functions themselves (`rules/_objects.yaml`)."""
    from .toolobjects import load_objects

    path = rules_dir / "_objects.yaml"
    if not path.is_file():
        return []
    out = [
        "## Tool objects",
        "",
        "From `rules/_objects.yaml`: tools that agent frameworks hold as Python objects, read by "
        "these attributes (a subclass as the nearest class named), before any `model_dump`, and "
        "built in the target's own shape; the object's other attributes that differ from their "
        "defaults (but those the schema is made from) are named in one `tool/shape` change, not sent. "
        "A class whose SDK gives the whole tool by a method (`dump`), or by a function of its own "
        "package (`sent_by`), is read as the dict it gives, "
        "and one its SDK lists field by field (`fields`) as the dict of those attributes; "
        "one holding another object that is read instead names the attribute (`via`), and a "
        "collection of tools the attribute or method holding them (`holds`). Where the "
        "framework sends only some of the schema's root keywords, the others are left out, reported.",
        "",
        "| class | name | description | schema | strict | why |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    readers, injected = load_objects(path)
    for cls, r in readers.items():
        cells = [_code(v) if v else "—" for v in (r.name, r.description, r.schema, r.strict)]
        if r.dump:
            cells[2] = f"the whole tool: {_code(r.dump + '()')}"
        if r.sent_by:
            cells[2] = f"the whole tool: {_code(r.sent_by + '(tool)')}, its framework's own"
        if r.via:
            cells[2] = f"the object its {_code(r.via)} holds, read as its class is"
        if r.holds:
            cells[2] = f"a collection: the tools its {_code(r.holds)} holds, each read as its class is"
        if r.fields is not None:
            listed = ", ".join(f"{_code(key)} ← {_code(attr)}" for key, attr in r.fields)
            cells[2] = f"the whole tool, listed as {listed}"
        if r.made_from:
            cells[2] += f" (made from {', '.join(map(_code, r.made_from))})"
        if r.if_none is not None:
            cells[2] += f"; where {_code(r.if_none[0])} is None, {_code(json.dumps(r.if_none[1]))}"
        if r.root is not None:
            cells[2] += f"; of its root, only {', '.join(map(_code, r.root))}"
        out.append(f"| `{cls}` | {' | '.join(cells)} | {_cell(r.why)} |")
    if injected:
        out += [
            "",
            "Parameters a framework passes its tool functions itself (`injected`): a parameter of a "
            "function made a tool or a schema whose annotation is, or derives from, one of these classes "
            "(as the class, a generic's origin, or an item of its `Annotated[...]`, a class or an "
            "instance of one), or whose default is an instance of one, is left out, reported where "
            "the function is made a tool (`tool/shape`).",
            "",
            "| class | why |",
            "| --- | --- |",
            *(f"| `{cls}` | {_cell(why)} |" for cls, why in injected.items()),
        ]
    return out


def render(rules_dir: Path | None = None) -> str:
    """The whole CONSTRAINTS.md text, from the shipped rule files (or `rules_dir`)."""
    s = shipped(rules_dir)
    parts: list[str] = [INTRO, LANGUAGE, "\n".join(_fields_section()), MERGING]
    parts.append("\n".join(_kinds_section("Rule kinds", KINDS)))
    parts.append("\n".join(_kinds_section("Check kinds", CHECKS)))
    parts.append("\n".join(_vocabulary_section(s.registry.vocabulary)))
    parts.append("\n".join(_objects_section(rules_dir or shipped_dir())))
    parts.append("\n".join(_rules_section(s)))
    parts.append("\n".join(_engine_section()))
    parts.append("\n".join(_targets_section(s)))
    parts.append("\n".join(Catalog([read_catalog((rules_dir or shipped_dir()) / CATALOG)], None).section()))
    text = "\n".join(p.rstrip("\n") + "\n" for p in parts)
    # one blank line between blocks, one newline at the end
    return re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wireschema.docgen", description="Generate CONSTRAINTS.md.")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", nargs="?", const="CONSTRAINTS.md", metavar="PATH", help="write the document to PATH (default: ./CONSTRAINTS.md)")
    group.add_argument("--check", nargs="?", const="CONSTRAINTS.md", metavar="PATH", help="exit 1 if PATH differs from the generated document")
    args = parser.parse_args(argv)
    text = render()
    if args.write:
        Path(args.write).write_text(text, encoding="utf-8", newline="\n")
        return 0
    if args.check:
        path = Path(args.check)
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current != text:
            print(f"{path} is stale: run {REGENERATE}", file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
