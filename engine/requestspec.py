"""The `request:` field of a rule file: how the wire spells the tool-related parts of a
request body beside its tools (the tool choice, the structured output, the tool calls
and results of earlier turns).

`normalize_request` reads a body written for another wire by that wire's spelling and
writes it in the target's (`requests`), so no Python names a provider. Every place is
a path of plain fields (`$.tool_choice`, `$.function.name`; `$` is the value itself);
a list of paths is read at any of them and written at the first.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from .rulefields import REQUEST_FIELDS, Entry, Keyed, field_paths, freeze_json, unknown


_CHOICE = ("at", "auto", "none", "required", "tool")
_OUTPUT = ("at", "fixed", "schema", "name", "description", "strict", "text", "enforced", "shared", "none")
_MESSAGES = ("at", "text_input", "role", "roles", "fixed", "content", "text_content", "system", "text", "assistant_text",
             "call", "calls", "apart", "result", "result_output", "ids", "unsent")
_PART_PATHS = {"text": ("text", "unsent"), "assistant_text": ("text", "unsent"), "call": ("id", "name", "input", "unsent"),
               "result": ("id", "name", "output", "error", "unsent")}
RESULT_OUTPUTS = ("text", "object", "parts")


def check_request(value: Any) -> dict[str, Any]:
    """The `request:` field, validated: each section as plain frozen data, paths as key tuples."""
    if not isinstance(value, Keyed):
        value.err("request must be a mapping of tools, tool_choice, output and messages")
    out: dict[str, Any] = {}
    for key, entry in value.items.items():
        if key not in REQUEST_FIELDS:
            entry.err(unknown("request field", key, REQUEST_FIELDS), of_key=True)
        if key == "tools":
            out[key] = _paths(entry, "request.tools")
        elif not isinstance(entry.value, dict):
            entry.err(f"request.{key} must be a mapping")
        else:
            out[key] = MappingProxyType(_SECTIONS[key](entry))
    return out


def _paths(entry: Entry, what: str) -> tuple[tuple[str, ...], ...]:
    return field_paths(entry, f"{what} must be a path of plain fields like $.tool_choice ($ for the value itself)", itself=True)


def _fields(entry: Entry, known: tuple[str, ...], what: str) -> dict[str, Entry]:
    value = entry.value
    for k in value:
        if k not in known:
            Entry(entry.path, value, k).err(unknown(f"{what} field", k, known), of_key=True)
    return {k: Entry(entry.path, value, k) for k in value}


def _flag(entry: Entry, what: str) -> bool:
    if not isinstance(entry.value, bool):
        entry.err(f"{what} must be true or false")
    return entry.value


def _fixed(entry: Entry, what: str) -> dict[str, Any]:
    if not isinstance(entry.value, dict):
        entry.err(f"{what} must be a mapping of constant keys")
    return freeze_json(entry.value)


def _part(entry: Entry, what: str, paths: tuple[str, ...], flags: tuple[str, ...] = (), values: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(entry.value, dict):
        entry.err(f"{what} must be a mapping")
    out: dict[str, Any] = {}
    for k, sub in _fields(entry, ("fixed", *paths, *flags, *values), what).items():
        if k == "fixed":
            out[k] = _fixed(sub, f"{what}.fixed")
        elif k in flags:
            out[k] = _flag(sub, f"{what}.{k}")
        elif k in values:
            out[k] = freeze_json(sub.value)
        else:
            out[k] = _paths(sub, f"{what}.{k}")
    return out


def _choice(entry: Entry) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, sub in _fields(entry, _CHOICE, "request.tool_choice").items():
        if k == "at":
            out[k] = _paths(sub, "request.tool_choice.at")
        elif k == "tool":
            out[k] = _part(sub, "request.tool_choice.tool", ("name", "names"))
            if ("name" in out[k]) == ("names" in out[k]):
                sub.err("request.tool_choice.tool says where the forced tool's name sits: name or names, one of them")
        else:
            out[k] = freeze_json(sub.value)
    if "at" not in out:
        entry.err("request.tool_choice.at is required")
    return out


def _output(entry: Entry) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, sub in _fields(entry, _OUTPUT, "request.output").items():
        if k == "fixed" and isinstance(sub.value, list) and sub.value:
            # alternatives: read at any, written the first
            out[k] = tuple(_fixed(Entry(sub.path, sub.value, i), "request.output.fixed") for i in range(len(sub.value)))
        elif k == "fixed":
            out[k] = (_fixed(sub, "request.output.fixed"),)
        elif k in ("text", "enforced", "shared"):
            out[k] = _flag(sub, f"request.output.{k}")
        elif k == "none":
            if not isinstance(sub.value, list):
                sub.err("request.output.none must be a list of the holder's values that ask for no structured output")
            out[k] = tuple(freeze_json(sub.value))
        else:
            out[k] = _paths(sub, f"request.output.{k}")
    for required in ("at", "schema"):
        if required not in out:
            entry.err(f"request.output.{required} is required")
    return out


def _messages(entry: Entry) -> dict[str, Any]:
    from .names import NameRule

    out: dict[str, Any] = {}
    for k, sub in _fields(entry, _MESSAGES, "request.messages").items():
        what = f"request.messages.{k}"
        if k in ("at", "role", "content", "calls", "unsent"):
            out[k] = _paths(sub, what)
        elif k in ("text_content", "text_input", "apart"):
            out[k] = _flag(sub, what)
        elif k == "fixed":
            out[k] = _fixed(sub, what)
        elif k == "roles":
            roles = sub.value
            if not isinstance(roles, dict) or not set(roles) <= {"system", "user", "assistant", "tool"} or not all(
                isinstance(v, str) or (isinstance(v, list) and v and all(isinstance(x, str) for x in v)) for v in roles.values()
            ):
                sub.err(f"{what} maps system, user, assistant and tool to the wire's role (a name, or a list read at any and written first)")
            out[k] = {r: (v,) if isinstance(v, str) else tuple(v) for r, v in roles.items()}
        elif k == "system":
            out[k] = _part(sub, what, ("at", "parts"), ("text_only",))
        elif k in _PART_PATHS:
            flags = ("input_text",) if k == "call" else ()
            out[k] = _part(sub, what, _PART_PATHS[k], flags, ("error_value",) if k == "result" else ())
        elif k == "result_output":
            if sub.value not in RESULT_OUTPUTS:
                sub.err(unknown("result output form", sub.value, RESULT_OUTPUTS))
            out[k] = sub.value
        elif k == "ids":
            if not isinstance(sub.value, dict):
                sub.err(f"{what} must be a mapping like names")
            try:
                out[k] = NameRule(**freeze_json(sub.value))
            except Exception as exc:  # an unknown field, or a rule no id could meet
                sub.err(f"{what}: {exc}")
    for required in ("at", "role", "roles", "content", "text", "call", "result", "result_output"):
        if required not in out:
            entry.err(f"request.messages.{required} is required")
    return out


_SECTIONS = {"tool_choice": _choice, "output": _output, "messages": _messages}
