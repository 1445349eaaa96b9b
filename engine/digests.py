"""SHA-256 without `import hashlib`, which loads OpenSSL's module on CPython: some 12
million instructions, more than a tenth of what `wireschema targets` runs beyond the
interpreter's start. The digests name caches and shortened tool names, a few kilobytes
at a time: the interpreter's own implementation, slower per byte, costs a first
`normalize` some 4 million of the 12 back."""

from __future__ import annotations

import sys

if sys.implementation.name == "cpython":
    try:
        from _sha2 import sha256  # 3.12 on
    except ImportError:
        try:
            from _sha256 import sha256  # up to 3.11
        except ImportError:  # a build without its own hashes
            from hashlib import sha256
else:  # elsewhere the interpreter's own may be pure Python
    from hashlib import sha256

__all__ = ["sha256"]
