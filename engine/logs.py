"""The `wireschema` logger, made the first time the library logs something.

Importing `logging` (and the `traceback` it brings) is about a tenth of a fresh process's
import of wireschema, and a normalization that loses nothing logs nothing, so a process
that never meets a fallback never pays for it.
"""

from __future__ import annotations

from typing import Any

_made: Any = None


def logger() -> Any:
    """`logging.getLogger("wireschema")`, with the NullHandler a library adds so that the
    application's logging config alone decides what is shown."""
    global _made
    if _made is None:
        import logging

        made = logging.getLogger("wireschema")
        if not any(isinstance(h, logging.NullHandler) for h in made.handlers):
            made.addHandler(logging.NullHandler())
        _made = made
    return _made


def warning(message: str, *args: Any) -> None:
    logger().warning(message, *args)


def info(message: str, *args: Any) -> None:
    logger().info(message, *args)
