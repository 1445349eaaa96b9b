"""Kinds about objects and arrays: closing, requiring, and filling in what the wire needs."""

from __future__ import annotations

from typing import Any

from ..positions import escape, keys_within, pointer_of
from ..prepare import OUTPUT_ROOT
from . import Opt, kind, test_helper
from .types import types_of

_ROOT_UNIONS = ("anyOf", "oneOf", "allOf", "enum", "not")
# `is_object` and `_is_array` as fast tests (see Kind.when)
_IS_OBJECT = "((t := node.get('type')) == 'object' or (t is None and 'properties' in node) or (t.__class__ is list and 'object' in t))"
_IS_ARRAY = "((t := node.get('type')) == 'array' or (t.__class__ is list and 'array' in t))"


def is_object(node: dict) -> bool:
    t = node.get("type")
    if t == "object" or (isinstance(t, list) and "object" in t):
        return True
    return t is None and "properties" in node


def _is_array(node: dict) -> bool:
    t = node.get("type")
    return t == "array" or (isinstance(t, list) and "array" in t)


def _ensure_properties_test(options) -> str:
    if not options["free_form"]:
        return "'properties' not in node and " + _IS_OBJECT
    # an object naming no properties and saying nothing of other names may be
    # free-form; most objects name some, which the first test reads
    return f"not node.get('properties') and {_IS_OBJECT} and ('properties' not in node or node.get('additionalProperties') is None)"


@kind(
    "ensure-properties", fails=False, reads="node", creates=False,
    adds=lambda o: {"properties", "additionalProperties"} if o["free_form"] else {"properties"},
    # `properties: {}` holds none; with free_form, `additionalProperties: true` is one
    writes_bools=lambda o: frozenset({"additionalProperties"}) if o["free_form"] else False,
    triggers=lambda o: {"type", "properties"} if o["free_form"] else {"type"},
    acts_if=_ensure_properties_test,
    free_form=Opt("bool", False, doc="a free-form object (naming no properties, saying nothing of additionalProperties, "
                  "patternProperties or unevaluatedProperties; below the root, or a structured output's root) also "
                  "says additionalProperties: true, for a wire that reads an absent one as false (properties: {} would "
                  "then take only {})"),
)
def ensure_properties(rule, node, run):
    """An object schema without `properties` gets `properties: {}`.

    With `free_form`, a free-form object (as `close-objects` reads one) also says
    `additionalProperties: true`, which JSON Schema already means where it says
    nothing: a wire that reads an absent `additionalProperties` as false (a strict
    grammar compiler) would otherwise take only `{}`. Beside `patternProperties` or
    `unevaluatedProperties` the object is left as written: `true` would change what
    they admit.
    """
    if not is_object(node):
        return
    if "properties" not in node:
        node["properties"] = {}
        run.report(rule, node, "rewritten", "properties: {} added", "properties")
    if rule.options["free_form"] and free_form(node, run) and not _UNLISTED_NAMES.intersection(node):
        node["additionalProperties"] = True
        run.report(rule, node, "rewritten", "additionalProperties: true (a free-form object stays open)", "additionalProperties")


# the keywords that say what the names an object does not list may hold
_UNLISTED_NAMES = frozenset({"patternProperties", "unevaluatedProperties"})


def free_form(node: dict, run) -> bool:
    """An object that names no properties and says nothing of `additionalProperties`:
    a free-form dict, whose closing would leave only `{}`. A tool's root is the
    exception: there it is a tool without parameters; a structured output's root
    (`Facts.output_root`) asks for any object, as a nested one does."""
    return (
        node.get("additionalProperties", None) is None
        and not node.get("properties")
        and (node is not run.root or run.facts.output_root)
    )


