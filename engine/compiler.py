"""Compile walks of node rules into specialized functions (generated Python source).

The generic walk (`run.walk`) interprets a list of visitors at every node: per node and
per rule a trigger test, a selection test and a tuple of bookkeeping. A compiled walk
is the same traversal written out once for its rules, the way fastjsonschema writes
out a validator: each rule's trigger keywords and its kind's cheap test (`acts_if`)
become inline tests, its function and options are bound as constants, and the
children are found by one loop over the node's keys. It recurses, one Python frame per
schema level; the budgets bound the depth, and a tree deeper than `RECURSION_SAFE`
takes the iterative walk instead (see `pipeline`).

A walk has one or more variants (see `Variant`): the walk of one stage has one; a walk
that fuses several stages (see `plans`) has the full one, which applies every fused
stage to the nodes it finds, and one for the subschemas that post visitors make, which
only their own stage and the fused stages after it would have walked.

Semantics are the generic walk's, visitor for visitor: pre visitors top-down, post
visitors bottom-up, a replacement node seen by the visitors after it, booleans only for
kinds that take them, and subschemas a post visitor made walked too (nodes already
finished are not visited again).

A variant whose tests cost more than a leaf's signature remembers the leaves below the
root on which none held (see `_emit_variant`): most schemas of a tool are leaves of a
few shapes, a type and a description, and each shape is tested once per process.
"""

from __future__ import annotations

import marshal
import re
from importlib.util import MAGIC_NUMBER
from operator import itemgetter
from pathlib import Path
from types import CodeType
from typing import Any, Callable

import attrs

from . import bytecache
from .digests import sha256
from .passes import TEST_HELPERS, UNREAD_TEXT
from .positions import SLOT_KIND, SLOT_MAP, SLOT_SINGLE

# deeper trees than this (in nested JSON containers) take the iterative walk: a compiled
# walk uses about one frame per level, kinds a few more
RECURSION_SAFE = 200

_INLINE_KEYS = 3  # trigger sets up to this size are tested key by key (`in`), larger ones by isdisjoint
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
_QUIET_MAX = 4096  # leaf signatures a walk's variant remembers (see `_emit_variant`)
_MEMO_FROM = 11  # what testing a leaf costs (see `_leaf_cost`) from which a variant remembers quiet ones
_SCALARS = frozenset({str, int, float, bool, type(None)})
_KEY_TUPLES_MAX = 4096  # leaves' key tuples whose value readers are kept (see `_LeafValues`)


class _LeafValues(dict):
    """Per tuple of a leaf's keys, the function that reads the values of those a cheap
    test may read (all but `UNREAD_TEXT`): a leaf's signature, with its keys and classes."""

    def __missing__(self, keys: tuple) -> Callable[[dict], Any]:
        read = [k for k in keys if k not in UNREAD_TEXT]
        getter = itemgetter(*read) if read else _no_values
        if len(self) < _KEY_TUPLES_MAX:
            self[keys] = getter
        return getter


def _no_values(node: dict) -> tuple:
    return ()


_LEAF_VALUES = _LeafValues()


@attrs.frozen
class Visitor:
    """One rule as a walk calls it."""

    rule: Any
    fn: Callable[..., Any]
    bools: bool  # sees boolean schemas too
    triggers: frozenset | None  # None: every node
    fast: str | None  # the kind's cheap test for this rule's options
    creates: bool = True  # its kind may make new subschemas (see `Kind.creates`)
    selected: int | None = None  # index into the walk's `where:` selections (None: no selector)
    not_root: bool = False  # skipped at the root (fused checks: the root is checked after the tree stages)
    root_only: bool = False  # runs at the root alone (a root-scoped tree stage, see `plans`)


@attrs.frozen
class Variant:
    """A visit function: its visitors, and which variant visits its children and the
    subschemas its post visitors make."""

    name: str
    pre: tuple[Visitor, ...]
    post: tuple[Visitor, ...]
    children: str | None  # variant that visits the node's children (None: the node alone)
    fresh: str | None  # variant that visits subschemas the post visitors made


class _Source:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.consts: dict[str, Any] = {}
        # per variant that remembers quiet leaves: its set's name, and whether a quiet
        # leaf is marked finished (see `_emit_variant`)
        self.quiet: dict[str, tuple[str, bool]] = {}

    def const(self, prefix: str, value: Any) -> str:
        name = f"{prefix}{len(self.consts)}"
        self.consts[name] = value
        return name

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)


def _bind(src: _Source, test: str, options: Any) -> str:
    """A kind's cheap test with each `{option}` replaced by a constant holding its value."""

    def const(m: re.Match) -> str:
        value = options[m.group(1)]
        if isinstance(value, (list, tuple)):
            value = frozenset(value)
        return src.const("O", value)

    return _PLACEHOLDER.sub(const, test)


