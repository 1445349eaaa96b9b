"""Residual checks: what the output must satisfy before it goes on the wire.

A failed check makes the schema unrepresentable for the target: the tool falls back
to the rule file's fallback schema (or a strict target fails open), and the report
names the check and the JSON Pointer.
"""

from __future__ import annotations

import fnmatch
import re

from ..positions import SCHEMA_CLASSES, SLOT_KIND, SLOT_MAP, SLOT_SINGLE, SUBSCHEMA, SUBSCHEMA_ARRAY, SUBSCHEMA_KEYS, SUBSCHEMA_MAP
from . import Opt, check, test_helper
from .literals import _allowed, _fits, dedupe
from .objects import _IS_OBJECT, is_object
from .types import is_number, json_type, types_of

_JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")


@check("allowed-keys", acts_if="not {keys}.issuperset(node)", keys=Opt("keys", required=True))
def allowed_keys(rule, node, run):
    """Every schema node uses only these keywords."""
    keys = rule.options["keys"]
    for k in node:
        if k not in keys:
            run.fail(rule, node, f"{k} is not accepted", k)


@check("forbidden-keys", triggers="keys", keys=Opt("keys", required=True))
def forbidden_keys(rule, node, run):
    """No schema node uses these keywords."""
    keys = rule.options["keys"]
    for k in node:
        if k in keys:
            run.fail(rule, node, f"{k} is not accepted", k)


@check(
    "type-values",
    triggers={"type"},
    acts_if="not ((t := node['type']).__class__ is str and t in {allowed})",
    allowed=Opt("strlist", list(_JSON_TYPES)),
    single=Opt("bool", False, doc="type must be one string, never a list"),
)
def type_values(rule, node, run):
    """`type` is one of the allowed names (and a single one, if the wire says so)."""
    t = node.get("type")
    if t is None:
        return
    allowed = rule.options["allowed"]
    if isinstance(t, list):
        if rule.options["single"]:
            run.fail(rule, node, "type must be a single name", "type")
        if not t or len(set(map(str, t))) != len(t):
            run.fail(rule, node, "type list is empty or repeats a name", "type")
        bad = [x for x in t if x not in allowed]
    else:
        bad = [t] if t not in allowed else []
    if bad:
        run.fail(rule, node, f"type {bad[0]!r} is not accepted", "type")


@check(
    "enum-values",
    triggers={"enum"},
    # a string enum on a string passes the fit test too
    acts_if=lambda o: "not _text_enum(node, {types})" if o["types"] or not o["fits_type"] else "not _text_enum(node, ('string',))",
    values=Opt("choice", "primitives", choices=("strings", "strings-and-numbers", "primitives", "any")),
    types=Opt("strlist", []),
    fits_type=Opt("bool", False, doc="some value is of the node's type: none admits no value, which a grammar compiler refuses"),
    one_type=Opt("bool", False, doc="every value is of one JSON type (an integer is a number)"),
)
def enum_values(rule, node, run):
    """`enum` is a non-empty list of accepted values, without repeats, on an accepted type."""
    if "enum" not in node:
        return
    enum = node["enum"]
    if not isinstance(enum, list) or not enum:
        run.fail(rule, node, "enum must be a non-empty list", "enum")
        return  # `check` collects a finding and goes on: nothing below reads such a value
    if not all(_allowed(v, rule.options["values"]) for v in enum):
        run.fail(rule, node, f"enum values must be {rule.options['values']}", "enum")
    on = rule.options["types"]
    if on and not any(t in on for t in types_of(node)):
        run.fail(rule, node, f"enum only on {', '.join(on)}", "enum")
    if len(dedupe(enum)) != len(enum):
        run.fail(rule, node, "enum repeats a value", "enum")
    if rule.options["fits_type"] and not _some_of_its_type(enum, node):
        run.fail(rule, node, "no enum value is of the schema's type: it admits none", "enum")
    if rule.options["one_type"] and len({"number" if is_number(v) else json_type(v) for v in enum}) > 1:
        run.fail(rule, node, "enum values are of more than one type", "enum")


