"""Read what a model sent back in terms of the original schema: restore, then validate.

A value may be JSON text (`str` or `bytes`: the OpenAI SDK's `function.arguments`,
a structured output's `message.content`), which is parsed first.
"""

from __future__ import annotations

from typing import Any, Iterator

from . import logs
from .blobs import thaw
from .errors import SchemaInputError, WireschemaError
from .model import RAISE, Issue, Result
from .passes.objects import PAIR_KEY, PAIR_VALUE, is_pairs, pure_map
from .passes.prepare import JSON_TYPES
from .positions import decode_fragment, follow, pointer, ref_token, unescape, upgraded_tokens
from .prepare import json_copy
from .silence import fixed_value


_MAX_REF_HOPS = 32


class _Doc:
    """The original schema with its references indexed as resolution reads them
    (`$id` bases, anchors, percent-encoded pointers, `$dynamicRef`)."""

    def __init__(self, root: Any, paired: tuple[str, ...] = ()):
        from .passes.refs import _Dynamic, _index

        self.root = root
        self.pairs = bool(paired)  # some map went as a list of pairs (`map-to-pairs`)
        # the schemas the wire sent as pairs, where they were written (a map under an
        # allOf, or saying what its pairs could not, is no pure map as written)
        found = (follow(root, [unescape(t) for t in p.split("/")[1:]], upgraded=True) if p else root for p in paired)
        self.paired: set[int] = {id(n) for n in found if isinstance(n, dict)}
        self.dynamic = _Dynamic()  # type: ignore[no-untyped-call]
        self.resources, sites = _index(root, self.dynamic)
        self.base: dict[int, str] = {id(n): b for n, b in sites}
        self.dyn_base: dict[int, str] = {id(n): b for n, _kw, b in self.dynamic.sites}
        self.default = next(iter(self.resources), "")
        self._made: list[Any] = []  # merged views, kept alive: their ids are keys above

    def target(self, schema: dict[str, Any], kw: str) -> Any:
        from .passes.refs import _Raw, _Unresolved, _resolve, dynamic_landings

        if kw == "$ref":
            found = _resolve(schema[kw], self.base.get(id(schema), self.default), self.resources)
            found = found.node if isinstance(found, _Raw) else found
            return None if isinstance(found, _Unresolved) else found
        landings = dynamic_landings(schema[kw], kw, self.dyn_base.get(id(schema), self.default), self.resources, self.dynamic)
        targets = [t for t, _uri in landings or () if not isinstance(t, _Unresolved)]
        if not targets:
            return None
        return targets[0] if len(targets) == 1 else self.keep({"anyOf": targets})

    def keep(self, made: dict[str, Any], base_of: Any = None) -> dict[str, Any]:
        self._made.append(made)
        if base_of is not None:
            for table in (self.base, self.dyn_base):
                if id(base_of) in table:
                    table[id(made)] = table[id(base_of)]
        return made


def _original(result: Result) -> Any:
    if result.origin is None:
        raise WireschemaError(
            "this result keeps no original schema (it was made with bypass, or fell back on a "
            "budget: an input past a budget is not kept)"
        )
    return thaw(result.origin)


_MERGED = ("properties", "patternProperties")


def _follow(doc: _Doc, schema: Any, hops: int = 0) -> Any:
    """Follow `$ref`s (and `$dynamicRef`s) to a schema object: the target with the
    keywords beside the reference, whose `properties` and `required` add to its own."""
    while isinstance(schema, dict) and hops < _MAX_REF_HOPS:
        kw = next((k for k in ("$ref", "$dynamicRef", "$recursiveRef") if isinstance(schema.get(k), str)), None)
        if kw is None:
            break
        target = doc.target(schema, kw)
        if not isinstance(target, (dict, bool)):
            return schema
        siblings = {k: v for k, v in schema.items() if k != kw}
        if not isinstance(target, dict):
            return target if not siblings else siblings
        merged = dict(target)
        for k, v in siblings.items():
            if k in _MERGED and isinstance(merged.get(k), dict) and isinstance(v, dict):
                merged[k] = {**merged[k], **v}
            elif k == "required" and isinstance(merged.get(k), list) and isinstance(v, list):
                merged[k] = [*merged[k], *v]
            else:
                merged[k] = v
        if id(target) in doc.paired or id(schema) in doc.paired:
            doc.paired.add(id(merged))
        # a reference left in the view is the target's own (or one beside the first)
        schema = doc.keep(merged, target if any(k in target for k in ("$ref", "$dynamicRef", "$recursiveRef")) else schema)
        hops += 1
    return schema


