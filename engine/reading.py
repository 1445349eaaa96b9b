"""Reading a stream up to a limit, without setting the limit's memory aside first."""

from __future__ import annotations

from typing import Any

_CHUNK = 1 << 20


def read_at_most(stream: Any, limit: int) -> Any:
    """At most `limit + 1` bytes (or characters) of `stream`, read a chunk at a time: one
    more than `limit` tells the caller the stream is longer. `read(limit + 1)` would
    allocate the whole limit even for a short file."""
    parts = []
    size = 0
    while size <= limit:
        part = stream.read(min(_CHUNK, limit + 1 - size))
        if not part:
            break
        parts.append(part)
        size += len(part)
    return parts[0][:0].join(parts) if parts else stream.read(0)
