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


# -- diff, check, batches, rules ------------------------------------------------------

TOOLS = [
    {"type": "function", "function": {"name": "ok tool", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}},
    {"name": "lossy", "inputSchema": {"type": "object", "properties": {"u": {"type": "string", "format": "uri"}}}},
]


def test_diff_shows_each_targets_losses_and_output(tmp_path):
    proc = _cli("diff", EXAMPLE, "--targets", "gemini,openai-strict,anthropic", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = proc.stdout.splitlines()
    assert rows[0].split() == ["target", "strict", "fallback", "spilled", "/", "dropped"]
    assert rows[1].startswith("gemini ") and "format" in rows[1]
    assert rows[3].startswith("anthropic ") and rows[3].endswith("- / -")
    assert "== openai-strict" in proc.stdout


def test_check_exits_1_on_losses_and_0_when_clean(tmp_path):
    lossy = _cli("check", EXAMPLE, "--targets", "gemini,anthropic", cwd=tmp_path)
    assert lossy.returncode == 1
    assert lossy.stdout.splitlines() == ["gemini: 1 lose additionalProperties, format (of 1)", "anthropic: ok (1 checked)"]
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}))
    assert _cli("check", clean, "--targets", "gemini,openai-strict,mcp", cwd=tmp_path).returncode == 0


def test_normalize_a_tool_list_gives_native_tools(tmp_path):
    f = tmp_path / "tools.json"
    f.write_text(json.dumps(TOOLS))
    proc = _cli("normalize", f, "--target", "gemini", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [t["name"] for t in out] == ["ok_tool", "lossy"]
    assert out[1]["parameters"]["properties"]["u"] == {"type": "string", "description": "(format: uri)"}


def test_normalize_an_mcp_tools_list_result(tmp_path):
    f = tmp_path / "list.json"
    f.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"tools": [TOOLS[1]]}}))
    out = json.loads(_cli("normalize", f, "--target", "openai-strict", cwd=tmp_path).stdout)
    assert out[0]["function"]["name"] == "lossy" and out[0]["function"]["strict"] is True


def test_json_lines_batch_reports_a_bad_item_and_goes_on(tmp_path):
    f = tmp_path / "batch.jsonl"
    f.write_text("\n".join([json.dumps({"type": "object"}), json.dumps({"id": "x", "schema": {"type": "string"}}),
                            '{"type": "object", "properties": {"n": {"type": "number", "minimum": NaN}}}']))
    proc = _cli("normalize", f, "--target", "gemini", cwd=tmp_path)
    assert proc.returncode == 1  # NaN is not JSON: that item fails, the others are printed
    assert proc.stderr.startswith("wireschema: error: #2 ") and len(json.loads(proc.stdout)) == 2
    f.write_text("\n".join([json.dumps({"type": "object"}), json.dumps({"id": "x", "schema": {"type": "string"}})]))
    proc = _cli("normalize", f, "--target", "gemini", cwd=tmp_path)
    assert proc.returncode == 0 and len(json.loads(proc.stdout)) == 2


def test_a_failing_item_is_named_and_the_rest_continue(tmp_path):
    f = tmp_path / "tools.json"
    f.write_text(json.dumps([TOOLS[0], {"name": "broken", "parameters": {"type": "string"}}, TOOLS[1]]))
    proc = _cli("check", f, "--targets", "gemini", cwd=tmp_path)
    assert proc.returncode == 1  # a string root falls back: a finding, not a crash
    assert proc.stdout == "gemini: 1 fall back; 1 lose format (of 3)\n"


def test_rules_lint_ok_and_broken(tmp_path):
    assert _cli("rules", "lint", cwd=tmp_path).stdout.startswith("ok: ")
    (tmp_path / "mine.yaml").write_text("extends: gemini\nrules:\n  - id: mine/x\n    kind: stirp\n    why: typo\n")
    proc = _cli("rules", "lint", tmp_path, cwd=tmp_path)
    assert proc.returncode == 1
    assert re.search(r"mine\.yaml:4:\d+: .*unknown rule kind 'stirp'", proc.stdout)


def test_rules_option_uses_a_users_rule_directory(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "no-title.yaml").write_text(
        "extends: gemini\nrules:\n  - id: no-title/drop\n    kind: drop\n    keys: [title]\n    why: the gateway refuses titles\n")
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"type": "object", "title": "T", "properties": {}}))
    proc = _cli("normalize", f, "--target", "no-title", "--rules", rules, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"type": "object", "properties": {}}
    bad = _cli("normalize", f, "--target", "gemini", "--rules", tmp_path / "missing", cwd=tmp_path)
    _assert_one_error_line(bad)


def test_output_flag_wraps_a_non_object_output_schema(tmp_path):
    f = tmp_path / "out.json"
    f.write_text(json.dumps({"type": "array", "items": {"type": "string"}}))
    out = json.loads(_cli("normalize", f, "--target", "openai-strict", "--output", cwd=tmp_path).stdout)
    assert out["required"] == ["response"]


def _many(tmp_path, n=250):
    f = tmp_path / "many.jsonl"
    f.write_text("\n".join(json.dumps({"type": "object", "properties": {f"p{i}": {"type": "string"}}}) for i in range(n)))
    return f


def test_progress_bar_on_a_terminal_never_in_a_pipe(tmp_path):
    import pty

    f = _many(tmp_path)
    piped = _cli("normalize", f, "--target", "gemini", cwd=tmp_path)
    assert piped.returncode == 0 and "[" not in piped.stderr
    # stderr on a pseudo-terminal: the bar appears there
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIRESCHEMA_")}
    proc = subprocess.Popen([sys.executable, "-m", "wireschema", "normalize", str(f), "--target", "gemini"],
                            stdout=subprocess.DEVNULL, stderr=slave, stdin=subprocess.DEVNULL, cwd=tmp_path, env=env)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    proc.wait(timeout=60)
    os.close(master)
    assert proc.returncode == 0
    assert b"250/250" in seen and b"####" in seen


def test_a_json_value_that_is_not_a_schema_is_one_error_line(tmp_path):
    f = tmp_path / "n.json"
    f.write_text("42")
    line = _assert_one_error_line(_cli("normalize", f, "--target", "gemini", cwd=tmp_path))
    assert "is a number, not a JSON Schema or a tool" in line


def test_a_broken_rule_file_given_with_rules_is_one_error_line(tmp_path):
    (tmp_path / "mine.yaml").write_text("extends: gemini\nrules: [{id: mine/x, kind: drop, keys: [title]}]\n")
    line = _assert_one_error_line(_cli("normalize", EXAMPLE, "--target", "mine", "--rules", tmp_path, cwd=tmp_path))
    assert "mine.yaml:2:" in line and "why" in line
