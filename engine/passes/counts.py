"""Checks that count properties, for wires that compile a schema into a grammar."""

from __future__ import annotations

from itertools import filterfalse

from ..positions import ADJACENT, SCHEMA_CLASSES, SUBSCHEMA_KEYS, UNEVALUATED, nesting_subschemas
from . import Opt, check, kind
from .combiners import EMPTY_MARKERS, admits_no_value, admits_nothing
from .objects import accepts_null
from .types import is_number, matches_type


@kind(
    "reachable-min-properties", fails=False, reads=lambda o: "children" if o["nameless"] else "node", creates=False,
    adds=lambda o: {"maxProperties"} if o["nameless"] else (),
    writes_bools=False,  # a count
    triggers=lambda o: {"minProperties", "propertyNames"} if o["nameless"] else {"minProperties"},
    absent_is_closed=Opt("bool", False, doc="an object without additionalProperties takes no other names (as a strict grammar compiler reads it)"),
    nameless=Opt("bool", False, doc="a propertyNames that plainly admits no string (a type without string, false, "
                 "{not: {}}, an enum or const without a string) becomes maxProperties: 0, which says the same"),
)
def reachable_min_properties(rule, node, run):
    """A `minProperties` above what the object can hold is spilled.

    An object that takes only the names its `properties` lists (additionalProperties
    false, or absent where the wire reads it so) cannot have more members than that:
    a greater minProperties admits no value, and a grammar compiler refuses it.

    With `nameless`, a `propertyNames` that admits no string admits no member at all:
    it becomes `maxProperties: 0`, which a grammar compiler that refuses a
    propertyNames it cannot match a string with takes, and the object holds nothing.
    """
    if rule.options["nameless"] and "propertyNames" in node and _admits_no_string(node["propertyNames"]):
        del node["propertyNames"]
        if node.get("maxProperties") != 0:
            node["maxProperties"] = 0
        run.report(rule, node, "rewritten", "propertyNames admits no string, so no member: maxProperties: 0 says the same", "propertyNames")
        m = node.get("minProperties")
        if is_number(m) and m > 0:
            run.spill(rule, node, "minProperties", m)
        return None
    m = node.get("minProperties")
    props = node.get("properties")
    count = len(props) if isinstance(props, dict) else 0
    if not is_number(m) or m <= count or "patternProperties" in node:
        return None
    extra = node.get("additionalProperties", None)
    if extra is False or (extra is None and rule.options["absent_is_closed"]):
        run.spill(rule, node, "minProperties", m)
    return None


_NOT_STRING = frozenset({"null", "boolean", "object", "array", "number", "integer"})


def _admits_no_string(schema) -> bool:
    """Whether `schema` plainly admits no string: false, `not: {}`, a type without
    string, or an enum or const without one (nothing else is read)."""
    if admits_nothing(schema):
        return True
    if schema.__class__ is not dict:
        return False
    t = schema.get("type")
    types = [t] if t.__class__ is str else t if t.__class__ is list else None
    # JSON types only: a name no rule resolved says nothing certain
    if types and all(x.__class__ is str and x in _NOT_STRING for x in types):
        return True
    enum = schema.get("enum")
    if enum.__class__ is list and not any(v.__class__ is str for v in enum):
        return True
    return "const" in schema and schema["const"].__class__ is not str


@kind(
    "property-limit", phase="prepare", reads="tree", creates=False, adds=(), mutates=False, order="tree",
    triggers={"properties"},
    max_properties=Opt("int", 0, required=True, doc="the object properties the wire takes, over the whole schema"),
)
def property_limit(rule, run):
    """An input with more properties than the wire takes fails before anything is rewritten.

    Counted where the target's rules never remove a property: the root's `properties`,
    and theirs, through `properties` and `items` (a `$ref`, a combiner or a conditional
    is not followed). So the count is at most what the finished schema holds, which
    the target's `limits` check holds to the same number: past it, no strict form
    exists, and the rewrite it would take is skipped. Each such property is a node of
    the input, so an input of no more nodes than the limit is not walked.
    """
    _refuse_past(rule, run, rule.options["max_properties"], 0, "object properties")


