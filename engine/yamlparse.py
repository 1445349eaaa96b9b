"""Parse YAML rule files with `yaml.SafeLoader`, remembering where every value came from.

Only the safe constructors run (no tags, no code); the subclass adds line and column
marks so that a bad rule file can be reported as `file:line:column`. A rule file holds
JSON values only, and a hostile one must cost little: anchors and aliases, NaN and
infinities are refused, and nesting is bounded.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

from .yamlsource import _MAX_DEPTH, MarkedDict, MarkedList


class _MarkedLoader(yaml.SafeLoader):
    def __init__(self, stream: Any):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        # every node of the document is composed here, before it is constructed: refusing
        # at this point stops reading too, so a hostile file costs at most _MAX_DEPTH levels
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            # an alias is a copy once constructed: nine levels of nine aliases are 387 M values
            _refuse_at(event, "aliases (*name) are not allowed in a rule file: write the value out")
        if getattr(event, "anchor", None) is not None:
            _refuse_at(event, "anchors (&name) are not allowed in a rule file: write each value out")
        if self._depth >= _MAX_DEPTH:
            _refuse_at(event, f"nested more than {_MAX_DEPTH} levels deep")
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _refuse_at(event: yaml.Event, problem: str) -> None:
    raise yaml.composer.ComposerError(None, None, problem, event.start_mark)


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _construct_mapping(loader: _MarkedLoader, node: yaml.MappingNode) -> MarkedDict:
    loader.flatten_mapping(node)
    out = MarkedDict()
    out.mark = _mark(node)
    out.key_marks = {}
    out.value_marks = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str):
            raise yaml.constructor.ConstructorError(
                None, None, f"mapping keys must be strings, got {key!r}", key_node.start_mark
            )
        if key in out:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_marks[key] = _mark(key_node)
        out.value_marks[key] = _mark(value_node)
    return out


def _construct_sequence(loader: _MarkedLoader, node: yaml.SequenceNode) -> MarkedList:
    out = MarkedList(loader.construct_object(child, deep=True) for child in node.value)
    out.mark = _mark(node)
    out.item_marks = [_mark(child) for child in node.value]
    return out


def _construct_text(loader: _MarkedLoader, node: yaml.ScalarNode) -> str:
    # JSON has no dates: an unquoted 2024-01-01 in a rule file means that text
    return loader.construct_scalar(node)


def _construct_float(loader: _MarkedLoader, node: yaml.ScalarNode) -> float:
    value = loader.construct_yaml_float(node)
    if not math.isfinite(value):
        # .nan, .inf and 1.0e+999 are YAML floats but no JSON number: a fallback holding
        # one would be sent as a schema that is not JSON
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value!r} is not a JSON number (values must be JSON)", node.start_mark
        )
    return value


def _construct_int(loader: _MarkedLoader, node: yaml.ScalarNode) -> int:
    try:
        return loader.construct_yaml_int(node)
    except ValueError:
        # Python refuses to read an integer of more than 4300 digits (a ValueError)
        raise yaml.constructor.ConstructorError(
            None, None, f"an integer of {len(node.value)} characters is too long to read", node.start_mark
        ) from None


def _refuse(loader: _MarkedLoader, node: yaml.Node) -> Any:
    # sets, bytes and ordered pairs are safe but not JSON; a kind must never receive one
    raise yaml.constructor.ConstructorError(
        None, None, f"tag {node.tag!r} is not allowed in a rule file (values must be JSON)", node.start_mark
    )


# libyaml composes about ten times faster than PyYAML's Python parser, but where it
# cannot be watched: a text that could hold an anchor or alias, or nest deeply, is read by
# the Python loader above, which refuses those as it goes (and says where)
_FastBase: Any = getattr(yaml, "CSafeLoader", None)
_SUSPECT = re.compile(r"(?:^|[\s\[{,:-])[&*][^\s,\]}]|^ {200}|[\[{]{20}", re.MULTILINE)
_MAX_BRACKETS = 2000


class _FastMarkedLoader(_FastBase or yaml.SafeLoader):  # type: ignore[misc]
    pass


for _loader in (_MarkedLoader, _FastMarkedLoader):
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
    _loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_text)
    _loader.add_constructor("tag:yaml.org,2002:float", _construct_float)
    _loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
    for _tag in ("set", "binary", "omap", "pairs"):
        _loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _refuse)


def load_marked(text: str) -> Any:
    """Parse YAML text into MarkedDict/MarkedList trees. Raises yaml.YAMLError."""
    if _FastBase is None or _SUSPECT.search(text) or text.count("[") + text.count("{") > _MAX_BRACKETS:
        return yaml.load(text, Loader=_MarkedLoader)  # noqa: S506 - a SafeLoader subclass
    loader = _FastMarkedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _bounded(node)
        return loader.construct_document(node)
    except yaml.YAMLError:
        # a mistake: the Python loader names it (its messages and marks are the documented ones)
        return yaml.load(text, Loader=_MarkedLoader)  # noqa: S506 - a SafeLoader subclass
    finally:
        loader.dispose()


def _bounded(root: yaml.Node) -> None:
    """What the Python loader refuses while composing, checked on libyaml's node tree: a
    node met twice is an alias, and nesting is bounded."""
    seen: set[int] = set()
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            _refuse_node(node, "aliases (*name) are not allowed in a rule file: write the value out")
        seen.add(id(node))
        if depth > _MAX_DEPTH:
            _refuse_node(node, f"nested more than {_MAX_DEPTH} levels deep")
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((v, depth + 1) for v in node.value)


def _refuse_node(node: yaml.Node, problem: str) -> None:
    raise yaml.composer.ComposerError(None, None, problem, node.start_mark)
