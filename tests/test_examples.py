"""The examples work as shown (no network, no key); the README's blocks are checked in
tests/test_readme.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIRESCHEMA_")}
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()
