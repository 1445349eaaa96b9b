"""The examples and the README's runnable code blocks work as shown (no network, no key)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
# a block is runnable when the line before its opening fence is `<!-- runnable -->`
_BLOCK = re.compile(r"<!-- runnable -->\s*\n```python\n(.*?)```", re.S)


def _run(code_or_path, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIRESCHEMA_")}
    args = [sys.executable, str(code_or_path)] if isinstance(code_or_path, Path) else [sys.executable, "-c", code_or_path]
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(path):
    proc = _run(path, ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()


def _readme_blocks():
    return _BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8"))


def test_readme_has_runnable_blocks():
    assert len(_readme_blocks()) >= 3


@pytest.mark.parametrize("index", range(len(_readme_blocks())))
def test_readme_block_runs(index, tmp_path):
    proc = _run(_readme_blocks()[index], ROOT)
    assert proc.returncode == 0, f"block {index}:\n{proc.stderr}"