@kind(
    "optional-limit", phase="prepare", reads="tree", creates=False, adds=(), mutates=False, order="tree",
    triggers={"properties"},
    max_optional=Opt("int", 0, required=True, doc="the optional properties the wire takes, over the whole schema"),
)
def optional_limit(rule, run):
    """An input with more optional properties than the wire takes fails before anything
    is rewritten.

    Counted as `property-limit` counts properties, and of those only the ones missing
    from their object's `required`, in objects whose every keyword, and every keyword
    of the objects above them, is one beside which no rule brings a name into
    `required` (`_OWN_REQUIRED`: not a merged `allOf`, a `$ref` inlined with siblings,
    nor a lifted union or conditional all of whose branches may require a name; a
    merge reaches into the properties' own schemas too). So the count is at most the
    optional properties the finished schema holds, which the target's
    `property-counts` check holds to the same number.
    """
    _refuse_past(rule, run, rule.options["max_optional"], 1, "optional properties")


def _refuse_past(rule, run, limit: int, which: int, what: str) -> None:
    # every counted property is a node of the input: one of no more nodes is within
    if run.nodes <= limit:
        return
    count = trunk_counts(run.root, not EMPTY_MARKERS.isdisjoint(run.census))[which]
    if count > limit:
        from ..run import Unrepresentable

        raise Unrepresentable(rule.id, "", f"at least {count} {what} (limit {limit})")


# the keywords beside which no rule of a target brings a name into an object's own
# `required`: an object holding any other (allOf, $ref, anyOf, if, ...) may take names
# from what is merged or lifted into it, so `optional-limit` counts none of its properties
_OWN_REQUIRED = frozenset({
    "type", "properties", "required", "additionalProperties", "description", "title", "default", "examples",
    "$schema", "$id", "$comment", "$defs", "definitions", "minProperties", "maxProperties",
    "nullable", "readOnly", "writeOnly", "deprecated",
})


def trunk_properties(schema) -> int:
    """The properties `property-limit` counts (see `trunk_counts`)."""
    return trunk_counts(schema)[0]


def trunk_counts(schema, empty: bool = True) -> tuple[int, int]:
    """(properties, optional properties) of the root's `properties`, and theirs, through
    `properties` and `items` only, each where the node's type says it is read (`items`
    of a `type: [string, null]` is dropped with its type's split; an untyped node
    holding both counts neither), and not below an `enum` or a `const`, which say the
    values themselves (an object's properties go where its enum admits no object) (see
    `property-limit`); optional ones only in objects of `_OWN_REQUIRED` keywords below
    such objects alone (see `optional-limit`). With `empty` (where the input holds a
    schema that may admit no value, `EMPTY_MARKERS`), an optional property that admits
    none is not counted: `drop-empty-properties` may leave it out, and a count may fall
    short of the output's, never beyond it."""
    count = optional = 0
    # (node, whether it and every object above it hold only `_OWN_REQUIRED` keywords:
    # a merge into an object above may reach into its properties' own `required`)
    todo = [(schema, True)] if schema.__class__ is dict else []
    while todo:
        node, own = todo.pop()
        if "enum" in node or "const" in node:
            continue
        own = own and _OWN_REQUIRED.issuperset(node)
        t = node.get("type")
        if t is None:
            obj, arr = "items" not in node, "properties" not in node
        elif t.__class__ is list:
            obj, arr = "object" in t, "array" in t
        else:
            obj, arr = t == "object", t == "array"
        props = node.get("properties") if obj else None
        if props.__class__ is dict:
            counted = count
            if own or empty:
                req = node.get("required")
                named = {n for n in req if n.__class__ is str} if req.__class__ is list else ()
            subs = props.values()
            if empty:
                # an optional property admitting no value: `drop-empty-properties` may leave it out
                subs = [sub for name, sub in props.items() if name in named or not admits_no_value(sub)]
            for sub in subs:
                if sub.__class__ is dict:
                    count += 1
                    if "properties" in sub or "items" in sub:
                        todo.append((sub, own))
                elif sub.__class__ is bool:
                    count += 1
            if own:
                optional += count - counted - sum(1 for n in named if n in props and props[n].__class__ in SCHEMA_CLASSES)
        items = node.get("items") if arr else None
        if items.__class__ is dict:
            todo.append((items, own))
    return count, optional


