"""`wireschema probe`: the battery sent to a server, its verdicts beside the rules'.

Every request goes to a server on 127.0.0.1 started here, which plays a provider: it
refuses some keywords with that provider's error shape, and answers the others with a
forced tool call whose arguments keep to the schema unless the keyword is one it
ignores. It serves a bounded number of requests and is shut down by each test.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
import urllib.request

import pytest
from test_cli import one_error_line, run  # noqa: F401 - `run` is a fixture

import wireschema
from wireschema.battery import ARG, battery, broken, frame_input
from conftest import write_rules

KEY = "sk-test-not-a-real-key"
_MAX_REQUESTS = 64


def _keywords(schema):
    """Every keyword of a schema (the probe's are plain dicts and lists)."""
    out, stack = set(), [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out |= set(node)
            stack += [v for k, v in node.items() if k not in ("enum", "const", "default", "required")]
        elif isinstance(node, list):
            stack += node
    return out


class _OpenAIChat:
    """Plays Chat Completions: its 401, its 400 for a refused keyword, a forced call."""

    path = "/v1/chat/completions"

    def __init__(self, target, refuse=(), ignore=()):
        frame = wireschema.normalize(frame_input(), target).schema
        self.probes = {f"wireschema probe {p.id}: takes one argument.": p for p in battery(frame)}
        self.refuse, self.ignore = set(refuse), set(ignore)

    def answer(self, headers, body):
        if headers.get("Authorization") != f"Bearer {KEY}":
            return 401, {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error", "code": "invalid_api_key"}}
        function = body["tools"][0]["function"]
        refused = sorted(_keywords(function["parameters"]) & self.refuse)
        if refused:
            message = f"Invalid schema for function 'probe': In context=('properties', 'v'), '{refused[0]}' is not permitted."
            return 400, {"error": {"message": message, "type": "invalid_request_error",
                                   "param": "tools[0].function.parameters", "code": "invalid_function_parameters"}}
        probe = self.probes[function["description"]]
        value = probe.tempt if probe.keyword in self.ignore and probe.tempt is not None else probe.valid
        call = {"id": "call_1", "type": "function", "function": {"name": function["name"], "arguments": json.dumps({ARG: value})}}
        return 200, {"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls",
                                                             "message": {"role": "assistant", "content": None, "tool_calls": [call]}}]}


@contextlib.contextmanager
def _server(wire):
    """`wire` served on 127.0.0.1 (a free port) until the block ends; past _MAX_REQUESTS
    requests it answers 503 and stops serving by itself."""
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            length = min(int(self.headers.get("Content-Length", 0)), 1 << 20)
            seen.append(self.path)
            if len(seen) > _MAX_REQUESTS:
                status, body = 503, {"error": {"message": "the test server is done"}}
                threading.Thread(target=self.server.shutdown, daemon=True).start()
            elif self.path != wire.path:
                status, body = 404, {"error": {"message": f"no route {self.path}"}}
            else:
                status, body = wire.answer(self.headers, json.loads(self.rfile.read(length)))
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def keyed(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def _table(stdout):
    """Probe id -> (server verdict, rules' verdict, note), from the printed table."""
    lines = stdout.splitlines()
    head = lines[1]
    starts = [head.index(c) for c in ("server", "rules", "note")]
    out = {}
    for line in lines[2:-1]:
        cells = [line[: starts[0]], line[starts[0] : starts[1]], line[starts[1] : starts[2]], line[starts[2] :]]
        out[cells[0].strip()] = tuple(c.strip() for c in cells[1:])
    return out


def test_probe_prints_what_the_server_accepts_refuses_and_ignores_beside_the_rules(run, keyed):
    wire = _OpenAIChat("openai-strict", refuse={"minLength", "uniqueItems"}, ignore={"maxLength"})
    with _server(wire) as (base, seen):
        ran = run("probe", "openai-strict", "--base-url", base)
    table = _table(ran.stdout)
    assert len(seen) == len(table) == len(wire.probes)
    # kept by the rules, refused by the server: a finding, with the server's own words
    server, rules, note = table["string/minLength"]
    assert (server, rules) == ("refused", "keeps")
    assert note.startswith("DISAGREES") and "'minLength' is not permitted" in note
    # refused, and the rules change it too: agreed
    assert table["array/uniqueItems"][:2] == ("refused", "spilled [openai-strict/keep-only]")
    assert not table["array/uniqueItems"][2].startswith("DISAGREES")
    # accepted, but the call broke it
    assert table["string/maxLength"][0] == "ignored" and "does not enforce it" in table["string/maxLength"][2]
    assert table["string/pattern"] == ("accepted", "keeps", "")
    assert ran.returncode == 1, ran.stderr
    assert ran.stdout.splitlines()[-1].endswith("; 1 where the rules send what the server refused")


def test_probe_agreeing_with_every_verdict_exits_0(run, keyed):
    with _server(_OpenAIChat("openai-strict", refuse={"uniqueItems"})) as (base, _):
        ran = run("probe", "openai-strict", "--base-url", base, "--only", "array/uniqueItems,string/pattern")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert list(_table(ran.stdout)) == ["string/pattern", "array/uniqueItems"]  # in the battery's order


def test_without_a_key_probe_is_an_error_and_sends_nothing(run, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with _server(_OpenAIChat("openai-strict")) as (base, seen):
        line = one_error_line(run("probe", "openai-strict", "--base-url", base))
    assert "OPENAI_API_KEY" in line and seen == []


def test_a_refused_key_stops_the_probe_with_the_servers_words(run, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    with _server(_OpenAIChat("openai-strict")) as (base, seen):
        line = one_error_line(run("probe", "openai-strict", "--base-url", base))
    assert "Incorrect API key provided" in line and len(seen) == 1


def test_the_recorded_exchanges_replay_offline_to_the_same_verdicts(run, keyed, tmp_path, monkeypatch):
    wire = _OpenAIChat("openai-strict", refuse={"minLength", "uniqueItems"}, ignore={"maxLength"})
    with _server(wire) as (base, _):
        live = run("probe", "openai-strict", "--base-url", base, "--record", tmp_path)
    recorded = sorted(p.name for p in (tmp_path / "openai-strict").iterdir())
    assert recorded == sorted(f"{p.id.replace('/', '.')}.json" for p in wire.probes.values())
    assert all(KEY not in p.read_text(encoding="utf-8") for p in (tmp_path / "openai-strict").iterdir())

    def no_network(*args, **kwargs):
        raise AssertionError("a replay opened a connection")

    monkeypatch.setattr(urllib.request.OpenerDirector, "open", no_network)
    monkeypatch.delenv("OPENAI_API_KEY")
    replayed = run("probe", "openai-strict", "--replay", tmp_path)
    assert replayed.returncode == live.returncode == 1
    assert replayed.stdout.splitlines()[1:] == live.stdout.splitlines()[1:]


def test_a_recording_saves_the_request_and_the_answer(run, keyed, tmp_path):
    with _server(_OpenAIChat("openai-strict", refuse={"minLength"})) as (base, _):
        run("probe", "openai-strict", "--base-url", base, "--record", tmp_path, "--only", "string/minLength")
    saved = json.loads((tmp_path / "openai-strict" / "string.minLength.json").read_text(encoding="utf-8"))
    assert saved["request"]["url"] == f"{base}/chat/completions"
    assert saved["request"]["headers"] == {}  # Authorization holds the key
    assert saved["request"]["body"]["tools"][0]["function"]["parameters"] == saved["schema"]
    assert saved["schema"]["properties"][ARG] == {"type": "string", "minLength": 5}
    assert saved["response"]["status"] == 400 and "minLength" in saved["response"]["json"]["error"]["message"]


def test_a_missing_recording_is_said_not_guessed(run, tmp_path):
    (tmp_path / "openai-strict").mkdir()
    ran = run("probe", "openai-strict", "--replay", tmp_path, "--only", "string/pattern")
    assert _table(ran.stdout)["string/pattern"][0] == "not recorded" and ran.returncode == 0


@pytest.mark.parametrize("base", ["http://api.example.com/v1", "ftp://127.0.0.1/v1", "not a url"])
def test_the_key_never_travels_in_clear_text(run, keyed, base):
    line = one_error_line(run("probe", "openai-strict", "--base-url", base))
    assert "base" in line or "http" in line


def test_a_target_without_a_probe_section_is_an_error(run, keyed):
    assert "no probe section" in one_error_line(run("probe", "generic"))


@pytest.mark.parametrize("target", [t.name for t in wireschema.targets() if wireschema._target(t.name).probe is not None])
def test_each_probe_body_holds_the_tool_where_the_wire_keeps_its_tools(target):
    from wireschema.probe import _filled, _tool

    t = wireschema._target(target)
    frame = wireschema.normalize(frame_input(), t).schema
    probe = battery(frame)[0]
    body = _filled(t.probe["body"], {"tools": [_tool(t, probe, probe.schema(frame))], "prompt": probe.prompt, "model": "m"})
    assert t.probe["base"].startswith("https://")
    # the wire's own request reader finds the one tool in the body
    found = wireschema.normalize_request(body, t)
    assert [r.target for group in found.tools for r in group.results] == [t.name]


@pytest.mark.parametrize("target", ["openai-strict", "gemini", "anthropic-strict"])
def test_each_probe_tempts_with_a_value_its_schema_refuses_and_shows_one_it_takes(target):
    frame = wireschema.normalize(frame_input(), target).schema
    for probe in battery(frame):
        schema = probe.schema(frame)
        assert broken(schema, {ARG: probe.valid}) is None, probe.id
        if probe.tempt is not None:
            assert broken(schema, {ARG: probe.tempt}) is not None, probe.id


@pytest.mark.parametrize(
    ("probe", "message"),
    [
        ("{base: 'https://x.example', path: '/v1/{modle}', key_env: [K], body: {a: '{tools}', b: '{prompt}'}, calls: $.a, error: $.e}",
         "unknown placeholder '{modle}' — did you mean '{model}'?"),
        ("{base: 'https://x.example', path: /v1, key_env: [K], body: {a: '{prompt}'}, calls: $.a, error: $.e}",
         "must hold the string {tools} once"),
        ("{base: 'https://x.example', path: /v1, body: {a: '{tools}', b: '{prompt}'}, calls: $.a, error: $.e}",
         "probe.key_env is required"),
        ("{base: 'x.example', path: /v1, key_env: [K], body: {a: '{tools}', b: '{prompt}'}, calls: $.a, error: $.e}",
         "probe.base must be an http(s) URL"),
        ("{base: 'https://x.example', path: '/{model}', key_env: [K], body: {a: '{tools}', b: '{prompt}'}, calls: $.a, error: $.e}",
         "probe.model is required"),
    ],
)
def test_a_broken_probe_section_is_refused_where_it_stands(tmp_path, probe, message):
    from conftest import rule_error

    path = write_rules(tmp_path, "mine.yaml", f"extends: generic\nprobe: {probe}\n")
    said = rule_error(path)
    assert said.startswith(f"{path}:2:") and message in said


def test_a_file_for_another_wire_states_its_own_probe_or_none(tmp_path):
    path = write_rules(tmp_path, "proxy.yaml", "extends: openai-chat\nprobe: {base: 'https://proxy.example/v1', key_env: [PROXY_KEY]}\n")
    t = wireschema.load_rules(path)["proxy"]
    assert (t.probe["base"], t.probe["key_env"], t.probe["path"]) == ("https://proxy.example/v1", ("PROXY_KEY",), "/chat/completions")
    assert wireschema.load_rules(write_rules(tmp_path, "none.yaml", "extends: openai-chat\nprobe: null\n"))["none"].probe is None
