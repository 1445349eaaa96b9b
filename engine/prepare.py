"""Turn what the caller passed into a private, validated, budgeted JSON tree.

The caller's object is only read. Every JSON object of the copy remembers where it
came from (its origin chain), so that changes made later point into the input.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .errors import SchemaInputError
from .native import is_native, to_schema
from .positions import SUBSCHEMA, pointer_of
from .run import BudgetExceeded, Run

_SCALARS = (str, int, float, bool, type(None))
# keys whose presence anywhere means reference resolution has work to do
REFERENCE_KEYS = frozenset({"$ref", "$defs", "definitions", "$id", "$anchor", "$dynamicRef", "$recursiveRef"})


def parse_input(schema: Any, options: Any) -> Any:
    """JSON text (str or bytes) is parsed; pydantic models, dataclasses, TypedDicts and
    typed functions go through pydantic; anything else is taken as a Python JSON value."""
    if is_native(schema):
        return to_schema(schema)
    if isinstance(schema, (bytes, bytearray, memoryview)):
        try:
            schema = bytes(schema).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SchemaInputError(f"schema bytes are not UTF-8: {exc}") from None
    if isinstance(schema, str):

        def _constant(name: str) -> float:
            if options.allow_nan:
                return float(name)
            raise SchemaInputError(f"schema text contains {name}, which is not JSON")

        try:
            return json.loads(schema, parse_constant=_constant)
        except SchemaInputError:
            raise
        except (ValueError, RecursionError) as exc:
            raise SchemaInputError(f"schema text is not JSON: {exc}") from None
    return schema


def _on_path(objchain: Any, obj: Any) -> bool:
    while objchain is not None:
        objchain, seen = objchain
        if seen is obj:
            return True
    return False


def copy_input(value: Any, run: Run) -> Any:
    """Validate and copy a JSON value iteratively, counting the budgets as it goes."""
    opts = run.options
    if isinstance(value, _SCALARS):
        if value.__class__ is bool:
            run.census.add("<bool>:")  # the root itself
        return _scalar(value, None, run)
    holder: list[Any] = [None]
    # (source, destination container, key, origin chain, depth, chain of source objects)
    stack: list[tuple[Any, Any, Any, Any, int, Any]] = [(value, holder, 0, None, 1, None)]
    origins = run.origins
    # every keyword of the input, `<bool>:K` where a boolean is the value of K, `<in>:K`
    # where K holds a map or list with a boolean in it: what the compiled target reads to
    # know which rules can have work (see `plans`)
    census = run.census
    add = census.add
    while stack:
        src, dst, key, chain, depth, objchain = stack.pop()
        if depth > opts.max_depth:
            if _on_path(objchain, src):
                raise SchemaInputError(f"cyclic container at {pointer_of(chain) or '/'}")
            raise BudgetExceeded("budget/depth", pointer_of(chain), f"nesting deeper than {opts.max_depth}")
        run.nodes += 1
        if run.nodes > opts.max_nodes:
            raise BudgetExceeded("budget/nodes", pointer_of(chain), f"more than {opts.max_nodes} nodes")
        objchain = (objchain, src)
        if isinstance(src, dict):
            out: dict[str, Any] = {}
            origins[id(out)] = (out, chain)
            census.update(src)
            for k, v in src.items():
                if not isinstance(k, str):
                    raise SchemaInputError(
                        f"object key {k!r} at {pointer_of(chain) or '/'} is not a string"
                    )
                cls = v.__class__
                # the plain JSON scalars inline: most values are strings, ints or bools
                if cls is str:
                    run.literal += len(k) + len(v)
                    out[k] = v
                    continue
                run.literal += len(k)
                if cls is int or v is None:
                    out[k] = v
                elif cls is bool:
                    out[k] = v
                    add("<bool>:" + k)  # a boolean subschema (if k holds one) or a switch
                    if chain is not None and chain[1] not in SUBSCHEMA:
                        # one of a map of them (properties: {a: true}), under whatever name
                        add(f"<in>:{chain[1]}")
                elif cls is not dict and cls is not list and isinstance(v, _SCALARS):
                    out[k] = _scalar(v, (chain, k), run)
                else:
                    out[k] = None
                    stack.append((v, out, k, (chain, k), depth + 1, objchain))
                    if k == "items" and cls is list:
                        add("<list>:items")  # a draft-07 tuple
        elif isinstance(src, list):
            out = [None] * len(src)
            origins[id(out)] = (out, chain)
            for i, v in enumerate(src):
                if isinstance(v, _SCALARS):
                    out[i] = _scalar(v, (chain, i), run)
                    if v.__class__ is bool and chain is not None:
                        add(f"<in>:{chain[1]}")  # a boolean branch (anyOf: [true]), or a literal
                else:
                    stack.append((v, out, i, (chain, i), depth + 1, objchain))
        else:
            raise SchemaInputError(
                f"{type(src).__name__} at {pointer_of(chain) or '/'} is not a JSON value"
            )
        dst[key] = out
        if run.literal > opts.max_literal_bytes:
            raise BudgetExceeded(
                "budget/literal", pointer_of(chain), f"more than {opts.max_literal_bytes} characters"
            )
    return holder[0]


def _scalar(value: Any, chain: Any, run: Run) -> Any:
    cls = value.__class__
    if cls is str:
        run.literal += len(value)
        return value
    if cls is bool or cls is int or value is None:
        return value
    if cls is float:
        if not run.options.allow_nan and not math.isfinite(value):
            raise SchemaInputError(f"{value!r} at {pointer_of(chain) or '/'} is not JSON")
        return value
    # subclasses of str/int/float (str enums, numpy-free int subclasses): keep the plain value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        run.literal += len(value)
        return str.__str__(value)
    if isinstance(value, int):
        return int(value)
    return _scalar(float(value), chain, run)


def copy_subtree(node: Any, run: Run, links: dict[int, Any] | None = None) -> Any:
    """Copy a prepared subtree (for `$ref` expansion), keeping origins, counting budgets.

    `links` maps id(node) of `$ref` nodes to what they resolve to; copies inherit it.
    """
    if not isinstance(node, (dict, list)):
        return node
    opts = run.options
    origins = run.origins
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(node, holder, 0)]
    while stack:
        src, dst, key = stack.pop()
        run.nodes += 1
        if run.nodes > opts.max_nodes:
            raise BudgetExceeded(
                "budget/nodes", run.pointer(src), f"more than {opts.max_nodes} nodes after $ref expansion"
            )
        entry = origins.get(id(src))
        if isinstance(src, dict):
            out: Any = {}
            if links is not None and id(src) in links:
                links[id(out)] = links[id(src)]
            for k, v in src.items():
                run.literal += len(k)
                if isinstance(v, (dict, list)):
                    out[k] = None
                    stack.append((v, out, k))
                else:
                    if v.__class__ is str:
                        run.literal += len(v)
                    out[k] = v
        else:
            out = [None] * len(src)
            for i, v in enumerate(src):
                if isinstance(v, (dict, list)):
                    stack.append((v, out, i))
                else:
                    if v.__class__ is str:
                        run.literal += len(v)
                    out[i] = v
        if entry is not None and entry[0] is src:
            origins[id(out)] = (out, entry[1])
        dst[key] = out
        if run.literal > opts.max_literal_bytes:
            raise BudgetExceeded(
                "budget/literal",
                run.pointer(src),
                f"more than {opts.max_literal_bytes} characters after $ref expansion",
            )
    return holder[0]


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value, iterative (any depth), for the caller's tools and bodies.

    Only dicts and lists are copied; anything else is shared, as JSON scalars are
    immutable. Cyclic containers are the caller's error: they raise SchemaInputError.
    """
    if not isinstance(value, (dict, list)):
        return value
    holder: list[Any] = [None]
    # ids of the containers on the path from the root: a container met again while it is
    # still open is a cycle (a shared, closed one is merely copied twice)
    open_ids: set[int] = set()
    stack: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while stack:
        src, dst, key = stack.pop()
        if dst is None:
            open_ids.discard(src)
            continue
        ident = id(src)
        if ident in open_ids:
            raise SchemaInputError("a cyclic container is not JSON")
        open_ids.add(ident)
        stack.append((ident, None, None))
        if isinstance(src, dict):
            out: Any = {}
            for k, v in src.items():
                out[k] = v
                if isinstance(v, (dict, list)):
                    stack.append((v, out, k))
        else:
            out = list(src)
            for i, v in enumerate(src):
                if isinstance(v, (dict, list)):
                    stack.append((v, out, i))
        dst[key] = out
    return holder[0]
