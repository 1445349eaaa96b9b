"""Kinds that bring real-world input to one canonical 2020-12 form before a target's rules."""

from __future__ import annotations

import re
from typing import Any

from ..positions import SLOT_SINGLE, SUBSCHEMA_MAP, bool_census, child_slots, keys_within, markers
from . import Opt, kind, test_helper

JSON_TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})
_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "example", "$comment", "deprecated", "readOnly", "writeOnly"})


@kind(
    "rename-keys", fails=False, reads="node", creates=False, adds=lambda o: {m for v in o["map"].values() for m in markers(v)},
    order="pre",
    triggers="map",
    map=Opt("map", required=True, doc="from -> to, or map:NAME from the vocabulary"),
    collision=Opt("choice", "source-wins", choices=("source-wins", "target-wins")),
)
def rename_keys(rule, node, run):
    """Rename schema keywords (never property names); on a collision one spelling wins."""
    mapping = rule.options["map"]
    if not any(k in mapping for k in node):
        return None
    source_wins = rule.options["collision"] == "source-wins"
    renamed = {mapping[k] for k in node if k in mapping}
    items: list[tuple[str, Any]] = []
    for k, v in node.items():
        if k in mapping:
            to = mapping[k]
            if to in node and not source_wins:
                run.report(rule, node, "dropped", f"{k} dropped: {to} is also present and wins", k)
                continue
            detail = f"{k} -> {to}" + (f" (wins over the existing {to})" if to in node else "")
            run.report(rule, node, "renamed", detail, k)
            items.append((to, v))
        elif k in renamed and source_wins:
            continue  # replaced by the renamed spelling
        else:
            items.append((k, v))
    run.rewrite(node, items)
    return None


@kind(
    "type-alias", fails=False, reads="node", creates=False, adds=(),
    order="pre",
    triggers={"type"},
    acts_if="(t := node['type']).__class__ is list or (t.__class__ is str and t in {map})",
    map=Opt("map", required=True, doc="alias -> JSON type, or null for any"))
def type_alias(rule, node, run):
    """Map non-JSON type names (Python's dict, float, any, ...) to JSON Schema types.

    A type list names each type once: a repeated name says nothing more, and each
    would become a union branch of its own on the wires that spell lists as unions.
    """
    t = node.get("type")
    aliases = rule.options["map"]
    if isinstance(t, str):
        if t in JSON_TYPES or t not in aliases:
            return None
        to = aliases[t]
        if to is None:
            del node["type"]
            run.report(rule, node, "rewritten", f"type {t!r} means any value: type removed", "type")
        else:
            node["type"] = to
            run.report(rule, node, "rewritten", f"type {t!r} -> {to!r}", "type")
        return None
    if not isinstance(t, list):
        return None
    out: list[Any] = []
    seen: set[str] = set()
    for x in t:
        to = aliases.get(x, x) if isinstance(x, str) and x not in JSON_TYPES else x
        if to is None:
            run.report(rule, node, "rewritten", f"type {_listed(t)} includes any value: type removed", "type")
            del node["type"]
            return None
        if isinstance(to, str):
            if to in seen:
                continue
            seen.add(to)
        out.append(to)
    if out != t:
        node["type"] = out
        run.report(rule, node, "rewritten", f"type {_listed(t)} -> {_listed(out)}", "type")
    return None


def _listed(values: list) -> str:
    """A list as a report shows it: a long one by its first items and its length."""
    if len(values) <= 8:
        return repr(values)
    return repr(values[:6])[:-1] + f", ... ({len(values):,} names)]"


@kind(
    "boolean-schemas", fails=False, reads="node", creates=True, adds=lambda o: keys_within([o["true_as"], o["false_as"]]), makes=("bools-respelled",),
    census=lambda o: bool_census(o["keep_in"]) | {"<bool>:"},
    order="pre",
    bools=True,
    acts_if="_has_bool_child(node, {keep_in})",
    true_as=Opt("json", {}, doc="what `true` (any value) becomes"),
    false_as=Opt("json", {"not": {}}, doc="what `false` (no value) becomes"),
    keep_in=Opt(
        "keys",
        ["additionalProperties", "unevaluatedProperties", "unevaluatedItems"],
        doc="keywords whose boolean value is a plain switch and stays boolean",
    ),
)
def boolean_schemas(rule, node, run):
    """Spell boolean subschemas as objects for wires that only take objects.

    A schema's boolean children are spelled when the schema itself is visited, so the
    rules after this one on that schema (a union folding its null branch) already see
    them as the objects they become.
    """
    keep_in = rule.options["keep_in"]
    if node.__class__ is bool:
        # a boolean reached on its own: the root, or one a rule made after its parent
        if run.slot in keep_in:
            return None
        return _spelled(rule, node, run, None)
    for kw in ("anyOf", "oneOf"):
        _drop_false_branches(rule, node, kw, run)
    for kw, slot, cont, key in child_slots(node):
        child = cont[key]
        if child.__class__ is bool and kw not in keep_in:
            at = run.chain_at(node, kw) if slot == SLOT_SINGLE else (run.chain_at(node, kw), key)
            cont[key] = _spelled(rule, child, run, at)
    return None