@kind(
    "ensure-items", fails=False, reads="node", creates=True, adds=lambda o: {"items", *keys_within(o["schema"])},
    writes_bools=lambda o: bool(o["schema"]),  # `items: {}` holds no boolean; a schema of the rule's own may
    triggers=lambda o: {"type", "prefixItems"} if o["tuples"] else {"type"},
    acts_if=lambda o: "'items' not in node and (" + _IS_ARRAY + (" or 'prefixItems' in node)" if o["tuples"] else ")"),
    schema=Opt("json", {}, doc="the items schema an array gets when it has none"),
    tuples=Opt("bool", False, doc="also any schema with prefixItems and no items, whatever its type says, for a wire "
               "that reads such a tuple as closed"),
)
def ensure_items(rule, node, run):
    """An array schema without `items` gets the rule's items schema.

    Beside `prefixItems`, `items` covers the items after the prefix, where no items
    schema already means "anything": `{}` there says the same thing out loud. With
    `tuples`, so does every tuple, typed or not: a wire that reads a tuple without
    `items` as closed (a strict grammar compiler) would take no item past the prefix.
    """
    if "items" not in node and (_is_array(node) or (rule.options["tuples"] and "prefixItems" in node)):
        node["items"] = run.made(rule.options["schema"] or {}, (run.chain_of(node), "items"))
        run.report(rule, node, "rewritten", "items added", "items")


@kind(
    "close-objects", reads="node",
    # closing, a required name no property lists becomes a property of its own (`{}`)
    creates=lambda o: o["open"] == "close",
    adds=lambda o: {"additionalProperties", "properties"} if o["open"] == "close" else {"additionalProperties"},
    triggers={"type", "properties"},  # what is_object reads
    acts_if=_IS_OBJECT + " and not (node.get('additionalProperties') is False and not node.get('patternProperties'))",
    open=Opt("choice", "fail", choices=("fail", "close", "keep")),
)
def close_objects(rule, node, run):
    """Every object says `additionalProperties: false`.

    An object that is open on purpose (`true` or a schema, `patternProperties`, or an
    object naming no properties below a tool's root or at an output's: a free-form
    dict) cannot be closed without changing its meaning: with `open: fail` that is
    unrepresentable (strict targets then fail open); with `close` it is closed and the
    rest spilled, and a required name no property lists becomes a property taking any
    value; with `keep` it stays open and says so (`additionalProperties: true`
    where it said nothing), for a wire that reads an object without
    `additionalProperties` as closed.
    """
    if not is_object(node):
        return None
    ap = node.get("additionalProperties", None)
    pattern = node.get("patternProperties")
    mode = rule.options["open"]
    if mode == "fail" and (ap is not False or pattern):
        _fail_unlisted_required(rule, node, run)
    if ap is False and not pattern:
        return None
    free = free_form(node, run)
    if ap is not None and ap is not False or pattern or free:
        what = "patternProperties" if pattern else "additionalProperties"
        if mode == "fail":
            run.fail(rule, node, f"an open object ({what}) cannot be closed", what)
        if mode == "keep":
            if ap is None:
                node["additionalProperties"] = True
                why = "a free-form object" if free else "beside patternProperties"
                run.report(rule, node, "rewritten", f"additionalProperties: true ({why} stays open)", "additionalProperties")
            return None
        for k in ("additionalProperties", "patternProperties"):
            if k in node:
                run.spill(rule, node, k, node[k])
    elif mode == "keep":
        _fail_unlisted_required(rule, node, run)  # closed now
    if mode == "close":
        _list_unlisted_required(rule, node, run)
    node["additionalProperties"] = False
    # closing a free-form object leaves it nothing but {}: the report says so, as no spill does
    why = " (a free-form object, closed: only {} is valid here now)" if free and mode == "close" and not node.get("properties") else ""
    run.report(rule, node, "rewritten", f"additionalProperties: false{why}", "additionalProperties")
    return None