def _keys_test(src: _Source, keys: frozenset | None) -> str:
    """Source of the test that the dict `node` has one of `keys` (None: any node)."""
    if keys is None:
        return "True"
    if not keys:
        return "False"
    if len(keys) <= _INLINE_KEYS:
        return " or ".join(f"{k!r} in node" for k in sorted(keys))
    return f"not {src.const('T', keys)}.isdisjoint(node)"


def _union(visitors: tuple[Visitor, ...]) -> frozenset | None:
    """The keywords that wake some visitor up, or None where a test would not pay: a
    visitor wakes on every node, or one wakes on `type`, which nearly every node has."""
    keys: set[str] = set()
    for v in visitors:
        if v.triggers is None or "type" in v.triggers:
            return None
        keys |= v.triggers
    return frozenset(keys)


def _emit_calls(src: _Source, indent: int, visitors: tuple[Visitor, ...], sets_called: bool, memo: bool) -> None:
    # `d` says whether `node` is a dict; set again only where a visitor replaced it
    src.emit(indent, "d = node.__class__ is _dict")
    for v in visitors:
        test = _keys_test(src, v.triggers)
        if v.fast:
            test = f"({test}) and ({_bind(src, v.fast, v.rule.options)})"
        guard = f"d and ({test})" if test != "True" else "d"
        if v.bools:
            guard = f"({guard}) or node.__class__ is _bool"
        selected = f"_id(node) in sel[{v.selected}]" if v.selected is not None else None
        if selected is not None and not memo:
            guard = f"({guard}) and {selected}"
        if v.not_root:
            guard = f"kw is not None and ({guard})"
        if v.root_only:
            guard = f"kw is None and container is run.holder and ({guard})"
        src.emit(indent, f"if {guard}:")
        body = indent + 1
        if memo:
            # what the node holds passed a test: no leaf of this signature is quiet, even
            # where the rule's selector did not pick this one
            src.emit(body, "fired = True")
            if selected is not None:
                src.emit(body, f"if {selected}:")
                body += 1
        if sets_called and v.creates:
            src.emit(body, "called = True")
        # where the visited node is, set only for a call (most tests fail: no store at all)
        src.emit(body, "run.at = chain")
        src.emit(body, "run.slot = kw")
        src.emit(body, f"new = {src.const('F', v.fn)}({src.const('R', v.rule)}, node, run)")
        src.emit(body, "if new is not None:")
        src.emit(body + 1, "container[key] = node = new")
        src.emit(body + 1, "d = node.__class__ is _dict")


def _emit_post(src: _Source, indent: int, var: Variant, bools: bool, memo: bool) -> None:
    """The post visitors on `node` (at `container[key]`), then the subschemas they made."""
    src.emit(indent, "called = False")
    test = _keys_test(src, _union(var.post))
    src.emit(indent, f"if {'node.__class__ is _bool or ' if bools else ''}(node.__class__ is _dict and ({test})):")
    _emit_calls(src, indent + 1, var.post, True, memo)
    src.emit(indent, "done[_id(node)] = node")
    # only a visitor that ran can have made new subschemas: they are walked too
    src.emit(indent, "if called and node.__class__ is _dict and not _child_keys.isdisjoint(node):")
    src.emit(indent + 1, f"children_{var.fresh}(node, chain, depth)")