def _accepts_null(doc: _Doc, schema: Any, depth: int = 0) -> bool:
    schema = _follow(doc, schema)
    if schema is True or schema == {} or depth > 16:
        return True
    if not isinstance(schema, dict):
        return False
    t = schema.get("type")
    if t == "null" or (isinstance(t, list) and "null" in t):
        return True
    if schema.get("nullable") is True:
        return True
    if isinstance(schema.get("enum"), list):
        return None in schema["enum"]
    if "const" in schema:
        return schema["const"] is None
    for comb in ("anyOf", "oneOf"):
        if isinstance(schema.get(comb), list):
            return any(_accepts_null(doc, b, depth + 1) for b in schema[comb])
    if isinstance(schema.get("allOf"), list):
        return all(_accepts_null(doc, b, depth + 1) for b in schema["allOf"])
    return t is None and not any(k in schema for k in ("properties", "items", "required"))


def _object_view(doc: _Doc, schema: Any, value: dict[str, Any], depth: int = 0) -> tuple[dict[str, Any], set[str]]:
    """The properties and required names a schema gives an object value (all branches)."""
    schema = _follow(doc, schema)
    props: dict[str, Any] = {}
    required: set[str] = set()
    if not isinstance(schema, dict) or depth > 16:
        return props, required
    if isinstance(schema.get("properties"), dict):
        props.update(schema["properties"])
    if isinstance(schema.get("required"), list):
        required.update(n for n in schema["required"] if isinstance(n, str))
    for b in schema.get("allOf", []) if isinstance(schema.get("allOf"), list) else []:
        p, r = _object_view(doc, b, value, depth + 1)
        props.update(p)
        required |= r
    nulls = {k for k in value if value[k] is None}
    for comb in ("anyOf", "oneOf"):
        views = [_object_view(doc, b, value, depth + 1) for b in schema.get(comb, []) if isinstance(schema.get(comb), list)]
        # the branch that lists every key the value has, null ones included, is the one a
        # closed strict union matched (where several do, the first whose properties take
        # the value's members, in the first of `_READINGS` where one does); only if none
        # does, the first that lists the others
        listing = [v for v in views if set(value) <= set(v[0])]
        chosen = next((v for how in _READINGS for v in listing if _members_fit(doc, v[0], value, how)), listing[0] if listing else None)
        if chosen is None:
            chosen = next((v for v in views if set(value) <= set(v[0]) | nulls), None)
        if chosen is not None:
            props.update(chosen[0])
            required |= chosen[1]
    return props, required


# how a value is judged against the branches of a union, in turn: its objects' members
# all listed, as a closed strict branch lists them, and a null only where the schema
# takes null; then a null anywhere (it may stand for a member left out); then members
# a schema does not list not judged
_READINGS = ((True, True), (True, False), (False, False))
# the JSON type of a member's value, as a schema's `type` names it
_TYPE_OF = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}


def _members_fit(doc: _Doc, props: dict[str, Any], value: dict[str, Any], how: tuple[bool, bool], depth: int = 0) -> bool:
    """Whether each member of `value` has the types its property's schema says."""
    return all(_fits(doc, props[k], v, how, depth) for k, v in value.items() if k in props)


def _fits(doc: _Doc, schema: Any, value: Any, how: tuple[bool, bool], depth: int = 0) -> bool:
    """Whether `value` has the types `schema` says, read `how` (see `_READINGS`); a map's
    pairs have an object's where maps went as pairs."""
    listed, null_values = how
    if depth > 16:
        return True
    if value is None:
        return not null_values or _accepts_null(doc, schema)
    schema = _follow(doc, schema)
    if not isinstance(schema, dict):
        return schema is not False
    for comb in ("anyOf", "oneOf"):
        if isinstance(schema.get(comb), list):
            return any(_fits(doc, b, value, how, depth + 1) for b in schema[comb])
    if doc.pairs and is_pairs(value) and _paired(doc, schema):
        return True
    t = schema.get("type")
    types = {t} if isinstance(t, str) else {x for x in t if isinstance(x, str)} if isinstance(t, list) else set()
    if not types & JSON_TYPES:
        return True  # untyped, or typed by another name (`dict`): not judged here
    kind = _TYPE_OF.get(type(value))
    if not (kind in types or (kind == "integer" and "number" in types)):
        return False
    # and so, as far as the schema says, are its items or members
    items, props = schema.get("items"), schema.get("properties")
    if kind == "array" and isinstance(items, (dict, bool)):
        return all(_fits(doc, items, v, how, depth + 1) for v in value)
    if kind == "object" and isinstance(props, dict):
        return (not listed or value.keys() <= props.keys()) and _members_fit(doc, props, value, how, depth + 1)
    return True