# the members of each pair a map becomes (`map-to-pairs`), which `Result.restore` reads back
PAIR_KEY, PAIR_VALUE = "key", "value"
# what a map may say beside its values' schema, each with a place in its list of pairs
_MAP_KEYWORDS = frozenset({
    "type", "additionalProperties", "properties", "required", "propertyNames",
    "minProperties", "maxProperties", "default", "title", "description", "$comment",
})
# what a map's pairs add to the budgets beyond its values' schema: the pair, its
# properties, the key's schema and a made `{}` (nodes), and their keywords and names
# (characters); each member of a default becomes one more object, named twice
_PAIR_NODES, _PAIR_CHARS, _MEMBER_CHARS = 4, 74, len(PAIR_KEY + PAIR_VALUE)
# a map's keywords as its list of pairs says them (those not here go into the pair)
_AS_LIST = {"type": "type", "additionalProperties": "items", "minProperties": "minItems", "maxProperties": "maxItems",
            "default": "default", "title": "title", "description": "description", "$comment": "$comment"}


@test_helper("_pure_map")
def pure_map(node: Any) -> bool:
    """An object whose members are all alike: it names no property and requires none,
    each member taking the schema `additionalProperties` holds (any value where it says
    nothing or `true`), its names strings (`propertyNames`, if there, a schema of one);
    it says nothing else but annotations and counts of members, and its default, if
    any, is an object."""
    if node.__class__ is not dict or node.get("type") != "object" or not _MAP_KEYWORDS.issuperset(node):
        return False
    values = node.get("additionalProperties", True)
    names = node.get("propertyNames", {})
    return (
        not node.get("properties")
        and not node.get("required")
        and (values is True or values.__class__ is dict)
        and names.__class__ is dict
        and names.get("type", "string") == "string"
        and node.get("default", {}).__class__ is dict
    )


def is_pairs(value: Any) -> bool:
    """A list of `{key, value}` objects with string keys: what a map's pairs hold."""
    return value.__class__ is list and all(
        v.__class__ is dict and len(v) == 2 and v.get(PAIR_KEY).__class__ is str and PAIR_VALUE in v for v in value
    )


@kind(
    "map-to-pairs", fails=False, reads="node", creates=True, makes=("paired-maps",),
    adds={"items", "minItems", "maxItems", "properties", "required", "additionalProperties"},
    writes_bools=False,  # its values' schema moves into the pair as an object (`true` as {})
    triggers={"type"},
    acts_if="node['type'] == 'object' and not node.get('properties') and node.get('additionalProperties') is not False and _pure_map(node)",
)
def map_to_pairs(rule, node, run):
    """A map (an object naming no properties, each member taking one schema: a Python
    `dict[str, T]`) below the root becomes a list of `{key, value}` pairs.

    For a wire that closes every object, where the map would only ever hold `{}`: the
    pairs hold what its members would (`propertyNames` becomes the key's schema,
    `minProperties` and `maxProperties` count pairs, a default becomes its pairs, or is
    spilled where the budgets have no room for them as pairs). The value the model
    sends has the list's shape: `Result.restore` gives the map back (a key sent twice:
    the last pair wins), and `Result.notes["paired_maps"]` holds the pointers of the
    maps so rewritten.
    """
    if node is run.root or not pure_map(node):
        return None
    at = run.chain_of(node)
    values = node.get("additionalProperties", True)
    if values.__class__ is not dict:
        values = run.placed({}, (at, "additionalProperties"))
    key = {"type": "string", **{k: v for k, v in node.get("propertyNames", {}).items() if k != "type"}}
    pair_at = (at, "additionalProperties")
    pair = {
        "type": "object",
        "properties": run.placed({PAIR_KEY: run.placed(key, (at, "propertyNames") if "propertyNames" in node else pair_at),
                                  PAIR_VALUE: values}, pair_at),
        "required": [PAIR_KEY, PAIR_VALUE],
        "additionalProperties": False,
    }
    run.placed(pair, pair_at)
    default = node.get("default", {})
    # a default of more members than the budgets have room for as pairs is spilled: the
    # map still goes as pairs
    nodes, chars = _PAIR_NODES + len(default), _PAIR_CHARS + _MEMBER_CHARS * len(default)
    if run.nodes + nodes > run.options.max_nodes or run.literal + chars > run.options.max_literal_bytes:
        run.spill(rule, node, "default", default)
        nodes, chars = _PAIR_NODES, _PAIR_CHARS
    items = []
    for k, v in node.items():
        said = _AS_LIST.get(k)
        if said is None:
            continue
        if k == "type":
            v = "array"
        elif k == "additionalProperties":
            v = pair
        elif k == "default":
            v = [{PAIR_KEY: name, PAIR_VALUE: member} for name, member in v.items()]
        items.append((said, v))
    if "additionalProperties" not in node:
        items.insert(1, ("items", pair))
    run.grow(node, nodes=nodes, chars=chars)
    run.rewrite(node, items)
    run.facts.paired_maps.append(pointer_of(at))
    run.report(rule, node, "rewritten", "a map -> a list of {key, value} pairs (Result.restore gives the map back)")
    return None


