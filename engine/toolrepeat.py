"""A tool's schema whose root description repeats the tool's own: sent once."""

from __future__ import annotations

from typing import Any

import attrs

from .model import Change


def without_repeat(parsed: Any, target: Any) -> tuple[Any, tuple[Change, ...]]:
    """`parsed` (a tool read by `tools.parse_tool`) with its schema's root description
    left out where it is the tool's own description, which the target's tool sends
    beside it (`pydantic_function_tool` writes both); and the change saying so."""
    schema, said = parsed.schema, parsed.description
    if "description" not in target.tool or not said or schema.__class__ is not dict or schema.get("description") != said:
        return parsed, ()
    trimmed = {k: v for k, v in schema.items() if k != "description"}
    told = Change("tool/shape", "/description", "dropped", "the schema's description repeats the tool's: sent once, as the tool's")
    return attrs.evolve(parsed, schema=trimmed), (told,)