@kind(
    "fit-property-counts", fails=False, phase="finish", reads="tree", creates=False, adds=(),
    writes_bools=False,  # names, and keywords moved under the names they had
    edits_told=True,
    order="tree", triggers={"properties"},
    max_optional=Opt("int", 0, doc="the optional properties the wire takes, over the whole schema (0: no limit)"),
    max_unions=Opt("int", 0, doc="the properties with anyOf or a type list the wire takes, over the whole schema (0: no limit)"),
    other_unions=Opt("choice", "keep", choices=("keep", "first"), doc="past `max_unions` once every optional \"T or null\" union is narrowed: "
                     "`keep` the unions of other forms (the schema stays past the count), or narrow them to their `first` branch"),
)
def fit_property_counts(rule, run):
    """A schema past the wire's counts of properties is narrowed within them, where it can be.

    Counted as `property-counts` counts them: every object, each where it is written,
    in document order (an object's own properties, in order, before those of its
    subschemas). Each rewrite narrows what the schema takes and admits nothing the
    input refused, so what the model sends stays valid under the input; it loses only
    a choice, said in the report:

    - past `max_unions`, first the last properties with a type list beside an `enum`
      or `const` lose the type list, the values it takes saying the same alone (no
      value is lost); then the last optional properties whose union is only "a value
      or null" (`type: [T, null]`, or `anyOf` of one schema and `{type: null}`) lose
      the null, as many as it takes: leaving such a property out says what null did. A
      union of another form stays (`other_unions: keep`), and where those left are too
      many, nothing is narrowed; with `other_unions: first`, the last unions of other
      forms are narrowed to their first branch that is not null (optional properties
      first, then required ones, each last first), as many as it takes, and only where
      they bring the schema within the count. A branch merges into its property where
      it holds no keyword the property holds otherwise, but a description or title:
      the property keeps its own, and its description says the branch's after it in
      parentheses (`the pet (A cat.)`, `(title: Cat)`), so no text is lost;
    - past `max_optional`, as many optional properties as it takes join their objects'
      `required`, one change per object: first those that take null, which they may
      send where they would have been left out, then the others, each last first (a
      property whose schema is `false` takes no value, and stays optional).

    So a model of many optional "T or null" fields (pydantic's `T | None = None`) keeps
    its first unions, its narrowed fields optional, and the rest required but nullable.

    For a wire where no schema past its counts can be sent at all (a structured output,
    which has no non-strict form to fail open to); a tool past them is better sent
    non-strict, as it was written.
    """
    root = run.root
    if root.__class__ is not dict:
        return
    o = rule.options
    order = list(_in_document_order(root))
    optional, unions, _props = _counted(order)
    if o["max_unions"] and unions > o["max_unions"] and _narrow_unions(rule, run, order, unions - o["max_unions"]):
        # a branch merged into its property brings its `properties` along: walked again
        order = list(_in_document_order(root))
    if o["max_optional"] and optional > o["max_optional"]:
        _require_past(rule, run, order, o["max_optional"])