def _drop_false_branches(rule, node: dict, kw: str, run) -> None:
    """A `false` branch of a union beside one that is not: it matches no value, so the
    union says the same without it. Spelled instead, it would read as a branch of its
    own (on a marker wire, with the union's null moved into it, as the null branch)."""
    branches = node.get(kw)
    if branches.__class__ is not list or kw in rule.options["keep_in"]:
        return
    kept = [b for b in branches if b is not False]
    if not kept or len(kept) == len(branches):
        return
    at = [str(i) for i, b in enumerate(branches) if b is False]
    node[kw] = kept
    run.report(rule, node, "rewritten", f"false branch {', '.join(at)} of {kw} removed: it matches no value", kw)


def _spelled(rule, value: bool, run, chain: Any) -> dict:
    new = run.made(rule.options["true_as" if value else "false_as"], chain)
    run.report(rule, new, "rewritten", f"boolean schema {str(value).lower()} -> {_short(new)}")
    return new


def _short(v: Any) -> str:
    import json

    return json.dumps(v, separators=(",", ":"))


# -- draft upgrade: one small function per form, chosen by the rule's `form:` -----------


def _up_definitions(rule, node, run):
    defs = node.get("definitions")
    if not isinstance(defs, dict):
        return
    existing = node.get("$defs")
    if isinstance(existing, dict):
        for name, sub in defs.items():
            if name in existing:
                run.report(rule, node, "dropped", f"definitions/{name} shadowed by $defs/{name}", "definitions")
            else:
                existing[name] = sub
        del node["definitions"]
    else:
        run.rewrite(node, [("$defs" if k == "definitions" else k, v) for k, v in node.items()])
    run.report(rule, node, "renamed", "definitions -> $defs", "definitions")


def _up_tuple_items(rule, node, run):
    items = node.get("items")
    if isinstance(items, list):
        extra = node.get("additionalItems", None)
        out: list[tuple[str, Any]] = []
        for k, v in node.items():
            if k == "items":
                out.append(("prefixItems", v))
                if extra is not None:
                    out.append(("items", extra))
            elif k != "additionalItems":
                out.append((k, v))
        run.rewrite(node, out)
        detail = "items array -> prefixItems" + (", additionalItems -> items" if extra is not None else "")
        run.report(rule, node, "renamed", detail, "items")
    elif "additionalItems" in node:
        # without an items array, additionalItems has no effect in any draft
        del node["additionalItems"]
        run.report(rule, node, "dropped", "additionalItems without an items array has no effect", "additionalItems")


def _up_dependencies(rule, node, run):
    deps = node.get("dependencies")
    if not isinstance(deps, dict):
        return
    req = dict(node.get("dependentRequired") or {})
    sch = dict(node.get("dependentSchemas") or {})
    for name, v in deps.items():
        if isinstance(v, list):
            req.setdefault(name, v)
        else:
            sch.setdefault(name, v)
    out = [(k, v) for k, v in node.items() if k not in ("dependencies", "dependentRequired", "dependentSchemas")]
    if req:
        out.append(("dependentRequired", req))
    if sch:
        out.append(("dependentSchemas", sch))
    run.rewrite(node, out)
    run.report(rule, node, "rewritten", "dependencies -> dependentRequired/dependentSchemas", "dependencies")


def _up_exclusive_bounds(rule, node, run):
    for ex, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        v = node.get(ex)
        if v is True and isinstance(node.get(bound), (int, float)) and node.get(bound) is not True:
            out = [(ex if k == bound else k, node[bound] if k == bound else vv) for k, vv in node.items() if k != ex]
            run.rewrite(node, out)
            run.report(rule, node, "rewritten", f"draft-04 {ex}: true + {bound} -> {ex}: number", ex)
        elif isinstance(v, bool):
            del node[ex]
            run.report(rule, node, "dropped", f"draft-04 {ex}: {str(v).lower()} has no effect here", ex)


