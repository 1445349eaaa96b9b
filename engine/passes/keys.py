"""Kinds that remove keywords: dropped outright, spilled into `description`, or
allow-listed; and one that names a misspelt keyword it keeps."""

from __future__ import annotations

from typing import Any

from ..positions import NULL_AT, SUBSCHEMA_KEYS
from ..rulefields import suggest
from ..run import shown_value
from . import Opt, kind

# how near a keyword a misspelt one is (difflib's ratio): `propertes`, `requried`,
# `defualt` are; keywords of other vocabularies are not (ajv's `typeof` is not `type`,
# json-editor's `options` not `optional`, VS Code's `markdownDescription` not `description`)
_NEAR = 0.85
# distinct unknown keywords a run reads for a misspelling, in document order: a schema
# holding more is no hand-written one, and reading each costs a comparison with every keyword
_READ = 256


# drop and spill run top-down: what they remove is never walked, and a spilled
# subschema reads as the author wrote it
@kind("drop", fails=False, reads="node", creates=False, adds=(), order="pre", triggers="keys", keys=Opt("keys", required=True))
def drop(rule, node, run):
    """Remove keywords the wire rejects and that carry nothing worth keeping."""
    keys = rule.options["keys"]
    for k in [k for k in node if k in keys]:
        del node[k]
        run.report(rule, node, "dropped", f"{k} removed", k)


def _nullable_names(options) -> frozenset:
    """The keywords drop-nulls removes, each in every spelling named."""
    keys = options["keys"]
    return frozenset(keys) | {k for k, to in options["spellings"].items() if to in keys}


@kind(
    "drop-nulls", fails=False, phase="prepare", reads="node", creates=False, adds=(), order="pre",
    triggers=_nullable_names,
    census=lambda o: {NULL_AT + k for k in _nullable_names(o)},
    acts_if="None in node.values()",
    keys=Opt("keys", required=True, doc="keywords whose value is never null"),
    spellings=Opt("map", {}, doc="other spellings of them (from -> to, or `map:NAME`), whose null goes the same way"),
)
def drop_nulls(rule, node, run):
    """Remove keywords written null where JSON Schema takes no null: a field a dumped SDK
    model leaves unset (`max_items: None`), which reads as absent."""
    keys, spellings = rule.options["keys"], rule.options["spellings"]
    for k in [k for k, v in node.items() if v is None and (k in keys or spellings.get(k) in keys)]:
        del node[k]
        run.report(rule, node, "dropped", f"{k}: null, unset, removed", k)


@kind(
    "spill", fails=False, reads=lambda o: "subtree" if not SUBSCHEMA_KEYS.isdisjoint(o["keys"]) else "node", creates=False, adds=(),
    order="pre",
    triggers="keys",
    keys=Opt("keys", required=True),
    together=Opt(
        "map",
        {},
        doc="keyword -> keywords that mean something else once it is gone, spilled with it (a true value stays)",
    ),
    silent=Opt("map", {}, doc="keyword -> values that say nothing on this wire: dropped (reported), not spilled"),
    when=Opt("keys", (), doc="only on a schema that has one of these keywords (empty: every schema)"),
)
def spill(rule, node, run):
    """Remove keywords the wire rejects, keeping their meaning as text in `description`.

    With `together`, a keyword whose meaning depends on a spilled one goes too:
    `additionalProperties` beside `patternProperties` covers only the names no pattern
    matches, and left alone it would refuse the names the patterns allowed. With
    `when`, only where another keyword stands beside them (length bounds beside a
    `pattern`, for a decoder that cannot intersect the two).
    """
    when = rule.options["when"]
    if when and when.isdisjoint(node):
        return
    keys = rule.options["keys"]
    gone = [k for k in node if k in keys]
    together = rule.options["together"]
    if together:
        also = {d for k in gone for d in (together.get(k) or ())}
        gone = [k for k in node if k in keys or (k in also and node[k] is not True)]
    silent = rule.options["silent"]
    for k in gone:
        if k in silent and _among(node[k], silent[k]):
            value = node.pop(k)
            run.report(rule, node, "dropped", f"{k} {shown_value(value)} removed: it says nothing on this wire", k)
            continue
        run.spill(rule, node, k, node[k])


def _among(value, values) -> bool:
    # JSON equality: true is not 1, 0.0 is not false
    return any(type(value) is type(v) and value == v for v in values or ())


@kind(
    "keep-only", fails=False, reads="node", creates=False, adds=(),
    acts_if="not {keys}.issuperset(node)",
    keys=Opt("keys", required=True, doc="the allow-list"),
    spill=Opt("keys", (), doc="keywords outside the allow-list that are spilled, not dropped"),
)
def keep_only(rule, node, run):
    """Allow-list: every keyword not listed is spilled (if spillable) or dropped."""
    keys = rule.options["keys"]
    spillable = rule.options["spill"] or ()
    for k in [k for k in node if k not in keys]:
        if k in spillable:
            run.spill(rule, node, k, node[k])
        else:
            del node[k]
            run.report(rule, node, "dropped", f"{k} is not accepted by this wire", k)


