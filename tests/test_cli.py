"""The `wireschema` command, run as a separate process the way users run it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "weather_tool.json"


def _cli(*args, stdin=None, cwd):
    # the switches in the environment would change every result
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIRESCHEMA_")}
    return subprocess.run(
        [sys.executable, "-m", "wireschema", *map(str, args)],
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
        env=env,
        timeout=60,
    )


def _assert_one_error_line(proc):
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("wireschema: error: ")
    return lines[0]


def test_normalize_example_for_gemini(tmp_path):
    proc = _cli("normalize", EXAMPLE, "--target", "gemini", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    schema = json.loads(proc.stdout)
    assert schema["type"] == "object"
    assert "city" in schema["properties"]


def test_explain_prints_the_report_after_a_blank_line(tmp_path):
    proc = _cli("normalize", EXAMPLE, "--target", "gemini", "--explain", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    # indent=2 JSON has no blank line, so the first one separates schema and report
    schema_text, report = proc.stdout.split("\n\n", 1)
    assert json.loads(schema_text)["type"] == "object"
    assert report.startswith("target gemini:")
    # a change line: "  <rule id> <pointer> <action>: <detail>"
    assert re.search(r"^  [\w.-]+/[\w.-]+ /\S* \w+: ", report, re.MULTILINE), report


def test_schema_from_stdin(tmp_path):
    schema = '{"type": "object", "properties": {"a": {"type": ["string", "null"]}}}'
    proc = _cli("normalize", "-", "--target", "gemini", stdin=schema, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"type": "object", "properties": {"a": {"type": "string", "nullable": True}}}


def test_fallback_is_not_an_error(tmp_path):
    # gemini parameters must be an object: a string root falls back, reported, exit 0
    proc = _cli("normalize", "-", "--target", "gemini", "--explain", stdin='{"type": "string"}', cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    schema_text, report = proc.stdout.split("\n\n", 1)
    assert json.loads(schema_text)["type"] == "object"
    assert "fallback=True" in report.splitlines()[0]


def test_unknown_target_is_one_error_line(tmp_path):
    proc = _cli("normalize", EXAMPLE, "--target", "no-such-provider", cwd=tmp_path)
    line = _assert_one_error_line(proc)
    assert "no-such-provider" in line


def test_file_that_is_not_json_is_one_error_line(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text('{"type": "object",', encoding="utf-8")
    proc = _cli("normalize", bad, "--target", "gemini", cwd=tmp_path)
    line = _assert_one_error_line(proc)
    assert "broken.json" in line


def test_missing_file_is_one_error_line(tmp_path):
    proc = _cli("normalize", tmp_path / "absent.json", "--target", "gemini", cwd=tmp_path)
    line = _assert_one_error_line(proc)
    assert "absent.json" in line


def test_usage_error_is_one_error_line(tmp_path):
    proc = _cli("normalize", EXAMPLE, cwd=tmp_path)
    line = _assert_one_error_line(proc)
    assert "--target" in line


def test_targets_lists_gemini(tmp_path):
    proc = _cli("targets", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    names = [line.split()[0] for line in proc.stdout.splitlines()]
    assert "gemini" in names
