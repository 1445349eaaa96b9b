"""The one place that knows which keywords hold subschemas.

Every walk in wireschema discovers children through `child_slots`; nothing else
re-declares these lists. Keys of a subschema map (property names) and the payloads
of literal keywords (`enum`, `const`, `default`, `examples`, ...) are never visited as
schemas, so a property called `anyOf` or a default value shaped like a schema is
left alone.
"""

from __future__ import annotations

import re
from itertools import compress, filterfalse, repeat
from operator import is_
from typing import Any, Iterable, Iterator
from urllib.parse import quote, unquote

# keyword -> one subschema
SUBSCHEMA = frozenset(
    {
        "items",
        "additionalItems",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "additionalProperties",
        "unevaluatedProperties",
        "unevaluatedItems",
        "propertyNames",
        "contentSchema",
    }
)
# keyword -> {name: subschema}
SUBSCHEMA_MAP = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
# keyword -> [subschema, ...]
SUBSCHEMA_ARRAY = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
# keywords whose list holds subschemas (draft-07 tuple `items` too), and whose object
# maps names to subschemas (draft-07 `dependencies` too): where a boolean is a schema
HOLDS_LIST = SUBSCHEMA_ARRAY | {"items"}
HOLDS_MAP = SUBSCHEMA_MAP | {"dependencies"}
# keys whose presence anywhere means reference resolution has work to do
REFERENCE_KEYS = frozenset({"$ref", "$defs", "definitions", "$id", "$anchor", "$dynamicRef", "$recursiveRef"})
# keywords whose value is data, never a schema
LITERAL = frozenset(
    {
        "enum",
        "const",
        "default",
        "examples",
        "example",
        "required",
        "dependentRequired",
        "propertyOrdering",
        "type",
    }
)

# every keyword whose value holds subschemas
SUBSCHEMA_KEYS = SUBSCHEMA | SUBSCHEMA_MAP | SUBSCHEMA_ARRAY | {"dependencies"}

# keywords whose meaning depends on siblings in the same schema (additionalProperties
# on properties, items on prefixItems, ...): split between two schemas they say other
# than the same keywords in one, so two schemas that split a group do not merge as
# they are; the unevaluated keywords depend on every in-place applicator beside them
ADJACENT = (
    frozenset({"properties", "patternProperties", "additionalProperties", "unevaluatedProperties"}),
    frozenset({"prefixItems", "items", "additionalItems", "unevaluatedItems"}),
    frozenset({"contains", "minContains", "maxContains"}),
    frozenset({"if", "then", "else"}),
)
UNEVALUATED = frozenset({"unevaluatedProperties", "unevaluatedItems"})

SLOT_SINGLE = 0
SLOT_MAP = 1
SLOT_ARRAY = 2


# keyword -> slot kind, for walks that enumerate children inline (array `items` is the
# draft-07 form of a SLOT_SINGLE keyword; `dependencies` maps names to schemas or lists)
SLOT_KIND: dict[str, int] = {
    **{kw: SLOT_SINGLE for kw in SUBSCHEMA},
    **{kw: SLOT_MAP for kw in SUBSCHEMA_MAP},
    **{kw: SLOT_ARRAY for kw in SUBSCHEMA_ARRAY},
    "dependencies": SLOT_MAP,
}


# the classes of a schema's Python value: an object or a boolean schema
SCHEMA_CLASSES = frozenset({dict, bool})


def is_schema(value: Any) -> bool:
    return isinstance(value, (dict, bool))


def child_slots(node: dict) -> Iterator[tuple[str, int, Any, Any]]:
    """Yield (keyword, slot kind, container, key) for every child schema of `node`.

    `container[key]` is the child; assigning to it replaces the child in place.
    Draft-07 forms are understood too (array `items`, `dependencies`), so a walk
    before the draft upgrade still finds every schema.
    """
    slot_of = SLOT_KIND.get
    for kw, value in node.items():
        slot = slot_of(kw)
        if slot is None:
            continue
        if slot == SLOT_SINGLE:
            if isinstance(value, (dict, bool)):
                yield kw, SLOT_SINGLE, node, kw
            elif kw == "items" and isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, (dict, bool)):
                        yield kw, SLOT_ARRAY, value, i
        elif slot == SLOT_MAP:  # `dependencies` too: its schemas (its name lists are no schemas)
            if isinstance(value, dict):
                for name, sub in value.items():
                    if isinstance(sub, (dict, bool)):
                        yield kw, SLOT_MAP, value, name
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, (dict, bool)):
                    yield kw, SLOT_ARRAY, value, i