def _some_of_its_type(values: list, node: dict) -> bool:
    """Some value is of a type the node names (or it names none)."""
    types = types_of(node)
    return not types or any(_fits(v, types, False) for v in values)


@check("format-values", triggers={"format"}, allowed=Opt("typemap", required=True))
def format_values(rule, node, run):
    """`format` is one the wire knows for the node's type."""
    fmt = node.get("format")
    if fmt is None:
        return
    types = types_of(node) or ["string"]
    if not isinstance(fmt, str) or not any(fmt in rule.options["allowed"].get(t, ()) for t in types):
        run.fail(rule, node, f"format {fmt!r} is not accepted here", "format")


@check("required-defined", triggers={"required"}, acts_if="_required_differs(node)")
def required_defined(rule, node, run):
    """`required` is a list naming defined properties only."""
    req = node.get("required")
    if req is None:
        return
    props = node.get("properties")
    if not isinstance(req, list) or not all(isinstance(n, str) for n in req):
        run.fail(rule, node, "required must be a list of names", "required")
        return  # `check` collects a finding and goes on: nothing below reads such a value
    names = props if isinstance(props, dict) else {}
    for n in req:
        if n not in names:
            run.fail(rule, node, f"required names {n!r}, which is not a property", "required")


@check("objects-closed", acts_if=_IS_OBJECT + " and node.get('additionalProperties') is not False")
def objects_closed(rule, node, run):
    """Every object says `additionalProperties: false`."""
    if is_object(node) and node.get("additionalProperties") is not False:
        run.fail(rule, node, "additionalProperties must be false", "additionalProperties")


@test_helper("_unrequired")
def _unrequired(node: dict) -> bool:
    """Some property may be missing from `required` (the cheap test of all-required)."""
    props = node["properties"]
    if props.__class__ is not dict or not props:
        return False
    req = node.get("required")
    if req.__class__ is not list:
        return True
    try:
        return not props.keys() <= set(req)
    except TypeError:  # a list or an object among the names
        return True


@check("all-required", triggers={"properties"}, acts_if="_unrequired(node)")
def all_required(rule, node, run):
    """Every property of every object is listed in `required`."""
    props = node.get("properties")
    if isinstance(props, dict):
        req = node.get("required")
        listed = set(n for n in req if isinstance(n, str)) if isinstance(req, list) else set()
        missing = [n for n in props if n not in listed]
        if missing:
            run.fail(rule, node, f"properties not required: {missing}", "required")


@check(
    "arrays-have-items",
    triggers={"type"},
    acts_if="((t := node['type']) == 'array' or t.__class__ is list) and (i := node.get('items')).__class__ is not _dict and i.__class__ is not _bool",
)
def arrays_have_items(rule, node, run):
    """Every array schema has `items`."""
    if "array" in types_of(node) and not isinstance(node.get("items"), (dict, bool)):
        run.fail(rule, node, "array schema missing items", "items")


@check(
    "objects-have-properties",
    triggers={"type"},
    acts_if="((t := node['type']) == 'object' or t.__class__ is list) and node.get('properties').__class__ is not _dict",
)
def objects_have_properties(rule, node, run):
    """Every object schema has `properties`."""
    if "object" in types_of(node) and not isinstance(node.get("properties"), dict):
        run.fail(rule, node, "object schema missing properties", "properties")


@check("typed", acts_if="'type' not in node and {allow}.isdisjoint(node)", allow=Opt("keys", ["anyOf", "$ref"], doc="keywords that stand in for a type"))
def typed(rule, node, run):
    """Every schema node has a `type` (or one of the keywords that stand in for it)."""
    if "type" not in node and not any(k in node for k in rule.options["allow"]):
        run.fail(rule, node, "schema has no type", "type")


