"""Corpus report: what each target keeps, spills, drops and falls back on.

    python -m wireschema.report ../shared/corpus/*.jsonl [--targets gemini,openai-strict]

Reads JSON Lines records with a `schema` field (or bare schemas), normalizes each for
every target, and prints a Markdown table: fallback rate, strict fail-open rate, and
the keywords most often spilled or dropped.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

from . import normalize, targets
from .positions import unescape


def _records(paths: Iterable[str]) -> list[Any]:
    out = []
    for path in paths:
        with Path(path).open(encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    rec = json.loads(line)
                    out.append(rec["schema"] if isinstance(rec, dict) and "schema" in rec else rec)
    return out


def _keyword(pointer: str) -> str:
    return unescape(pointer.rsplit("/", 1)[-1]) if pointer else "(root)"


def tally(schemas: list[Any], target: str) -> dict[str, Any]:
    """Counts for one target over the schemas."""
    fallback = failed_open = 0
    spilled: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    for schema in schemas:
        result = normalize(schema, target)
        fallback += result.used_fallback
        failed_open += result.strict_reason is not None
        for change in result.changes:
            if change.action == "spilled":
                spilled[_keyword(change.pointer)] += 1
            elif change.action == "dropped":
                dropped[_keyword(change.pointer)] += 1
    return {"n": len(schemas), "fallback": fallback, "failed_open": failed_open, "spilled": spilled, "dropped": dropped}


def _top(counter: Counter[str], k: int = 5) -> str:
    return ", ".join(f"{name} {count}" for name, count in counter.most_common(k)) or "-"


def render(schemas: list[Any], names: list[str]) -> str:
    lines = [
        "| target | schemas | fallback | strict failed open | spilled | dropped | most spilled | most dropped |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for name in names:
        t = tally(schemas, name)
        n = t["n"] or 1
        lines.append(
            f"| `{name}` | {t['n']} | {t['fallback']} ({100 * t['fallback'] / n:.1f}%) "
            f"| {t['failed_open']} ({100 * t['failed_open'] / n:.1f}%) "
            f"| {sum(t['spilled'].values())} | {sum(t['dropped'].values())} "
            f"| {_top(t['spilled'])} | {_top(t['dropped'])} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wireschema.report", description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="JSON Lines files of schemas or records with a schema field")
    parser.add_argument("--targets", help="comma-separated target names (default: all shipped)")
    args = parser.parse_args(argv)
    names = args.targets.split(",") if args.targets else [t.name for t in targets()]
    print(render(_records(args.files), names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
