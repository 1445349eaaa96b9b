"""The earlier turns of a request body (system text, user and assistant turns, tool calls
and their results) read by one wire's `request.messages` spelling and written in
another's. A part no spelling reads (an image, a thinking block), or a field beside
what a spelling reads (a cache_control), is lost: refused or dropped by the caller.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping, Sequence

import attrs

from .bodyfields import MISSING, Lost, beside, fill, get, held, matches, pop, put
from .model import Change
from .positions import pointer


@attrs.frozen
class Text:
    text: str


@attrs.frozen
class Call:
    id: str | None
    name: str
    input: Any
    at: str = attrs.field(default="", eq=False)  # where the body held it


@attrs.frozen
class Result:
    id: str | None
    name: str | None
    texts: tuple[str, ...]
    error: bool = False
    at: str = attrs.field(default="", eq=False)  # where the body held it


@attrs.frozen
class Turn:
    role: str  # system, user or assistant
    parts: tuple[Any, ...]


def _role_of(spec: Mapping[str, Any], value: Any) -> str | None:
    return next((role for role, names in spec["roles"].items() if value in names), None)


def _read_spelled(part: Any, spelling: Mapping[str, Any], fields: Sequence[str]) -> tuple[dict[str, Any], list[str]] | None:
    """The fields `part` holds in `spelling` and what it holds beside them; None where its constant keys differ."""
    if not matches(part, spelling.get("fixed", {})):
        return None
    got: dict[str, Any] = {}
    read = set()
    for field in fields:
        value, path = held(part, spelling.get(field, ()))
        if path is not None:
            got[field] = value
            read.add(path)
    return got, beside(part, read, spelling.get("fixed", {}))


def _texts(value: Any, spec: Mapping[str, Any], lost: Lost, where: str, text_alone: bool) -> tuple[str, ...]:
    """A string (where `text_alone`) or a list of text parts, as texts."""
    if isinstance(value, str) and text_alone:
        return (value,)
    if not isinstance(value, list):
        lost.add(where, "content that is neither text nor a list of parts")
        return ()
    found = (_text_part(part, spec, lost, f"{where}/{j}") for j, part in enumerate(value))
    return tuple(text for text in found if text is not None)


def _text_part(part: Any, spec: Mapping[str, Any], lost: Lost, where: str) -> str | None:
    """A text part's text (what it holds beside lost), or None, the part lost: read by the
    `text` spelling, or by the `assistant_text` one."""
    spellings = (spec["text"], *((spec["assistant_text"],) if "assistant_text" in spec else ()))
    readings = ((_read_spelled(part, spelling, ("text",)), spelling) for spelling in spellings)
    read, spelling = next(((r, s) for r, s in readings if r is not None and isinstance(r[0].get("text"), str)), (None, None))
    if read is None:
        lost.add(where, f"{_kind(part)}, which no text part of the target's stands for")
        return None
    _left(lost, where, "the text part's", read[1], spelling)
    return read[0]["text"]


def _left(lost: Lost, where: str, whose: str, extras: Sequence[str], spelling: Mapping[str, Any]) -> None:
    """Each field a reading left behind: lost, or where the spelling says only its own
    wire reads it (`unsent`: an item's id or status), noted."""
    unsent = {".".join(path) for path in spelling.get("unsent", ())}
    for extra in extras:
        (lost.note if extra in unsent else lost.add)(where, f"{whose} {extra}")


def _kind(part: Any) -> str:
    if isinstance(part, dict) and isinstance(part.get("type"), str):
        return f"a part of type {part['type']!r}"
    if isinstance(part, dict):
        return f"a part of {', '.join(sorted(map(str, part))[:3]) or 'no key'}"
    return f"a part that is {type(part).__name__}"


def _output_texts(value: Any, spec: Mapping[str, Any], lost: Lost, where: str) -> tuple[tuple[str, ...], bool]:
    """A result's output as texts, and whether it says an error (the `object` form's `error` key)."""
    return _READ_OUTPUT[spec["result_output"]](value, spec, lost, where)


def _read_text_output(value: Any, spec: Mapping[str, Any], lost: Lost, where: str) -> tuple[tuple[str, ...], bool]:
    return _texts(value, spec, lost, where, True), False


def _read_object_output(value: Any, spec: Mapping[str, Any], lost: Lost, where: str) -> tuple[tuple[str, ...], bool]:
    from .pipeline import stable_dump

    if isinstance(value, dict) and len(value) == 1:
        (key, said), = value.items()
        if key in ("output", "error") and isinstance(said, str):
            return (said,), key == "error"
    return (stable_dump(value),), False


def _read_parts_output(value: Any, spec: Mapping[str, Any], lost: Lost, where: str) -> tuple[tuple[str, ...], bool]:
    from .pipeline import stable_dump

    if not isinstance(value, list):
        lost.add(where, "a result that is no list of parts")
        return (), False
    texts = []
    for j, part in enumerate(value):
        if isinstance(part, dict) and part.keys() == {"json"}:
            texts.append(stable_dump(part["json"]))
        else:
            text = _text_part(part, spec, lost, f"{where}/{j}")
            texts.extend(() if text is None else (text,))
    return tuple(texts), False


_READ_OUTPUT: dict[str, Callable[..., tuple[tuple[str, ...], bool]]] = {
    "text": _read_text_output, "object": _read_object_output, "parts": _read_parts_output,
}


def _call(part: Any, spec: Mapping[str, Any], lost: Lost, where: str) -> Call | None:
    read = _read_spelled(part, spec["call"], ("id", "name", "input"))
    if read is None or not isinstance(read[0].get("name"), str):
        return None
    got, extras = read
    args = got.get("input", {})
    if spec["call"].get("input_text") and isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            lost.add(where, f"the call of {got['name']!r}: its arguments are no JSON text")
            return None
    if not isinstance(args, dict):
        lost.add(where, f"the call of {got['name']!r}: its arguments are no object")
        return None
    _left(lost, where, "the call's", extras, spec["call"])
    ident = got.get("id")
    return Call(ident if isinstance(ident, str) else None, got["name"], args, where)


def _result(part: Any, spec: Mapping[str, Any], lost: Lost, where: str, turn_fields: Sequence[str] = ()) -> Result | None:
    read = _read_spelled(part, spec["result"], ("id", "name", "output", "error"))
    if read is None or not ("id" in read[0] or "name" in read[0]):
        return None
    got, extras = read
    texts, error = _output_texts(got.get("output", ""), spec, lost, f"{where}/output")
    if "error" in got:
        error = error or got["error"] == spec["result"].get("error_value", True)
    _left(lost, where, "the result's", [e for e in extras if e not in turn_fields], spec["result"])
    ident, name = got.get("id"), got.get("name")
    return Result(ident if isinstance(ident, str) else None, name if isinstance(name, str) else None, texts, error, where)


def _turn(value: Any, spec: Mapping[str, Any], lost: Lost, where: str) -> Turn | None:
    if not isinstance(value, dict):
        lost.add(where, "a turn that is no object")
        return None
    if spec.get("apart"):
        # a call or a result standing as an item of its own (OpenAI Responses' function_call)
        before = len(lost.parts)
        found = _call(value, spec, lost, where) or _result(value, spec, lost, where)
        if found is not None:
            return Turn("assistant" if isinstance(found, Call) else "user", (found,))
        if len(lost.parts) > before:
            return None
    fixed = spec.get("fixed", {})
    if any(k in value and value[k] != v for k, v in fixed.items()):
        lost.add(where, f"{_kind(value)}, which {lost.target or 'the target'}'s requests have no form for")
        return None
    role_value, role_at = held(value, spec["role"])
    role = _role_of(spec, role_value)
    if role is None:
        lost.add(where, f"a turn of role {role_value!r}")
        return None
    if role == "tool":
        result = _result(value, spec, lost, where, [".".join(role_at)])
        return None if result is None else Turn("user", (result,))
    read = {role_at}
    parts: list[Any] = []
    content, content_at = held(value, spec["content"])
    if content_at is not None:
        read.add(content_at)
        at = f"{where}{pointer(content_at)}"
        if isinstance(content, str) and spec.get("text_content"):
            parts.append(Text(content))
        elif isinstance(content, list):
            for j, part in enumerate(content):
                found = _call(part, spec, lost, f"{at}/{j}") or _result(part, spec, lost, f"{at}/{j}")
                if found is None:
                    text = _text_part(part, spec, lost, f"{at}/{j}")
                    found = None if text is None else Text(text)
                if found is not None:
                    parts.append(found)
        else:
            lost.add(at, "content that is neither text nor a list of parts")
    calls, calls_at = held(value, spec.get("calls", ()))
    if calls_at is not None:
        read.add(calls_at)
        for j, part in enumerate(calls if isinstance(calls, list) else []):
            call = _call(part, spec, lost, f"{where}{pointer(calls_at)}/{j}")
            if call is None:
                lost.add(f"{where}{pointer(calls_at)}/{j}", f"{_kind(part)}, no call of a function")
            else:
                parts.append(call)
    _left(lost, where, "the turn's", beside(value, read, fixed), spec)
    return Turn("system" if role == "system" else role, tuple(parts))


def read_turns(body: dict[str, Any], spec: Mapping[str, Any], lost: Lost) -> tuple[Turn, ...] | None:
    """The body's system text and turns in `spec`'s spelling (removed from the body), each
    result named by the call it answers; None where the body holds neither."""
    turns: list[Turn] = []
    system = spec.get("system")
    if system is not None:
        value, at = held(body, system["at"])
        if at is not None:
            where = pointer(at)
            parts_at = system.get("parts", ((),))[0]
            inner = value if not parts_at or not isinstance(value, dict) else get(value, parts_at)
            if isinstance(value, dict) and parts_at:
                for extra in beside(value, {parts_at}):
                    lost.add(where, f"the system text's {extra}")
            turns.append(Turn("system", tuple(map(Text, _texts(inner, spec, lost, where, True)))))
            pop(body, at)
    value, at = held(body, spec["at"])
    if at is None and not turns:
        return None
    if isinstance(value, str) and spec.get("text_input"):
        turns.append(Turn("user", (Text(value),)))
    elif at is not None and not isinstance(value, list):
        lost.add(pointer(at), "turns that are no list")
    for i, item in enumerate(value if isinstance(value, list) else []):
        turn = _turn(item, spec, lost, f"{pointer(at)}/{i}")
        if turn is not None:
            turns.append(turn)
    if at is not None:
        pop(body, at)
    return tuple(_answered(turns))


def _answered(turns: list[Turn]) -> list[Turn]:
    """Each call with an id (a stand-in, starting with NUL, where its wire gives none), and
    each result with the id and name of the call it answers: by id, or (a wire with no
    ids) the earliest call of its name not answered yet."""
    made = 0
    calls: dict[str, Call] = {}
    waiting: list[Call] = []
    out = []
    for turn in turns:
        parts = []
        for part in turn.parts:
            if isinstance(part, Call):
                if part.id is None:
                    made += 1
                    part = attrs.evolve(part, id=f"\0{made}")
                calls[part.id] = part
                waiting.append(part)
            elif isinstance(part, Result):
                call = calls.get(part.id) if part.id is not None else next((c for c in waiting if c.name == part.name), None)
                if call is not None:
                    if call in waiting:
                        waiting.remove(call)
                    part = attrs.evolve(part, id=call.id, name=part.name or call.name)
            parts.append(part)
        out.append(attrs.evolve(turn, parts=tuple(parts)))
    return out


def turns_evidence(body: dict[str, Any], spec: Mapping[str, Any]) -> int | None:
    """How many of the body's turns the spelling reads whole; None where a turn has a role
    it has no name for, or holds content in a form it does not take."""
    value, at = held(body, spec["at"])
    if isinstance(value, str) and spec.get("text_input"):
        return 1
    if at is None or not isinstance(value, list):
        return 0
    fit = 0
    for i, item in enumerate(value):
        lost = Lost("")
        turn = _turn(item, spec, lost, f"/{i}")
        if turn is None and lost.parts and "role" in lost.parts[0][1]:
            return None
        fit += turn is not None and not lost.parts
    return fit


# ---------------------------------------------------------------------------
# writing


def write_turns(body: dict[str, Any], turns: tuple[Turn, ...], spec: Mapping[str, Any] | None, lost: Lost) -> list[Change]:
    """Write the turns in `spec`'s spelling; the changes made to call ids."""
    if spec is None:
        if turns:
            lost.add("", f"the earlier turns, which {lost.target}'s requests have no spelling for here")
        return []
    ids, changes = _ids(turns, spec)
    at = spec["at"][0]
    placed = [i for i, t in enumerate(turns) if t.role == "system"]
    if placed != list(range(len(placed))):
        lost.add(pointer(at), "a system text between the turns, which only leads here")
    texts = [p.text for t in turns[:len(placed)] for p in t.parts]
    rest = [t for t in turns if t.role != "system"]
    holder = spec.get("system")
    if texts and holder is not None and holder.get("text_only") and len(texts) == 1:
        put(body, holder["at"][0], texts[0])
    elif texts and holder is not None and not holder.get("text_only"):
        parts = [_spelled(spec["text"], {"text": t}) for t in texts]
        inner = holder.get("parts", ((),))[0]
        put(body, holder["at"][0], _nested(inner, parts) if inner else parts)
    elif texts:
        # no place for the system text apart, or several texts where it takes one: a leading turn
        rest.insert(0, Turn("system", tuple(Text(t) for t in texts)))
    out: list[Any] = []
    for turn in _merged(rest, separate="tool" in spec["roles"] or bool(spec.get("apart"))):
        out.extend(_written(turn, spec, ids, lost))
    put(body, at, out)
    return changes


def _nested(path: Sequence[str], value: Any) -> dict[str, Any]:
    """`value` at `path` of a new mapping."""
    out: dict[str, Any] = {}
    put(out, path, value)
    return out


def _merged(turns: list[Turn], separate: bool) -> list[Turn]:
    """Adjacent turns of one role as one (the wires that alternate roles take no other), its
    results first; kept apart where results are turns of their own."""
    out: list[Turn] = []
    for turn in turns:
        if out and out[-1].role == turn.role and not separate:
            out[-1] = Turn(turn.role, out[-1].parts + turn.parts)
        else:
            out.append(turn)
    return [Turn(t.role, tuple(sorted(t.parts, key=lambda p: not isinstance(p, Result)))) for t in out]


def _spelled(spelling: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    fill(out, spelling.get("fixed", {}))
    for field, value in values.items():
        if value is not None and spelling.get(field):
            put(out, spelling[field][0], value)
    return out


def _written(turn: Turn, spec: Mapping[str, Any], ids: Mapping[str, str | None], lost: Lost) -> list[dict[str, Any]]:
    """One turn in `spec`'s spelling: where results are items of their own, those first;
    where calls are (`apart`), those last."""
    from .pipeline import stable_dump

    role = spec["roles"].get(turn.role, (None,))[0]
    where = pointer(spec["at"][0])
    text = spec.get("assistant_text", spec["text"]) if turn.role == "assistant" else spec["text"]
    out: list[dict[str, Any]] = []
    parts: list[Any] = []
    calls: list[Any] = []
    after: list[Any] = []
    for part in turn.parts:
        if isinstance(part, Text):
            parts.append(_spelled(text, {"text": part.text}))
        elif isinstance(part, Call):
            args = stable_dump(part.input) if spec["call"].get("input_text") else part.input
            made = _spelled(spec["call"], {"id": ids.get(part.id or ""), "name": part.name, "input": args})
            (after if spec.get("apart") else calls if spec.get("calls") else parts).append(made)
        else:
            made = _result_spelled(part, spec, ids, lost, part.at or where)
            if made is not None and "tool" in spec["roles"]:
                out.append({**_nested(spec["role"][0], spec["roles"]["tool"][0]), **made})
            elif made is not None:
                (out if spec.get("apart") else parts).append(made)
    if not parts and not calls:
        return out + after
    if role is None:
        lost.add(where, f"a {turn.role} turn, which {lost.target}'s requests have no role for")
        return out + after
    made: dict[str, Any] = {}
    fill(made, spec.get("fixed", {}))
    put(made, spec["role"][0], role)
    texts = [p.text for p in turn.parts if isinstance(p, Text)]
    alone = spec.get("text_content") and len(parts) == 1 and len(texts) == 1
    if parts:
        put(made, spec["content"][0], texts[0] if alone else parts)
    if calls:
        put(made, spec["calls"][0], calls)
    return [*out, made, *after]


def _result_spelled(result: Result, spec: Mapping[str, Any], ids: Mapping[str, str | None], lost: Lost, where: str) -> dict[str, Any] | None:
    spelling = spec["result"]
    if result.name is None and spelling.get("name"):
        lost.add(where, f"a tool result answering no call of the body (id {result.id!r}), which {lost.target} names by its call")
        return None
    texts = list(result.texts)
    form = spec["result_output"]
    if form == "object":
        output: Any = {"error" if result.error else "output": texts[0] if len(texts) == 1 else texts}
    elif form == "text" and len(texts) == 1:
        output = texts[0]
    else:
        output = [_spelled(spec["text"], {"text": t}) for t in texts]
    values: dict[str, Any] = {"id": ids.get(result.id or ""), "name": result.name, "output": output}
    if result.error and form != "object":
        if spelling.get("error"):
            values["error"] = spelling.get("error_value", True)
        else:
            lost.add(where, f"the result of {result.name or result.id!r} says an error, which {lost.target}'s results cannot say")
    return _spelled(spelling, values)


def _ids(turns: tuple[Turn, ...], spec: Mapping[str, Any]) -> tuple[dict[str, str | None], list[Change]]:
    """The id each call and result is sent with: under the wire's id rule (`ids`), a call
    with none (from a wire whose ids are optional) gets one and an id the rule refuses
    is respelled, unique, each reported; without a rule, ids go as given, and none where
    the call had none."""
    from .names import assign_wire_names

    rule = spec.get("ids")
    originals = list(dict.fromkeys(p.id for t in turns for p in t.parts if isinstance(p, (Call, Result)) and p.id is not None))
    given = [o for o in originals if not o.startswith("\0")]
    standins = [o for o in originals if o.startswith("\0")]
    if rule is None:
        return {**{o: o for o in given}, **dict.fromkeys(standins)}, []
    wires = assign_wire_names(given, rule)
    fresh = assign_wire_names([f"call_{i + 1}" for i in range(len(standins))], rule, reserved=wires)
    out: dict[str, str | None] = {**dict(zip(given, wires)), **dict(zip(standins, fresh))}
    changes = []
    where = pointer(spec["at"][0])
    renamed = [(o, w) for o, w in zip(given, wires) if o != w]
    if renamed:
        shown = ", ".join(f"{o!r} as {w!r}" for o, w in renamed[:3])
        changes.append(Change("request/call-id", where, "renamed", f"{len(renamed)} call id(s) the wire refuses sent {shown}"))
    if fresh:
        changes.append(Change("request/call-id", where, "added", f"{len(fresh)} call(s) without an id given one ({', '.join(fresh[:3])})"))
    return out, changes
