"""What a JSON value costs the literal budget, one reckoning for every place that counts
it: the input's copy (`prepare.copy_input`), `$ref` expansion (`prepare.copy_subtree`),
a spill (`run.Run.spill`) and the output's measure (`prepare.measure`)."""

from __future__ import annotations

from typing import Any

from .jsontext import dumps

PLAIN = frozenset({str, int, float, bool, type(None)})

LONG_LIST = 1024  # items past which a list with numbers in it costs its JSON text
SAMPLE = 8192  # items printed, evenly spaced, to price a longer one


def plain_chars(values: list, kinds: set) -> int:
    """What a list of plain scalars (of the types `kinds`) costs the literal budget: one
    character per item besides its strings' own. A long list with numbers in it costs
    its JSON text instead (a million floats cost what they print as, so a spill of them
    is known to be past the budget when they are copied); past SAMPLE items, the text
    of an evenly spaced sample of them scaled to their number, so that pricing a list
    costs the same however long it is. `copy_input`, `copy_subtree`, `measure` and
    `literal_of` all count lists by this."""
    if len(values) > LONG_LIST and (int in kinds or float in kinds):
        return _text_price(values)
    if str not in kinds:
        return len(values)
    if len(kinds) == 1:
        return len(values) + sum(map(len, values))
    return len(values) + sum(len(v) for v in values if v.__class__ is str)


def _sample(values: list) -> list:
    return values[:: len(values) // SAMPLE]


def _text_price(values: list, sample: list | None = None) -> int:
    if len(values) <= SAMPLE:
        return len(dumps(values))
    sample = sample if sample is not None else _sample(values)
    return len(values) * len(dumps(sample)) // len(sample)


def priced_past(values: list, room: int) -> bool:
    """Whether a long list of numbers is past `room` by its price (`plain_chars`), read
    off its sample before the whole list is: past the budget, ten million numbers cost
    what one million do."""
    sample = _sample(values)
    kinds = set(map(type, sample))
    if not kinds <= PLAIN or not (int in kinds or float in kinds):
        return False
    try:
        return _text_price(values, sample) > room
    except ValueError:  # an integer too long to print: the whole list's check names it
        return False


def literal_of(value: Any) -> int:
    """The characters of a JSON value as the literal budget counts them (keys and strings)."""
    if value.__class__ is str:
        return len(value)
    if value.__class__ is not dict and value.__class__ is not list:
        return 0
    total = 0
    stack = [value]
    while stack:
        node = stack.pop()
        if node.__class__ is dict:
            total += sum(map(len, node))
            node = node.values()
        else:
            kinds = set(map(type, node))
            if kinds <= PLAIN:
                total += plain_chars(node, kinds)
                continue
            total += len(node)  # one per item, as copy_input counts
        for v in node:
            cls = v.__class__
            if cls is str:
                total += len(v)
            elif cls is dict or cls is list:
                stack.append(v)
    return total