@kind(
    "say-open", fails=False, reads="node", creates=False, adds={"additionalProperties"},
    triggers={"type", "properties"},  # what is_object reads
    acts_if="'additionalProperties' not in node and " + _IS_OBJECT,
)
def say_open(rule, node, run):
    """An object that says nothing of `additionalProperties` says `true`.

    For a wire that reads an absent `additionalProperties` as false: the object keeps
    the meaning JSON Schema gives it (other members allowed), which the wire would
    otherwise narrow to the listed properties, or to `{}` for a free-form dict, and an
    `allOf` of objects stays satisfiable. An `unevaluatedProperties` other than `true`
    is spilled: beside `additionalProperties: true` it would have nothing left to refuse.
    """
    if "additionalProperties" in node or not is_object(node):
        return
    if "unevaluatedProperties" in node and node["unevaluatedProperties"] is not True:
        run.spill(rule, node, "unevaluatedProperties", node["unevaluatedProperties"])
    node["additionalProperties"] = True
    run.report(rule, node, "rewritten", "additionalProperties: true (open, as written)", "additionalProperties")


def _unlisted_required(node: dict) -> list[str]:
    """The required names no `properties` lists: only an extra member could meet them."""
    req = node.get("required")
    props = node.get("properties")
    listed = props if isinstance(props, dict) else {}
    return [n for n in req if isinstance(n, str) and n not in listed] if isinstance(req, list) else []


def _fail_unlisted_required(rule, node, run) -> None:
    """Closed, the object would refuse the extra member a required name no property lists
    needs: no value would satisfy it (`open: close` lists the name instead)."""
    missing = _unlisted_required(node)
    if missing:
        run.fail(rule, node, f"required {', '.join(missing)} without a property: the closed object could never hold it", "required")


def _list_unlisted_required(rule, node, run) -> None:
    """A required name no property lists becomes a property taking any value, which is
    what the open object let that member hold: closed, the object still has a value."""
    missing = _unlisted_required(node)
    if not missing:
        return
    props = node.get("properties")
    if not isinstance(props, dict):
        props = node["properties"] = {}
    at = (run.chain_of(node), "properties")
    for name in missing:
        props[name] = run.made({}, (at, name))
    one = len(missing) == 1
    what = "a property taking any value (the closed object would refuse it)" if one else "properties taking any value (the closed object would refuse them)"
    run.report(rule, node, "rewritten", f"required {', '.join(missing)} listed as {what}", "required")


@kind(
    "refuse-open", phase="prepare", reads="tree", creates=False, adds=(), mutates=False, order="tree",
    aliases=Opt("map", {}, doc="type names read as another JSON type, or null for any (the target's type-alias map)"),
    any_value=Opt("bool", False, doc="also refuse a schema that accepts any value (where infer-type is strict)"),
)
def refuse_open(rule, run):
    """An input holding an object open on purpose (`additionalProperties` true or a
    schema; below a tool's root, or at an output's, an object naming no properties),
    which `close-objects` with `open: fail` refuses, fails before anything is rewritten.

    Read only where the target's rules leave an object as written: the root, the
    `properties` of its objects and the `items` of its arrays, and below the root the
    branches of an `anyOf` beside annotations alone, through nodes of plain keywords
    (types, properties, required, items, annotations, counts): a rule may rewrite what
    stands beside any other (a merged `allOf`, an inlined `$ref`, a conditional, a type
    list, an enum). So the rewrite would fail on the same object; refused first, it is
    skipped, and the sibling takes the untouched copy. With `any_value`, a schema of
    annotations alone (any value) is refused too, as a strict `infer-type` refuses it.
    """
    found = open_in_trunk(run.root, rule.options["aliases"], rule.options["any_value"], run.facts.output_root)
    if found is not None:
        from ..run import Unrepresentable

        raise Unrepresentable(rule.id, *found)