def _restore(doc: _Doc, schema: Any, value: Any, depth: int, memo: dict[tuple[int, int], Any] | None = None) -> Any:
    if depth > 256:
        return value
    if memo is None:
        memo = {}
    if isinstance(value, (dict, list)):
        # a value that holds one subtree twice (a Python value may) is restored once per
        # schema: restoring each occurrence would cost 2**depth on a recursive schema
        key = (id(schema), id(value))
        if key not in memo:
            memo[key] = (schema, value, _restore_one(doc, schema, value, depth, memo))
        return memo[key][2]
    return value


def _restore_one(doc: _Doc, schema: Any, value: Any, depth: int, memo: dict[tuple[int, int], Any]) -> Any:
    schema = _follow(doc, schema)
    if isinstance(value, dict):
        props, required = _object_view(doc, schema, value)
        out = {}
        for k, v in value.items():
            sub = props.get(k)
            if v is None and sub is not None and k not in required and not _accepts_null(doc, sub):
                continue  # strict mode's stand-in for "left out"
            out[k] = _restore(doc, sub, v, depth + 1, memo) if sub is not None else v
        for k, sub in props.items():
            # a property whose only value is its default, left out (or sent null): put back
            fixed, only = fixed_value(_follow(doc, sub)) if k not in out else (False, None)
            if fixed:
                out[k] = json_copy(only)
        return out
    if isinstance(value, list):
        schema = _list_schema(doc, schema, value)
    if doc.pairs and is_pairs(value) and _paired(doc, schema):
        # a map the wire took as a list of pairs: the map again, a key sent twice the last pair's
        values = _map_values(doc, schema)
        sub = values if isinstance(values, dict) else None
        return {p[PAIR_KEY]: _restore(doc, sub, p[PAIR_VALUE], depth + 1, memo) if sub is not None else p[PAIR_VALUE] for p in value}
    if isinstance(value, list) and isinstance(schema, dict):
        given = schema.get("prefixItems")
        prefix: list[Any] = given if isinstance(given, list) else []
        items = schema.get("items")
        if isinstance(items, list):  # draft-07 tuple
            prefix, items = items, schema.get("additionalItems")
        return [
            _restore(doc, prefix[i] if i < len(prefix) else items, v, depth + 1, memo) if (i < len(prefix) or isinstance(items, dict)) else v
            for i, v in enumerate(value)
        ]
    return value


def _list_schema(doc: _Doc, schema: Any, value: list[Any], depth: int = 0) -> Any:
    """The schema a list was sent by: `schema`, or in a union (`Optional[list[Model]]`)
    its first branch for a list whose types the items have (the map a list of pairs
    stands for, where maps went as pairs), as `_object_view` chooses."""
    schema = _follow(doc, schema)
    if not isinstance(schema, dict) or depth > 16 or _for_list(doc, schema, value):
        return schema
    for comb in ("anyOf", "oneOf"):
        branches = schema.get(comb)
        if isinstance(branches, list):
            found = [b for b in (_list_schema(doc, b, value, depth + 1) for b in branches) if isinstance(b, dict) and _for_list(doc, b, value)]
            if found:
                return next((b for how in _READINGS for b in found if _fits(doc, b, value, how)), found[0])
    return schema


def _for_list(doc: _Doc, schema: dict[str, Any], value: list[Any]) -> bool:
    """A schema a list may have been sent by: an array's, or a map's sent as pairs."""
    t = schema.get("type")
    if t == "array" or (isinstance(t, list) and "array" in t) or "items" in schema or "prefixItems" in schema:
        return True
    return doc.pairs and _paired(doc, schema) and is_pairs(value)


def _paired(doc: _Doc, schema: Any) -> bool:
    """Whether `schema` is a map the wire sent as pairs: one it names, or one as the wire
    reads it (untyped, or typed by another name for object, `dict`, it is the object
    preparation made of it)."""
    if not isinstance(schema, dict):
        return False
    if id(schema) in doc.paired:
        return True
    t = schema.get("type")
    if t is not None and t != "object" and (t.__class__ is not str or t in JSON_TYPES):
        return False
    return pure_map({**schema, "type": "object"})


def _map_values(doc: _Doc, schema: dict[str, Any], depth: int = 0) -> Any:
    """The schema of a map's values: its `additionalProperties`, or its `allOf` branches'
    (pydantic v1 writes a map field as `allOf: [{$ref}]` beside a description)."""
    if "additionalProperties" in schema or depth > 16:
        return schema.get("additionalProperties")
    for b in schema.get("allOf", []) if isinstance(schema.get("allOf"), list) else []:
        b = _follow(doc, b)
        found = _map_values(doc, b, depth + 1) if isinstance(b, dict) else None
        if found is not None:
            return found
    return None


