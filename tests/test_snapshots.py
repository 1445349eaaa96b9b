"""No snapshot outlives its case, and none disappears by itself: `--snapshot-update` is
run with `--snapshot-no-cleanup` (pyproject.toml), so a snapshot whose case was removed
or renamed stays on disk and this test names it until it is removed on purpose."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

SNAPSHOTS = ROOT / "snapshots"

# collects every test of the modules that keep snapshots and writes the snapshot file
# each would own, named as the snapshot extension names it
_PLUGIN = '''
import json, os
from pathlib import Path


def pytest_collection_finish(session):
    from syrupy.location import PyTestLocation
    from conftest import WireSnapshot

    names = []
    for item in session.items:
        location = PyTestLocation(item)
        folder = WireSnapshot.dirname(test_location=location)
        names.append(str(Path(folder, WireSnapshot.get_snapshot_name(test_location=location, index=0))))
    Path(os.environ["WIRESCHEMA_SNAPSHOT_NAMES"]).write_text(json.dumps(names), encoding="utf-8")
'''


def _live_names(tmp_path: Path) -> set[str]:
    plugin = tmp_path / "live_snapshot_names.py"
    plugin.write_text(_PLUGIN, encoding="utf-8")
    out = tmp_path / "names.json"
    modules = [str(ROOT / "tests" / f"{d.name}.py") for d in sorted(SNAPSHOTS.iterdir()) if d.is_dir()]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
           "WIRESCHEMA_SNAPSHOT_NAMES": str(out)}
    proc = subprocess.run(
        # `-m ""`: the corpus-wide suites too, which the default run leaves out
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "", "-p", "live_snapshot_names", *modules],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return set(json.loads(out.read_text(encoding="utf-8")))


def test_every_snapshot_file_belongs_to_a_live_case(tmp_path):
    live = _live_names(tmp_path)
    orphans = []
    for path in sorted(SNAPSHOTS.rglob("*.json")):
        # a test asserting twice owns NAME.1.json, NAME.2.json, ... beside NAME.json
        base = re.sub(r"\.\d+$", "", str(path.with_suffix("")))
        if base not in live:
            orphans.append(str(path.relative_to(ROOT)))
    assert not orphans, (
        "these snapshots belong to no collected test (a case was removed or renamed): "
        "restore the case, or `git rm` the file once you mean to lose it:\n  " + "\n  ".join(orphans)
    )


def test_snapshot_update_never_deletes_a_snapshot_by_itself():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    addopts = re.search(r'^\[tool\.pytest\.ini_options\]$.*?^addopts = "([^"]*)"', text, re.M | re.S)
    assert addopts and "--snapshot-no-cleanup" in addopts.group(1).split()