# the keywords beside which no rule of a strict target closes an object, opens one,
# types a schema or drops the subschemas below it: `open_in_trunk` reads no node
# holding another (a merged allOf, an inlined $ref, a conditional, a type list or
# nullable split into branches, an enum that may drop the properties, an extension)
_PLAIN = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "description", "title", "default",
    "examples", "$comment", "$schema", "$defs", "definitions", "minProperties", "maxProperties", "minItems", "maxItems",
})
_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment"})
_ANY_OF_BESIDE = _ANNOTATIONS | {"anyOf"}  # an anyOf whose branches the trunk takes
_ANY_VALUE = _ANNOTATIONS | {"type"}  # beside a type that means any value, or none
_SCALAR_TYPES = frozenset({"string", "integer", "number", "boolean", "null"})


def open_in_trunk(schema: Any, aliases: dict, any_value: bool, open_root: bool = False) -> tuple[str, str] | None:
    """(pointer, reason) of the first object open on purpose (`additionalProperties`
    true or a schema, or, below the root or with `open_root` at it too, an object
    naming no properties: see `free_form`), or with
    `any_value` of a schema of annotations alone, that the trunk holds; None if none.

    The trunk: the root, the `properties` of its objects and the `items` of its
    arrays (each where the node's type, read through `aliases`, says it is one), and
    below the root the branches of an `anyOf` beside annotations alone; only through
    nodes of `_PLAIN` keywords, since a rule may rewrite below any other."""
    if schema.__class__ is not dict:
        return None
    plain = _PLAIN
    # (node, its chain: (parent chain, token) links, None at the root), turned into a
    # pointer only where something is found: every strict run reads the trunk
    todo: list[tuple[dict, Any]] = [(schema, None)]
    while todo:
        node, chain = todo.pop()
        if not plain.issuperset(node):
            branches = node.get("anyOf")
            if chain is not None and branches.__class__ is list and _ANY_OF_BESIDE.issuperset(node):
                at = (chain, "anyOf")
                todo.extend((b, (at, i)) for i, b in reversed(list(enumerate(branches))) if b.__class__ is dict)
            continue
        t = node.get("type")
        if t is not None:
            if t.__class__ is not str:
                continue
            t = aliases.get(t, t)
        if t == "object" or (t is None and "properties" in node and "items" not in node):
            ap = node.get("additionalProperties")
            props = node.get("properties")
            if ap is True or (ap is None and not props and (chain is not None or open_root)) or (ap.__class__ is dict and plain.issuperset(ap)):
                return pointer_of((chain, "additionalProperties")), "an open object (additionalProperties) cannot be closed"
            if props.__class__ is dict:
                at = (chain, "properties")
                for name, sub in reversed(props.items()):
                    # a property of one scalar type (most are) holds nothing to find
                    if sub.__class__ is dict and ((st := sub.get("type")) is None or st.__class__ is str and st not in _SCALAR_TYPES):
                        todo.append((sub, (at, name)))
        elif t == "array" or (t is None and "items" in node and "properties" not in node):
            items = node.get("items")
            if items.__class__ is dict:
                todo.append((items, (chain, "items")))
        elif t is None and chain is not None and any_value and _ANY_VALUE.issuperset(node):
            return pointer_of(chain), "a schema that accepts any value has no strict form"
    return None


