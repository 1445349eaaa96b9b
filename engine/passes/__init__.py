"""The rule kinds: one small function per YAML `kind:`, registered in one table.

A node kind runs inside a shared tree walk, `pre` (top-down, before the node's
children are found) or `post` (bottom-up); a `tree` kind runs once on the whole
tree. A visit function takes (rule, node, run) and returns a replacement node or
None. Nothing here knows which provider it serves: the rule files say that.
"""

from __future__ import annotations

from typing import Any, Callable

import attrs


@attrs.frozen
class Opt:
    """One option of a rule kind, as a rule file may spell it."""

    type: str  # str | int | bool | keys | map | json | strlist | choice | typemap | regex | ranges
    default: Any = None
    required: bool = False
    choices: tuple[str, ...] = ()
    doc: str = ""


@attrs.frozen
class Kind:
    name: str
    fn: Callable[..., Any]
    order: str  # pre | post | tree
    options: dict[str, Opt]
    bools: bool = False
    doc: str = ""
    triggers: Any = None
    """Keywords without which a node is left alone (skipped, not visited): a set, the
    name of an option holding keywords, or a function of the options; None: every node."""
    acts_if: Any = None
    """A cheap test (Python source over `node`, a dict holding a trigger keyword) that is
    false wherever the kind would change nothing: the compiled walk calls the kind only
    where it holds. `{option}` names a rule option (a list reads as a set). A function of
    the options may return the source, or None for no test. None: always called. For a
    root-scoped tree kind, and a tree check, `node` is the root. It reads the node alone,
    and of the keywords in `UNREAD_TEXT` only whether they are there and their class,
    never their text: a compiled walk remembers the leaves on which no test held by the
    rest of their content (see `compiler`)."""

    phase: Any = None
    """When in a target it may run: prepare, resolve, rewrite, finish (check for
    checks), or a function of the options; None: any phase. A rule file that puts a
    rule before one of an earlier phase is refused."""
    reads: Any = "tree"
    """How far beyond its own node it looks (or a function of the options): `node` (its keywords and their literal
    values; it may move child schemas around without reading them), `children` (the
    keywords of its child schemas), `subtree`, or `tree` (anything, the root included).
    A compiled target fuses walks only where what a kind reads is already final."""
    creates: Any = True
    """It may make new subschemas (or put new ones in place of its children), which
    the walk then visits too (or a function of the options)."""
    adds: Any = None
    """Keywords it may add that the input did not have (a set, or a function of the
    options); `description` is always among them (spilled text). None: any keyword."""
    writes_bools: Any = True
    """Whether a keyword it adds may come to hold a boolean schema, or a list or map with
    one in it, where the input had none under that keyword (a closed tuple's `items:
    false`, a tuple's booleans moved into `items`), or a function of the options. False
    for a kind that writes only schemas of its own making, or moves values only under
    the keyword they stood under: its added keywords then bring no boolean census
    markers (see `added_keys`). A set of keywords says a boolean may come only under
    those (ensure-properties' `additionalProperties: true`, beside `properties: {}`). A
    mapping {added keyword: keyword} says a boolean comes under the added keyword only
    moved there from under the other (require-all's `anyOf: [<property>, {type: null}]`):
    its markers come only with the other's."""
    scope: str = "tree"
    """A tree kind that changes only the root (`root`), reading beyond it only through
    `reads_via` (at the root): where those are absent, a compiled target may run it
    as a visitor of the root inside a fused walk."""
    reads_via: Any = None
    """Keywords (or a function of the options) through which alone it reads beyond
    `reads_within`: where the input has none of them, it reads only that. None: any."""
    reads_within: str = "node"
    """What it reads where the input has none of its `reads_via` keywords."""
    census: Any = None
    """What in the input's census (`prepare.copy_input`: its keywords, `<bool>:K` where a
    boolean stands under K, `<list>:items` for a draft-07 tuple, `<past-double>` where an
    integer no double holds is; `<output>` in a structured output's run) gives it work: a
    set or a function of the options. None: its trigger keywords."""
    requires: Any = frozenset()
    """Census markers the input must hold, every one of them (somewhere, or added by an
    earlier rule), for it to have work anywhere, on top of `census`: inline-refs acts on
    a combiner's branch only where a `$ref` is there to inline. A set, or a function of
    the options."""
    fails: bool = True
    """It may find a schema unrepresentable (raise, through `Run.fail`); a kind that
    only rewrites never does."""
    mutates: bool = True
    """It may change the tree; a kind that only counts, and may refuse, does not. A
    strict target refused by such a rule before any rule that may change the tree has
    run hands its copy of the input to the sibling it fails open to (see `pipeline`)."""
    edits_told: bool = False
    """A tree kind that changes only the keywords of nodes it passes to `run.edited`, and
    makes no subschema (one it moves under another keyword or node keeps its content,
    checked already; one it removes leaves the tree): it may run after the node checks
    that a compiled target fuses into its last walk, which check each such node again
    (see `plans`)."""
    respells_defs: Any = None
    """A function of the options giving the keyword under which it leaves the root's
    definitions in the wire's own spelling (Vertex's `defs`), or None: `positions` knows
    no such keyword, so the checks walk each definition there beside the root (see
    `Target.wire_defs`). None: it leaves them where they were."""
    needs: Any = ()
    """Facts (see `facts.FACTS`) an earlier rule must have made: names, or a function of the options."""
    makes: Any = ()
    """Facts it makes: names, or a function of the options."""
    precedes: Any = ()
    """Facts no earlier rule may have made: what it reads would be gone (tuple-to-items
    reads a closed tuple's `items: false`, which a `boolean-schemas` rule respells)."""

    def trigger_keys(self, options: Any) -> frozenset | None:
        t = self.triggers
        if t is None:
            return None
        if isinstance(t, str):
            return frozenset(options[t])
        if callable(t):
            return frozenset(t(options))
        return frozenset(t)

    def fast_test(self, options: Any) -> str | None:
        test = self.acts_if
        return test(options) if callable(test) else test

    def creates_of(self, options: Any) -> bool:
        return bool(self.creates(options)) if callable(self.creates) else self.creates

    def reads_of(self, options: Any) -> str:
        return self.reads(options) if callable(self.reads) else self.reads

    def reads_through(self, options: Any) -> frozenset | None:
        via = self.reads_via(options) if callable(self.reads_via) else self.reads_via
        return None if via is None else frozenset(via)

    def required_keys(self, options: Any) -> frozenset:
        r = self.requires
        return frozenset(r(options) if callable(r) else r)

    def census_keys(self, options: Any) -> frozenset | None:
        if self.census is None:
            return self.trigger_keys(options)
        return frozenset(self.census(options) if callable(self.census) else self.census)

    def phase_of(self, options: Any) -> str | None:
        return self.phase(options) if callable(self.phase) else self.phase

    def bools_moved(self, options: Any) -> bool:
        """Whether the booleans it may write depend on the census (`writes_bools` is a mapping)."""
        return isinstance(self._writes_bools(options), dict)

    def _writes_bools(self, options: Any) -> Any:
        return self.writes_bools(options) if callable(self.writes_bools) else self.writes_bools

    def added_keys(self, options: Any, census: Any = None) -> frozenset | None:
        """The census markers the kind's writes may make: each keyword it adds, with its
        boolean markers where it may write booleans (`writes_bools`; for one it may move
        booleans into, where `census` holds the boolean markers of where they come from,
        or is not given), and the description it may spill into."""
        from ..positions import bool_markers, markers

        added = self.adds(options) if callable(self.adds) else self.adds
        if added is None:
            return None
        bools = self._writes_bools(options)

        def marked(k: str) -> Any:
            if not bools or k[:1] == "<":
                return (k,)
            if isinstance(bools, frozenset):
                return markers(k) if k in bools else (k,)
            source = bools.get(k) if isinstance(bools, dict) else None
            if source is not None and census is not None and bool_markers(source).isdisjoint(census):
                return (k,)
            return markers(k)

        return frozenset(m for k in added for m in marked(k)) | {"description"}

    def facts_needed(self, options: Any) -> tuple[str, ...]:
        return tuple(self.needs(options) if callable(self.needs) else self.needs)

    def facts_made(self, options: Any) -> tuple[str, ...]:
        return tuple(self.makes(options) if callable(self.makes) else self.makes)

    def facts_preceded(self, options: Any) -> tuple[str, ...]:
        return tuple(self.precedes(options) if callable(self.precedes) else self.precedes)