def _emit_variant(src: _Source, var: Variant, bools: bool) -> None:
    n, pre, post = var.name, var.pre, var.post
    src.emit(2, f"def visit_{n}(container, key, chain, depth, kw, sig):")
    src.emit(3, "node = container[key]")
    src.emit(3, "cls = node.__class__")
    src.emit(3, "if cls is not _dict and cls is not _bool:" if bools else "if cls is not _dict:")
    src.emit(4, "return")
    # Memo of quiet leaves: a leaf below the root (most schemas are: a type and a
    # description) on which no visitor's test held is remembered by its signature (its
    # keys, its values' classes, the values a test may read); a leaf of a signature
    # remembered is finished without a test. The tests read nothing else of a node
    # below the root (`Kind.acts_if`), so they would not hold on it either. The set is
    # the walk's, shared by the threads that run it: only what holds in any run is
    # added. Where a variant has few visitors, testing them costs no more than the
    # signature. The signature is made where the leaf is met, in its parent's loop (see
    # `_emit_visit`): a quiet leaf then costs no call, and a new one comes in as `sig`.
    memo = sum(_leaf_cost(v) for v in pre + post if not v.root_only) >= _MEMO_FROM
    remember = None
    if memo:
        quiet = src.const("Q", set())
        src.quiet[n] = (quiet, var.children is not None)
        src.emit(3, "fired = False")
        remember = (f"if sig is not None and not fired and len({quiet}) < {_QUIET_MAX}:", f"{quiet}.add(sig)")
    if pre:
        src.emit(3, f"if {'cls is _bool or ' if bools else ''}({_keys_test(src, _union(pre))}):")
        _emit_calls(src, 4, pre, False, memo)
        src.emit(4, "if node.__class__ is not _dict:")
        # a boolean (or a node replaced by one) still gets its post visitors
        if post and bools:
            src.emit(5, f"post_{n}(container, key, chain, depth, kw)")
        src.emit(5, "return")
    elif post and bools:
        src.emit(3, "if cls is _bool:")
        src.emit(4, f"post_{n}(container, key, chain, depth, kw)")
        src.emit(4, "return")
    if var.children is None:
        _emit_remember(src, remember)
        return  # one node: no children, no post visitors
    if not post:
        src.emit(3, "done[_id(node)] = node")
    src.emit(3, "if not _child_keys.isdisjoint(node):")
    src.emit(4, f"children_{var.children}(node, chain, depth)")
    if post:
        # the post visitors inline (a call less per node); booleans take post_<name>
        src.emit(3, "node = container[key]")
        _emit_post(src, 3, var, bools, memo)
    _emit_remember(src, remember)
    if post and bools:
        src.emit(2, f"def post_{n}(container, key, chain, depth, kw):")
        src.emit(3, "node = container[key]")
        _emit_post(src, 3, var, bools, False)


def _leaf_cost(v: Visitor) -> int:
    """What a visitor's test costs on a typical leaf, in inline tests: a call of a test
    helper (a loop over the node, say) where its trigger is one most leaves have costs
    about five."""
    reaches_leaves = v.triggers is None or "type" in v.triggers
    calls = v.fast is not None and any(f"{name}(" in v.fast for name in TEST_HELPERS)
    return 5 if reaches_leaves and calls else 1


def _emit_remember(src: _Source, remember: tuple[str, str] | None) -> None:
    """A leaf on which no test held is remembered as quiet (see `_emit_variant`)."""
    if remember is not None:
        src.emit(3, remember[0])
        src.emit(4, remember[1])


def _emit_children(src: _Source, name: str, bools: bool) -> None:
    """`children_<name>(node, chain, depth)`: `node`'s child schemas in document order
    through `visit_<name>`, finished ones skipped (booleans only when some visitor takes them)."""
    visit = f"visit_{name}"
    src.emit(2, f"def children_{name}(node, chain, depth):")
    src.emit(3, "for ckw, value in list(node.items()):")
    src.emit(4, "slot = _slots(ckw)")
    src.emit(4, "if slot is None:")
    src.emit(5, "continue")
    src.emit(4, "vcls = value.__class__")
    src.emit(4, f"if slot == {SLOT_SINGLE}:")
    quiet = src.quiet.get(name)
    _emit_visit(src, 5, "vcls", "value", f"{visit}(node, ckw, (chain, ckw), depth + 1, ckw, {{sig}})", bools, quiet)
    src.emit(5, "elif ckw == 'items' and vcls is _list:")
    src.emit(6, f"items_{name}(value, (chain, ckw), depth, ckw)")
    src.emit(4, f"elif slot == {SLOT_MAP}:")
    src.emit(5, "if vcls is _dict:")
    src.emit(6, "here = (chain, ckw)")
    src.emit(6, "for name, sub in list(value.items()):")
    _emit_visit(src, 7, "sub.__class__", "sub", f"{visit}(value, name, (here, name), depth + 2, ckw, {{sig}})", bools, quiet)
    src.emit(4, "elif vcls is _list:")
    src.emit(5, f"items_{name}(value, (chain, ckw), depth, ckw)")
    src.emit(2, f"def items_{name}(value, here, depth, ckw):")
    src.emit(3, "for i, sub in enumerate(list(value)):")
    _emit_visit(src, 4, "sub.__class__", "sub", f"{visit}(value, i, (here, i), depth + 2, ckw, {{sig}})", bools, quiet)