_NULL_CARRIERS = frozenset({"enum", "const", "anyOf", "oneOf"})


def accepts_null(schema: Any) -> bool:
    """Whether null is valid under `schema`, as far as its own keywords and union
    branches say (any depth of nested unions: a stack, not recursion)."""
    if schema.__class__ is dict:
        # the common property schema, one type and no union or literal: read at once
        t = schema.get("type")
        if t.__class__ is str and t != "null" and _NULL_CARRIERS.isdisjoint(schema):
            return False
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            if node is True:
                return True
            continue
        if "null" in types_of(node):
            return True
        enum = node.get("enum")
        if isinstance(enum, list) and None in enum:
            return True
        if "const" in node and node["const"] is None:
            return True
        for comb in ("anyOf", "oneOf"):
            if isinstance(node.get(comb), list):
                stack.extend(reversed(node[comb]))
    return False


@kind(
    "require-all", fails=False, reads="subtree", creates=True, adds={"required", "anyOf", "type"},
    writes_bools={"anyOf": "properties"},  # an optional property, boolean or not, becomes a branch
    makes=("nulled-optionals",), triggers={"properties"},
    # every property required, in property order: nothing to do
    acts_if="node['properties'].__class__ is dict and node.get('required') != list(node['properties'])",
)
def require_all(rule, node, run):
    """Every property is required; an optional one becomes "T or null" instead.

    The model can then send null where it would have left the property out; the
    pointers of such properties are kept in `Result.notes["nulled_optionals"]` so the
    nulls can be turned back into omissions.
    """
    props = node.get("properties")
    if not isinstance(props, dict) or not is_object(node):
        return None
    req = node.get("required")
    required = {n for n in req if isinstance(n, str)} if isinstance(req, list) else set()
    optional = [n for n in props if n not in required]
    at = run.pointer(node, "properties") + "/" if optional else ""
    for name in optional:
        sub = props[name]
        if accepts_null(sub):
            continue
        if isinstance(sub, dict) and isinstance(sub.get("anyOf"), list) and set(sub) <= {"anyOf", "description", "title"}:
            null = {"type": "null"}
            sub["anyOf"] = [*sub["anyOf"], null]
            run.edited(sub)
            run.edited(null)
        else:
            wrapper: dict[str, Any] = {}
            if isinstance(sub, dict) and "description" in sub and "$ref" not in sub:
                # the description moves up to the wrapper; the schema itself, walked
                # already, stays the same object
                wrapper_desc = sub.pop("description")
                run.edited(sub)
            else:
                wrapper_desc = None
            wrapper["anyOf"] = [sub, {"type": "null"}]
            if wrapper_desc is not None:
                wrapper["description"] = wrapper_desc
            if sub.__class__ is dict:
                run.replace(wrapper, sub)
            else:
                # a boolean schema has no origin of its own: the wrapper stands at the property
                run.placed(wrapper, run.chain_at(props, name))
            props[name] = wrapper
        run.facts.nulled_optionals.append(at + escape(name))
    if optional:
        run.report(rule, node, "rewritten", f"optional {', '.join(optional)} now required (null stands for absent)", "required")
    if not isinstance(req, list) or req != list(props):
        node["required"] = list(props)
    unlisted = [n for n in required if n not in props]
    if unlisted:
        # the object is closed: no value could hold the name, and the tool would take none
        run.report(rule, node, "dropped", f"required names without a property removed: {', '.join(sorted(unlisted))}", "required")
    return None


@test_helper("_required_differs")
def _required_differs(node: dict) -> bool:
    """`required` may be other than a list naming each of the node's properties at most
    once (the cheap test of the kinds and checks that keep it so)."""
    req = node["required"]
    if req.__class__ is not list:
        return True
    if not req:
        return False
    props = node.get("properties")
    if props.__class__ is not dict:
        return True
    try:
        names = set(req)
    except TypeError:  # a list or an object among the names
        return True
    return len(names) != len(req) or not props.keys() >= names


