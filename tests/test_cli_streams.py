"""The command at the edges of its streams: closed, full or endless ones are one error line
with exit 2; a JSON Lines batch goes on past a line that is no JSON.

Closing a standard stream needs a child process; its timeout only guards the suite.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

import wireschema
from wireschema import batch, cli, jsonsource

SCHEMA = '{"type": "object", "properties": {"a": {"type": ["string", "null"]}}}'


def _child(*args: str, close: int | None = None, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL):
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIRESCHEMA_")}
    return subprocess.run([sys.executable, "-m", "wireschema", *args], stdin=stdin, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, env=env, timeout=120,
                          preexec_fn=None if close is None else (lambda: os.close(close)))


def _one_error(ran: subprocess.CompletedProcess, said: str) -> None:
    assert ran.returncode == 2
    assert ran.stderr == f"wireschema: error: {said}\n"


def test_a_closed_standard_output_is_one_error_line():
    _one_error(_child("targets", close=1, stdout=None), "cannot write the output: standard output is closed")


def test_a_closed_standard_input_is_one_error_line():
    _one_error(_child("normalize", "-", "--target", "gemini", close=0, stdin=None),
               "cannot read <stdin>: standard input is closed")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("argv", [("targets",), ("normalize", "-", "--target", "gemini")])
def test_a_full_disk_under_standard_output_is_one_error_line(argv):
    with open("/dev/full", "w") as full:
        ran = subprocess.run([sys.executable, "-m", "wireschema", *argv], input=SCHEMA, stdout=full,
                             stderr=subprocess.PIPE, text=True, timeout=120)
    _one_error(ran, "cannot write the output: No space left on device")


def _run(monkeypatch, *argv, stdin: str = ""):
    out, err = io.StringIO(), io.StringIO()
    with monkeypatch.context() as m:
        m.setattr(sys, "stdin", io.StringIO(stdin))
        m.setattr(sys, "stdout", out)
        m.setattr(sys, "stderr", err)
        code = cli.main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_an_endless_file_stops_at_the_input_size_limit(monkeypatch):
    monkeypatch.setattr(batch, "MAX_INPUT_BYTES", 1 << 16)
    code, out, err = _run(monkeypatch, "normalize", "/dev/zero", "--target", "gemini")
    assert (code, out) == (2, "")
    assert err == "wireschema: error: /dev/zero: larger than 65,536 bytes, the most FILE may hold\n"
    code, _, err = _run(monkeypatch, "normalize", "-", "--target", "gemini", stdin=" " * (1 << 16) + SCHEMA)
    assert (code, err) == (2, "wireschema: error: <stdin>: larger than 65,536 bytes, the most FILE may hold\n")


# -- JSON Lines ------------------------------------------------------------------------


def test_a_line_of_bad_json_is_null_and_one_error_naming_its_line_and_the_rest_go_on(monkeypatch):
    lines = [SCHEMA, '{"type": ob}', SCHEMA, '{"type": "object", "minimum": NaN}', '{"a":', SCHEMA]
    code, out, err = _run(monkeypatch, "normalize", "-", "--target", "gemini", stdin="\n".join(lines) + "\n")
    assert code == 1  # some documents of the batch failed, as the command documents
    expected = wireschema.normalize(json.loads(SCHEMA), "gemini").schema
    assert [json.loads(line) for line in out.splitlines()] == [expected, None, expected, None, None, expected]
    assert err.splitlines() == [
        "wireschema: error: <stdin>:2:10: Expecting value",
        "wireschema: error: <stdin>:4:31: NaN is not JSON",
        # a value running past its line is judged as that line alone
        "wireschema: error: <stdin>:5:6: Expecting value",
    ]


@pytest.mark.parametrize("text", [
    '{\n  "type" "object"\n}\n',  # one pretty-printed document
    '{"type" ob}\n',  # one line
    '{"type": "object"} {"type" ob}\n{"type": "object"}\n',  # a value that does not end its line
])
def test_bad_json_that_is_no_json_lines_stops_the_command(monkeypatch, text):
    code, out, err = _run(monkeypatch, "normalize", "-", "--target", "gemini", stdin=text)
    assert (code, out) == (2, "") and len(err.splitlines()) == 1 and err.startswith("wireschema: error: <stdin>:")


def test_json_lines_find_each_line_by_bisection_in_one_scan_of_the_text(monkeypatch, tmp_path):
    """Lines are numbered from one table of line starts (made once per text), never by
    counting newlines from the start for every document."""
    made = []

    class Counted(jsonsource.Lines):
        def __init__(self, text):
            made.append(len(text))
            super().__init__(text)

    monkeypatch.setattr(jsonsource, "Lines", Counted)
    monkeypatch.setattr(batch, "Lines", Counted)
    monkeypatch.setattr(jsonsource, "line_column", None)  # the count from the start: never called
    text = "".join(f'{{"type": "object", "title": "t{i}"}}\n' for i in range(500))
    f = tmp_path / "many.jsonl"
    f.write_text(text)
    data = batch._load(str(f))
    assert made == [len(text)]
    assert [d.items[0].label for d in data.docs] == [f"line {n}" for n in range(1, 501)]


def test_lines_gives_what_counting_from_the_start_gives():
    text = 'a\n\nbc\r\nd\n' + "é" * 3 + "\nz"
    lines = jsonsource.Lines(text)
    for offset in range(len(text) + 1):
        assert lines.at(offset) == jsonsource.line_column(text, offset)
