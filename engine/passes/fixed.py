"""Properties that carry no choice: their only value is their default."""

from __future__ import annotations

from ..silence import fixed_value
from . import kind


@kind(
    "require-fixed", fails=False, reads="children", creates=False, adds={"required"}, order="pre",
    triggers={"properties"},
    acts_if="node['properties'].__class__ is dict",
)
def require_fixed(rule, node, run):
    """An optional property whose only value is its default becomes required.

    It carries no choice: sending it costs the model nothing, and a wire that makes
    optional properties "T or null" would otherwise admit null for it (a discriminated
    union's tag). `restore` puts the value back where a model left it out.
    """
    props, req = node["properties"], node.get("required")
    if props.__class__ is not dict:
        return  # a properties keyword that is no map names no property
    required = [n for n in req if isinstance(n, str)] if isinstance(req, list) else []
    fixed = [n for n, sub in props.items() if n not in required and fixed_value(sub)[0]]
    if not fixed or (req is not None and not isinstance(req, list)):
        return
    node["required"] = [*(req or ()), *fixed]
    run.report(rule, node, "rewritten", f"{', '.join(fixed)} now required: its only value is its default", "required")