@kind("required-exists", fails=False, reads="node", creates=False, adds=(), triggers={"required"}, acts_if="_required_differs(node)")
def required_exists(rule, node, run):
    """`required` lists each defined property once, and nothing else."""
    req = node.get("required")
    if req is None:
        return None
    if not isinstance(req, list):
        del node["required"]
        run.report(rule, node, "dropped", "required is not a list", "required")
        return None
    props = node.get("properties")
    names = props if isinstance(props, dict) else {}
    kept = [n for n in dict.fromkeys(n for n in req if isinstance(n, str)) if n in names]
    if len(kept) != len(req):
        gone = sorted({str(n) for n in req if not isinstance(n, str) or n not in names})
        what = f"required names without a property removed: {gone}" if gone else "repeated required names removed"
        run.report(rule, node, "dropped", what, "required")
        if kept:
            node["required"] = kept
        else:
            del node["required"]
    return None


@kind(
    # (a `$defs` entry too, where a `$ref` names the root: resolve-refs, which may add
    # anything, has then run before it)
    "root-object", reads="tree", creates=True, adds={"type", "properties"},
    writes_bools=False,  # `properties: {}` of its own; the root it may define keeps its keywords
    order="tree",
    scope="root",
    reads_via=lambda o: {*o["forbid"], "$ref"},  # spilled root keywords; the root a $ref names
    # (as a visitor of the root, see `plans`) a typed object root with nothing to spill is left alone
    acts_if="node.get('type') != 'object' or 'nullable' in node or not {forbid}.isdisjoint(node)",
    forbid=Opt("keys", list(_ROOT_UNIONS), doc="keywords the root may not have; they are spilled"),
)
def root_object(rule, run):
    """The root describes an object: type added where implied, forbidden root keywords spilled."""
    root = run.root
    if root is True or root == {}:
        run.set_root({"type": "object", "properties": {}})
        run.report(rule, run.root, "rewritten", "an any-value root becomes an open object")
        return
    if not isinstance(root, dict):
        raise _fail(rule, run, "the root schema is not an object schema")
    t = root.get("type")
    if (t is None or (isinstance(t, list) and "object" in t)) or "nullable" in root:
        from .refs import define_root  # a `$ref: #` keeps meaning the root as it was

        define_root(rule, run)
    if isinstance(t, list) and "object" in t:
        root["type"] = "object"
        run.report(rule, root, "rewritten", f"root type {t!r} -> 'object'", "type")
    elif t is None:
        if _admits_no_object(root, rule.options["forbid"]):
            # typed, it would be an object no value satisfies: a tool nobody can call
            raise _fail(rule, run, "the root must describe an object, and its enum or const admits none")
        items = list(root.items())
        run.rewrite(root, [("type", "object"), *items])
        run.report(rule, root, "rewritten", "root type: object added", "type")
    elif t != "object":
        raise _fail(rule, run, f"the root must describe an object, not {t!r}")
    if "nullable" in root:
        # arguments are always an object: "or null" says nothing at the root
        del root["nullable"]
        run.report(rule, root, "dropped", "nullable removed: the root is always an object", "nullable")
    for k in [k for k in root if k in rule.options["forbid"]]:
        run.spill(rule, root, k, root[k])


def _admits_no_object(root: dict, forbidden: Any) -> bool:
    """An enum or const that stays at the root and names no object."""
    enum = root.get("enum")
    if "enum" not in forbidden and isinstance(enum, list) and enum and not any(isinstance(v, dict) for v in enum):
        return True
    return "const" not in forbidden and "const" in root and not isinstance(root["const"], dict)


def _fail(rule, run, reason):
    from ..run import Unrepresentable

    return Unrepresentable(rule.id, "", reason)


