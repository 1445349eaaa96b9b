"""Kinds and checks about `required`: never without the properties it names, and (at a tool's root) never empty."""

from __future__ import annotations

from . import check, kind

# `required` names something, and `properties` lists nothing (or is absent)
_BARE = "node['required'].__class__ is list and not node.get('properties')"


@kind("list-required", fails=False, reads="node", creates=True, adds={"properties"}, writes_bools=False,
      triggers={"required"}, acts_if=_BARE)
def list_required(rule, node, run):
    """`required` never stands without `properties`: each name it lists becomes a
    property taking any value, which the schema already let that member hold; an empty
    `required` says nothing and is removed."""
    req, props = node["required"], node.get("properties")
    if not isinstance(req, list) or (props and isinstance(props, dict)):
        return
    names = list(dict.fromkeys(n for n in req if isinstance(n, str)))
    if not names:
        del node["required"]
        run.report(rule, node, "dropped", "an empty required removed", "required")
        return
    if not isinstance(props, dict):
        props = node["properties"] = {}
    at = (run.chain_of(node), "properties")
    for name in names:
        props[name] = run.made({}, (at, name))
    run.report(rule, node, "rewritten", f"required {', '.join(names)} listed as properties taking any value", "properties")


@check("required-with-properties", triggers={"required"}, acts_if=_BARE)
def required_with_properties(rule, node, run):
    """`required` stands only beside `properties` that list something."""
    if isinstance(node.get("required"), list) and not node.get("properties"):
        run.fail(rule, node, "'required' present but 'properties' is missing", "required")


@check("root-requires", reads="tree", order="tree", scope="root")
def root_requires(rule, run):
    """A root that lists properties requires at least one of them (a tool taking no
    parameters, a fallback's, has none to require)."""
    root = run.root
    req = root.get("required") if isinstance(root, dict) else None
    if isinstance(root, dict) and root.get("properties") and not (isinstance(req, list) and any(isinstance(n, str) for n in req)):
        run.fail(rule, root, "no parameter is required", "required")
