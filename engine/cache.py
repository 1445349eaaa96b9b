"""Process-local memo of normalization results, keyed by exact schema content.

A hit needs the stored input to be equal to the new one byte for byte in its key form
(`blobs.key_of`), which keeps key order, `1` versus `1.0`, `-0.0` and `true` versus
`1` apart, and every resolved option; the bytes are the key itself, so two inputs can
never share an entry by a hash collision. Results come out as fresh objects (the wire
schema is thawed from stored bytes), so mutating one never changes a later one. The
walk runs outside the lock.

An input is stored the second time it is met, not the first (a doorkeeper, as caches
facing one-hit traffic keep): storing costs a frozen copy of the output and an entry,
about half of what the memo adds to a run, and a workload that never repeats would pay
it on every call and push its repeating entries out. The doorkeeper remembers key
hashes only, in two generations of `max_entries` each; two keys sharing a hash only
store one of them a call early.
"""

from __future__ import annotations

import gc
import threading
from typing import Any, Callable, TypeVar

import attrs
from cachetools import LRUCache

from .blobs import freeze_entry, key_of
from .model import Result

_T = TypeVar("_T")


@attrs.frozen
class CacheInfo:
    hits: int
    misses: int
    entries: int
    bytes: int
    max_entries: int
    max_bytes: int


@attrs.frozen
class _Entry:
    stored: Any  # immutable parts plus blobs; thawed into fresh objects on each hit
    size: int


# what a cache user gives: output -> (output for this caller, what to store or None when
# it cannot be stored, its size in bytes)
Freeze = Callable[[Any], "tuple[Any, Any, int]"]
Thaw = Callable[[Any], Any]


class Memo:
    """LRU by entry count and by estimated bytes (key text + output text)."""

    def __init__(self, max_entries: int = 512, max_bytes: int = 16 * 1024 * 1024):
        self._lock = threading.Lock()
        self.configure(max_entries, max_bytes)

    def configure(self, max_entries: int, max_bytes: int) -> None:
        """Resize and empty the memo; a size that is no int of at least 0 raises `OptionsError`."""
        _size("max_entries", max_entries)
        _size("max_bytes", max_bytes)
        with self._lock:
            self.max_entries = max_entries
            self.max_bytes = max_bytes
            self._store: LRUCache = LRUCache(maxsize=max_bytes, getsizeof=lambda e: e.size)
            self._forget()

    def clear(self) -> None:
        with self._lock:
            self._store.clear()
            self._forget()

    def _forget(self) -> None:
        self.hits = self.misses = 0
        self._seen: set[int] = set()  # key hashes met once (the doorkeeper's generations)
        self._seen_before: set[int] = set()

    def _second_sight(self, full: tuple) -> bool:
        """Whether a missed key was met before (then it is stored); under the lock."""
        h = hash(full)
        if h in self._seen or h in self._seen_before:
            return True
        self._seen.add(h)
        if len(self._seen) >= max(self.max_entries, 1):
            self._seen_before, self._seen = self._seen, set()
        return False

    def info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self.hits, self.misses, len(self._store), self._store.currsize, self.max_entries, self.max_bytes)

    def lookup(self, key: tuple, value: Any, compute: Callable[[], Result]) -> Result:
        """The Result for `value` under `key`: a stored one (fresh copy) or `compute()`."""
        return self.memoize(key, value, compute, _freeze_result, _thaw_result)

    def memoize(self, key: tuple, value: Any, compute: Callable[[], Any], freeze_out: Freeze, thaw_out: Thaw) -> Any:
        """As `lookup`, for any output."""
        blob = key_of(value, self.max_bytes // 4)
        if blob is None:
            return compute()  # not keyable, or too large to keep: the plain, uncached path
        full = (*key, blob)
        admit = False
        with self._lock:
            try:
                # one lookup, not `get`'s two: each hashes and compares the whole key
                entry = self._store[full]
            except KeyError:
                entry = None
                self.misses += 1
                admit = self._second_sight(full)
            else:
                self.hits += 1
        if entry is not None:
            return collector_paused(lambda: thaw_out(entry.stored))
        if not admit:
            return compute()
        output, stored, size = freeze_out(compute())
        if stored is None:
            return output
        size += len(blob) + 256
        with self._lock:
            if size <= self.max_bytes:
                self._store[full] = _Entry(stored, size)
                while len(self._store) > self.max_entries:
                    self._store.popitem()
        return output


def _size(name: str, value: Any) -> None:
    # checked here, where it is given: a bad size would fail every later normalize instead
    if value.__class__ is not int or value < 0:
        from .errors import OptionsError

        raise OptionsError(f"configure_cache: {name} must be an int of at least 0, got {value!r}")


def collector_paused(fn: Callable[[], _T]) -> _T:
    """`fn()` with the cyclic garbage collector paused, then set back as it was.

    A run and a hit allocate many small containers at once, and the full collections
    they set off traverse every object the process holds (for a 100,000-property input
    that stops at the node budget, two thirds of the time); neither leaves a cycle to
    collect (tests/test_guarantees.py). A nested or concurrent call finding it paused
    leaves it to the call that paused it.
    """
    if not gc.isenabled():
        return fn()
    gc.disable()
    try:
        return fn()
    finally:
        gc.enable()


def _freeze_result(result: Result) -> tuple[Result, Any, int]:
    schema = freeze_entry(result.schema)
    if schema is None:
        return result, None, 0
    return result, (schema, result.with_schema(None)), len(schema)


def _thaw_result(stored: Any) -> Result:
    schema, bare = stored
    return bare.with_schema(schema.thaw())
