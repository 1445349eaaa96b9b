"""Turn what the caller passed into a private, validated, budgeted JSON tree.

The caller's object is only read. Every JSON object of the copy remembers where it
came from (its origin chain), so that changes made later point into the input.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable

from .errors import SchemaInputError
from .costs import PLAIN, SAMPLE, plain_chars, priced_past
from .positions import HOLDS_LIST, HOLDS_MAP, NULL_AT, SUBSCHEMA, pointer_of
from .run import BudgetExceeded, Run

_SCALARS = (str, int, float, bool, type(None))


def parse_input(schema: Any, options: Any) -> Any:
    """JSON text (str or bytes) is parsed; pydantic models, dataclasses, TypedDicts and
    typed functions go through pydantic; anything else is taken as a Python JSON value."""
    from .native import is_native, to_schema  # here: a dict handed to normalize never comes this way

    if is_native(schema):
        return to_schema(schema)
    if is_json_text(schema):
        return read_json_text(schema, options, "schema")
    return schema


def is_json_text(value: Any) -> bool:
    """Text to read as JSON: a str, or bytes of any kind (UTF-8 expected)."""
    return isinstance(value, (str, bytes, bytearray, memoryview))


def read_json_text(text: Any, options: Any, what: str) -> Any:
    """The JSON value `text` (str or UTF-8 bytes) holds; `what` names it in an error."""
    if not isinstance(text, str):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SchemaInputError(f"{what} bytes are not UTF-8: {exc}") from None
    # a byte order mark before the text (what Windows editors save), which RFC 8259
    # lets a reader ignore and the command line's reader does: not JSON's to refuse
    if text.startswith("\ufeff"):
        text = text[1:]

    def _constant(name: str) -> float:
        if options.allow_nan:
            return float(name)
        raise SchemaInputError(f"{what} text contains {name}, which is not JSON")

    try:
        return json.loads(text, parse_constant=_constant)
    except SchemaInputError:
        raise
    except json.JSONDecodeError as exc:
        raise SchemaInputError(f"{what} text is not JSON: {exc}") from None
    except (ValueError, RecursionError):
        # the C decoder stops with no position on valid JSON past its reach (nesting
        # deeper than its stack, an integer of more digits than Python reads): said where
        from .jsonsource import diagnose

        stop = diagnose(text, 0, what)
        raise SchemaInputError(f"{what} text at line {stop.line}, column {stop.column}: {stop.message}") from None


def cycle_error(root: Any) -> SchemaInputError:
    """The error for a value that holds one of its own containers inside itself, naming
    the shortest way round the first cycle met: where the container is met again, and
    where it first was. Depth-first and iterative; a container finished without a cycle
    is not entered again, so a value sharing subtrees many times costs its distinct
    containers, not its paths."""
    on_path: dict[int, Any] = {}  # id of each container on the path -> its origin chain
    finished: set[int] = set()
    # (container, its chain, leaving): the container is on the path until it is left
    stack: list[tuple[Any, Any, bool]] = [(root, None, False)]
    while stack:
        node, chain, leaving = stack.pop()
        ident = id(node)
        if leaving:
            del on_path[ident]
            finished.add(ident)
            continue
        if ident in on_path:
            kind = "object" if node.__class__ is dict else "array"
            here, first = pointer_of(chain) or "/", pointer_of(on_path[ident]) or "/"
            return SchemaInputError(f"cyclic container: the {kind} at {here} is the {kind} at {first} again")
        if ident in finished:
            continue
        on_path[ident] = chain
        stack.append((node, chain, True))
        items = list(node.items() if node.__class__ is dict else enumerate(node))
        # the first child on top: the first cycle in document order is the one named
        stack.extend((v, (chain, k), False) for k, v in reversed(items) if isinstance(v, (dict, list)))
    return SchemaInputError("a cyclic container is not JSON")


def _on_path(root: Any, chain: Any, obj: Any) -> bool:
    """Whether `obj`, reached through `chain` from `root`, is one of the containers on
    its own path: a cycle (only asked once nesting passed the depth budget)."""
    keys = []
    while chain is not None:
        chain, key = chain
        keys.append(key)
    node = root
    for key in reversed(keys):
        if node is obj:
            return True
        node = node[key]
    return False


def copy_input(value: Any, run: Run) -> Any:
    """Validate and copy a JSON value iteratively, counting the budgets as it goes.

    Every object and array counts as a node, and so does every boolean subschema
    (`anyOf: [true, ...]`, `properties: {a: false}`): a schema made of booleans costs the
    walks after this as much as one made of `{}`. A subtree the input holds twice is
    copied, and counted, twice. An integer whose decimal form has more than 4,300 digits
    (more than Python prints, or reads from JSON text) is refused here, naming where.
    """
    opts = run.options
    if isinstance(value, _SCALARS):
        if value.__class__ is bool:
            run.census.add("<bool>:")  # the root itself
        plain = _scalar(value, None, opts)
        if plain.__class__ is str:
            run.literal += len(plain)
        return plain
    max_depth, max_nodes, max_literal = opts.max_depth, opts.max_nodes, opts.max_literal_bytes
    nodes, literal = run.nodes, run.literal
    holder: list[Any] = [None]
    # (source, destination container, key, origin chain, depth)
    stack: list[tuple[Any, Any, Any, Any, int]] = [(value, holder, 0, None, 1)]
    push = stack.append
    origins = run.origins
    # every keyword of the input, `<bool>:K` where a boolean is the value of K, `<in>:K`
    # where K holds a map or list with a boolean in it: what the compiled target reads to
    # know which rules can have work (see `plans`)
    census = run.census
    add = census.add
    planner = run.target.planner()
    watched, watched_bools, watched_nulls = planner.watched, planner.watched_bools, planner.watched_nulls
    try:
        while stack:
            src, dst, key, chain, depth = stack.pop()
            if depth > max_depth:
                if _on_path(value, chain, src):
                    raise cycle_error(value)
                raise BudgetExceeded("budget/depth", pointer_of(chain), f"nesting deeper than {max_depth}")
            nodes += 1
            if nodes > max_nodes:
                raise BudgetExceeded("budget/nodes", pointer_of(chain), f"more than {max_nodes} nodes")
            if isinstance(src, dict):
                out: dict[str, Any] = {}
                origins[id(out)] = (out, chain)
                if len(src) <= _WIDE:
                    census.update(src)
                else:
                    # a wide object's keys are property names, mostly: looking them up
                    # costs a fifth of putting 100,000 new names in the census
                    census.update(watched.intersection(src))
                for k, v in src.items():
                    # one test a key, which a key that is no string fails too (TypeError,
                    # below; bytes have an isascii of their own): a string's ASCII flag is
                    # kept by CPython, read at once
                    if not _isascii(k):
                        k = _key(k, src, chain, run)
                    cls = v.__class__
                    # the plain JSON scalars inline: most values are strings, ints or bools
                    if cls is str:
                        literal += len(k) + len(v)
                        out[k] = v if v.isascii() else _text(v, (chain, k), run)
                        continue
                    literal += len(k)
                    if cls is int:
                        # one test for both bounds: most ints are far inside them
                        if not -NO_DOUBLE < v < NO_DOUBLE:
                            if not -_TOO_LONG < v < _TOO_LONG:
                                raise _too_long((chain, k))
                            add(PAST_DOUBLE)
                        out[k] = v
                    elif v is None:
                        out[k] = v
                        if k in watched_nulls:
                            add(NULL_AT + k)  # a keyword written null, as a dumped SDK model writes one unset
                    elif cls is bool:
                        out[k] = v
                        if k in watched_bools:
                            add("<bool>:" + k)  # a boolean subschema (if k holds one) or a switch
                        held = chain[1] if chain is not None else None  # the keyword above this object
                        if held is not None and held not in SUBSCHEMA:
                            # one of a map of them (properties: {a: true}), under whatever name
                            add(f"<in>:{held}")
                        if held in HOLDS_MAP or k in SUBSCHEMA:
                            nodes += 1
                            if nodes > max_nodes:
                                raise BudgetExceeded("budget/nodes", pointer_of((chain, k)), f"more than {max_nodes} nodes")
                    elif cls is not dict and cls is not list and isinstance(v, _SCALARS):
                        out[k] = plain = _scalar(v, (chain, k), opts)
                        if past_double(plain):
                            add(PAST_DOUBLE)
                        if plain.__class__ is str:
                            literal += len(plain)
                            if not plain.isascii():
                                out[k] = _text(plain, (chain, k), run)
                    else:
                        out[k] = None
                        push((v, out, k, (chain, k), depth + 1))
                        # each entry waiting on the stack is one node when it is taken:
                        # a wide object stops at the budget, not after its last key
                        if nodes + len(stack) > max_nodes:
                            raise BudgetExceeded("budget/nodes", pointer_of((chain, k)), f"more than {max_nodes} nodes")
                        if k == "items" and cls is list:
                            add("<list>:items")  # a draft-07 tuple
            elif isinstance(src, list):
                # every item counts one character besides a string's own (a long list of
                # numbers, its JSON text: see `plain_chars`)
                literal += len(src)
                if literal > max_literal or (len(src) > SAMPLE and priced_past(src, max_literal - literal + len(src))):
                    raise BudgetExceeded("budget/literal", pointer_of(chain), f"more than {max_literal} characters")
                kinds = set(map(type, src))
                if kinds <= _TEXT:
                    # strings only (a required list, a string enum) or nothing: what
                    # the general branch below counts, without its calls
                    out = list(src)
                    origins[id(out)] = (out, chain)
                    literal += sum(map(len, out))
                    if not all(map(_isascii, out)):
                        _texts(out, chain, run)
                    if literal > max_literal:
                        raise BudgetExceeded("budget/literal", pointer_of(chain), f"more than {max_literal} characters")
                    dst[key] = out
                    continue
                branches = chain is not None and chain[1] in HOLDS_LIST
                if kinds <= PLAIN:
                    # plain scalars only (an enum, a required list): checked in bulk
                    out = list(src)
                    origins[id(out)] = (out, chain)
                    literal -= len(out)  # counted again with what its items cost
                    try:
                        literal += plain_chars(out, kinds)
                    except ValueError:  # an integer too long to print, which _bulk names
                        _bulk(out, kinds, chain, opts)
                        raise
                    if literal > max_literal:
                        raise BudgetExceeded("budget/literal", pointer_of(chain), f"more than {max_literal} characters")
                    # checked once priced within the budget: past it, a list costs what pricing it does
                    if _bulk(out, kinds, chain, opts):
                        add(PAST_DOUBLE)
                    if str in kinds:
                        _texts(out, chain, run)
                    if bool in kinds and chain is not None:
                        add(f"<in>:{chain[1]}")  # a boolean branch (anyOf: [true]), or a literal
                    if branches and bool in kinds:
                        nodes += len(out) if len(kinds) == 1 else sum(1 for v in out if v.__class__ is bool)
                        if nodes > max_nodes:
                            raise BudgetExceeded("budget/nodes", pointer_of(chain), f"more than {max_nodes} nodes")
                    dst[key] = out
                    if literal > max_literal:
                        raise BudgetExceeded("budget/literal", pointer_of(chain), f"more than {max_literal} characters")
                    continue
                out = [None] * len(src)
                origins[id(out)] = (out, chain)
                for i, v in enumerate(src):
                    if isinstance(v, _SCALARS):
                        out[i] = plain = v if v.__class__ is str else _scalar(v, (chain, i), opts)
                        if past_double(plain):
                            add(PAST_DOUBLE)
                        if plain.__class__ is str:
                            literal += len(plain)
                            if not plain.isascii():
                                out[i] = _text(plain, (chain, i), run)
                        if v.__class__ is bool and chain is not None:
                            add(f"<in>:{chain[1]}")  # a boolean branch (anyOf: [true]), or a literal
                        if branches and v.__class__ is bool:
                            nodes += 1
                            if nodes > max_nodes:
                                raise BudgetExceeded("budget/nodes", pointer_of((chain, i)), f"more than {max_nodes} nodes")
                    else:
                        push((v, out, i, (chain, i), depth + 1))
                        if nodes + len(stack) > max_nodes:
                            raise BudgetExceeded("budget/nodes", pointer_of((chain, i)), f"more than {max_nodes} nodes")
            else:
                raise _not_json(src, chain)
            dst[key] = out
            if literal > max_literal:
                raise BudgetExceeded("budget/literal", pointer_of(chain), f"more than {max_literal} characters")
    except TypeError:
        refusal = _no_string(src, chain)  # str.isascii took a key that is no string
        if refusal is None:
            raise
        raise refusal from None
    finally:
        run.nodes, run.literal = nodes, literal
    return holder[0]


_WIDE = 64  # keys past which an object's census is only the keys some plan reads
_TEXT = frozenset({str})
_isascii = str.isascii

# UTF-16 code units standing alone in a str: JSON text's "\ud83d" (half of a character a
# JavaScript slice cut in two) reads as one, and a str may hold a pair as two. No UTF-8
# text holds either, so the SDKs' HTTP clients fail to send them (httpx encodes the body
# as UTF-8) with no word of where
_SURROGATE = re.compile("[\ud800-\udfff]")
_TEXT_RULE = "input/text"


def _text(value: str, chain: Any, run: Run) -> str:
    """`value` (not all ASCII) as UTF-8 can carry it (see `_repaired`), reported."""
    fixed, said = mended_text(value)
    if said is not None:
        run.repairs.append((_TEXT_RULE, chain, "rewritten", said))
    return fixed


def _repaired(value: str) -> tuple[str, str]:
    """A surrogate pair held as two characters becomes the one it encodes; a lone
    surrogate becomes the six characters JSON text escapes it with (`\\ud83d`), so that
    distinct names and enum values stay distinct. And what was done, said."""
    joined = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    fixed = _SURROGATE.sub(_escape_unit, joined)
    lone = len(_SURROGATE.findall(joined))
    pairs = len(value) - len(joined)
    said = []
    if lone:
        said.append(f"{lone} lone surrogate{'s' if lone != 1 else ''} (half of a character, which no UTF-8 text holds) written as {'its' if lone == 1 else 'their'} JSON escape")
    if pairs:
        said.append(f"{pairs} surrogate pair{'s' if pairs != 1 else ''} held as two characters joined into the character each encodes")
    return fixed, "; ".join(said)


def _escape_unit(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04x}"


def mended_text(value: str, what: str = "") -> tuple[str, str | None]:
    """A string as UTF-8 can carry it (see `_repaired`), and what was done to it, said of
    `what` (a tool's description, say; None where nothing was)."""
    if value.isascii() or _SURROGATE.search(value) is None:
        return value, None
    fixed, said = _repaired(value)
    return fixed, f"{what + ' ' if what else ''}{_escaped(value)}: {said}"


def mended_tree(value: Any, skip: Any, opts: Any, *, budgeted: bool = True, apart: Any = frozenset()) -> list[str]:
    """Mend, in place, the strings of a JSON tree outside any schema (a tool's fields
    beside its schema) as `mended_text` mends one, keys included; what was done to each,
    said with its dotted path (a mended key's as it becomes). A value or key that is no
    JSON (a set, a float NaN without `allow_nan`) is a SchemaInputError naming where, as
    in a schema; a subclass of a scalar becomes its plain value. The paths in `skip`
    (tuples of keys) are left alone.

    The tree is held to a schema's budgets (`opts.max_depth`, `max_nodes`,
    `max_literal_bytes`): `value` is at depth 1, objects and arrays are nodes, keys and
    strings are characters, and so is each list item, as in `copy_input`; a container
    the tree holds in several places counts in each, as it would be sent. Past a budget
    is a SchemaInputError too, naming it and where: what goes to the wire (and through a
    caller's `json.dumps`) is bounded as a schema is. The time is linear in what is read
    before the walk stops, so the budgets bound it.

    Not `budgeted` (a request body: a conversation is no schema, and its nesting is the
    caller's to bound), no budget applies and each container is read once, however
    often the tree holds it, so the time is linear in the distinct containers; those
    whose ids are in `apart` (a request's schemas, judged already) are not read."""
    said: list[str] = []
    max_depth, max_nodes, max_literal = opts.max_depth, opts.max_nodes, opts.max_literal_bytes
    seen: set[int] | None = None
    if not budgeted:
        max_depth = max_nodes = max_literal = math.inf
        seen = set(apart)
    # only a path no longer than the longest in `skip` can be one: deeper keys are never
    # spelled out as a path, but where a report or an error names them
    reach = max(map(len, skip), default=0)
    nodes = literal = 0
    # (origin chain, depth, container): a chain (see `positions.pointer_of`) costs one
    # pair a level, where a tuple of keys rebuilt at each level costs the depth
    stack: list[tuple[Any, int, Any]] = [(None, 1, value)]
    while stack:
        chain, depth, node = stack.pop()
        if seen is not None:
            if id(node) in seen:
                continue
            seen.add(id(node))
        if depth > max_depth:
            if _on_path(value, chain, node):
                raise cycle_error(value)
            raise _past(f"nesting deeper than {max_depth:,}", "max_depth", chain)
        nodes += 1
        if node.__class__ is dict:
            if not all(k.__class__ is str and k.isascii() for k in node):
                _mend_keys(node, chain, depth <= reach and skip, said)
            entries: Any = list(node.items())
            literal += sum(map(len, node))
        else:
            entries = list(enumerate(node))
            literal += len(entries)  # one a list item, as copy_input counts
        for key, item in entries:
            here = (chain, key)
            if depth <= reach and _path(here) in skip:
                continue
            cls = item.__class__
            if cls is dict or cls is list:
                stack.append((here, depth + 1, item))
                continue
            if cls is not str:
                # the fields were copied, not judged (json_copy shares scalars): a value
                # that is no JSON would fail the request at send time, naming nothing
                item = node[key] = _field_scalar(item, here, opts)
                if item.__class__ is not str:
                    continue
            literal += len(item)
            if literal > max_literal:
                raise _past(f"more than {max_literal:,} characters", "max_literal_bytes", here)
            if not item.isascii():
                fixed, what = mended_text(item, "the text")
                if what is not None:
                    node[key] = fixed
                    said.append(f"{_dotted(_path(here))}: {what}")
        # each container waiting is a node when it is taken: a wide one stops here
        if nodes + len(stack) > max_nodes:
            raise _past(f"more than {max_nodes:,} objects and arrays", "max_nodes", chain)
        if literal > max_literal:
            raise _past(f"more than {max_literal:,} characters", "max_literal_bytes", chain)
    return said


def _past(what: str, budget: str, chain: Any) -> SchemaInputError:
    return SchemaInputError(f"{what} at {pointer_of(chain) or '/'} (Options.{budget}, a schema's budget)")


def _field_scalar(value: Any, chain: Any, opts: Any) -> Any:
    """`_scalar` for a value of `mended_tree`'s, or SchemaInputError where it is no JSON scalar."""
    if not isinstance(value, _SCALARS):
        raise _not_json(value, chain)
    return _scalar(value, chain, opts)


def _mend_keys(node: dict, chain: Any, skip: Any, said: list[str]) -> None:
    """`mended_tree`'s keys of one object, the object rebuilt in its order; a key that
    would then be another key of its object is refused, as a schema's is. `skip` is
    falsy where the object is too deep for any of its keys' paths to be in it."""
    rebuilt = {}
    for key, item in node.items():
        if key.__class__ is not str:
            raise _not_a_string(key, chain)
        if not key.isascii() and not (skip and _path((chain, key)) in skip):
            fixed, what = mended_text(key, "the key")
            if what is not None:
                if fixed in node:
                    raise _another_key(key, fixed, _dotted(_path(chain)))
                said.append(f"{_dotted(_path((chain, fixed)))}: {what}")
                key = fixed
        rebuilt[key] = item
    node.clear()
    node.update(rebuilt)


def _path(chain: Any) -> tuple:
    """The keys of an origin chain (see `positions.pointer_of`), from the root."""
    keys = []
    while chain is not None:
        chain, key = chain
        keys.append(key)
    return tuple(reversed(keys))


def _dotted(path: tuple) -> str:
    return ".".join(map(str, path))


def _texts(values: list, chain: Any, run: Run) -> None:
    """`_text` for the strings of a list copied in bulk, in place."""
    for i, v in enumerate(values):
        if v.__class__ is str and not v.isascii():
            values[i] = _text(v, (chain, i), run)


def _key(key: str, src: dict, chain: Any, run: Run) -> str:
    """A key that is not all ASCII, as UTF-8 can carry it (`_repaired`), reported at the
    key it becomes (a report is text too); one that would then be another key of its
    object is refused."""
    fixed, said = mended_text(key, "object key")
    if said is None:
        return key
    if fixed in src:
        raise _another_key(key, fixed, pointer_of(chain) or "/")
    run.repairs.append((_TEXT_RULE, (chain, fixed), "rewritten", said))
    return fixed


def _another_key(key: str, fixed: str, where: str) -> SchemaInputError:
    return SchemaInputError(
        f"object key {_escaped(key)} at {where} holds a surrogate, and written as UTF-8 "
        f"can carry it ({_escaped(fixed)}) it is another key of the same object"
    )


def _not_json(value: Any, chain: Any) -> SchemaInputError:
    from .native import tool_hint

    return SchemaInputError(f"{type(value).__name__} at {pointer_of(chain) or '/'} is not a JSON value{tool_hint(value)}")


def _no_string(src: Any, chain: Any) -> SchemaInputError | None:
    """The error naming an object's key that is no string, if it has one."""
    if isinstance(src, dict):
        for key in src:
            if not isinstance(key, str):
                return _not_a_string(key, chain)
    return None


def _not_a_string(key: Any, chain: Any) -> SchemaInputError:
    return SchemaInputError(f"object key {key!r} at {pointer_of(chain) or '/'} is not a string")


def _escaped(value: str, width: int = 60) -> str:
    """`value` quoted for a report, its surrogates written as escapes (the report is text too)."""
    cut = value if len(value) <= width else value[: width - 3] + "..."
    return '"' + cut.encode("utf-8", "backslashreplace").decode("utf-8") + '"'


def _bulk(values: list, kinds: set, chain: Any, opts: Any) -> bool:
    """Check a list of plain scalars as `_scalar` would, item by item only where one is
    refused; whether it holds an integer no double holds (see `PAST_DOUBLE`)."""
    only = len(kinds) == 1
    past = False
    if int in kinds:
        ints = values if only else [v for v in values if v.__class__ is int]
        low, high = min(ints), max(ints)
        if not (-NO_DOUBLE < low and high < NO_DOUBLE):
            if not (-_TOO_LONG < low and high < _TOO_LONG):
                _refuse(values, chain, opts)
            past = True
    if float in kinds and not opts.allow_nan:
        floats = values if only else [v for v in values if v.__class__ is float]
        if not all(map(math.isfinite, floats)):
            _refuse(values, chain, opts)
    return past


def past_double(value: Any) -> bool:
    """An integer no double holds (see `NO_DOUBLE`)."""
    return value.__class__ is int and not -NO_DOUBLE < value < NO_DOUBLE


def _refuse(values: list, chain: Any, opts: Any) -> None:
    for i, v in enumerate(values):
        _scalar(v, (chain, i), opts)


def _scalar(value: Any, chain: Any, opts: Any) -> Any:
    """The plain JSON scalar `value` stands for (a subclass of str or int as its plain
    value), or SchemaInputError where it is none."""
    cls = value.__class__
    if cls is str or cls is bool or value is None:
        return value
    if cls is int:
        if not -_TOO_LONG < value < _TOO_LONG:
            raise _too_long(chain)
        return value
    if cls is float:
        if not opts.allow_nan and not math.isfinite(value):
            # JSON text can say 1e400, which Python reads as infinity: say so, not only "inf"
            past = "" if value != value else " (a number past a float's range, such as 1e400, reads as infinity)"
            raise SchemaInputError(f"{value!r} at {pointer_of(chain) or '/'} is not JSON{past}")
        return value
    # subclasses of str/int/float (str enums, numpy-free int subclasses): keep the plain value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return _scalar(int(value), chain, opts)
    return _scalar(float(value), chain, opts)


# integers from 10**4300 on print with more than 4,300 digits: more than Python's
# int-to-str limit lets it print (so no output could carry them) or its JSON reader
# reads from text; refused on every interpreter alike, whatever its own setting
INT_DIGITS = 4_300
_TOO_LONG = 10**INT_DIGITS
# integers from 2**1024 - 2**970 on round to infinity as doubles: a protobuf Value (and
# any reader of numbers as doubles) refuses them ("int too large to convert to float").
# The copy marks the census where the input holds one, so a rule for them is planned
# only then (`requires`), and costs nothing on any other input
NO_DOUBLE = 2**1024 - 2**970
PAST_DOUBLE = "<past-double>"
# the census of a structured output's run (`Facts.output_root`) holds this marker: a rule
# for outputs alone is planned only there (`requires`), and costs a tool's run nothing
OUTPUT_ROOT = "<output>"


def _too_long(chain: Any) -> SchemaInputError:
    return SchemaInputError(
        f"integer at {pointer_of(chain) or '/'} has more than {INT_DIGITS:,} digits, more than JSON text read by Python may hold"
    )


def measure(value: Any, options: Any) -> BudgetExceeded | None:
    """The budget a JSON tree made by a run is past, counted as `copy_input` counts it,
    or None: an output within every budget can be normalized again without falling back.

    Objects and arrays and boolean subschemas are nodes, keys and strings are characters,
    depth starts at 1 at the root (a scalar root is none of these).
    """
    if value.__class__ is not dict and value.__class__ is not list:
        return None
    max_depth, max_nodes, max_literal = options.max_depth, options.max_nodes, options.max_literal_bytes
    nodes = literal = 0
    # (container, its depth, whether it is a list of subschemas or a map of them)
    stack: list[tuple[Any, int, bool]] = [(value, 1, False)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth, holds_schemas = pop()
        if depth > max_depth:
            return BudgetExceeded("budget/depth", "", f"the rewritten schema nests deeper than {max_depth}")
        nodes += 1
        below = depth + 1
        if node.__class__ is dict:
            for k, v in node.items():
                literal += len(k)
                cls = v.__class__
                if cls is str:
                    literal += len(v)
                elif cls is dict or cls is list:
                    push((v, below, k in HOLDS_MAP if cls is dict else k in HOLDS_LIST))
                elif cls is bool and (holds_schemas or k in SUBSCHEMA):
                    nodes += 1
        else:
            kinds = set(map(type, node))
            if kinds <= PLAIN:
                literal += plain_chars(node, kinds)
                if holds_schemas and bool in kinds:
                    nodes += sum(1 for v in node if v.__class__ is bool)
            else:
                literal += len(node)  # one per item, as copy_input counts
                for v in node:
                    cls = v.__class__
                    if cls is str:
                        literal += len(v)
                    elif cls is dict or cls is list:
                        push((v, below, False))
                    elif cls is bool and holds_schemas:
                        nodes += 1
        if nodes > max_nodes:
            return BudgetExceeded("budget/nodes", "", f"the rewritten schema has more than {max_nodes} nodes")
        if literal > max_literal:
            return BudgetExceeded("budget/literal", "", f"the rewritten schema has more than {max_literal} characters")
    return None


def copy_subtree(node: Any, run: Run, links: dict[int, Any] | None = None) -> Any:
    """Copy a prepared subtree (for `$ref` expansion), keeping origins, counting budgets
    as `copy_input` counts them.

    `links` maps id(node) of `$ref` nodes to what they resolve to; copies inherit it.
    """
    if not isinstance(node, (dict, list)):
        return node
    opts = run.options
    max_nodes, max_literal = opts.max_nodes, opts.max_literal_bytes
    origins = run.origins
    keyed = run.keyed
    # the changes made so far go along with the copy: where its source later leaves the
    # tree, they are still in the output (`Run.left_out`); none made, none to carry
    made = run.reported
    copied = run.copied if made else None
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(node, holder, 0)]
    nodes, literal = run.nodes, run.literal
    try:
        while stack:
            src, dst, key = stack.pop()
            nodes += 1
            if nodes > max_nodes:
                raise BudgetExceeded("budget/nodes", run.pointer(src), f"more than {max_nodes} nodes after $ref expansion")
            entry = origins.get(id(src))
            if src.__class__ is dict:
                out: Any = {}
                if copied is not None:
                    copies = copied.get(id(src))
                    if copies is None or copies[0] is not src:
                        copies = copied[id(src)] = (src, [])
                    copies[1].append((out, made))
                if links is not None and id(src) in links:
                    links[id(out)] = links[id(src)]
                in_map = key in HOLDS_MAP
                for k, v in src.items():
                    literal += len(k)
                    cls = v.__class__
                    if cls is dict or cls is list:
                        out[k] = None
                        stack.append((v, out, k))
                        continue
                    if cls is str:
                        literal += len(v)
                    elif cls is bool and (in_map or k in SUBSCHEMA):
                        nodes += 1
                    out[k] = v
            else:
                kinds = set(map(type, src))
                if kinds <= PLAIN:
                    out = list(src)
                    literal += plain_chars(src, kinds)
                    if key in HOLDS_LIST:
                        nodes += sum(1 for v in src if v.__class__ is bool)
                else:
                    literal += len(src)  # one per item, as copy_input counts
                    out = [None] * len(src)
                    branches = key in HOLDS_LIST
                    for i, v in enumerate(src):
                        cls = v.__class__
                        if cls is dict or cls is list:
                            stack.append((v, out, i))
                            continue
                        if cls is str:
                            literal += len(v)
                        elif cls is bool and branches:
                            nodes += 1
                        out[i] = v
            if entry is not None and entry[0] is src:
                origins[id(out)] = (out, entry[1])
            if keyed:
                moved = keyed.get(id(src))
                if moved is not None and moved[0] is src:
                    keyed[id(out)] = (out, dict(moved[1]))
            dst[key] = out
            if literal > max_literal:
                raise BudgetExceeded("budget/literal", run.pointer(src), f"more than {max_literal} characters after $ref expansion")
    finally:
        run.nodes, run.literal = nodes, literal
    if nodes > max_nodes:
        raise BudgetExceeded("budget/nodes", run.pointer(node), f"more than {max_nodes} nodes after $ref expansion")
    return holder[0]


def json_copy(value: Any, repeats: int = 32_768, *, objects: Callable[[Any], Any] | None = None) -> Any:
    """A deep copy of a JSON value, iterative (any depth), for the caller's tools and bodies.

    Only dicts and lists are copied; anything else is shared, as JSON scalars are
    immutable. With `objects`, a value of no JSON class held in a dict or list is
    copied as what `objects` makes of it (an SDK's object inside a request body, dumped
    as its SDK sends it). Cyclic containers are the caller's error: they raise
    SchemaInputError.
    A container the value holds more than once is copied each time, for the first
    `repeats` such copies; after that, further occurrences share one copy: a value
    whose levels each hold the one below twice is copied in time linear in its size,
    not in 2**depth (what reads it afterwards counts its nodes, shared or not).
    """
    if not isinstance(value, (dict, list)):
        return value
    holder: list[Any] = [None]
    # ids of the containers on the path from the root: a container met again while it is
    # still open is a cycle (a shared, closed one is merely copied twice)
    open_ids: set[int] = set()
    first: dict[int, Any] = {}  # id of a container copied -> its first copy
    stack: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while stack:
        src, dst, key = stack.pop()
        if dst is None:
            open_ids.discard(src)
            continue
        ident = id(src)
        if ident in open_ids:
            raise cycle_error(value)
        if ident in first:
            if repeats <= 0:
                dst[key] = first[ident]
                continue
            repeats -= 1
        open_ids.add(ident)
        stack.append((ident, None, None))
        if isinstance(src, dict):
            out: Any = {}
            for k, v in src.items():
                if objects is not None and v.__class__ not in _JSON_CLASSES:
                    v = objects(v)
                out[k] = v
                if isinstance(v, (dict, list)):
                    stack.append((v, out, k))
        else:
            out = list(src)
            for i, v in enumerate(src):
                if objects is not None and v.__class__ not in _JSON_CLASSES:
                    out[i] = v = objects(v)
                if isinstance(v, (dict, list)):
                    stack.append((v, out, i))
        first.setdefault(ident, out)
        dst[key] = out
    return holder[0]


_JSON_CLASSES = frozenset({dict, list, str, int, float, bool, type(None)})


def nested_past(value: Any, limit: int, apart: Any = frozenset()) -> str | None:
    """The pointer of the first container of `value` nested deeper than `limit` (the root
    at depth 1), or None: what a JSON encoder that recurses (Python's own) cannot write.
    The containers whose ids are in `apart`, and what they hold, are not entered (a
    request's schemas, whose own budgets bound them). Iterative; a container held more
    than once is entered again only where it is met deeper, so at most `limit` times."""
    if value.__class__ is not dict and value.__class__ is not list:
        return None
    deepest: dict[int, int] = {}
    stack: list[tuple[Any, Any, int]] = [(value, None, 1)]
    while stack:
        node, chain, depth = stack.pop()
        ident = id(node)
        if ident in apart or deepest.get(ident, 0) >= depth:
            continue
        if depth > limit:
            return pointer_of(chain) or "/"
        deepest[ident] = depth
        entries = node.items() if node.__class__ is dict else enumerate(node)
        stack.extend((v, (chain, k), depth + 1) for k, v in entries if v.__class__ is dict or v.__class__ is list)
    return None