@check("ref-alone", triggers={"$ref"}, acts_if="len(node) > 1", siblings=Opt("strlist", [], doc="keywords (glob patterns) allowed beside $ref"))
def ref_alone(rule, node, run):
    """A `$ref` stands alone (but for the allowed siblings)."""
    if "$ref" in node:
        allowed = rule.options["siblings"]
        for k in node:
            if k != "$ref" and not any(fnmatch.fnmatchcase(k, p) for p in allowed):
                run.fail(rule, node, f"$ref cannot have sibling {k}", k)


@check("pattern-compiles", triggers={"pattern"})
def pattern_compiles(rule, node, run):
    """`pattern` is a string that compiles as a regular expression."""
    p = node.get("pattern")
    if p is None:
        return
    try:
        if not isinstance(p, str):
            raise TypeError
        re.compile(p)
    except (re.error, TypeError, RecursionError, OverflowError):
        run.fail(rule, node, "pattern is not a valid regular expression", "pattern")


# counts, numbers and `required` read null as absent; every other keyword must not be null


def _count(v) -> bool:
    if v is None:
        return True
    if isinstance(v, int) and v.__class__ is not bool and v >= 0:
        return True
    return isinstance(v, float) and v.is_integer() and v >= 0


def _number(v) -> bool:
    return v is None or isinstance(v, (int, float)) and v.__class__ is not bool


def _schema_list(v) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(b, (dict, bool)) for b in v)


def _schema_map(v) -> bool:
    return isinstance(v, dict) and all(isinstance(s, (dict, bool)) for s in v.values())


def _type_name(t) -> bool:
    if isinstance(t, str):
        return t in _JSON_TYPES
    return isinstance(t, list) and bool(t) and all(x.__class__ is str and x in _JSON_TYPES for x in t)


def _names(req) -> bool:
    return req is None or isinstance(req, list) and all(isinstance(n, str) for n in req) and len(set(req)) == len(req)


def _names_by_name(v) -> bool:
    return isinstance(v, dict) and all(names is not None and _names(names) for names in v.values())


# the keywords whose value is a string (a URI, a media type, a name, text)
_STRINGS = ("description", "title", "pattern", "format", "$ref", "$id", "$comment", "$schema",
            "$dynamicRef", "contentMediaType", "contentEncoding")
