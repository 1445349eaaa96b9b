"""What kinds tell each other during one run, as typed fields rather than string keys.

A kind that makes a fact says so in its contract (`Kind.makes`), one that reads a fact
says it needs it (`Kind.needs`); a rule file that puts the reader before the maker is
refused when it compiles (see `ruletable`), naming the rule that is missing.
"""

from __future__ import annotations

from typing import Any, Iterator

import attrs

# fact name -> the rule that makes it, as a refusal names it
FACTS: dict[str, str] = {
    "references": "the input's copy (always there)",
    "refs-resolved": "a `resolve-refs` rule",
    "nullable-removed": "a `nullable` rule with `style: remove`",
    "nulled-optionals": "a `require-all` rule",
    "paired-maps": "a `map-to-pairs` rule",
    "bools-respelled": "a `boolean-schemas` rule (boolean subschemas become objects)",
}
# made by the engine itself, before any rule runs
ENGINE_FACTS = frozenset({"references"})


class NodeSet:
    """A set of schema nodes by identity: two equal nodes are two members."""

    __slots__ = ("_nodes",)

    def __init__(self) -> None:
        self._nodes: dict[int, Any] = {}  # id -> node, kept alive so the id stays its own

    def add(self, node: Any) -> None:
        self._nodes[id(node)] = node

    def __contains__(self, node: Any) -> bool:
        return self._nodes.get(id(node)) is node

    def __bool__(self) -> bool:
        return bool(self._nodes)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._nodes.values())


# not frozen: one is made per run, and a frozen class's __init__ sets each field through
# object.__setattr__ (about 40% dearer, a few microseconds a call); slots keep the fields
# fixed, and nothing assigns one after __init__
@attrs.define
class Facts:
    """The facts of one run. The fields are fixed; their contents grow as kinds make them."""

    references: bool = False
    """The input holds `$ref`, `$defs`, `$id`, ... somewhere (the copy saw them, or a
    `spell-refs` rule read them from a wire's own spelling)."""
    output_root: bool = False
    """The root is a structured output's (`normalize_output`), not a tool's parameters: a
    root object naming no properties is then any object, open on purpose as a nested
    free-form object is, not a tool that takes no arguments."""
    nullable_removed: NodeSet = attrs.Factory(NodeSet)
    """Nodes whose null a `nullable` rule with `style: remove` took out."""
    nulled_optionals: list[str] = attrs.Factory(list)
    """Pointers of optional properties a `require-all` rule made "required, or null"."""
    paired_maps: list[str] = attrs.Factory(list)
    """Pointers of maps a `map-to-pairs` rule made lists of `{key, value}` pairs."""
    spilled: dict[str, str] = attrs.Factory(dict)
    """Of each description a spill wrote, the spilled text in it: a description that wins
    over it (beside a `$ref`, of a folded branch) keeps that text (`Run.carry_spilled`)."""
    unprepared: list[Any] = attrs.Factory(list)
    """Subschemas `resolve-refs` brought in from outside schema positions, which the walks
    before it never saw: they are walked again."""