def schema_nodes(root: Any) -> Iterator[dict]:
    """Every object schema of `root`, itself included (iterative: any depth)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.__class__ is dict:
            yield node
            stack.extend(c[k] for _kw, _s, c, k in child_slots(node))


def subschemas(node: dict) -> list[Any]:
    """The child schemas of `node` (dicts and booleans), in document order: for walks that
    need the children themselves, not where they sit."""
    out: list[Any] = []
    for kw, value in node.items():
        slot = SLOT_KIND.get(kw)
        if slot is None:
            continue
        cls = value.__class__
        if slot == SLOT_SINGLE:
            if cls is dict or cls is bool:
                out.append(value)
            elif cls is list and kw == "items":
                out += _schemas_in(value)
        elif slot == SLOT_MAP:
            if cls is dict:
                out += _schemas_in(value.values())
        elif cls is list:
            out += _schemas_in(value)
    return out


def nesting_subschemas(node: dict) -> list[Any]:
    """The child schemas of `node` that hold child schemas of their own (objects with a
    subschema keyword), in document order: what a walk that yields nothing for a leaf
    pushes."""
    subs = subschemas(node)
    # C loops (`compress` by the children's classes, `filterfalse` by the keyword set's
    # `isdisjoint`): a wide object's plain properties are passed with no Python step each
    objects = compress(subs, map(is_, map(type, subs), repeat(dict)))
    return list(filterfalse(SUBSCHEMA_KEYS.isdisjoint, objects))


def _schemas_in(values: Any) -> Any:
    """The schemas (dicts and booleans) among `values`: where all are (nearly always),
    `values` itself, found so by a test that runs in C."""
    if SCHEMA_CLASSES.issuperset(map(type, values)):
        return values
    return [v for v in values if v.__class__ is dict or v.__class__ is bool]


def keys_within(value: Any) -> set[str]:
    """Every key of every object within a JSON value, at any depth: the keywords its copy
    brings into a census (`prepare.copy_input` takes an object's keys wherever it is)."""
    keys: set[str] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if v.__class__ is dict:
            keys.update(v)
            stack.extend(v.values())
        elif v.__class__ is list:
            stack.extend(v)
    return keys


def bool_census(keep: Any = ()) -> frozenset:
    """The census markers (see `prepare.copy_input`) of a boolean subschema anywhere but
    under the keywords in `keep`."""
    single = {f"<bool>:{k}" for k in SUBSCHEMA if k not in keep}
    held = {f"<in>:{k}" for k in HOLDS_MAP | HOLDS_LIST if k not in keep}
    return frozenset(single | held)


# the census marker of a keyword written null (`<null>:maxItems`), taken where a rule watches it
NULL_AT = "<null>:"


def markers(keyword: str) -> set[str]:
    """The census markers a rule that writes `keyword` may make (moving a value there)."""
    return {keyword, *bool_markers(keyword)}


def bool_markers(keyword: str) -> frozenset[str]:
    """The census markers of a boolean under `keyword`: its value, or in its map or list."""
    return frozenset((f"<bool>:{keyword}", f"<in>:{keyword}"))


def has_bool_child(node: dict, keep: Any = ()) -> bool:
    """Some child schema of `node` is a boolean, under a keyword not in `keep` (say,
    `additionalProperties: false`, a switch on every closed object of a strict wire)."""
    for kw, value in node.items():
        slot = SLOT_KIND.get(kw)
        if slot is None or kw in keep:
            continue
        cls = value.__class__
        if cls is bool:
            if slot == SLOT_SINGLE:
                return True
        # the members' classes are compared in C (`in` over a map of them)
        elif cls is dict:
            if slot == SLOT_MAP and bool in map(type, value.values()):
                return True
        elif cls is list and bool in map(type, value):
            return True
    return False


# where a document keeps its definitions: 2020-12's spelling and draft-07's
DEFINITIONS = ("$defs", "definitions")
# keywords whose subschemas apply to the same value as their schema (not to a part of it)
IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")
IN_PLACE_SINGLE = ("if", "then", "else", "not")
_INDEX = re.compile(r"0|[1-9][0-9]{0,17}")  # RFC 6901 array indices: ASCII digits, no leading zero


def array_index(token: str) -> int | None:
    """The array index a JSON Pointer token names, or None (`01`, `²` and `١` name none)."""
    return int(token) if _INDEX.fullmatch(token) else None


def follow(resource: Any, tokens: list[str], *, upgraded: bool = False) -> Any:
    """What the unescaped pointer `tokens` name in `resource`, or None.

    `upgraded`: the document was read through the draft upgrade, so a token in an
    older spelling (`definitions`, a tuple's `items`, `dependencies`, `any_of`) also
    finds what the upgrade renamed.
    """
    cur = resource
    for i in range(len(tokens)):
        step = _step(cur, tokens, i, upgraded)
        if step is None:
            return None
        cur = step[1]
    return cur


def upgraded_tokens(resource: Any, tokens: list[str]) -> list[str] | None:
    """The tokens that name in `resource`, as the draft upgrade spelled it, what `tokens`
    name in an older spelling (`definitions/A` as `$defs/A`); None where they name nothing."""
    cur, out = resource, []
    for i in range(len(tokens)):
        step = _step(cur, tokens, i, True)
        if step is None:
            return None
        out.append(step[0])
        cur = step[1]
    return out


def _step(cur: Any, tokens: list[str], i: int, upgraded: bool) -> tuple[str, Any] | None:
    """(the token as spelled in `cur`, what it names) for `tokens[i]`, or None."""
    tok = tokens[i]
    if isinstance(cur, dict):
        if tok in cur:
            return tok, cur[tok]
        if not upgraded:
            return None
        if tok == "definitions" and "$defs" in cur:
            tok = "$defs"
        elif tok == "items" and "prefixItems" in cur and i + 1 < len(tokens) and array_index(tokens[i + 1]) is not None:
            tok = "prefixItems"
        elif tok == "additionalItems" and "prefixItems" in cur and "items" in cur:
            tok = "items"
        elif tok == "dependencies" and isinstance(cur.get("dependentSchemas"), dict):
            tok = "dependentSchemas"
        else:
            tok = _SNAKE.sub(lambda m: m.group(1).upper(), tok)
        return (tok, cur[tok]) if tok in cur else None
    if isinstance(cur, list):
        index = array_index(tok)
        if index is None or index >= len(cur):
            return None
        return tok, cur[index]
    return None


_SNAKE = re.compile(r"_([a-z])")


def escape(token: str) -> str:
    """RFC 6901 escaping of one reference token."""
    return token.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


# characters a JSON Pointer in a URI fragment keeps as they are (RFC 3986 fragment characters)
_FRAGMENT_SAFE = "~!$&'()*+,;=:@/"


def ref_token(name: str) -> str:
    """One pointer token as a `$ref` fragment spells it: RFC 6901-escaped, then
    percent-encoded as UTF-8; a lone surrogate a key may hold is encoded as written, so
    `decode_fragment` gives the same key back."""
    return quote(escape(name), safe=_FRAGMENT_SAFE, errors="surrogatepass")


def decode_fragment(text: str) -> str:
    """A URI fragment (or one token of it) percent-decoded: UTF-8, a lone surrogate
    encoded as written (see `ref_token`) taken back; other bytes that are no UTF-8
    become U+FFFD, as `urllib.parse.unquote` makes them."""
    if "%" not in text:
        return text
    try:
        return unquote(text, errors="surrogatepass")
    except UnicodeDecodeError:
        return unquote(text)


def pointer(tokens: Iterable[Any]) -> str:
    """The JSON Pointer of a path of keys and indices."""
    return "".join(f"/{escape(str(t))}" for t in tokens)


def pointer_of(chain: Any) -> str:
    """Turn a (parent_chain, token) linked chain into a JSON Pointer string."""
    tokens = []
    add = tokens.append
    while chain is not None:
        chain, token = chain
        token = str(token)
        if "~" in token or "/" in token:
            token = escape(token)
        add(token)
    if not tokens:
        return ""
    tokens.append("")
    tokens.reverse()
    return "/".join(tokens)


def is_schema_path(tokens: list[Any], last_is_keyword: bool = False) -> bool:
    """True if `tokens` (keys and indexes) lead from a schema through schema positions only.

    With `last_is_keyword` (a selector written `..name`), the final token must be a
    keyword, not a property name that happens to be spelled like one.
    """
    i = 0
    ended_on_keyword = True
    while i < len(tokens):
        kw = tokens[i]
        if kw in SUBSCHEMA:
            i += 1
            ended_on_keyword = True
            if kw == "items" and i < len(tokens) and isinstance(tokens[i], int):
                i += 1
        elif kw in SUBSCHEMA_MAP or kw in SUBSCHEMA_ARRAY:
            if i + 1 >= len(tokens):
                return False
            i += 2
            ended_on_keyword = kw in SUBSCHEMA_ARRAY
        else:
            return False
    return ended_on_keyword or not last_is_keyword
