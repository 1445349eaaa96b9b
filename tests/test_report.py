"""The corpus report script counts what each target spills, drops and falls back on."""

from __future__ import annotations

import json

from wireschema import report


def test_tally_counts_fallbacks_spills_and_drops():
    schemas = [
        {"type": "object", "properties": {"u": {"type": "string", "format": "uri"}}},  # format spilled
        {"type": "string"},  # not an object: falls back
        {"type": "object", "properties": {"x": {"type": "integer"}}, "$schema": "x"},  # $schema dropped
    ]
    t = report.tally(schemas, "gemini")
    assert t["n"] == 3
    assert t["fallback"] == 1
    assert t["spilled"]["format"] == 1
    assert t["dropped"]["$schema"] == 1


def test_report_reads_json_lines_and_prints_a_row_per_target(tmp_path, capsys):
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps({"id": i, "schema": {"type": "object", "properties": {}}}) for i in range(3)))
    assert report.main([str(path), "--targets", "gemini,openai-strict"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].startswith("| `gemini` | 3 | 0 (0.0%)")
    assert out[3].startswith("| `openai-strict` | 3 | 0 (0.0%) | 0 (0.0%)")
