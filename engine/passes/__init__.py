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

    type: str  # str | int | bool | keys | map | json | strlist | choice | typemap | regex
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

    def trigger_keys(self, options: Any) -> frozenset | None:
        t = self.triggers
        if t is None:
            return None
        if isinstance(t, str):
            return frozenset(options[t])
        if callable(t):
            return frozenset(t(options))
        return frozenset(t)


KINDS: dict[str, Kind] = {}
CHECKS: dict[str, Kind] = {}


def _register(table: dict[str, Kind], name: str, order: str, bools: bool, triggers: Any, options: dict[str, Opt]):
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        table[name] = Kind(name, fn, order, dict(options), bools, (fn.__doc__ or "").strip(), triggers)
        return fn

    return deco


def kind(name: str, *, order: str = "post", bools: bool = False, triggers: Any = None, **options: Opt):
    """Register a rewrite kind under its YAML name."""
    return _register(KINDS, name, order, bools, triggers, options)


def check(name: str, *, order: str = "post", triggers: Any = None, **options: Opt):
    """Register a residual check kind under its YAML name."""
    return _register(CHECKS, name, order, False, triggers, options)


# importing the modules fills the tables
from . import checks, combiners, counts, cycles, defs, keys, literals, objects, patterns, prepare, refs, spelling, types, values  # noqa: E402,F401
