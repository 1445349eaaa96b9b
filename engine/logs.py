"""The `wireschema` logger, made the first time the library logs something.

Importing `logging` (and the `traceback` it brings) is about a tenth of a fresh process's
import of wireschema, and a normalization that loses nothing logs nothing, so a process
that never meets a fallback never pays for it.
"""

from __future__ import annotations

from typing import Any

_made: Any = None
_logging: Any = None  # the module, once imported


def logger() -> Any:
    """`logging.getLogger("wireschema")`, with the NullHandler a library adds so that the
    application's logging config alone decides what is shown."""
    global _made, _logging
    if _made is None:
        import logging

        _logging = logging
        made = logging.getLogger("wireschema")
        if not any(isinstance(h, logging.NullHandler) for h in made.handlers):
            made.addHandler(logging.NullHandler())
        _made = made
    return _made


def warning(message: str, *args: Any) -> None:
    log = logger()
    if _heard(log):
        log.warning(message, *args)


def _heard(log: Any) -> bool:
    """Whether a record `log` emits could reach anything but a NullHandler.

    Where it would reach NullHandlers alone (no filter on the way, and at least one, so
    that logging's last-resort handler stays out), it changes nothing, so it is not
    made: making one costs about 7 us, paid on every result that loses something in a
    process that shows no logs."""
    logging = _logging
    if not log.isEnabledFor(logging.WARNING):
        return False
    nulls = 0
    node = log
    while node is not None:
        if node.filters:
            return True
        for h in node.handlers:
            if h.__class__ is not logging.NullHandler:
                return True
            nulls += 1
        if not node.propagate:
            break
        node = node.parent
    return nulls == 0


def info(message: str, *args: Any) -> None:
    logger().info(message, *args)
