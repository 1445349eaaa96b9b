"""`wireschema probe TARGET`: the battery (`battery.py`) sent to the live API.

    wireschema probe TARGET [--model M] [--base-url URL] [--only IDS] [--record DIR | --replay DIR]

Each probe goes as one tool, its call forced, in the request the rule file's `probe:`
section describes, with the caller's key from the environment. The server accepts it,
refuses it (its error text said), or accepts it but a call breaks it (ignored); each is
printed beside what the target's rules do with that schema. `--record` writes each
exchange as a JSON fixture (the key never in it); `--replay` reads them instead of the
network. Exit status: 0; 1 where the rules send what the server refused; 2 for a usage
error (no key, no probe section, an unreachable server).
"""

from __future__ import annotations

import argparse
import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import attrs

import wireschema
from wireschema.battery import TOOL_NAME, Probe, battery, broken, frame_input
from wireschema.console import FINDINGS, UsageError, add_command, named_target, say
from wireschema.probespec import PLACEHOLDER, TOOLS

_MAX_BYTES = 4 * 1024 * 1024  # of one response: a probe's answer is a few kilobytes
_TIMEOUT = 120  # seconds a server may take over one probe before it counts as no answer
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
_NO_VERDICT = ("no answer", "not recorded")


@attrs.frozen
class Exchange:
    """What the server answered: its status and body (JSON, or text), or why nothing."""

    status: int | None
    body: Any = None
    error: str | None = None


@attrs.frozen
class Outcome:
    """One probe's verdict: the server's (`accepted`, `refused`, `ignored`, or why none),
    its words, and what the rule file does with the same schema."""

    probe: Probe
    server: str
    said: str
    rules: str

    @property
    def disagrees(self) -> bool:
        return self.server == "refused" and self.rules == "keeps"

    @property
    def note(self) -> str:
        if self.disagrees:
            return "DISAGREES: the rules send what the server refuses"
        if self.server == "accepted" and self.rules != "keeps":
            return "the server takes it; the rules change it"
        if self.server == "ignored" and self.rules == "keeps":
            return "the server takes it but does not enforce it"
        return ""


def setup(sub: Any) -> None:
    p = add_command(sub, "probe", "send a battery of small schemas to the live API and compare its verdicts with the rules")
    p.add_argument("target", metavar="TARGET", help="a target whose rule file has a probe section")
    p.add_argument("--model", help="the model to probe (default: the rule file's)")
    p.add_argument("--base-url", metavar="URL", help="the API's base URL instead of the rule file's (https; http only on the loopback address)")
    p.add_argument("--only", metavar="IDS", help="comma-separated probe ids (default: the whole battery)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--record", metavar="DIR", help="save each exchange as DIR/TARGET/ID.json (the key is never saved)")
    where.add_argument("--replay", metavar="DIR", help="read the exchanges saved by --record instead of the network")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    target = named_target(args, args.target)
    spec = target.probe
    if spec is None:
        raise UsageError(f"probe: {target.name} has no probe section in its rule file (its wire names no endpoint to probe)")
    try:
        import jsonschema  # noqa: F401 - judges the calls
    except ImportError:
        raise UsageError("probe needs jsonschema to judge the calls: pip install 'wireschema[validate]'") from None
    model = args.model or spec.get("model", "")
    url = _checked_base(args.base_url or spec["base"]) + PLACEHOLDER.sub(lambda m: quote(model, safe=""), spec["path"])
    send = _Replay(Path(args.replay), target.name) if args.replay else _Network(url, _headers(spec, target.name))
    frame = wireschema.normalize(frame_input(), target).schema
    probes = _chosen(battery(frame), args.only)
    outcomes = []
    for probe in probes:
        schema = probe.schema(frame)
        body = _filled(spec["body"], {"tools": [_tool(target, probe, schema)], "prompt": probe.prompt, "model": model})
        schema, exchange = send(probe, schema, body)
        if args.record:
            _record(Path(args.record), target.name, probe, url, _headers(spec, None), body, schema, exchange)
        outcomes.append(_judged(target, spec, probe, schema, exchange))
    say(f"probe {target.name}: {model or 'no model'} at {send.where}")
    _print(target.name, outcomes)
    return FINDINGS if any(o.disagrees for o in outcomes) else 0


