"""Rule files on disk: regular files only, each read within a size limit.

A FIFO, a device, a directory or a link that loops named `*.yaml` is no rule file:
reading one could block, never end, or fill memory. Such a name is skipped where a
folder is listed, and refused where it is read, and the message says what it is.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .errors import RuleFileError
from .reading import read_at_most

MAX_BYTES = 16 * 1024 * 1024
"""The largest rule file read (the shipped ones are under 100 KB)."""

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def not_regular(path: Path) -> str | None:
    """What `path` is when it is no regular file to read ("a FIFO", ...), else None.
    Looking never opens it, so it never blocks."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link that loops"
        if exc.errno == errno.ENOENT:
            return "a symbolic link to nothing" if os.path.islink(path) else "missing"
        return f"unreadable ({exc.strerror})"
    return _kind(mode)


def _kind(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def rule_files(directory: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The rule files of `directory` (`*.yaml`, `*.yml`, not `_*`), sorted, and the
    names skipped there with what each is."""
    files, skipped = [], []
    for path in sorted([*directory.glob("*.yaml"), *directory.glob("*.yml")]):
        if path.name.startswith("_"):
            continue
        why = not_regular(path)
        if why is None:
            files.append(path)
        else:
            skipped.append((path, why))
    return files, skipped


def read_bytes(path: Path) -> bytes:
    """The bytes of the regular file at `path`, at most `MAX_BYTES`. Anything else is a
    `RuleFileError` saying what it is; a failing read raises `OSError`."""
    try:
        # non-blocking: opening a FIFO for reading would otherwise wait for a writer
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RuleFileError(str(path), None, None, "not a rule file: a symbolic link that loops") from None
        raise
    try:
        why = _kind(os.fstat(fd).st_mode)
        if why is None:
            with open(fd, "rb", closefd=False) as f:
                data = read_at_most(f, MAX_BYTES)
    finally:
        os.close(fd)
    if why is not None:
        raise RuleFileError(str(path), None, None, f"not a rule file: {why}, not a regular file")
    if len(data) > MAX_BYTES:
        raise RuleFileError(str(path), None, None, f"larger than {MAX_BYTES:,} bytes, the most a rule file may hold")
    return data
