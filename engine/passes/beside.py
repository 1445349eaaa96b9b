"""What two schemas put into one may not bring together.

Some keywords read the ones beside them in the same schema object, and only those
(2020-12): `additionalProperties` sees its own node's `properties`, `minContains` its own
`contains`, `then` its own `if`. Put beside another schema's, they would judge what
they never judged; and a keyword both schemas hold with different values keeps only one.
A merge (an inlined `$ref` and its siblings, a folded `allOf`) keeps such keywords apart.
"""

from __future__ import annotations

from typing import Any

from .literals import dedupe, json_equal

# keywords that constrain nothing: a merge may let one side's value win
_SAYS_NOTHING = frozenset({
    "description", "title", "default", "examples", "example", "$comment", "deprecated", "readOnly", "writeOnly",
    "markdownDescription", "$defs", "definitions", "$schema", "$id", "$anchor",
})
# keywords a merge joins, not replaces: both sides' apply side by side
_JOINED = frozenset({"properties", "required", "allOf"})
_EVALUATING = ("allOf", "anyOf", "oneOf", "if", "then", "else", "not", "$ref", "$dynamicRef")
# a keyword and the keywords beside it that it reads
_READS: dict[str, tuple[str, ...]] = {
    "minContains": ("contains",),
    "maxContains": ("contains",),
    "then": ("if",),
    "else": ("if",),
    "additionalProperties": ("properties", "patternProperties"),
    "items": ("prefixItems",),
    "additionalItems": ("items",),
    "unevaluatedProperties": ("properties", "patternProperties", "additionalProperties", "dependentSchemas", *_EVALUATING),
    "unevaluatedItems": ("prefixItems", "items", "contains", *_EVALUATING),
}


_UNEVALUATED = ("unevaluatedProperties", "unevaluatedItems")
# past this many schemas holding a keyword that reads, a fold is not tried (bounded work)
_MAX_READERS = 64


def _reads_other(mine: dict[str, Any], theirs: dict[str, Any], exempt: tuple[str, ...] = ()) -> str | None:
    """A keyword of `mine` that reads one `theirs` holds differently, said, or None."""
    for reader, read in _READS.items():
        if reader in mine and reader not in exempt:
            for r in read:
                if r in theirs and not (r in mine and json_equal(mine[r], theirs[r])):
                    return f"{reader} would read the other's {r}"
    return None


def read_apart(one: dict[str, Any], other: dict[str, Any]) -> str | None:
    """Why two schemas side by side (neither seeing the other) put into one would say
    something else: a keyword of either reads one the other holds differently."""
    return _reads_other(one, other) or _reads_other(other, one)


def differ(one: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """The keywords both hold with different values, in `other`'s order (annotations
    aside, and `properties`, `required` and `allOf`, which a merge joins)."""
    return [k for k, v in other.items() if k in one and k not in _SAYS_NOTHING and k not in _JOINED and not json_equal(one[k], v)]


def fold_apart(outer: dict[str, Any], branches: list[dict[str, Any]]) -> str | None:
    """Why folding `branches` (of an allOf) into `outer` would say something else, or
    None. A branch's keyword reads only its own branch's; `outer`'s reads the branches
    too only where it is `unevaluatedProperties` or `unevaluatedItems`."""
    readers = [b for b in branches if any(k in b for k in _READS)]
    if len(readers) > _MAX_READERS:
        return f"more than {_MAX_READERS} branches hold keywords that read their neighbours"
    for b in branches:
        why = _reads_other(outer, b, _UNEVALUATED) or _reads_other(b, outer)
        if why:
            return why
    for b in readers:
        for other in branches:
            why = _reads_other(b, other) if other is not b else None
            if why:
                return why
    return None


def kept_apart(inner: dict[str, Any], outer: dict[str, Any]) -> list[str]:
    """The keywords of `outer` (the keywords beside a `$ref`) that must stay apart from
    `inner` (its target), in `outer`'s order: one both hold differently (see `differ`),
    one that reads or is read across the two, and with each, the keywords of `outer` it
    reads or that read it. `outer`'s `unevaluated*` see `inner`'s, as through the `$ref`."""
    apart = set(differ(inner, outer))
    for reader, read in _READS.items():
        if reader in outer and reader not in _UNEVALUATED and any(r in inner and not (r in outer and json_equal(outer[r], inner[r])) for r in read):
            apart.add(reader)
        if reader in inner:
            apart.update(r for r in read if r in outer and not (r in inner and json_equal(inner[r], outer[r])))
    grown = True
    while grown:  # a keyword kept apart takes along what it reads, and what reads it
        grown = False
        for reader, read in _READS.items():
            if reader in outer and reader not in _UNEVALUATED:  # it sees the rest wherever it stands
                group = {reader, *(r for r in read if r in outer)}
                if group & apart and not group <= apart:
                    apart |= group
                    grown = True
    return [k for k in outer if k in apart]


def disjoint(branches: list[Any]) -> bool:
    """No value matches two of `branches`, plainly: each has one type of its own
    (`integer` and `number` overlap), or each requires one property whose `const` or
    `enum` values no other branch's share (a tagged union)."""
    if len(branches) < 2:
        return True
    if not all(b.__class__ is dict for b in branches):
        return False
    types = [b.get("type") for b in branches]
    if all(t.__class__ is str for t in types) and len(set(types)) == len(types) and not {"integer", "number"} <= set(types):
        return True
    first = branches[0].get("properties")
    for name in first if first.__class__ is dict else ():
        tags = [_tags(b, name) for b in branches]
        if all(t is not None for t in tags):
            every = [v for t in tags for v in dedupe(t)]  # type: ignore[union-attr]
            if len(dedupe(every)) == len(every):
                return True
    return False


def _tags(branch: dict[str, Any], name: str) -> list[Any] | None:
    """The values a branch that requires `name` allows it (its `const`, or `enum`), or None."""
    props, required = branch.get("properties"), branch.get("required")
    sub = props.get(name) if props.__class__ is dict else None
    if sub.__class__ is not dict or required.__class__ is not list or name not in required:
        return None
    if "const" in sub:
        return [sub["const"]]
    enum = sub.get("enum")
    return enum if enum.__class__ is list else None
