"""The benchmark runs end to end (smoke test) and reports missing or failing peers as such.

The figures themselves are not asserted: they depend on the machine.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wireschema import bench

# corpus-wide: CI runs it (pytest -m corpus); the default run leaves it out
pytestmark = pytest.mark.corpus

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"

HEADERS = (
    "### (a) Tool lists",
    "| tools | deepcopy ms | deepcopy tools/s | json round trip ms |",
    "| target | tools | cold tools/s | cold ms | warm tools/s | warm ms | warm speedup |",
    "### (b) Peers",
    "| target | peer | version | peer schemas/s | wireschema schemas/s | wireschema ÷ peer |",
    "### (c) Startup",
    "`import wireschema` (wall clock",
    "### (d) Nodes per second by schema size",
    "| target | 10 nodes | 100 nodes | 1,000 nodes | max ÷ min | note |",
    "### (h) What spills cost",
    "| target | tools | tools with spills | characters spills add | per tool |",
)


@pytest.mark.skipif(not (CORPUS / "mcp.jsonl").is_file(), reason="no shared corpus beside the repository")
def test_quick_run_prints_every_table():
    proc = subprocess.run(
        [sys.executable, "-m", "wireschema.bench", "--quick", "--repeat", "1", "--corpus", str(CORPUS)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    for header in HEADERS:
        assert header in proc.stdout, header
    assert "- machine: " in proc.stdout and "- date: " in proc.stdout
    # the wide object's milliseconds beside a copy's, the host's pace that hour
    assert "| `copy.deepcopy` of the 10,000-property object |" in proc.stdout
    # what no version could beat (a copy and a Result), as a rate and against each fastest peer
    assert "| least possible: a plain copy of each schema and a Result of it (no rule, no check, no report) |" in proc.stdout
    assert "| least possible ÷ fastest peer |" in proc.stdout
    # what every target pays before its rules run, as a rate and against a deepcopy
    floor = re.search(r"\| engine floor: `normalize` on a target of no rule and no check [^|]*\| ([\d,]+) schemas/s, [\d.]+x a deepcopy \|", proc.stdout)
    assert floor and int(floor.group(1).replace(",", "")) > 0
    assert "| wireschema ÷ peer (peer-accepted) | least possible ÷ peer |" in proc.stdout
    # the cache's cost where nothing repeats: paired rounds' median, with their spread
    assert "| cache on, nothing repeats ÷ cache off (CPU time, the median of 5 pairs; the middle half " in proc.stdout
    # one row per (target, peer) whether the peer is installed or not
    for peer in bench.PEERS:
        assert peer.label in proc.stdout
    for info in bench.wireschema.targets():
        assert f"| `{info.name}` | 1 |" in proc.stdout


@pytest.mark.skipif(not (CORPUS / "mcp.jsonl").is_file(), reason="no shared corpus beside the repository")
def test_against_another_checkout_times_both_per_target(tmp_path):
    """`--against` loads the other checkout's engine/ as the package (here this very
    repository, copied), and prints one row per target both versions ship."""
    other = tmp_path / "other"
    shutil.copytree(ROOT / "engine", other / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "rules", other / "rules")
    proc = subprocess.run(
        [sys.executable, "-m", "wireschema.bench", "--quick", "--corpus", str(CORPUS), "--against", str(other), "--only-against"],
        capture_output=True, text=True, cwd=ROOT, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"### (f) Against another version: `{other}`" in proc.stdout
    for info in bench.wireschema.targets():
        assert f"| `{info.name}` | " in proc.stdout
    assert "All targets together: " in proc.stdout


@pytest.mark.skipif(not (CORPUS / "mcp.jsonl").is_file(), reason="no shared corpus beside the repository")
def test_profile_counts_each_targets_bytecodes_by_function():
    proc = subprocess.run(
        [sys.executable, "-m", "wireschema.bench", "--quick", "--corpus", str(CORPUS), "--profile", "mcp,gemini"],
        capture_output=True, text=True, cwd=ROOT, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    for target in ("mcp", "gemini"):
        table = proc.stdout.split(f"### (g) Where `{target}` spends its time: bytecodes per schema, by function")[1]
        assert " bytecodes per schema over 40 schemas of the corpus (every 8th), cache off" in table
        # every run copies its input: the copy is among the functions counted
        assert "| `copy_input` (prepare.py) | " in table
    assert "### (a) Tool lists" not in proc.stdout  # the profile alone


def test_profile_of_no_such_target_is_a_usage_error():
    proc = subprocess.run(
        [sys.executable, "-m", "wireschema.bench", "--quick", "--profile", "mcp,nope"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2 and "--profile takes target names" in proc.stderr


def test_against_what_is_no_checkout_is_a_usage_error(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "wireschema.bench", "--quick", "--against", str(tmp_path)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2 and "no wireschema checkout" in proc.stderr


def test_missing_corpus_is_a_usage_error(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "wireschema.bench", "--quick", "--corpus", str(tmp_path)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2
    assert "mcp.jsonl" in proc.stderr and "Traceback" not in proc.stderr


def _not_installed():
    raise ImportError("no such peer")


def _raises_on_every_schema():
    def run(schema):
        raise ValueError("refused")

    return run


def test_peer_rows_say_not_installed_and_count_errors(monkeypatch):
    # in-process and tiny: whichever peers this environment has, both cases are shown
    peers = (
        bench.Peer("absent peer", "no-such-distribution", "gemini", _not_installed),
        bench.Peer("refusing peer", "no-such-distribution", "gemini", _raises_on_every_schema),
        bench.Peer("copying peer", "no-such-distribution", "gemini", lambda: dict),
    )
    monkeypatch.setattr(bench, "PEERS", peers)
    tools = [bench.Tool(f"t{i}", "", {"type": "object", "properties": {"a": {"type": "string"}}}) for i in range(3)]
    cfg = bench.Config(repeat=1, peer_schemas=3, min_sample_ns=0)
    rows = bench.measure_peers(tools, cfg)
    table = bench.table_peers(rows)
    absent, refusing, copying = table.splitlines()[4:7]
    assert "| absent peer | not installed |" in absent
    assert "| 3 / 3 |" in refusing
    assert "| 0 / 3 |" in copying
    assert "no-such-distribution not installed" in bench.peer_versions(rows)


def test_synthetic_schema_counts_its_nodes():
    for size in (10, 100, 1000):
        schema, nodes = bench.synthetic_schema(size)
        assert size <= nodes < size + 6  # the last property may overshoot by its own subschemas
        assert schema["type"] == "object"
