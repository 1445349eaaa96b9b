"""Rule files as trees that remember where every value came from, read once per content.

`load_marked` parses YAML text into MarkedDict/MarkedList trees with line and column
marks, so that a bad rule file can be reported as `file:line:column` (the parser itself,
and `yaml`, live in `yamlparse` and are imported only when a text has to be parsed).

`load_file` keeps each parsed tree in a cache beside the file, the way Python keeps
bytecode: `__pycache__/<file name>.<cache tag>.rules` (or under `sys.pycache_prefix`),
holding a `marshal` encoding of the tree, marks included. The cache is keyed by the
digest of the file's bytes, so an edited file is parsed again and its cache rewritten;
a cache that is missing, stale, truncated or corrupt is ignored, one that cannot be
written (a read-only folder, `sys.dont_write_bytecode`) is not written, and either way
the tree is the one `load_marked` gives.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import threading
from pathlib import Path
from typing import Any


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
_DIGEST = 32  # sha256


def load_file(path: Path, raw: bytes, text: str) -> Any:
    """The tree of the rule file at `path`, whose bytes are `raw` and text `text`: from
    its cache when that was made from these very bytes, else parsed (and cached).
    Raises what `load_marked` raises; a cache problem never raises."""
    digest = hashlib.sha256(raw).digest()
    where = _cache_path(path)
    if where is not None:
        found = _read_cache(where, digest)
        if found is not None:
            return found[0]
    tree = load_marked(text)
    if where is not None and not sys.dont_write_bytecode:
        _write_cache(where, digest, tree)
    return tree


def _cache_path(path: Path) -> str | None:
    """Where `path`'s cache lives, by the rules of `importlib.util.cache_from_source`
    (no cache without a cache tag). The whole file name is kept: `a.yaml` and `a.yml`
    never share one."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    head, name = os.path.split(os.fspath(path))
    prefix = sys.pycache_prefix
    if prefix is not None:
        head = os.path.join(prefix, os.path.abspath(head).lstrip(os.sep + (os.altsep or "")))
    else:
        head = os.path.join(head, "__pycache__")
    return os.path.join(head, f"{name}.{tag}.rules")


def _read_cache(where: str, digest: bytes) -> tuple[Any] | None:
    """(tree,) from the cache at `where` if it holds the tree of a file whose digest is
    `digest`, intact; None otherwise."""
    try:
        with open(where, "rb") as f:
            data = f.read()
    except OSError:
        return None
    start = len(_HEADER) + 2 * _DIGEST
    if data[: len(_HEADER)] != _HEADER or data[len(_HEADER) : len(_HEADER) + _DIGEST] != digest:
        return None
    payload = data[start:]
    if data[start - _DIGEST : start] != hashlib.sha256(payload).digest():
        return None  # truncated or damaged
    try:
        return (_thaw(marshal.loads(payload)),)
    except Exception:  # a payload of another shape: as good as no cache
        return None


def _write_cache(where: str, digest: bytes, tree: Any) -> None:
    """Write the cache atomically (a temporary file renamed over it, as Python writes
    bytecode); any failure leaves things as they were and is not an error."""
    try:
        payload = marshal.dumps(_freeze(tree))
        data = _HEADER + digest + hashlib.sha256(payload).digest() + payload
        os.makedirs(os.path.dirname(where), exist_ok=True)
        tmp = f"{where}.{os.getpid()}.{threading.get_ident()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        try:
            with open(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, where)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except Exception:
        pass


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