def parse_value(value: Any) -> Any:
    """A model's arguments (or output) as JSON text (`str`, `bytes`) parsed, NaN
    refused, the error saying so (`SchemaInputError`); any other value as it is."""
    if not isinstance(value, (str, bytes, bytearray, memoryview)):
        return value
    from .model import Options
    from .prepare import read_json_text

    return read_json_text(value, Options(), "the arguments'")


def restore(result: Result, value: Any, default: Any = RAISE) -> Any:
    original = _original(result)
    try:
        parsed = parse_value(value)
    except SchemaInputError:
        if default is RAISE:
            raise
        return default
    return _restore(_Doc(original, tuple(result.notes.get("paired_maps", ()))), original, json_copy(result.unwrap(parsed)), 0)


def validate(result: Result, value: Any) -> tuple[Issue, ...]:
    try:
        import jsonschema
        from jsonschema import validators
        from referencing.exceptions import Unresolvable
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise WireschemaError("validate needs jsonschema: pip install 'wireschema[validate]'") from None
    try:
        restored = restore(result, value)
    except SchemaInputError as exc:
        return (Issue("", str(exc)),)
    original = _prepared(result, _original(result))
    base = validators.validator_for(original, default=jsonschema.Draft202012Validator)
    # every keyword is checked on its own: one the local validator cannot judge (an
    # ECMA-only regex, a malformed value such as minLength "3") is skipped, never raised
    guarded = validators.extend(base, {k: _guard(k, fn) for k, fn in base.VALIDATORS.items()})
    # no registry with retrieval: a remote $ref is an error, never a fetch
    validator = guarded(original)
    issues = []
    try:
        errors = sorted(validator.iter_errors(restored), key=lambda e: [str(p) for p in e.absolute_path])
    except Unresolvable as exc:  # a $ref that is not in the document: never fetched
        return (Issue("", f"the original schema cannot be checked locally: {exc}"),)
    except (jsonschema.exceptions.SchemaError, RecursionError) as exc:
        return (Issue("", f"the original schema cannot be checked: {type(exc).__name__}"),)
    for err in errors:
        issues.append(Issue(pointer(err.absolute_path), err.message, pointer(err.absolute_schema_path)))
    return tuple(issues)


def _prepared(result: Result, original: Any) -> Any:
    """The original as every target's preparation reads it (type names such as dict and
    float mapped, older drafts upgraded to 2020-12), references left as written."""
    from . import _normalize, _registry
    from .model import Options

    base = _registry().get("_base")
    if base is None:  # pragma: no cover - the shipped rules always have one
        return original
    drop = [r.id for r in base.rules if r.kind == "resolve-refs"]
    prepared = _registry().variant(base, drop, "prepared")
    opts = Options(max_depth=10**4, max_nodes=10**7, max_literal_bytes=10**9)
    try:
        out = _normalize(original, prepared, options=opts)
    except WireschemaError:
        return original
    if out.used_fallback:
        return original
    _respell_refs(out.schema)
    return out.schema


def _respell_refs(doc: Any) -> None:
    """Each local `$ref` whose pointer names a keyword the draft upgrade renamed
    (`#/definitions/A`) spelled as the upgrade did (`#/$defs/A`), as resolution reads it:
    the validator follows pointers as written."""
    from .passes.refs import _index, _join, _split

    resources, sites = _index(doc)
    for node, base in sites:
        ref = node["$ref"]
        split = _split(_join(base, ref))
        if split is None or not split[1].startswith("/"):
            continue
        resource = resources.get(split[0])
        tokens = [unescape(decode_fragment(t)) for t in split[1].split("/")[1:]]
        if resource is None or follow(resource, tokens) is not None:
            continue
        found = upgraded_tokens(resource, tokens)
        if found is not None:
            node["$ref"] = ref[: ref.index("#")] + "#/" + "/".join(map(ref_token, found))


def _guard(keyword: str, check: Any) -> Any:
    from jsonschema.exceptions import ValidationError
    from referencing.exceptions import Unresolvable

    def guarded(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        try:
            # materialized here, so an error the check raises while iterating is caught too
            found = list(check(validator, value, instance, schema) or ())
        except RecursionError:
            raise
        except Unresolvable as exc:  # a reference the validator cannot follow: an issue
            yield ValidationError(f"{keyword} {value!r} cannot be followed locally: what it names is not checked")
            return
        except Exception as exc:  # re.error, TypeError, ValueError, ...: the keyword is not judged
            logs.info("validate skips %s %r, which cannot be checked locally: %s", keyword, value, exc)
            return
        yield from found

    return guarded
