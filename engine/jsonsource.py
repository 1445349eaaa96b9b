"""Read JSON text the way the command line needs it: errors at line and column, several
documents one after the other (JSON Lines), and where each value of a document sits.

The C decoder does the reading. It stops with a bare `ValueError` or `RecursionError`
(and no position) on a few valid-looking inputs: integers past Python's digit limit,
nesting deeper than the interpreter's stack, NaN and infinities (not JSON, refused
here), numbers that overflow a double. For those a plain tokenizer, which keeps its own
stack, walks the text again to say where.
"""

from __future__ import annotations

import bisect
import json
import math
import re
import sys
from typing import Any, Iterator

import attrs

from .positions import escape


class JSONSourceError(ValueError):
    """JSON text that cannot be read; the message starts with `name:line:column:`."""

    def __init__(self, name: str, line: int, column: int, message: str):
        self.name = name
        self.line = line
        self.column = column
        self.message = message
        super().__init__(f"{name}:{line}:{column}: {message}")


@attrs.frozen
class Document:
    """One JSON value of the text: its offsets, and the line it starts on. A line of
    JSON Lines that cannot be read is a Document too: `value` None and its `error`."""

    value: Any
    start: int
    end: int
    line: int = 1
    error: JSONSourceError | None = None


class Lines:
    """Line and column of any offset of one text: the line starts are found in one pass,
    and each lookup is a bisection, never a count from the start."""

    def __init__(self, text: str):
        self.starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]

    def at(self, offset: int) -> tuple[int, int]:
        """1-based line and column (in characters) of `offset`."""
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def end(self, offset: int) -> int:
        """Where the line holding `offset` ends: its newline, or the end of the text."""
        line = bisect.bisect_right(self.starts, offset)
        return self.starts[line] - 1 if line < len(self.starts) else -1


class _Refused(ValueError):
    """Raised from inside the decoder's hooks; the tokenizer then finds the place."""


def _refuse_constant(name: str) -> Any:
    raise _Refused(name)


def _checked_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Refused(text)
    return value


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_checked_float)
_SPACE = re.compile(r"[ \t\n\r]*")
_NEWLINE = re.compile("\n")
_LINE_END = re.compile(r"[ \t\r]*(?:\n|\Z)")


def read(text: str, name: str) -> list[Document]:
    """Every JSON value in `text`, in order (one for a JSON file, one a line for JSON Lines).

    In JSON Lines (some value is read, and each ends its line), a line that cannot be
    read is a Document with its `error`, and reading goes on at the next line; anywhere
    else the first error is raised.
    """
    lines = Lines(text)
    docs: list[Document] = []
    failed: JSONSourceError | None = None
    pos = _SPACE.match(text, 0).end()  # type: ignore[union-attr]  # matches the empty string
    while pos < len(text):
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            error = JSONSourceError(name, *lines.at(exc.pos), exc.msg)
        except (ValueError, RecursionError):
            error = diagnose(text, pos, name)
        else:
            docs.append(Document(value, pos, end, lines.at(pos)[0]))
            pos = _SPACE.match(text, end).end()  # type: ignore[union-attr]
            continue
        failed = failed or error
        end = lines.end(pos)
        end = len(text) if end < 0 else end
        line = lines.at(pos)[0]
        if error.line != line:
            error = _within_line(text, pos, end, lines, name) or error
        docs.append(Document(None, pos, end, line, error))
        pos = _SPACE.match(text, end).end()  # type: ignore[union-attr]
    if not docs:
        raise JSONSourceError(name, 1, 1, "no JSON value")
    good = [d for d in docs if d.error is None]
    if failed is not None and not (good and all(_ends_its_line(text, d.end) for d in good)):
        raise failed
    return docs


def _within_line(text: str, pos: int, end: int, lines: Lines, name: str) -> JSONSourceError | None:
    """Where a value that runs past its line fails when read as that line alone (as a
    line of JSON Lines is meant): the error is then on the line it belongs to."""
    try:
        _DECODER.raw_decode(text[pos:end])
    except json.JSONDecodeError as exc:
        return JSONSourceError(name, *lines.at(pos + exc.pos), exc.msg)
    except (ValueError, RecursionError):
        pass
    return None


def _ends_its_line(text: str, end: int) -> bool:
    return _LINE_END.match(text, end) is not None


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of `offset`."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


# tokens of valid JSON text (whitespace between them is skipped by finditer); a string
# token may lack its closing quote only at the end of broken text
_TOKEN = re.compile(
    r'(?P<string>"(?:[^"\\]|\\.)*"?)'
    r"|(?P<open>[\[{])|(?P<close>[\]}])|(?P<colon>:)|(?P<comma>,)"
    r"|(?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<word>true|false|null|NaN|-?Infinity)"
)


def _tokens(text: str, start: int) -> Iterator[re.Match[str]]:
    return _TOKEN.finditer(text, start)


def diagnose(text: str, start: int, name: str) -> JSONSourceError:
    """Why the decoder stopped without a position: the first literal it cannot take,
    else the nesting that exhausted its stack."""
    depth = deepest = 0
    deepest_at = start
    # the limit exists from 3.10.7 / 3.11; before it, int() reads any length
    digits = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    for m in _tokens(text, start):
        kind = m.lastgroup
        if kind == "open":
            depth += 1
            if depth > deepest:
                deepest, deepest_at = depth, m.start()
        elif kind == "close":
            depth -= 1
            if depth == 0:
                break  # the end of this document
        elif kind == "word" and m.group() in ("NaN", "Infinity", "-Infinity"):
            return JSONSourceError(name, *line_column(text, m.start()), f"{m.group()} is not JSON")
        elif kind == "number":
            token = m.group()
            whole = token.lstrip("-")
            if whole.isdigit() and digits and len(whole) > digits:
                return JSONSourceError(
                    name, *line_column(text, m.start()),
                    f"an integer of {len(whole):,} digits (more than Python reads: {digits:,})",
                )
            if not whole.isdigit() and math.isinf(float(token)):
                return JSONSourceError(name, *line_column(text, m.start()), f"the number {_cut(token)} is out of a double's range")
    return JSONSourceError(
        name, *line_column(text, deepest_at), f"nested {deepest:,} levels deep, more than the JSON reader can follow"
    )


def _cut(token: str, size: int = 24) -> str:
    return token if len(token) <= size else token[: size - 3] + "..."


def positions(text: str, doc: Document) -> dict[str, int]:
    """The offset of every value of `doc`, by RFC 6901 pointer ("" is the document)."""
    out: dict[str, int] = {}
    # one frame per open container: [pointer, is_object, next index or current key, expecting a key]
    stack: list[list[Any]] = []
    for m in _tokens(text, doc.start):
        if m.start() >= doc.end:
            break
        kind = m.lastgroup
        if kind in ("colon", "comma"):
            if kind == "comma" and stack and stack[-1][1]:
                stack[-1][3] = True
            continue
        if kind == "close":
            stack.pop()
            if not stack:
                break
            continue
        if stack and stack[-1][1] and stack[-1][3]:
            stack[-1][2] = json.loads(m.group())  # a key
            stack[-1][3] = False
            continue
        if not stack:
            pointer = ""
        elif stack[-1][1]:
            pointer = f"{stack[-1][0]}/{escape(stack[-1][2])}"
        else:
            pointer = f"{stack[-1][0]}/{stack[-1][2]}"
            stack[-1][2] += 1
        out[pointer] = m.start()  # a repeated key: the decoder keeps the last one too
        if kind == "open":
            stack.append([pointer, m.group() == "{", 0, True])
        elif not stack:
            break
    return out
