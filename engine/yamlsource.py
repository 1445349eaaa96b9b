"""Rule files as trees that remember where every value came from, read once per content.

`load_marked` parses YAML text into MarkedDict/MarkedList trees with line and column
marks, so that a bad rule file can be reported as `file:line:column` (the parser itself,
and `yaml`, live in `yamlparse` and are imported only when a text has to be parsed).

`load_file` keeps each parsed tree in a cache beside the file, the way Python keeps
bytecode (see `bytecache`): `__pycache__/<file name>.<cache tag>.rules` (or under
`sys.pycache_prefix`), holding a `marshal` encoding of the tree, marks included. The
cache is keyed by the digest of the file's bytes, so an edited file is parsed again and
its cache rewritten; a cache that is missing, stale, truncated or corrupt is ignored,
one that cannot be written (a read-only folder, `sys.dont_write_bytecode`) is not
written, and either way the tree is the one `load_marked` gives.
"""

from __future__ import annotations

import marshal
from pathlib import Path
from typing import Any

from . import bytecache
from .digests import sha256


class MarkedDict(dict):
    """A mapping from a rule file, with the (line, column) of itself, of each key and of each value."""

    __slots__ = ("mark", "key_marks", "value_marks")


class MarkedList(list):
    __slots__ = ("mark", "item_marks")


# deeper than any real rule file (a rule's JSON Schema option included), and shallow
# enough that composing and constructing (both recursive in PyYAML) stay far from the
# interpreter's recursion limit
_MAX_DEPTH = 100


def empty_mapping() -> MarkedDict:
    """A MarkedDict for an empty document: everything in it is at 1:1."""
    out = MarkedDict()
    out.mark, out.key_marks, out.value_marks = (1, 1), {}, {}
    return out


def load_marked(text: str) -> Any:
    """Parse YAML text into MarkedDict/MarkedList trees. Raises yaml.YAMLError."""
    from .yamlparse import load_marked as parse

    return parse(text)


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


# ---------------------------------------------------------------------------
# the parsed-file cache

# what a cache file starts with; the format number changes whenever the encoding below,
# or the tree `load_marked` makes of a text, does (older caches are then just stale)
_MAGIC = b"wireschema-rules\0"
_FORMAT = 1
_HEADER = _MAGIC + bytes((_FORMAT, marshal.version))


def load_file(path: Path, raw: bytes, text: str) -> Any:
    """The tree of the rule file at `path`, whose bytes are `raw` and text `text`: from
    its cache when that was made from these very bytes, else parsed (and cached).
    Raises what `load_marked` raises; a cache problem never raises."""
    digest = sha256(raw).digest()
    where = bytecache.cache_path(path, "rules")
    if where is not None:
        found = _read_cache(where, digest)
        if found is not None:
            return found[0]
    tree = load_marked(text)
    if where is not None:
        bytecache.write(where, _HEADER, digest, lambda: marshal.dumps(_freeze(tree)))
    return tree


def _read_cache(where: str, digest: bytes) -> tuple[Any] | None:
    """(tree,) from the cache at `where` if it holds the tree of a file whose digest is
    `digest`, intact; None otherwise."""
    frozen = bytecache.load(where, _HEADER, digest)
    if frozen is None:
        return None  # none kept (a file whose whole tree is null is parsed again)
    try:
        return (_thaw(frozen),)
    except Exception:  # a payload of another shape: as good as no cache
        return None


# The encoding: a scalar (str, int, float, bool, None) is itself; a MarkedDict is
# (mark, {key: value}, key_marks, value_marks) and a MarkedList (mark, [items],
# item_marks). A rule file's tree holds no tuples, so a tuple is always a container.


def _freeze(value: Any) -> Any:
    if isinstance(value, MarkedDict):
        items = {k: _freeze(v) for k, v in value.items()}
        return (value.mark, items, value.key_marks, value.value_marks)
    if isinstance(value, MarkedList):
        return (value.mark, [_freeze(v) for v in value], value.item_marks)
    if value is None or type(value) in (str, int, float, bool):
        return value
    raise TypeError(f"a rule file tree holds no {type(value).__name__}")


def _thaw(value: Any) -> Any:
    if value.__class__ is not tuple:
        return value
    if len(value) == 4:
        mark, items, key_marks, value_marks = value
        out: Any = MarkedDict({k: _thaw(v) for k, v in items.items()})
        out.mark, out.key_marks, out.value_marks = mark, key_marks, value_marks
        return out
    mark, items, item_marks = value
    out = MarkedList([_thaw(v) for v in items])
    out.mark, out.item_marks = mark, item_marks
    return out