def _emit_visit(src: _Source, level: int, cls: str, child: str, call: str, bools: bool,
                quiet: tuple[str, bool] | None) -> None:
    """Visit one child: a schema object not finished yet, or a boolean schema; where the
    variant remembers quiet leaves, a leaf of a remembered signature is finished here,
    without a call (`call` has a `{sig}` for the signature made)."""
    src.emit(level, f"if {cls} is _dict:")
    src.emit(level + 1, f"if _id({child}) not in done:")
    if quiet is None:
        src.emit(level + 2, call.format(sig="None"))
    else:
        at = level + 2
        src.emit(at, "sig = None")
        src.emit(at, f"if _child_keys.isdisjoint({child}):")
        src.emit(at + 1, f"classes = tuple(map(_type, {child}.values()))")
        src.emit(at + 1, "if _scalars.issuperset(classes):")
        src.emit(at + 2, f"sig = ((keys := tuple({child})), classes, _leaf_values[keys]({child}))")
        src.emit(at, f"if sig is None or sig not in {quiet[0]}:")
        src.emit(at + 1, call.format(sig="sig"))
        if quiet[1]:
            src.emit(at, "else:")
            src.emit(at + 1, f"done[_id({child})] = {child}")
    if bools:
        src.emit(level, f"elif {cls} is _bool:")
        src.emit(level + 1, call.format(sig="None"))


def root_test(rule: Any) -> Callable[[Any], bool] | None:
    """A tree rule's cheap test (`Kind.acts_if`) as a function of the root, or None where
    its kind has none: false only where the rule would change (or find) nothing."""
    if rule.fast is None:
        return None
    src = _Source()
    text = _bind(src, rule.fast, rule.options)
    namespace: dict[str, Any] = {**TEST_HELPERS, "_dict": dict, "_bool": bool, **src.consts}
    return eval(f"lambda node: node.__class__ is not _dict or bool({text})", namespace)  # noqa: S307 - our own source


def compile_variants(variants: tuple[Variant, ...], label: str) -> Callable[..., None]:
    """A function `walk(run, sel, beside=())` visiting the tree from the root with
    `variants[0]`, then each `(container, key, chain)` of `beside` as a child of the root
    under `$defs` (a definition in a spelling of the wire's own, see `Target.wire_defs`).

    `sel` holds, per selector index, the ids of the nodes that rule's `where:` picked in
    this tree.
    """
    bools = any(v.bools for var in variants for v in var.pre + var.post)
    src = _Source()
    src.emit(0, "def make():")
    src.emit(1, "def walk(run, sel, beside=()):")
    src.emit(2, "done = {}")
    # closures calling each other: visit -> children -> visit ...
    for var in variants:
        _emit_variant(src, var, bools)
    for name in dict.fromkeys(x for var in variants for x in (var.children, var.fresh) if x is not None):
        _emit_children(src, name, bools)
    # the closures hold each other (and the run) through their cells: a cycle that would
    # leave every run's tree and origins to the garbage collector. Unbound once the walk
    # ends, they are freed at once, by reference counting
    inner = "    " * 2 + "def "  # the functions `walk` defines
    closures = [line[len(inner):].split("(", 1)[0] for line in src.lines if line.startswith(inner)]
    src.emit(2, "try:")
    src.emit(3, f"visit_{variants[0].name}(run.holder, 0, None, 0, None, None)")
    src.emit(3, "for container, key, chain in beside:")
    src.emit(4, f"visit_{variants[0].name}(container, key, chain, 2, '$defs', None)")
    src.emit(2, "finally:")
    src.emit(3, " = ".join(closures) + " = None")
    src.emit(1, "return walk")
    text = "\n".join(src.lines)
    namespace: dict[str, Any] = {
        **TEST_HELPERS,
        "_dict": dict,
        "_bool": bool,
        "_list": list,
        "_id": id,
        "_slots": SLOT_KIND.get,
        "_child_keys": frozenset(SLOT_KIND),
        "_type": type,
        "_scalars": _SCALARS,
        "_leaf_values": _LEAF_VALUES,
        **src.consts,
    }
    exec(_code(text, f"<wireschema walk {label}>"), namespace)
    fn = namespace["make"]()
    fn.source = text  # read a compiled walk when debugging: print(fn.source)
    return fn


# A walk's code is kept like bytecode (see `bytecache`), under the digest of its source:
# compiling one takes a few milliseconds, and a fresh process meets a dozen to a hundred
# of them per target over a varied set of schemas. The header names the bytecode
# version (`MAGIC_NUMBER`), as a .pyc does.
_WALK_HEADER = b"wireschema-walk\0" + MAGIC_NUMBER + bytes((marshal.version,))
_WALKS_DIR = Path(__file__).parent


def _code(text: str, filename: str) -> Any:
    """The code object of a walk's source, from its cache if one was made from this very
    source (and file name, which tracebacks show), else compiled and cached."""
    digest = sha256(f"{filename}\0{text}".encode()).digest()
    where = bytecache.cache_path(_WALKS_DIR / f"walk-{digest.hex()}", "walk")
    if where is not None:
        code = bytecache.load(where, _WALK_HEADER, digest)
        if code.__class__ is CodeType:
            return code
    code = compile(text, filename, "exec")
    if where is not None:
        bytecache.write(where, _WALK_HEADER, digest, lambda: marshal.dumps(code))
    return code