def _in_document_order(root: dict):
    """Each object schema of `root` with its `properties` map and the names its
    `required` lists, an object's own before those of its subschemas."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.__class__ is not dict:
            continue
        props = node.get("properties")
        if props.__class__ is dict:
            req = node.get("required")
            yield node, props, {n for n in req if n.__class__ is str} if req.__class__ is list else set()
        if not SUBSCHEMA_KEYS.isdisjoint(node):
            # popped in document order; a subschema holding none (a plain property, most
            # of a wide object's) yields nothing and holds nothing to walk: not pushed
            stack.extend(reversed(nesting_subschemas(node)))


def _narrow_unions(rule, run, order: list, excess: int) -> bool:
    """Narrow the last `excess` union properties (see `fit_property_counts`); whether any was."""
    # a type list beside an enum or const all of whose values it takes says nothing the
    # values do not: dropped first (last first), it loses no value at all
    said = [(name, prop, kept, "said") for _node, props, _listed in order
            for name, prop in props.items() for kept in (_said_by_values(prop),) if kept is not None]
    if len(said) >= excess:
        _narrowed(rule, run, said[-excess:])
        return True
    excess -= len(said)
    taken = {id(prop) for _name, prop, _rest, _how in said}
    found = [(name, prop, rest, "null") for _node, props, listed in order
             for name, prop in props.items() if name not in listed and id(prop) not in taken
             for rest in (_null_narrowed(prop),) if rest is not None]
    if len(found) < excess and rule.options["other_unions"] == "first":
        taken.update(id(prop) for _name, prop, _rest, _how in found)
        others = [(name, prop, rest, "optional" if name not in listed else "required") for _node, props, listed in order
                  for name, prop in props.items() if id(prop) not in taken
                  for rest in (_first_narrowed(prop),) if rest is not None]
        # the null ones all narrowed, then the others that lose least: optional ones first
        chosen = [c for c in others[::-1] if c[3] == "optional"] + [c for c in others[::-1] if c[3] == "required"]
        found = found + chosen[: excess - len(found)][::-1]
    if len(found) < excess:
        return False  # no narrowing brings the schema within the count: left as it is
    _narrowed(rule, run, said + found[-excess:])
    return True


def _narrowed(rule, run, chosen: list) -> None:
    """Narrow each chosen union property as `_narrow_unions` chose, reported."""
    limit = rule.options["max_unions"]
    for name, prop, rest, how in chosen:
        if how == "said":
            del prop["type"]
            kw = "enum" if "enum" in prop else "const"
            if kw == "enum" and len(rest) < len(prop["enum"]):
                left = f"its enum keeps the values of those types ({len(rest)} of {len(prop['enum'])}), which"
                prop["enum"] = rest
            else:
                left = f"every value its {kw} holds is of those types, so it"
            run.edited(prop)
            run.report(
                rule, prop, "dropped",
                f"{name}'s type list: {left} says the same alone, and the wire takes at most {limit} properties"
                " with anyOf or a type list in a schema",
                "type",
            )
            continue
        said: list[str] = []
        if rest.__class__ is str:
            prop["type"] = rest
            key = "type"
        else:
            said = _said_beside(prop, rest)
            brought = [(k, v) for k, v in rest.items() if k not in prop]
            run.rewrite(prop, [kv for k, v in prop.items() for kv in (brought if k == "anyOf" else ((k, v),))])
            for k, _v in brought:
                run.moved(prop, k, rest)
            run.absorbed_into(prop, rest)
            if said:
                prop["description"] = " ".join((prop["description"], *said) if "description" in prop else said)
            key = "anyOf"
        run.edited(prop)
        lost = f"null dropped from optional {name}'s union" if how == "null" else f"{how} {name}'s union narrowed to its first branch"
        also = "; its description says the branch's too" if said else ""
        run.report(
            rule, prop, "rewritten",
            f"{lost}{also}: the wire takes at most {limit} properties with anyOf or a type list"
            " in a schema (a value it takes now was valid under the input as well)",
            key,
        )


# the type names a type list must hold alone to say what its values say (a name no rule
# resolved, `dict` say, says nothing certain)
_TYPE_NAMES = _NOT_STRING | {"string"}


def _said_by_values(prop) -> list | None:
    """For a property with a type list beside an `enum` (or `const`) and no `anyOf`, the
    values its type list takes, where there is one: those values alone say what the two
    said together. None for any other property, or one that takes no value."""
    if prop.__class__ is not dict or "anyOf" in prop:
        return None
    t = prop.get("type")
    if t.__class__ is not list or not t or not all(x.__class__ is str and x in _TYPE_NAMES for x in t):
        return None
    values = prop.get("enum") if "enum" in prop else [prop["const"]] if "const" in prop else None
    if values.__class__ is not list:
        return None
    kept = [v for v in values if any(matches_type(v, x) for x in t)]
    if not kept or ("const" in prop and "enum" not in prop and len(kept) != 1):
        return None
    return kept


def _null_narrowed(prop):
    """What an optional property's "a value or null" union narrows to: the other type
    name of a `type: [T, null]`, or the one other branch of `anyOf` beside `{type: null}`
    (a schema to merge into the property, see `_mergeable`); None for any other schema."""
    if prop.__class__ is not dict:
        return None
    t, branches = prop.get("type"), prop.get("anyOf")
    enum = prop.get("enum")
    if (enum.__class__ is list and None in enum) or ("const" in prop and prop["const"] is None):
        return None
    if t.__class__ is list and branches is None:
        if len(t) == 2 and "null" in t and t[0] != t[1]:
            other = t[1] if t[0] == "null" else t[0]
            return other if other.__class__ is str else None
        return None
    if branches.__class__ is not list or t is not None or len(branches) != 2 or {"type": "null"} not in branches:
        return None
    other = branches[1] if branches[0] == {"type": "null"} else branches[0]
    return other if _mergeable(prop, other) else None


def _first_narrowed(prop):
    """What a union property narrows to under `other_unions: first`: the first type name
    of a type list, or the first branch of an `anyOf` (to merge into the property, as
    `_null_narrowed`'s), that is not null; None for any other schema, or one whose
    `enum` or `const` a narrower type could leave with no value."""
    if prop.__class__ is not dict or "enum" in prop or "const" in prop:
        return None
    t, branches = prop.get("type"), prop.get("anyOf")
    if t.__class__ is list and branches is None:
        return next((x for x in t if x.__class__ is str and x != "null"), None)
    if branches.__class__ is not list or t is not None:
        return None
    first = next((b for b in branches if b != {"type": "null"}), None)
    return first if _mergeable(prop, first) else None


# annotations a branch and its property may both hold, saying other things: merged, the
# property keeps its own, and its description says the branch's too, so spelled
_TEXTS = {"description": "({})", "title": "(title: {})"}


def _texts(*values: object) -> bool:
    return all(v.__class__ is str for v in values)


def _said_beside(prop: dict, branch: dict) -> list[str]:
    """The branch's description and title where its property says other: what merging
    would lose, to be said in the property's description."""
    said = []
    for key, spelled in _TEXTS.items():
        if key in prop and key in branch and prop[key] != branch[key]:
            said.append(spelled.format(branch[key]))
    return said


def _mergeable(prop: dict, other) -> bool:
    """Whether union branch `other` can be merged into its property `prop` in the
    union's place: a schema holding no union, no keyword the property holds otherwise
    (but a description or title, said beside the property's own), and no part of a
    group of adjacent keywords the property holds another part of."""
    if other.__class__ is not dict or not other or "$ref" in other or "enum" in prop or "const" in prop:
        return False
    if other.get("anyOf") is not None or other.get("type").__class__ is list:
        return False
    if any(k in prop and prop[k] != v and not (k in _TEXTS and _texts(prop[k], v)) for k, v in other.items()):
        return False
    beside = prop.keys() - {"anyOf"}
    if not UNEVALUATED.isdisjoint(other) or not UNEVALUATED.isdisjoint(beside):
        return False
    # merged, the group's keywords would say other than they said apart
    return not any(not group.isdisjoint(other) and not group.isdisjoint(beside) for group in ADJACENT)


def _require_past(rule, run, order: list, limit: int) -> None:
    # those that lose least are required first: a property that takes null may send it
    # where it would have been left out; then the others; each kind last first in
    # document order. So those that stay optional are the first others in document
    # order, then the first that take null: found by reading from the start until
    # enough others are met, not by asking each of thousands whether it takes null
    unrequirable = [_false_names(props, listed) for _node, props, listed in order]
    stay = _first_optional(order, unrequirable, limit - sum(map(len, unrequirable)))
    for at, (node, props, listed) in enumerate(order):
        # the names left out of `required` and not staying: `filterfalse` tests each in C
        now = list(filterfalse((listed | unrequirable[at] | stay.get(at, set())).__contains__, props))
        if not now:
            continue
        req = node.get("required", [])
        if req.__class__ is list:  # a `required` of another shape is the checks' to judge
            node["required"] = [*req, *now]
            run.edited(node)
            run.report(
                rule, node, "rewritten",
                f"optional {', '.join(now)} now required: the wire takes at most {limit} optional properties"
                " in a schema (a value holding them is valid under the input as well)",
                "required",
            )


def _false_names(props: dict, listed: set) -> set:
    """The optional properties whose schema is false: it takes no value, so the property
    stays optional (and counts toward the limit)."""
    if False not in props.values():  # `in` compares in C; a 0 passes it, and is no false schema
        return set()
    return {name for name, sub in props.items() if sub is False and name not in listed}


def _first_optional(order: list, unrequirable: list, keep: int) -> dict[int, set]:
    """The `keep` optional properties that stay so, by object (its place in `order`)."""
    others: list = []
    takes_null: list = []
    if keep > 0:
        for at, (_node, props, listed) in enumerate(order):
            for name, sub in props.items():
                if name not in listed and name not in unrequirable[at]:
                    (takes_null if accepts_null(sub) else others).append((at, name))
                    if len(others) == keep:
                        break
            else:
                continue
            break
    stay: dict[int, set] = {}
    for at, name in others + takes_null[: max(keep - len(others), 0)]:
        stay.setdefault(at, set()).add(name)
    return stay


@check(
    "property-counts", reads="tree",
    order="tree",
    max_optional=Opt("int", 0, doc="properties not listed in their object's required, over the whole schema (0: no limit)"),
    max_unions=Opt("int", 0, doc="properties whose schema is an anyOf or a type list (0: no limit)"),
)
def property_counts(rule, run):
    """How many optional properties, and how many union-typed ones, the schema has.

    Every object counts, nested ones and definitions included, each where it is written.
    """
    from ..run import Unrepresentable

    optional, unions, _props = count_properties(run.root)
    o = rule.options
    for limit, value, what in (("max_optional", optional, "optional properties"), ("max_unions", unions, "properties with anyOf or a type list")):
        if o[limit] and value > o[limit]:
            raise Unrepresentable(rule.id, "", f"{value} {what} (limit {o[limit]})")


def count_properties(schema) -> tuple[int, int, int]:
    """(optional, union-typed, all) properties, over every object of a schema.

    Every object counts, nested ones and definitions included, each where it is written.
    """
    return _counted(_in_document_order(schema))


def _counted(objects) -> tuple[int, int, int]:
    """`count_properties` of the objects `_in_document_order` yields."""
    optional = unions = props = 0
    for _node, p, listed in objects:
        props += len(p)
        optional += len(p.keys() - listed)
        unions += sum(1 for s in p.values() if s.__class__ is dict and (
            s.get("anyOf").__class__ is list or s.get("type").__class__ is list))
    return optional, unions, props
