"""Read what a model sent back in terms of the original schema: restore, then validate."""

from __future__ import annotations

import copy
import json
from typing import Any

from .errors import WireschemaError
from .model import Issue, Result
from .positions import escape, unescape

_MAX_REF_HOPS = 32


def _original(result: Result) -> Any:
    if result.source is None:
        raise WireschemaError("this result keeps no original schema (it was made with bypass)")
    return json.loads(result.source)


def _follow(root: Any, schema: Any, hops: int = 0) -> Any:
    """Follow local `$ref`s (JSON Pointers into the original) to a schema object."""
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and hops < _MAX_REF_HOPS:
        ref = schema["$ref"]
        if not ref.startswith("#"):
            return schema
        target = root
        for token in [t for t in ref[1:].split("/") if t][:64]:
            token = unescape(token)
            if isinstance(target, dict):
                target = target.get(token if token in target else {"definitions": "$defs"}.get(token, token))
            elif isinstance(target, list) and token.isdigit() and int(token) < len(target):
                target = target[int(token)]
            else:
                return schema
        if not isinstance(target, (dict, bool)):
            return schema
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings} if isinstance(target, dict) else target
        hops += 1
    return schema


def _accepts_null(root: Any, schema: Any, depth: int = 0) -> bool:
    schema = _follow(root, schema)
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
            return any(_accepts_null(root, b, depth + 1) for b in schema[comb])
    if isinstance(schema.get("allOf"), list):
        return all(_accepts_null(root, b, depth + 1) for b in schema["allOf"])
    return t is None and not any(k in schema for k in ("properties", "items", "required"))


def _object_view(root: Any, schema: Any, value: dict, depth: int = 0) -> tuple[dict, set]:
    """The properties and required names a schema gives an object value (all branches)."""
    schema = _follow(root, schema)
    props: dict[str, Any] = {}
    required: set[str] = set()
    if not isinstance(schema, dict) or depth > 16:
        return props, required
    if isinstance(schema.get("properties"), dict):
        props.update(schema["properties"])
    if isinstance(schema.get("required"), list):
        required.update(n for n in schema["required"] if isinstance(n, str))
    for b in schema.get("allOf", []) if isinstance(schema.get("allOf"), list) else []:
        p, r = _object_view(root, b, value, depth + 1)
        props.update(p)
        required |= r
    for comb in ("anyOf", "oneOf"):
        for b in schema.get(comb, []) if isinstance(schema.get(comb), list) else []:
            p, r = _object_view(root, b, value, depth + 1)
            if set(value) <= set(p) | {k for k in value if value[k] is None}:
                props.update(p)
                required |= r
                break
    return props, required


def _restore(root: Any, schema: Any, value: Any, depth: int) -> Any:
    if depth > 256:
        return value
    schema = _follow(root, schema)
    if isinstance(value, dict):
        props, required = _object_view(root, schema, value)
        out = {}
        for k, v in value.items():
            sub = props.get(k)
            if v is None and sub is not None and k not in required and not _accepts_null(root, sub):
                continue  # strict mode's stand-in for "left out"
            out[k] = _restore(root, sub, v, depth + 1) if sub is not None else v
        return out
    if isinstance(value, list) and isinstance(schema, dict):
        prefix = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else []
        items = schema.get("items")
        if isinstance(items, list):  # draft-07 tuple
            prefix, items = items, schema.get("additionalItems")
        return [
            _restore(root, prefix[i] if i < len(prefix) else items, v, depth + 1) if (i < len(prefix) or isinstance(items, dict)) else v
            for i, v in enumerate(value)
        ]
    return value


def restore(result: Result, value: Any) -> Any:
    original = _original(result)
    value = result.unwrap(value)
    return _restore(original, original, copy.deepcopy(value), 0)


def validate(result: Result, value: Any) -> tuple[Issue, ...]:
    try:
        import jsonschema
        from jsonschema import validators
        from referencing.exceptions import Unresolvable
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise WireschemaError("validate needs jsonschema: pip install 'wireschema[validate]'") from None
    original = _original(result)
    restored = restore(result, value)
    cls = validators.validator_for(original, default=jsonschema.Draft202012Validator)
    # no registry with retrieval: a remote $ref is an error, never a fetch
    validator = cls(original)
    issues = []
    try:
        errors = sorted(validator.iter_errors(restored), key=lambda e: [str(p) for p in e.absolute_path])
    except Unresolvable as exc:  # a $ref that is not in the document: never fetched
        return (Issue("", f"the original schema cannot be checked locally: {exc}"),)
    except (jsonschema.exceptions.SchemaError, RecursionError) as exc:
        return (Issue("", f"the original schema cannot be checked: {type(exc).__name__}"),)
    for err in errors:
        pointer = "".join("/" + escape(str(p)) for p in err.absolute_path)
        spointer = "".join("/" + escape(str(p)) for p in err.absolute_schema_path)
        issues.append(Issue(pointer, err.message, spointer))
    return tuple(issues)
