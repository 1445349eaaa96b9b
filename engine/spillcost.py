"""What spills cost: the characters spilled text adds to the sent tools, per target.

Each tool of the corpus is normalized twice, spilling and with `Options(spill=False)`
(which drops instead); the difference in the sent tool's JSON text is what its spills
add. The benchmark prints it as its table (h).
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from .jsontext import dumps
from .model import Options

_QUIET = Options(spill=False)


@attrs.frozen
class SpillRow:
    target: str
    tools: int
    spilled: int  # tools whose text grew by a spill
    chars: int  # characters the spills add, over all tools


def measure_spills(tools: Sequence[Any], targets: Sequence[str]) -> list[SpillRow]:
    """One row a target: what its spills add to `tools` (in MCP shape, `Tool.mcp()`)."""
    import wireschema

    rows = []
    for target in targets:
        spilled = chars = 0
        for tool in tools:
            grown = _size(wireschema.normalize_tool(tool, target)) - _size(wireschema.normalize_tool(tool, target, options=_QUIET))
            spilled += grown > 0
            chars += grown
        rows.append(SpillRow(target, len(tools), spilled, chars))
    return rows


def _size(out: Any) -> int:
    return len(dumps(out.tool))


def table_spills(rows: Sequence[SpillRow]) -> str:
    out = [[f"`{r.target}`", f"{r.tools:,}", f"{r.spilled:,}", f"{r.chars:,}", f"{r.chars / max(r.tools, 1):,.1f}"] for r in rows]
    head = "| target | tools | tools with spills | characters spills add | per tool |\n| --- | ---: | ---: | ---: | ---: |\n"
    return (
        "### (h) What spills cost\n\n" + head + "\n".join("| " + " | ".join(r) + " |" for r in out)
        + "\n\nEach tool's JSON text as sent, spilling, less the same with `Options(spill=False)`, "
        "which drops what it would spill."
    )