# an anchor is a plain name (2020-12's meta-schema: the XML NCName's ASCII subset)
_ANCHOR = re.compile(r"[A-Za-z_][-A-Za-z0-9._]*")
# keyword -> (test of its value, what the value must be); one lookup per key of a node
_SHAPES: dict = {
    **{k: (_count, "a non-negative integer") for k in (
        "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains")},
    **{k: (_number, "a number") for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")},
    "multipleOf": (lambda v: v is None or (_number(v) and v > 0), "a number above 0"),
    **{k: (lambda v: isinstance(v, str), "a string") for k in _STRINGS},
    **{k: (lambda v: v.__class__ is bool, "true or false") for k in (
        "uniqueItems", "nullable", "readOnly", "writeOnly", "deprecated")},
    # the keywords that hold subschemas, as positions.py names them
    **{k: (_schema_list, "a non-empty list of schemas") for k in SUBSCHEMA_ARRAY},
    **{k: (_schema_map, "map names to schemas") for k in SUBSCHEMA_MAP},
    **{k: (lambda v: isinstance(v, (dict, bool)), "a schema") for k in SUBSCHEMA},
    "required": (_names, "a list of distinct names"),
    "dependentRequired": (_names_by_name, "map names to lists of distinct names"),
    **{k: (lambda v: v.__class__ is str and _ANCHOR.fullmatch(v) is not None, "a name (a letter or _, then letters, digits, -, _ or .)")
       for k in ("$anchor", "$dynamicAnchor")},
    "enum": (lambda v: isinstance(v, list), "a list"),
    "type": (_type_name, "a JSON Schema type"),
}


# how the cheap test below judges a keyword's value without a call: 1 a string, 2 true or
# false, 3 a type name, 4 a map of schemas, 5 a schema, 6 a non-empty list of schemas, 7 a
# list; 0: its own test in `_SHAPES` decides
_HOW: dict = {
    **{k: 1 for k in _STRINGS},
    **{k: 2 for k in ("uniqueItems", "nullable", "readOnly", "writeOnly", "deprecated")},
    "type": 3,
    **{k: 4 for k in SUBSCHEMA_MAP},
    **{k: 5 for k in SUBSCHEMA},
    **{k: 6 for k in SUBSCHEMA_ARRAY},
    "enum": 7,
    "required": 8,
}
_HOW.update({k: 0 for k in _SHAPES if k not in _HOW})
_TYPE_NAMES = frozenset(_JSON_TYPES)
_NAME_CLASSES = frozenset({str})


@test_helper("_shapes_differ")
def _shapes_differ(node: dict) -> bool:
    """Some keyword value may have the wrong shape (the cheap test of keyword-shapes)."""
    how_of = _HOW.get
    # the classes of a map's or list's members are taken at C speed (set(map(type, ...)))
    for k, v in node.items():
        how = how_of(k)
        if how is None:
            continue
        cls = v.__class__
        if how == 1:
            ok = cls is str
        elif how == 3:
            ok = v in _TYPE_NAMES if cls is str else _type_name(v)
        elif how == 4:
            ok = cls is dict and set(map(type, v.values())) <= SCHEMA_CLASSES
        elif how == 5:
            ok = cls is dict or cls is bool
        elif how == 8:
            ok = v is None or cls is list and (not v or set(map(type, v)) <= _NAME_CLASSES and len(set(v)) == len(v))
        elif how == 2:
            ok = cls is bool
        elif how == 7:
            ok = cls is list
        elif how == 6:
            ok = cls is list and bool(v) and set(map(type, v)) <= SCHEMA_CLASSES
        else:
            ok = _SHAPES[k][0](v)
        if not ok:
            return True
    return False


@check("keyword-shapes", acts_if="_shapes_differ(node)")
def keyword_shapes(rule, node, run):
    """Keyword values have the shapes draft 2020-12 requires (the meta-schema's core)."""
    shapes = _SHAPES
    for k, v in node.items():
        shape = shapes.get(k)
        if shape is not None and not shape[0](v):
            what = shape[1]
            if k == "type":
                run.fail(rule, node, f"type {v!r} is not a JSON Schema type", k)
            else:
                run.fail(rule, node, f"{k} must {'' if what.startswith('map') else 'be '}{what}", k)


@check(
    "limits", reads="tree",
    order="tree",
    max_properties=Opt("int", 0, doc="object properties in the whole schema (0: no limit)"),
    max_object_depth=Opt("int", 0, doc="nesting of object schemas, root = 1"),
    max_string_chars=Opt("int", 0, doc="characters of property names, definition names, enum and const values"),
    max_enum_values=Opt("int", 0, doc="enum values in the whole schema"),
    large_enum=Opt("int", 0, doc="an enum with more values than this is large"),
    max_large_enum_chars=Opt("int", 0, doc="characters of one large string enum"),
)
def limits(rule, run):
    """Size limits over the whole schema."""
    o = rule.options
    props = chars = enums = 0
    deepest = 0
    root = run.root
    if root.__class__ is not dict:
        return
    large, large_chars = o["large_enum"], o["max_large_enum_chars"]
    stack = [(root, 1 if is_object(root) else 0)]
    pop, push, slot_of = stack.pop, stack.append, SLOT_KIND.get
    # one pass over each node's keys: the counted keywords and the children (positions'
    # child table), each child's object depth decided as it is pushed
    while stack:
        node, depth = pop()
        if depth > deepest:
            deepest = depth
        for k, v in node.items():
            slot = slot_of(k)
            cls = v.__class__
            if slot is None:
                if k == "enum" and cls is list:
                    enums += len(v)
                    text = sum(len(x) for x in v if x.__class__ is str)
                    chars += text
                    if large and len(v) > large and large_chars and text > large_chars:
                        run.fail(rule, node, f"an enum of {len(v)} values has {text} characters (limit {large_chars})", "enum")
                elif k == "const" and cls is str:
                    chars += len(v)
                continue
            if slot == SLOT_MAP:
                if cls is not dict:
                    continue
                if k == "properties":
                    props += len(v)
                    chars += sum(map(len, v))
                elif k == "$defs":
                    chars += sum(map(len, v))
                children = v.values()
            elif cls is dict:
                children = (v,)
            elif cls is list and (slot != SLOT_SINGLE or k == "items"):
                children = v
            else:
                continue
            for child in children:
                if child.__class__ is dict:
                    t = child.get("type")
                    obj = t == "object" or (t is None and "properties" in child) or (t.__class__ is list and "object" in t)
                    if _COUNTED.isdisjoint(child):
                        # a leaf with nothing counted (most properties): only its depth
                        if obj and depth + 1 > deepest:
                            deepest = depth + 1
                        continue
                    push((child, depth + 1 if obj else depth))
    for limit, value, what in (
        ("max_properties", props, "object properties"),
        ("max_object_depth", deepest, "levels of object nesting"),
        ("max_string_chars", chars, "characters of names and values"),
        ("max_enum_values", enums, "enum values"),
    ):
        if o[limit] and value > o[limit]:
            raise _unrepresentable(rule, f"{value} {what} (limit {o[limit]})")


# what `limits` reads in a node: the keywords it counts, and those holding subschemas
_COUNTED = SUBSCHEMA_KEYS | {"enum", "const"}


def _unrepresentable(rule, reason):
    from ..run import Unrepresentable

    return Unrepresentable(rule.id, "", reason)


@check(
    "root-object", reads="tree", order="tree",
    acts_if="node.get('type') != 'object' or not {forbid}.isdisjoint(node)",  # on the root
    forbid=Opt("keys", ["anyOf", "oneOf", "allOf", "enum", "not"]),
)
def root_object(rule, run):
    """The root is `type: object`, without the forbidden root keywords."""
    root = run.root
    if not isinstance(root, dict) or root.get("type") != "object":
        raise _unrepresentable(rule, "the root must be type: object")
    for k in root:
        if k in rule.options["forbid"]:
            raise _unrepresentable(rule, f"{k} is not accepted at the root")


@check(
    "const-values", triggers={"const"},
    values=Opt("choice", "primitives", choices=("strings", "strings-and-numbers", "primitives", "any")),
    fits_type=Opt("bool", False, doc="the value is of the node's type: otherwise it admits none, which a grammar compiler refuses"),
)
def const_values(rule, node, run):
    """`const` holds an accepted kind of value."""
    if "const" not in node:
        return
    if not _allowed(node["const"], rule.options["values"]):
        run.fail(rule, node, f"const must be {rule.options['values']}", "const")
    if rule.options["fits_type"] and not _some_of_its_type([node["const"]], node):
        run.fail(rule, node, "const is not of the schema's type: it admits no value", "const")


@check("max-branches", triggers={"anyOf"}, acts_if="node['anyOf'].__class__ is list and len(node['anyOf']) > {max_branches}",
       max_branches=Opt("int", required=True, doc="the branches one anyOf may hold"))
def max_branches(rule, node, run):
    """No `anyOf` holds more branches than the wire takes."""
    branches = node.get("anyOf")
    if isinstance(branches, list) and len(branches) > rule.options["max_branches"]:
        run.fail(rule, node, f"anyOf holds {len(branches)} branches, more than {rule.options['max_branches']}", "anyOf")