def _checked_base(base: str) -> str:
    parts = urlsplit(base)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise UsageError(f"probe: the base URL must be an http(s) URL, got {base!r}")
    if parts.scheme == "http" and parts.hostname not in _LOOPBACK:
        raise UsageError(f"probe: {base} is plain http: the key would travel in clear text (http only on the loopback address)")
    return base.rstrip("/")


def _headers(spec: Any, target: str | None) -> dict[str, str]:
    """The request's headers, the key filled in; with `target` None, those without it."""
    headers = dict(spec.get("headers", {}))
    if target is None:
        return {k: v for k, v in headers.items() if "{key}" not in v}
    names = spec["key_env"]
    key = next((os.environ[n] for n in names if os.environ.get(n)), None)
    if key is None:
        raise UsageError(f"probe {target}: no key: set {' or '.join(names)}")
    return {k: v.replace("{key}", key) for k, v in headers.items()}


def _chosen(probes: tuple[Probe, ...], only: str | None) -> tuple[Probe, ...]:
    if only is None:
        return probes
    ids = [i.strip() for i in only.split(",") if i.strip()]
    known = {p.id for p in probes}
    missing = [i for i in ids if i not in known]
    if missing or not ids:
        raise UsageError(f"probe --only: unknown probe {', '.join(missing) or '(none)'} (known: {', '.join(p.id for p in probes)})")
    return tuple(p for p in probes if p.id in ids)


def _tool(target: Any, probe: Probe, schema: Any) -> dict[str, Any]:
    from wireschema.tools import _in_shape

    return _in_shape(target, TOOL_NAME, f"wireschema probe {probe.id}: takes one argument.", schema, strict=target.strict)