@kind(
    "place-keys", fails=False, reads="node", creates=False, adds=(),
    # with `when`, a schema without one of those is left alone, whatever it holds
    triggers=lambda o: o["when"] or o["keys"],
    acts_if=lambda o: "not {when}.isdisjoint(node) and not {keys}.isdisjoint(node)" if o["when"] else "not {keys}.isdisjoint(node)",
    keys=Opt("strlist", required=True, doc="keywords to move, in this order"),
    follow=Opt("str", "", doc="the keyword they follow; empty: the end of the schema"),
    when=Opt("keys", (), doc="only on a schema that has one of these keywords (empty: every schema)"),
)
def place_keys(rule, node, run):
    """Put keywords at a fixed place, whatever order earlier rules left.

    Output then has one key order however it was reached, so normalizing the output
    again gives the same bytes.
    """
    when = rule.options["when"]
    if when and when.isdisjoint(node):
        return None
    anchor = rule.options["follow"]
    moving = [k for k in rule.options["keys"] if k in node]
    if not moving or (anchor and anchor not in node):
        return None
    keys = list(node)
    at = keys.index(anchor) + 1 if anchor else len(keys) - len(moving)
    if keys[at : at + len(moving)] == moving:
        return None
    values = {m: node.pop(m) for m in moving}
    items = list(node.items())
    at = [k for k, _ in items].index(anchor) + 1 if anchor else len(items)
    items[at:at] = list(values.items())
    run.rewrite(node, items)
    where = f"after {anchor}" if anchor else "to the end"
    run.report(rule, node, "rewritten", f"{', '.join(moving)} moved {where}", moving[0])
    return None


def _title_of(name: str) -> str:
    """The title pydantic gives a field of this name (`GenerateJsonSchema.get_title_from_name`)."""
    return name.title().replace("_", " ").strip()


@kind(
    "drop-name-titles", fails=False, reads="children", creates=False, adds=(), order="pre",
    triggers={"properties", "$defs"},
    census={"title"},  # work only where the input holds a title
)
def drop_name_titles(rule, node, run):
    """A title that only repeats the name it stands under, as written or as pydantic
    writes a name (`trip_id`: "Trip Id"): a property's, or a definition's (`$defs/Trip`:
    "Trip"), or a union branch's right under it (pydantic's `Optional[str]`). It tells
    the model nothing the name does not. Any other title, the author's own, is kept.
    Put it before references are inlined, where a definition still stands under its name."""
    for kw, what in (("properties", "property"), ("$defs", "definition")):
        named = node.get(kw)
        if named.__class__ is not dict:
            continue
        for name, sub in named.items():
            for holder in _with_branches(sub):
                title = holder.get("title")
                if title.__class__ is str and (title == name or title == _title_of(name)):
                    del holder["title"]
                    run.edited(holder)
                    run.report(rule, holder, "dropped", f"title {title!r} only repeats the {what}'s name", "title")


def _with_branches(sub: Any) -> list[dict]:
    """`sub` and the branches of its unions, each a dict (a union collapsed later lifts
    a branch's keywords to `sub`)."""
    if sub.__class__ is not dict:
        return []
    branches = [b for kw in ("anyOf", "oneOf") if sub.get(kw).__class__ is list for b in sub[kw] if b.__class__ is dict]
    return [sub, *branches]


@kind(
    "misspelled-keywords", fails=False, mutates=False, reads="node", creates=False, adds=(), order="pre",
    acts_if="not {known}.issuperset(node)",
    known=Opt("keys", required=True, doc="the keywords there are (`group:keywords`: JSON Schema's and the file's own)"),
)
def misspelled_keywords(rule, node, run):
    """A keyword none of `known` spelt within a small edit distance of one that is
    (`propertes`, `requried`) is reported with the keyword it likely means, and kept as
    written: the wire reads it as any unknown keyword, and the author mends it.
    Extensions (`x-`) are left alone, and so is each unknown keyword past the first 256
    of a schema."""
    known = rule.options["known"]
    meant = run.memo(("misspelled", rule.id), dict)  # unknown keyword -> what it likely means
    for k in node:
        if k in known or k[:2] == "x-":
            continue
        near = meant.get(k)
        if near is None:
            if len(meant) >= _READ:
                continue
            near = meant[k] = suggest(k, known, _NEAR)
        if near:
            run.report(rule, node, "kept", f"{k} is no JSON Schema keyword{near}", k)