# top-down: it reads `items: false` before that boolean is respelled
@kind("tuple-to-items", fails=False, reads="subtree", creates=True, adds={"items", "anyOf", "maxItems"}, order="pre", triggers={"prefixItems"}, precedes=("bools-respelled",), open=Opt("choice", "close", choices=("close", "keep")))
def tuple_to_items(rule, node, run):
    """`prefixItems` (a tuple) becomes `items: {anyOf: [each position's schema]}`.

    Positions are lost, so the original tuple is spilled for the model to read. A
    tuple open at the end (no `items`) is closed with `open: close` (the model is
    told the positions; extra items rarely matter) or left open with `keep`.
    """
    prefix = node.get("prefixItems")
    if not isinstance(prefix, list):
        return None
    rest = node.get("items", None)
    closed = rest is False or (rest is None and rule.options["open"] == "close")
    branches: list[Any] = []
    for b in [*prefix, *([rest] if isinstance(rest, dict) else [])]:
        if b not in branches:
            branches.append(b)
    if rest is True or (rest is None and not closed):
        branches.append({})
    run.spill(rule, node, "prefixItems", prefix)
    if not branches:
        items: Any = False
    elif len(branches) == 1:
        items = branches[0]
    else:
        items = run.replace({"anyOf": branches}, node)
    node["items"] = items
    if closed and isinstance(node.get("maxItems"), int) is False:
        node["maxItems"] = len(prefix)
    run.report(rule, node, "rewritten", "tuple -> items: anyOf of its positions" + (f", at most {len(prefix)} items" if closed else ""), "prefixItems")
    return None


@kind(
    "property-ordering", fails=False, reads="node", creates=False, writes_bools=False,
    adds=lambda o: {o["key"]}, triggers={"properties"},
    requires=lambda o: {OUTPUT_ROOT} if o["schemas"] == "outputs" else (),
    acts_if="(p := node.get('properties')).__class__ is dict and len(p) >= {least} and {key} not in node",
    key=Opt("str", "propertyOrdering", doc="the keyword that lists the properties in order"),
    least=Opt("int", 2, doc="the fewest properties an object has for its order to be said"),
    schemas=Opt("choice", "outputs", choices=("outputs", "all"),
                doc="`outputs`: structured outputs alone (`normalize_output`), not tool parameters; `all`: both"),
)
def property_ordering(rule, node, run):
    """Say the order an object's properties are written in (`propertyOrdering`), where
    the wire may not keep it otherwise (Gemini 2.0 models, whose `responseSchema` output
    follows an order of their own unless told): a model writes its output's members in
    that order, so a `reasoning` written before the `answer` it leads to could come
    after it. An order the object already says is left as it is."""
    if rule.options["schemas"] == "outputs" and not run.facts.output_root:
        return None
    props = node.get("properties")
    key = rule.options["key"]
    if props.__class__ is not dict or len(props) < rule.options["least"] or key in node:
        return None
    node[key] = list(props)
    run.report(rule, node, "rewritten", f"{key} added: the properties in the order they are written, which the wire may not keep otherwise", key)
    return None


@kind(
    "order-properties", fails=False, reads="node", creates=False, adds=(),
    triggers=lambda o: {o["key"]},
    acts_if="node.get('properties').__class__ is dict and node[{key}].__class__ is list",
    key=Opt("str", "propertyOrdering", doc="the keyword that lists the properties in order"),
)
def order_properties(rule, node, run):
    """Put an object's properties in the order its `propertyOrdering` (python-genai's
    Schema field) lists them, those it does not list after them as written: a wire
    that writes an output's members in its schema's key order (OpenAI's Structured
    Outputs) keeps the order asked for where the keyword itself is not sent. The
    keyword stays, for each target to keep or drop; names it lists that are no
    property are left to the wire."""
    props = node.get("properties")
    order = node.get(rule.options["key"])
    if props.__class__ is not dict or order.__class__ is not list:
        return None
    listed = [k for k in dict.fromkeys(o for o in order if o.__class__ is str) if k in props]
    first = set(listed)
    ranked = listed + [k for k in props if k not in first]
    if ranked == list(props):
        return None
    run.rewrite(props, [(k, props[k]) for k in ranked])
    run.report(rule, node, "rewritten", f"properties put in the order {rule.options['key']} lists ({', '.join(listed)})", "properties")
    return None