KINDS: dict[str, Kind] = {}
CHECKS: dict[str, Kind] = {}
# functions a kind's cheap test (`acts_if`) may call, by the name it calls them; like
# the tests, they read no text of the UNREAD_TEXT keywords
TEST_HELPERS: dict[str, Callable[..., Any]] = {}
# the annotations whose text no cheap test (nor trigger) reads (see `Kind.acts_if`)
UNREAD_TEXT = frozenset({"description", "title", "$comment"})


def test_helper(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Make a function callable from `acts_if` tests as `name`."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        TEST_HELPERS[name] = fn
        return fn

    return deco


_CONTRACT = ("phase", "reads", "scope", "reads_via", "reads_within", "creates", "adds", "writes_bools", "census", "requires", "fails", "mutates", "edits_told", "respells_defs", "needs", "makes", "precedes")
_READS = ("node", "children", "subtree", "tree")


def _register(table: dict[str, Kind], name: str, order: str, bools: bool, triggers: Any, acts_if: Any, contract: dict, options: dict[str, Opt]):
    reads = contract.get("reads", "tree")
    if not callable(reads) and reads not in _READS:
        raise ValueError(f"kind {name}: reads must be one of {_READS}")
    if contract.get("reads_within", "node") not in _READS:
        raise ValueError(f"kind {name}: reads_within must be one of {_READS}")
    if contract.get("mutates") is False and (contract.get("creates", True) or contract.get("adds") != ()):
        raise ValueError(f"kind {name}: a kind that mutates nothing creates nothing and adds nothing")

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        table[name] = Kind(name, fn, order, dict(options), bools, (fn.__doc__ or "").strip(), triggers, acts_if, **contract)
        return fn

    return deco


def _split(options: dict) -> tuple[dict, dict]:
    contract = {k: options.pop(k) for k in _CONTRACT if k in options}
    return contract, options


def kind(name: str, *, order: str = "post", bools: bool = False, triggers: Any = None, acts_if: Any = None, **fields: Any):
    """Register a rewrite kind under its YAML name: its options (`Opt`) and its contract
    (phase, reads, creates, adds, needs, makes; see `Kind`)."""
    contract, options = _split(fields)
    return _register(KINDS, name, order, bools, triggers, acts_if, contract, options)


def check(name: str, *, order: str = "post", triggers: Any = None, acts_if: Any = None, **fields: Any):
    """Register a residual check kind under its YAML name. A check changes nothing, so
    its contract is only what it reads (`node` unless it says otherwise)."""
    contract, options = _split(fields)
    contract = {"phase": "check", "reads": "node", "creates": False, "adds": (), **contract}
    return _register(CHECKS, name, order, False, triggers, acts_if, contract, options)


from ..positions import has_bool_child  # noqa: E402

TEST_HELPERS["_has_bool_child"] = has_bool_child

# importing the modules fills the tables
from . import checks, combiners, counts, cycles, defs, fixed, keys, literals, objects, patterns, prepare, refs, required, spelling, types, values  # noqa: E402,F401