def _filled(template: Any, values: dict[str, Any]) -> Any:
    """The body with its placeholders filled: `{tools}` alone is the list, the others text."""
    if template == TOOLS:
        return values["tools"]
    if isinstance(template, str):
        return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), template)
    if isinstance(template, dict):
        return {k: _filled(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [_filled(v, values) for v in template]
    return template


# -- the exchanges -----------------------------------------------------------------


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a redirect would carry the key to another address: it is an answer


class _Network:
    """Sends each probe's body to the endpoint; a loopback address never goes through a proxy."""

    def __init__(self, url: str, headers: dict[str, str]):
        self.where = url
        self._headers = {"Content-Type": "application/json", **headers}
        handlers: list[Any] = [_NoRedirect()]
        if urlsplit(url).hostname in _LOOPBACK:
            handlers.append(urllib.request.ProxyHandler({}))
        self._opener = urllib.request.build_opener(*handlers)

    def __call__(self, probe: Probe, schema: Any, body: Any) -> tuple[Any, Exchange]:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(self.where, data=data, headers=self._headers, method="POST")
        try:
            with self._opener.open(request, timeout=_TIMEOUT) as response:
                return schema, _answer(response.status, response)
        except urllib.error.HTTPError as exc:
            with exc:
                answer = _answer(exc.code, exc)
            if exc.code in (401, 403):
                raise UsageError(f"probe: the server refused the key (HTTP {exc.code}): {_text(answer.body)}") from None
            return schema, answer
        except TimeoutError:
            return schema, Exchange(None, error=f"no answer within {_TIMEOUT} s")
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                return schema, Exchange(None, error=f"no answer within {_TIMEOUT} s")
            raise UsageError(f"probe: cannot reach {self.where}: {exc.reason}") from None


def _answer(status: int, stream: Any) -> Exchange:
    data = stream.read(_MAX_BYTES + 1)
    if len(data) > _MAX_BYTES:
        return Exchange(status, error=f"an answer over {_MAX_BYTES} bytes")
    text = data.decode("utf-8", "replace")
    try:
        return Exchange(status, json.loads(text))
    except ValueError:
        return Exchange(status, text)


def _fixture(folder: Path, target: str, probe: Probe) -> Path:
    return folder / target / f"{probe.id.replace('/', '.')}.json"


class _Replay:
    """Reads each probe's exchange from the fixtures `--record` wrote."""

    def __init__(self, folder: Path, target: str):
        if not (folder / target).is_dir():
            raise UsageError(f"probe --replay: no recordings of {target} in {folder}")
        self._folder, self._target = folder, target
        self.where = f"{folder / target} (recorded)"

    def __call__(self, probe: Probe, schema: Any, body: Any) -> tuple[Any, Exchange]:
        path = _fixture(self._folder, self._target, probe)
        if not path.is_file():
            return schema, Exchange(None, error="not recorded")
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
            answer = saved["response"]
            # the schema judged is the one that was sent, whatever the rules make of it now
            return saved["schema"], Exchange(answer["status"], answer.get("json", answer.get("text")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise UsageError(f"probe --replay: {path} is no recording: {exc!r}") from None


def _record(folder: Path, target: str, probe: Probe, url: str, headers: dict, body: Any, schema: Any, answer: Exchange) -> None:
    path = _fixture(folder, target, probe)
    response: dict[str, Any] = {"status": answer.status}
    if answer.error is not None:
        response["error"] = answer.error
    else:
        response["json" if not isinstance(answer.body, str) else "text"] = answer.body
    saved = {"probe": probe.id, "target": target, "schema": schema,
             "request": {"method": "POST", "url": url, "headers": headers, "body": body}, "response": response}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(saved, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"probe --record: cannot write {path}: {exc.strerror or exc}") from None


# -- the verdicts ------------------------------------------------------------------


def _judged(target: Any, spec: Any, probe: Probe, schema: Any, answer: Exchange) -> Outcome:
    server, said = _server(spec, schema, answer)
    return Outcome(probe, server, said, _rules(target, schema, probe))


def _server(spec: Any, schema: Any, answer: Exchange) -> tuple[str, str]:
    if answer.status is None:
        return ("not recorded" if answer.error == "not recorded" else "no answer"), answer.error or ""
    if 200 <= answer.status < 300:
        for call in _found(answer.body, spec["calls"]):
            try:
                args = json.loads(call) if isinstance(call, str) else call
            except ValueError:
                return "ignored", "a call's arguments are no JSON"
            reason = broken(schema, args)
            if reason is not None:
                return "ignored", f"a call broke it: {reason}"
        return "accepted", ""
    said = next((m for m in _found(answer.body, spec["error"]) if isinstance(m, str)), None)
    said = said or answer.error or _text(answer.body)
    if 400 <= answer.status < 500 and answer.status not in (404, 408, 429):
        return "refused", said
    return "no answer", f"HTTP {answer.status}: {said}"


def _found(body: Any, paths: tuple[str, ...]) -> list[Any]:
    from wireschema.rulefields import jsonpath

    if isinstance(body, str) or body is None:
        return []
    return [m.value for p in paths for m in jsonpath(p).find(body)]


def _rules(target: Any, schema: Any, probe: Probe) -> str:
    """What the target's rules do with the schema sent, at the probed part."""
    result = wireschema.normalize(schema, target)
    if result.used_fallback:
        return "falls back"
    if target.strict and not result.strict:
        return "fails open"
    for c in result.changes:
        if c.pointer == probe.pointer or c.pointer.startswith(probe.pointer + "/"):
            return f"{c.action} [{c.rule}]"
    return "keeps"


def _text(body: Any, limit: int = 200) -> str:
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _print(name: str, outcomes: list[Outcome]) -> None:
    rows = [("probe", "server", "rules", "note")]
    rows += [(o.probe.id, o.server, o.rules, " ".join(x for x in (o.note + ":" if o.note and o.said else o.note, _text(o.said)) if x))
             for o in outcomes]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        say(("  ".join(cell.ljust(w) for cell, w in zip(r, widths)) + "  " + r[3]).rstrip())
    counts = {v: sum(o.server == v for o in outcomes) for v in ("accepted", "refused", "ignored", *_NO_VERDICT)}
    said = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    say(f"{name}: {len(outcomes)} probes: {said}; {sum(o.disagrees for o in outcomes)} where the rules send what the server refused")