def _up_id(rule, node, run):
    v = node.get("id")
    if not isinstance(v, str):
        return
    # only a draft-04 document, or a value that is plainly a URI, uses `id` as identifier
    if run.draft != "draft-04" and not any(c in v for c in "#/:"):
        return
    if "$id" in node:
        # two identifiers: $id names the schema; an `id` left beside it would be read
        # as the identifier once $id is gone (a wire that drops $id, normalized again)
        del node["id"]
        run.report(rule, node, "dropped", "id beside $id removed: $id names this schema", "id")
        return
    run.rewrite(node, [("$id" if k == "id" else k, vv) for k, vv in node.items()])
    run.report(rule, node, "renamed", "id -> $id", "id")


# what 2020-12 allows as an anchor name ($anchor's pattern in the meta-schema)
_ANCHOR = re.compile(r"[A-Za-z_][-A-Za-z0-9._]*")


def _up_id_fragment(rule, node, run):
    v = node.get("$id")
    if not isinstance(v, str) or "#" not in v:
        return
    uri, _, fragment = v.partition("#")
    if not fragment:
        return  # "uri#" is allowed: an empty fragment
    # 2020-12 refuses a $id with a non-empty fragment ("^[^#]*#?$"): draft-07's plain-name
    # fragment is what $anchor says now, and a JSON Pointer fragment names nothing the
    # pointer itself does not reach
    anchor = fragment if _ANCHOR.fullmatch(fragment) and "$anchor" not in node else None
    items: list[tuple[str, Any]] = []
    for k, vv in node.items():
        if k != "$id":
            items.append((k, vv))
            continue
        if uri:
            items.append(("$id", uri))
        if anchor:
            items.append(("$anchor", anchor))
    run.rewrite(node, items)
    if anchor:
        detail = f"$id {v} -> " + (f"$id {uri} and " if uri else "") + f"$anchor {anchor}"
        run.report(rule, node, "rewritten", detail, "$id")
    elif uri:
        run.report(rule, node, "rewritten", f"$id {v} -> {uri}: its fragment names nothing a pointer does not reach", "$id")
    else:
        run.report(rule, node, "dropped", f"$id {v} removed: a fragment alone names nothing a pointer does not reach", "$id")


_SCHEMA_MAPS = tuple(sorted(SUBSCHEMA_MAP))


def _up_type_names(rule, node, run):
    chain = None
    for kw in _SCHEMA_MAPS:
        m = node.get(kw)
        if not isinstance(m, dict):
            continue
        for name, v in m.items():
            # `"config": "object"` where a schema belongs: the type it names is what was meant
            if isinstance(v, str) and v in JSON_TYPES:
                chain = run.chain_of(node) if chain is None else chain
                m[name] = run.placed({"type": v}, ((chain, kw), name))
                run.report(rule, node, "rewritten", f"{kw} {name}: the type name {v!r} stands for {{type: {v}}}", kw)


_COUNTS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains")


def _up_counts(rule, node, run):
    for k in _COUNTS:
        v = node.get(k)
        # 1.0 is the integer 1 to JSON Schema, but grammar compilers read counts as JSON
        # integers; proto3 JSON writes an int64 as a string of digits ("1"), at most 19
        if (isinstance(v, float) and v.is_integer()) or (v.__class__ is str and 0 < len(v) <= 19 and v.isascii() and v.isdigit()):
            node[k] = int(v)
            run.report(rule, node, "rewritten", f"{k} {v!r} -> {int(v)}", k)


def _up_examples(rule, node, run):
    v = node.get("examples")
    if isinstance(v, list):
        return
    # draft 6 and later take examples as an array; a lone value is one example
    node["examples"] = [v]
    run.report(rule, node, "rewritten", "examples: one value -> a list of it", "examples")


