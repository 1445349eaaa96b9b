"""Caches kept the way Python keeps bytecode: in `__pycache__` beside their source (or
under `sys.pycache_prefix`), named with the interpreter's cache tag, written atomically,
never under `sys.dont_write_bytecode`.

A cache file is a header (what it holds, in which format), the digest of what it was
made from, the digest of its payload and the payload. Reading checks all three, so a
cache that is missing, stale, truncated or damaged reads as no cache; a cache that
cannot be written is not written. Neither is ever an error: the caller makes the value
again.
"""

from __future__ import annotations

import marshal
import os
import sys
import threading
from typing import Any, Callable

from .digests import sha256

DIGEST = 32  # sha256


def cache_path(path: Any, kind: str) -> str | None:
    """Where the `kind` cache of the file at `path` lives, by the rules of
    `importlib.util.cache_from_source` (no cache without a cache tag). The whole file
    name is kept: `a.yaml` and `a.yml` never share one."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    head, name = os.path.split(os.fspath(path))
    prefix = sys.pycache_prefix
    if prefix is not None:
        head = os.path.join(prefix, os.path.abspath(head).lstrip(os.sep + (os.altsep or "")))
    else:
        head = os.path.join(head, "__pycache__")
    return os.path.join(head, f"{name}.{tag}.{kind}")


def read(where: str, header: bytes, digest: bytes) -> bytes | None:
    """The payload of the cache at `where` if it starts with `header`, was made from
    what `digest` names and is intact; None otherwise."""
    try:
        with open(where, "rb") as f:
            data = f.read()
    except OSError:
        return None
    start = len(header) + 2 * DIGEST
    if data[: len(header)] != header or data[len(header) : len(header) + DIGEST] != digest:
        return None
    payload = data[start:]
    if data[start - DIGEST : start] != sha256(payload).digest():
        return None  # truncated or damaged
    return payload


def load(where: str, header: bytes, digest: bytes) -> Any:
    """The value `marshal` wrote in the cache at `where` (see `read`); None where the cache
    is missing, stale or damaged, or its payload does not decode."""
    payload = read(where, header, digest)
    if payload is None:
        return None
    try:
        return marshal.loads(payload)
    except Exception:  # noqa: BLE001 - as good as no cache
        return None


def write(where: str, header: bytes, digest: bytes, payload: Callable[[], bytes]) -> None:
    """Write the cache of `payload()` atomically (a temporary file renamed over it, as
    Python writes bytecode); `payload` is not called where nothing is written, and any
    failure, its own included, leaves things as they were and is not an error."""
    if sys.dont_write_bytecode:
        return
    try:
        blob = payload()
        data = header + digest + sha256(blob).digest() + blob
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
