"""The cyclic garbage collector, paused while a schema is normalized.

A run allocates many small containers (the copy, its origin chains, the walks'
stacks); with the collector on, they set off full collections that traverse every
object the process holds, the caller's input included: for a 100,000-property input
that stops at the node budget, two thirds of the time. A run makes no reference cycles
it needs collected, so the collector is paused for its length and resumed after, as
it was (nested and concurrent runs share one pause).
"""

from __future__ import annotations

import gc
import threading
from types import TracebackType

_lock = threading.Lock()
_active = 0  # runs inside the pause
_resume = False  # whether the collector was on when the first of them began


class _Paused:
    __slots__ = ()

    def __enter__(self) -> None:
        global _active, _resume
        with _lock:
            if _active == 0:
                _resume = gc.isenabled()
                gc.disable()
            _active += 1

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        global _active
        with _lock:
            _active -= 1
            if _active == 0 and _resume:
                gc.enable()


paused = _Paused()
"""`with paused:` runs the block with the collector off (and back as it was after)."""