def _up_nullable(rule, node, run):
    v = node.get("nullable")
    if v is False:
        del node["nullable"]
        run.report(rule, node, "dropped", "nullable: false is the default", "nullable")
        return
    if v is not True:
        return
    if all(k in _ANNOTATIONS or k == "nullable" for k in node):
        # no type and no constraint: it accepts any value, null included already, and
        # rewriting it would only move the marker around
        return
    del node["nullable"]
    t = node.get("type")
    if isinstance(t, str):
        if t != "null":
            node["type"] = [t, "null"]
    elif isinstance(t, list):
        if "null" not in t:
            node["type"] = [*t, "null"]
    elif isinstance(node.get("anyOf"), list) and not any(k in node for k in ("enum", "const")):
        node["anyOf"] = [*node["anyOf"], {"type": "null"}]
    elif "enum" in node and len(node) == 1 + ("description" in node):
        pass  # handled below with the enum

    else:
        # no type to extend: the node becomes a union of itself and null (same object, so
        # refs to it still see the union)
        desc = node.pop("description", None)
        inner = dict(node)
        run.replace(inner, node)
        node.clear()
        node["anyOf"] = [inner, {"type": "null"}]
        if desc is not None:
            node["description"] = desc
    if isinstance(node.get("enum"), list) and None not in node["enum"]:
        node["enum"] = [*node["enum"], None]
    run.report(rule, node, "rewritten", "OpenAPI nullable: true -> a null union", "nullable")


def _up_schema_uri(rule, node, run):
    v = node.get("$schema")
    # below the root too: the whole document is read (and upgraded) as 2020-12, and a
    # nested $schema inlined or merged into the root would name the draft of all of it
    if isinstance(v, str) and v.rstrip("#") not in _LATEST:
        node["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        run.report(rule, node, "rewritten", f"$schema {v} -> 2020-12", "$schema")


_LATEST = {"https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft/2020-12/schema"}

_FORMS = {
    "definitions": _up_definitions,
    "tuple-items": _up_tuple_items,
    "dependencies": _up_dependencies,
    "exclusive-bounds": _up_exclusive_bounds,
    "id": _up_id,
    "id-fragment": _up_id_fragment,
    "examples": _up_examples,
    "counts": _up_counts,
    "type-names": _up_type_names,
    "nullable": _up_nullable,
    "schema-uri": _up_schema_uri,
}


# keywords each form may write that the input may lack
_FORM_ADDS = {
    "definitions": tuple(markers("$defs")),
    "tuple-items": (*markers("prefixItems"), *markers("items")),
    "dependencies": ("dependentRequired", *markers("dependentSchemas")),
    "exclusive-bounds": ("exclusiveMinimum", "exclusiveMaximum"),
    "id": ("$id",),
    "id-fragment": ("$id", "$anchor"),
    "examples": ("examples",),
    "counts": (),
    "type-names": ("type",),
    "nullable": ("type", "anyOf", "enum"),
    "schema-uri": ("$schema",),
}

# the forms that move schemas (booleans among them) under a keyword of their own
_MOVING_FORMS = ("definitions", "tuple-items", "dependencies")

_FORM_KEYS = {
    "definitions": ("definitions",),
    "tuple-items": ("items", "additionalItems"),
    "dependencies": ("dependencies",),
    "exclusive-bounds": ("exclusiveMinimum", "exclusiveMaximum"),
    "id": ("id",),
    "id-fragment": ("$id",),
    "examples": ("examples",),
    "counts": _COUNTS,
    "type-names": _SCHEMA_MAPS,
    "nullable": ("nullable",),
    "schema-uri": ("$schema",),
}


# the census marks a tuple `items` (copy_input): a plain `items` schema needs no upgrade
_FORM_CENSUS = {"tuple-items": ("<list>:items", "additionalItems")}
# the common forms' own test: `items` is usually a schema, not a draft-07 tuple; a map
# of schemas usually holds no type name
_FORM_TESTS = {
    "tuple-items": "node.get('items').__class__ is list or 'additionalItems' in node",
    "type-names": "_maps_hold_text(node)",
}


@test_helper("_maps_hold_text")
def _maps_hold_text(node: dict) -> bool:
    """A map of schemas (`properties`, `$defs`, ...) holds a string where a schema belongs."""
    for kw in _SCHEMA_MAPS:
        m = node.get(kw)
        if m.__class__ is dict and str in set(map(type, m.values())):
            return True
    return False


@kind(
    "upgrade", fails=False, phase="prepare", reads="node", creates=True, adds=lambda o: _FORM_ADDS[o["form"]],
    writes_bools=lambda o: o["form"] in _MOVING_FORMS,
    census=lambda o: _FORM_CENSUS.get(o["form"]) or _FORM_KEYS[o["form"]],
    order="pre",
    triggers=lambda options: _FORM_KEYS[options["form"]],
    acts_if=lambda options: _FORM_TESTS.get(options["form"]),
    form=Opt("choice", required=True, choices=tuple(_FORMS)),
)
def upgrade(rule, node, run):
    """Rewrite one older-draft (or OpenAPI) form into its 2020-12 spelling."""
    _FORMS[rule.options["form"]](rule, node, run)
    return None
