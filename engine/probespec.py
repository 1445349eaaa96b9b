"""A rule file's `probe:` section, checked: where `wireschema probe` sends its battery.

The section names the endpoint, the key's environment variables and the request body
of one wire; `probe.py` fills it in. Placeholders are plain names in braces (`{key}`,
`{model}`, `{prompt}`, `{tools}`), never code; a misspelt one is refused at load.
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

from .rulefields import PROBE_FIELDS, Entry, Keyed, freeze_json, parse_jsonpath, unknown

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
TOOLS = "{tools}"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_REQUIRED = ("base", "path", "key_env", "body", "calls", "error")
# the placeholders each field may hold
_ALLOWED = {"path": ("model",), "headers": ("key",), "body": ("tools", "prompt", "model")}


def check_probe(value: Any) -> MappingProxyType:
    """The probe section as plain values; a mistake is a RuleFileError where it stands."""
    if not isinstance(value, Keyed):
        value.err("probe must be a mapping (fields: " + ", ".join(PROBE_FIELDS) + ")")
    out: dict[str, Any] = {}
    for key, entry in value.items.items():
        if key not in PROBE_FIELDS:
            entry.err(unknown("probe field", key, PROBE_FIELDS), of_key=True)
        out[key] = _CHECKS[key](entry)
    for key in _REQUIRED:
        if key not in out:
            value.at.err(f"probe.{key} is required")
    if "model" not in out and ("{model}" in out["path"] or _holds(out["body"], "model")):
        value.at.err("probe.model is required: the path or body names {model}")
    return MappingProxyType(out)


def _base(entry: Entry) -> str:
    v = entry.value
    parts = urlsplit(v) if isinstance(v, str) else None
    if parts is None or parts.scheme not in ("https", "http") or not parts.netloc or parts.query or parts.fragment:
        entry.err(f"probe.base must be an http(s) URL without query, like https://api.openai.com/v1, got {v!r}")
    return v.rstrip("/")


def _path(entry: Entry) -> str:
    v = entry.value
    if not isinstance(v, str) or not v.startswith("/"):
        entry.err(f"probe.path must start with '/', got {v!r}")
    _placeholders(entry, v, "path")
    return v


def _key_env(entry: Entry) -> tuple[str, ...]:
    v = entry.value
    if not isinstance(v, list) or not v or not all(isinstance(n, str) and _ENV_NAME.match(n) for n in v):
        entry.err("probe.key_env must be a non-empty list of environment variable names")
    return tuple(v)


def _headers(entry: Entry) -> MappingProxyType:
    v = entry.value
    if not isinstance(v, dict) or not all(isinstance(k, str) and isinstance(x, str) for k, x in v.items()):
        entry.err("probe.headers must map a header name to a string")
    for text in v.values():
        _placeholders(entry, text, "headers")
    return MappingProxyType(dict(v))


def _model(entry: Entry) -> str:
    if not isinstance(entry.value, str) or not entry.value:
        entry.err("probe.model must be a model name")
    return entry.value


def _body(entry: Entry) -> Any:
    v = entry.value
    if not isinstance(v, dict):
        entry.err("probe.body must be a mapping (the request body)")
    body = freeze_json(v)
    strings = list(_strings(body))
    for text in strings:
        _placeholders(entry, text, "body")
    if strings.count(TOOLS) != 1 or sum(TOOLS in s for s in strings) != 1:
        entry.err("probe.body must hold the string {tools} once, alone, where the tool list goes")
    if not _holds(body, "prompt"):
        entry.err("probe.body must hold {prompt} where the user's message goes")
    return body


def _paths(entry: Entry) -> tuple[str, ...]:
    v = entry.value
    paths = v if isinstance(v, list) else [v]
    for j, p in enumerate(paths):
        parse_jsonpath(p, Entry(entry.path, v, j) if v is paths else entry, "probe")
    return tuple(paths)


def _placeholders(entry: Entry, text: str, field: str) -> None:
    for name in PLACEHOLDER.findall(text):
        if name not in _ALLOWED[field]:
            entry.err(f"probe.{field}: " + unknown("placeholder", "{" + name + "}", ["{" + n + "}" for n in _ALLOWED[field]]))


def _strings(value: Any) -> Any:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _holds(value: Any, name: str) -> bool:
    return any("{" + name + "}" in s for s in _strings(value))


_CHECKS = {"base": _base, "path": _path, "key_env": _key_env, "headers": _headers, "model": _model,
           "body": _body, "calls": _paths, "error": _paths}
