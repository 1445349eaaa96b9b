"""The digests naming caches and shortened tool names are SHA-256, taken without
importing hashlib (OpenSSL's module costs a fresh process more than the hashing)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wireschema.digests import sha256

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("data", [b"", b"search", "get weather \u00e9".encode(), bytes(range(256)) * 4099])
def test_sha256_is_hashlibs(data):
    assert sha256(data).digest() == hashlib.sha256(data).digest()
    assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="elsewhere digests takes hashlib's")
def test_a_first_normalize_in_a_fresh_process_imports_no_hashlib(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path)  # the first run writes every cache, the second reads them
    probe = (
        "import sys, wireschema\n"
        "wireschema.normalize({'type': 'object', 'properties': {'city': {'type': 'string'}}}, 'openai-strict')\n"
        "print(sorted(m for m in ('hashlib', '_hashlib') if m in sys.modules))\n"
    )
    runs = [subprocess.run([sys.executable, "-c", probe], env=env, cwd=ROOT, capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert runs == ["[]\n", "[]\n"]
