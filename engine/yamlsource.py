"""Read YAML rule files with `yaml.SafeLoader`, remembering where every value came from.

Only the safe constructors run (no tags, no code); the subclass adds line and column
marks so that a bad rule file can be reported as `file:line:column`.
"""

from __future__ import annotations

from typing import Any

import yaml


class MarkedDict(dict):
    """A mapping from a rule file, with the (line, column) of itself, of each key and of each value."""

    __slots__ = ("mark", "key_marks", "value_marks")


class MarkedList(list):
    __slots__ = ("mark", "item_marks")


class _MarkedLoader(yaml.SafeLoader):
    pass


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def empty_mapping() -> MarkedDict:
    """A MarkedDict for an empty document: everything in it is at 1:1."""
    out = MarkedDict()
    out.mark, out.key_marks, out.value_marks = (1, 1), {}, {}
    return out


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


def _refuse(loader: _MarkedLoader, node: yaml.Node) -> Any:
    # sets, bytes and ordered pairs are safe but not JSON; a kind must never receive one
    raise yaml.constructor.ConstructorError(
        None, None, f"tag {node.tag!r} is not allowed in a rule file (values must be JSON)", node.start_mark
    )


_MarkedLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_MarkedLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
_MarkedLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_text)
for _tag in ("set", "binary", "omap", "pairs"):
    _MarkedLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _refuse)


def load_marked(text: str) -> Any:
    """Parse YAML text into MarkedDict/MarkedList trees. Raises yaml.YAMLError."""
    return yaml.load(text, Loader=_MarkedLoader)  # noqa: S506 - a SafeLoader subclass


def mark_of(container: Any, key: Any = None, *, of_key: bool = False) -> tuple[int | None, int | None]:
    """The (line, column) of `container[key]` (of the key itself with `of_key`), or of the container."""
    if isinstance(container, MarkedDict):
        marks = container.key_marks if of_key else container.value_marks
        if key is not None and key in marks:
            return marks[key]
        return container.mark
    if isinstance(container, MarkedList):
        if isinstance(key, int) and 0 <= key < len(container.item_marks):
            return container.item_marks[key]
        return container.mark
    return None, None
