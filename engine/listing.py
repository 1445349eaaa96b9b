"""The shipped targets as a listing (name, description, rule file, strict), read without
the rule machinery.

Listing the targets reads every rule file's top-level fields through the registry
(`ruletable`, its field checks and attrs classes: most of what `wireschema targets`
spent). The listing is kept beside the rules, as bytecode is kept beside its source
(see `bytecache`), keyed by the name, size and modification time of every file in the
rules folder, the way a .pyc is keyed by its source's. A listing that left a broken file
out is not kept: the next listing reads the files again, and logs that file again.
"""

from __future__ import annotations

import marshal
import os
from pathlib import Path
from typing import Any, Callable

from . import bytecache
from .digests import sha256

# the shared keyword groups and maps: read as the vocabulary, never as a rule file
VOCABULARY = "_vocabulary"

_HEADER = b"wireschema-listing\0" + bytes((1, marshal.version))

Row = tuple[str, str, str, bool]  # name, description, path of its rule file, strict


def shipped_dir() -> Path:
    """The folder of the shipped rule files (installed beside the package, or in the checkout)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "rules", here.parent / "rules"):
        if (candidate / f"{VOCABULARY}.yaml").is_file():
            return candidate
    raise RuntimeError("wireschema is installed without its rules/ folder")


def shipped(make: Callable[[], tuple[list[Row], bool]], folder: Path | None = None) -> list[Row]:
    """The listing of the targets in `folder` (the shipped rules): from its cache where
    the rule files are the ones it was made from, else `make()` (the rows, and whether
    every file could be read)."""
    folder = folder or shipped_dir()
    digest = _stamp(folder)
    where = bytecache.cache_path(folder / "_listing", "listing")
    if digest is not None and where is not None:
        rows = bytecache.load(where, _HEADER, digest)
        if rows is not None:
            try:
                # the paths are the folder's as it is now, wherever it was when listed
                return [(name, text, str(folder / file), strict) for name, text, file, strict in rows]
            except Exception:  # noqa: BLE001 - a payload of another shape: as good as none
                pass
    rows, complete = make()
    if digest is not None and where is not None and complete:
        bytecache.write(where, _HEADER, digest, lambda: marshal.dumps([(n, t, Path(p).name, s) for n, t, p, s in rows]))
    return rows


def _stamp(folder: Path) -> bytes | None:
    """A digest of the name, size and modification time of every rule file in `folder`
    (None if it cannot be read: then nothing is kept)."""
    try:
        entries: list[Any] = []
        with os.scandir(folder) as found:
            for entry in found:
                if entry.name.endswith((".yaml", ".yml")):
                    st = entry.stat()
                    entries.append((entry.name, st.st_size, st.st_mtime_ns))
    except OSError:
        return None
    return sha256(repr(sorted(entries)).encode()).digest()
