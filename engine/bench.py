"""Speed benchmark: wireschema against the cost of a copy and against its peers.

    python -m wireschema.bench [--quick] [--corpus DIR] [--repeat N] [--markdown] [--against CHECKOUT [--only-against]]
    python -m wireschema.bench --profile TARGET[,TARGET...] [--corpus DIR]

Reads the real schemas of `mcp.jsonl` and `bfcl.jsonl` (JSON Lines records with a
`schema` field) from `../shared/corpus` relative to the current directory, or `--corpus`,
and prints Markdown tables:

(a) per target and tool-list size (1, 10, 100, 1,000 tools): `normalize` over the list
    with the cache off (cold) and on with the same request repeated (warm), against the
    floor (`copy.deepcopy` and a `json.loads(json.dumps(...))` round trip of the same
    schemas: any full rewrite costs at least one copy);
(b) per (target, peer): the peer libraries that do the same job for one wire, on the
    same schema list (`pip install -e '.[bench]'`; a peer that is not installed says so,
    a peer that raises on a schema counts an error for it);
(c) rule-file load and compile time, and `import wireschema` time (fresh subprocesses);
(d) nodes per second over synthetic schemas of 10 to 100,000 nodes (flat means linear);
(e) a summary against the speed targets: uncached schemas/s per target ÷ deepcopy and ÷
    the fastest peer, a 10,000-property object, a fresh process, the cache's cost and worth;
(f) with `--against CHECKOUT`: this version beside another (say, a `git worktree` of an
    older commit), uncached, per target, in fresh processes taking turns;
(g) with `--profile TARGET[,TARGET...]` (alone): where each target's time goes, as the
    bytecodes the interpreter runs per schema, by function (the same on any host);
(h) per target: the characters spilled text adds to the sent tools (`spillcost`).

Every time is the median of `--repeat` samples (default 5) after a warm-up call, each
sample long enough for `time.perf_counter_ns` to resolve it; gc stays enabled, as in a
client. Peak memory is measured with tracemalloc in a separate pass, because tracing
slows every allocation and would distort the timings. `--quick` runs a small
configuration in a few seconds (a smoke test, not figures to quote). `--markdown` adds a
heading, the method and the peer versions, ready to paste into CONTRIBUTING.md.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import gc
import importlib.metadata
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Iterator, Sequence

import wireschema
from wireschema.spillcost import measure_spills, table_spills

CORPUS_FILES = ("mcp.jsonl", "bfcl.jsonl")
DEFAULT_CORPUS = Path("..") / "shared" / "corpus"


@dataclass(frozen=True)
class Config:
    """What one run measures; `--quick` is a smaller one of the same shape."""

    repeat: int
    tool_counts: tuple[int, ...] = (1, 10, 100, 1000)
    peer_schemas: int | None = None  # None: the whole corpus
    node_counts: tuple[int, ...] = (10, 100, 1000, 10000, 100000)
    min_sample_ns: int = 100_000_000  # a sample shorter than this is repeated in a loop
    subprocess_runs: int = 5


def _config(quick: bool, repeat: int | None) -> Config:
    if quick:
        return Config(
            repeat=repeat or 1,
            tool_counts=(1, 10),
            peer_schemas=40,
            node_counts=(10, 100, 1000),
            min_sample_ns=2_000_000,
            subprocess_runs=1,
        )
    return Config(repeat=repeat or 5)


# --------------------------------------------------------------------------- corpus


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    schema: Any

    def mcp(self) -> dict[str, Any]:
        """The tool in MCP shape, which `normalize_tools` reads for every target."""
        return {"name": self.name, "description": self.description, "inputSchema": self.schema}


def _load_corpus(directory: Path) -> list[Tool]:
    """Every record of the corpus files, in a fixed shuffled order.

    Shuffled (with a fixed seed) so that a list of 10 or 100 tools mixes MCP and BFCL
    schemas the way one client's request would, rather than taking one server's tools.
    """
    tools = []
    for filename in CORPUS_FILES:
        path = directory / filename
        with path.open(encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                record = json.loads(line)
                name = record.get("name") or record.get("id") or f"tool_{len(tools)}"
                tools.append(Tool(str(name), str(record.get("description") or ""), record["schema"]))
    random.Random(0).shuffle(tools)
    return tools


def _tool_list(tools: Sequence[Tool], count: int) -> list[Tool]:
    # the corpus has ~2,600 schemas; should it ever shrink below `count`, cycle through it
    return [tools[i % len(tools)] for i in range(count)]


# --------------------------------------------------------------------------- timing


def _loop_ns(fn: Callable[[], Any], loops: int) -> int:
    start = time.perf_counter_ns()
    for _ in range(loops):
        fn()
    return time.perf_counter_ns() - start


def _median_ns(fn: Callable[[], Any], cfg: Config) -> float:
    """Median wall time of one call of `fn`, in nanoseconds.

    The first call is a warm-up (lazy imports, rule compilation, CPU caches). Then the
    loop count doubles until a sample lasts `min_sample_ns`, so that a call of a few
    microseconds is not lost in timer resolution; each of `repeat` samples is that loop.
    """
    fn()
    loops = _loops(fn, cfg)
    return statistics.median(_loop_ns(fn, loops) / loops for _ in range(cfg.repeat))


def _loops(fn: Callable[[], Any], cfg: Config) -> int:
    """Calls per sample: doubled until a sample lasts `min_sample_ns`."""
    loops = 1
    while _loop_ns(fn, loops) < cfg.min_sample_ns and loops < 1 << 20:
        loops *= 2
    return loops


def _paired_ratios(first: Callable[[], Any], second: Callable[[], Any], rounds: int) -> list[float]:
    """`second`'s time ÷ `first`'s, one ratio per round, each round the two back to back
    in alternating order, timed in this process's CPU time: the host's pace drifts by
    2x within an hour and its neighbours take the wall clock in bursts, so a difference
    of a few percent is read only off pairs taken a moment apart, by their median."""
    first()
    second()
    clock = time.process_time_ns
    ratios = []
    for r in range(rounds):
        took = {}
        for fn in ((first, second) if r % 2 == 0 else (second, first)):
            start = clock()
            fn()
            took[fn] = clock() - start
        ratios.append(took[second] / max(took[first], 1))
    return ratios


def _peak_bytes(fn: Callable[[], Any]) -> int:
    """Peak memory allocated while `fn` runs (its result included), by tracemalloc."""
    gc.collect()  # garbage of earlier measurements must not be freed inside this one
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@contextmanager
def _cache(enabled: bool) -> Iterator[None]:
    """Cache on (emptied first) or off (the documented env switch, read on every call)."""
    saved = os.environ.pop("WIRESCHEMA_NO_CACHE", None)
    if not enabled:
        os.environ["WIRESCHEMA_NO_CACHE"] = "1"
    wireschema.clear_cache()
    try:
        yield
    finally:
        os.environ.pop("WIRESCHEMA_NO_CACHE", None)
        if saved is not None:
            os.environ["WIRESCHEMA_NO_CACHE"] = saved
        wireschema.clear_cache()


# --------------------------------------------------------------------------- (a) tool lists


@dataclass
class FloorRow:
    count: int
    deepcopy_ns: float
    json_ns: float
    deepcopy_peak: int
    json_peak: int


@dataclass
class ListRow:
    target: str
    count: int
    cold_ns: float
    warm_ns: float
    warm_hit_rate: float
    tools_ns: float | None  # normalize_tools, cold; None when the wire refuses that many tools
    tools_warm_ns: float | None  # normalize_tools, the same request again (one cache entry)
    cold_peak: int
    floor: FloorRow


def measure_floor(tools: Sequence[Tool], cfg: Config) -> dict[int, FloorRow]:
    """The cost of one plain copy of each tool list: what any full rewrite pays at least."""
    rows = {}
    for count in cfg.tool_counts:
        schemas = [t.schema for t in _tool_list(tools, count)]

        def deep() -> Any:
            return copy.deepcopy(schemas)

        def round_trip() -> Any:
            return [json.loads(json.dumps(s)) for s in schemas]

        rows[count] = FloorRow(count, _median_ns(deep, cfg), _median_ns(round_trip, cfg), _peak_bytes(deep), _peak_bytes(round_trip))
    return rows


def measure_tool_lists(tools: Sequence[Tool], target: str, floor: dict[int, FloorRow], cfg: Config) -> list[ListRow]:
    """`normalize` over lists of 1 to 1,000 tools for one target: cold, warm, peak memory."""
    rows = []
    for count in cfg.tool_counts:
        chosen = _tool_list(tools, count)
        schemas = [t.schema for t in chosen]
        mcp_tools = [t.mcp() for t in chosen]

        def request() -> Any:
            return [wireschema.normalize(s, target) for s in schemas]

        def tools_request() -> Any:
            return wireschema.normalize_tools(mcp_tools, target)

        with _cache(False):
            cold = _median_ns(request, cfg)
            try:
                tools_ns: float | None = _median_ns(tools_request, cfg)
            except wireschema.WireschemaError:  # e.g. RequestLimitError: more tools than the wire takes
                tools_ns = None
            cold_peak = _peak_bytes(request)
        with _cache(True):
            # met once here, then stored by the warm-up call inside _median_ns (an input is
            # stored the second time it is met): every sample is a repeat
            request()
            warm = _median_ns(request, cfg)
            # hit rate of one more repeat: a list larger than the memo evicts itself
            before = wireschema.cache_info()
            request()
            after = wireschema.cache_info()
            hits, misses = after.hits - before.hits, after.misses - before.misses
            tools_warm = None
            if tools_ns is not None:
                tools_request()
                tools_warm = _median_ns(tools_request, cfg)
        rate = hits / (hits + misses) if hits + misses else 0.0
        rows.append(ListRow(target, count, cold, warm, rate, tools_ns, tools_warm, cold_peak, floor[count]))
    return rows


# --------------------------------------------------------------------------- (b) peers


@dataclass(frozen=True)
class Peer:
    """A library function that does wireschema's job for one wire, on a dict schema."""

    label: str
    distribution: str  # the PyPI name, for its version
    target: str
    load: Callable[[], Callable[[dict], Any]]  # raises ImportError when not installed


def _openai_strict() -> Callable[[dict], Any]:
    # openai 1.x-2.x: the public to_strict_json_schema takes only pydantic models; its
    # dict walker is `_ensure_strict_json_schema(json_schema, *, path, root)`, mutating
    from openai.lib._pydantic import _ensure_strict_json_schema

    return lambda schema: _ensure_strict_json_schema(schema, path=(), root=schema)


def _agents_strict() -> Callable[[dict], Any]:
    # openai-agents: `ensure_strict_json_schema(schema)`, mutating; UserError when refused
    from agents.strict_schema import ensure_strict_json_schema

    return ensure_strict_json_schema


def _pydantic_ai(class_name: str, strict: bool | None) -> Callable[[], Callable[[dict], Any]]:
    # pydantic-ai-slim: pydantic_ai.profiles.{google,openai}; called the way
    # pydantic_ai.models does for a tool: `Transformer(schema, strict=tool.strict).walk()`
    def load() -> Callable[[dict], Any]:
        if class_name == "GoogleJsonSchemaTransformer":
            from pydantic_ai.profiles.google import GoogleJsonSchemaTransformer as cls
        else:
            from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer as cls
        return lambda schema: cls(schema, strict=strict).walk()

    return load


def _genai() -> Callable[[dict], Any]:
    # google-genai: `process_schema(schema, client, defs=None, *, ...) -> None` rewrites
    # in place; of the client it reads only `.vertexai` (False: the Gemini Developer API,
    # the `gemini` target's wire, where additionalProperties raises ValueError)
    from google.genai._transformers import process_schema

    client = SimpleNamespace(vertexai=False)

    def run(schema: dict) -> dict:
        process_schema(schema, client)
        return schema

    return run


def _anthropic() -> Callable[[dict], Any]:
    # anthropic: `transform_schema(json_schema)`, exported at the top level, returns a new dict
    from anthropic import transform_schema

    return transform_schema


PEERS = (
    Peer("openai `_ensure_strict_json_schema`", "openai", "openai-strict", _openai_strict),
    Peer("openai-agents `ensure_strict_json_schema`", "openai-agents", "openai-strict", _agents_strict),
    Peer("pydantic-ai `OpenAIJsonSchemaTransformer`", "pydantic-ai-slim", "openai-strict", _pydantic_ai("OpenAIJsonSchemaTransformer", True)),
    Peer("pydantic-ai `GoogleJsonSchemaTransformer`", "pydantic-ai-slim", "gemini", _pydantic_ai("GoogleJsonSchemaTransformer", None)),
    Peer("google-genai `process_schema`", "google-genai", "gemini", _genai),
    Peer("anthropic `transform_schema`", "anthropic", "anthropic-strict", _anthropic),
)


@dataclass
class Timings:
    """Per-schema median times of one function over a schema list, and what raised."""

    ns: list[float]
    errors: set[int] = field(default_factory=set)
    peak: int = 0

    def total(self, subset: set[int] | None = None) -> float:
        return sum(t for i, t in enumerate(self.ns) if subset is None or i in subset)


@dataclass
class PeerRow:
    peer: Peer
    version: str | None  # None: not installed
    n: int
    peer_t: Timings | None
    ours: Timings
    least: Timings | None = None  # `_least` on the same schemas, timed right after the peer


def _time_each(fn: Callable[[dict], Any], schemas: Sequence[Any], cfg: Config) -> Timings:
    """Time `fn` on each schema separately, median per schema over `repeat` passes.

    Per schema rather than per list, so that the comparison can also be made on the
    schemas a peer accepts only. Each pass works on its own deep copy, made outside the
    timed region, because several peers rewrite their input in place. An exception is
    the peer's answer for that schema: it is counted, and its time kept.
    """
    passes = []
    errors: set[int] = set()
    for rep in range(cfg.repeat + 1):  # pass 0 is the warm-up
        work = copy.deepcopy(list(schemas))
        times = []
        for i, schema in enumerate(work):
            start = time.perf_counter_ns()
            try:
                fn(schema)
            except Exception:  # noqa: BLE001 - any failure of a peer is an error for that schema
                errors.add(i)
            times.append(time.perf_counter_ns() - start)
        if rep:
            passes.append(times)
    median = [statistics.median(col) for col in zip(*passes)]
    work = copy.deepcopy(list(schemas))

    def all_schemas() -> None:
        for schema in work:
            try:
                fn(schema)
            except Exception:  # noqa: BLE001
                pass

    return Timings(median, errors, _peak_bytes(all_schemas))


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def measure_peers(tools: Sequence[Tool], cfg: Config) -> list[PeerRow]:
    """Each installed peer and wireschema (cache off) on the same schemas and target."""
    schemas = [t.schema for t in tools[: cfg.peer_schemas]]
    ours: dict[str, Timings] = {}
    rows = []
    with _cache(False):
        for peer in PEERS:
            if peer.target not in ours:
                ours[peer.target] = _time_each(lambda s, t=peer.target: wireschema.normalize(s, t), schemas, cfg)
            try:
                fn = peer.load()
            except ImportError:
                rows.append(PeerRow(peer, None, len(schemas), None, ours[peer.target]))
                continue
            except Exception as exc:  # noqa: BLE001 - installed but unusable (an API moved): say so, go on
                rows.append(PeerRow(peer, f"fails to load: {type(exc).__name__}", len(schemas), None, ours[peer.target]))
                continue
            version = _version(peer.distribution) or "?"
            peer_t = _time_each(fn, schemas, cfg)
            rows.append(PeerRow(peer, version, len(schemas), peer_t, ours[peer.target], _time_each(_least, schemas, cfg)))
    return rows


# --------------------------------------------------------------------------- (c) startup

_COMPILE_SCRIPT = """
import json, time
import wireschema
start = time.perf_counter_ns()
registry = wireschema._registry()
names = registry.names()
loaded = time.perf_counter_ns()
for name in names:
    registry.get(name)
compiled = time.perf_counter_ns()
for name in names:
    registry.get(name)
again = time.perf_counter_ns()
print(json.dumps({"targets": len(names), "registry": loaded - start, "compile": compiled - loaded, "again": again - compiled}))
"""

_IMPORT_SCRIPT = """
import time
start = time.perf_counter_ns()
import wireschema
print(time.perf_counter_ns() - start)
"""


def _python(args: Sequence[str], extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    # an installed package starts from its compiled bytecode: a machine that says
    # PYTHONDONTWRITEBYTECODE would have every fresh process compile the sources again
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPROFILEIMPORTTIME", "PYTHONDONTWRITEBYTECODE")}
    env.update(extra or {})
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True, env=env)


@dataclass
class Startup:
    targets: int
    registry_ns: float
    compile_ns: float
    again_ns: float
    import_ns: float
    import_by_package: list[tuple[str, int]]  # self time in microseconds, from -X importtime


def _importtime_by_package() -> list[tuple[str, int]]:
    """Self import time of each top-level package, from `python -X importtime`."""
    err = _python(["-X", "importtime", "-c", "import wireschema"]).stderr
    totals: dict[str, int] = {}
    for line in err.splitlines():
        # "import time:       123 |        456 |   package.module"
        parts = line.split("|")
        if len(parts) != 3 or not line.startswith("import time:"):
            continue
        try:
            self_us = int(parts[0].split(":")[1])
        except ValueError:
            continue  # the header line
        package = parts[2].strip().split(".")[0]
        totals[package] = totals.get(package, 0) + self_us
    return sorted(totals.items(), key=lambda kv: -kv[1])


def measure_startup(cfg: Config) -> Startup:
    """Rule loading and compiling, and `import wireschema`, each in a fresh interpreter.

    A subprocess per sample: in this process the rules are compiled already and the
    modules imported, which is exactly the cost that must not be measured warm.
    """
    runs = [json.loads(_python(["-c", _COMPILE_SCRIPT]).stdout) for _ in range(cfg.subprocess_runs)]
    imports = [int(_python(["-c", _IMPORT_SCRIPT]).stdout) for _ in range(cfg.subprocess_runs)]
    return Startup(
        targets=runs[0]["targets"],
        registry_ns=statistics.median(r["registry"] for r in runs),
        compile_ns=statistics.median(r["compile"] for r in runs),
        again_ns=statistics.median(r["again"] for r in runs),
        import_ns=statistics.median(imports),
        import_by_package=_importtime_by_package(),
    )


# --------------------------------------------------------------------------- (d) size


def synthetic_schema(nodes: int) -> tuple[dict, int]:
    """An object schema of about `nodes` subschemas, and their exact count.

    Groups of up to 40 mixed-type properties (string, integer, number, boolean, array,
    enum, nullable union, and a nested object of four), so that the size grows in width
    and a little in depth, as large real tool schemas do; no `$ref`, so the cost is the
    walk itself, not expansion.
    """
    count = 1  # the root
    groups: dict[str, Any] = {}
    root = {"type": "object", "description": "synthetic", "properties": groups, "required": []}
    g = 0
    while count < nodes:
        props: dict[str, Any] = {}
        group = {"type": "object", "properties": props, "required": []}
        groups[f"group_{g}"] = group
        root["required"].append(f"group_{g}")
        count += 1
        i = 0
        while count < nodes and i < 40:
            name, kind = f"p{i}", i % 8
            if kind == 0:
                props[name], n = {"type": "string", "description": f"field {i}", "maxLength": 64}, 1
            elif kind == 1:
                props[name], n = {"type": "integer", "minimum": 0, "maximum": 100}, 1
            elif kind == 2:
                props[name], n = {"type": "number", "default": 1.5}, 1
            elif kind == 3:
                props[name], n = {"type": "boolean"}, 1
            elif kind == 4:
                props[name], n = {"type": "array", "items": {"type": "string"}, "maxItems": 5}, 2
            elif kind == 5:
                props[name], n = {"type": "string", "enum": ["a", "b", "c"]}, 1
            elif kind == 6:
                props[name], n = {"anyOf": [{"type": "string"}, {"type": "null"}]}, 3
            else:
                props[name] = {
                    "type": "object",
                    "properties": {
                        "x": {"type": "string"},
                        "y": {"type": "integer"},
                        "z": {"type": "array", "items": {"type": "number"}},
                    },
                    "required": ["x"],
                }
                n = 5
            if i % 3 == 0:
                group["required"].append(name)
            count += n
            i += 1
        g += 1
    return root, count


@dataclass
class SizeRow:
    target: str
    rates: dict[int, float]  # requested size -> nodes per second
    notes: list[str]


# budgets wide enough for the largest synthetic schema (the default node budget is 32,768)
_BIG = wireschema.Options(max_nodes=1_000_000)


def measure_sizes(targets: Sequence[str], cfg: Config) -> list[SizeRow]:
    """Nodes per second from 10 to 100,000 nodes; flat means cost linear in size."""
    schemas = {size: synthetic_schema(size) for size in cfg.node_counts}
    rows = [SizeRow("floor: copy.deepcopy", {}, [])]
    for size, (schema, nodes) in schemas.items():
        rows[0].rates[size] = nodes / (_median_ns(lambda: copy.deepcopy(schema), cfg) / 1e9)
    with _cache(False):
        for target in targets:
            row = SizeRow(target, {}, [])
            for size, (schema, nodes) in schemas.items():
                result = wireschema.normalize(schema, target, options=_BIG)
                # a strict wire may give up on a large schema (a documented limit): the
                # rate then includes its fail-open second pass, which the note says
                if result.used_fallback:
                    row.notes.append(f"{size:,}: fallback")
                elif _is_strict(target) and not result.strict:
                    row.notes.append(f"{size:,}: not strict")
                row.rates[size] = nodes / (_median_ns(lambda: wireschema.normalize(schema, target, options=_BIG), cfg) / 1e9)
            rows.append(row)
    return rows


def measure_wide_deepcopy(cfg: Config) -> float:
    """Milliseconds of a `copy.deepcopy` of the wide object: the host's pace in the hour
    of the run, beside wireschema's milliseconds on the same object."""
    wide = wide_object()
    return _median_ns(lambda: copy.deepcopy(wide), cfg) / 1e6


def _plain_copy(value: Any) -> Any:
    """The JSON containers rebuilt, nothing else: the cheapest copy Python makes (one
    comprehension per container; `prepare.json_copy` also bounds depth and refuses
    cycles, which the least possible does not pay for; the corpus's schemas are shallow)."""
    cls = value.__class__
    if cls is dict:
        return {k: _plain_copy(v) for k, v in value.items()}
    if cls is list:
        return [_plain_copy(v) for v in value]
    return value


def _least(schema: Any) -> Any:
    """The least a `normalize` can do under its contract: a plain copy (the caller's
    schema is never changed) and a Result holding it (no rule, no check, no report). No
    version of wireschema can be faster; a peer that rewrites in place pays neither.
    Timed right after what it is compared with, as the host's pace drifts."""
    return wireschema.Result(schema=_plain_copy(schema), target="least", strict=False)


_FLOOR_RULES = 'description: No rule and no check.\ntool: {name: "$.name", schema: "$.inputSchema"}\nrules: []\n'


def _floor_target() -> Any:
    """A target of no rule and no check: what every `normalize` pays before its target's
    rules run (the input's validating copy with its budgets, census and origins, the
    plan, the Result, the API's frame). Where it is slower than a deepcopy, no rule
    table, however compiled, makes a target as fast as one."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "floor.yaml").write_text(_FLOOR_RULES)
        return wireschema.load_rules(folder)["floor"]  # compiled here, read no more


def _is_strict(target: str) -> bool:
    return any(t.strict for t in wireschema.targets() if t.name == target)


# --------------------------------------------------------------------------- (e) summary


@dataclass
class SummaryRow:
    target: str
    ours: float  # uncached schemas per second over the corpus
    deepcopy: float  # copy.deepcopy schemas per second, same schemas
    least: float  # `_least` schemas per second, same schemas, timed right after the deepcopy
    floor: float  # `normalize` schemas per second on `_floor_target`, same schemas, cache off
    peer: str | None  # the fastest installed peer for this target
    peer_rate: float | None
    pydantic_ai: float | None
    wide_ms: float  # the 10,000-property object
    peer_least: float | None = None  # `_least` schemas per second timed beside the fastest peer


def wide_object(properties: int = 10_000) -> dict:
    """An object of many plain properties: what a large generated tool looks like."""
    kinds = ("string", "integer", "number", "boolean")
    return {
        "type": "object",
        "properties": {f"p{i}": {"type": kinds[i % 4], "description": f"field {i}"} for i in range(properties)},
        "required": [f"p{i}" for i in range(0, properties, 3)],
    }


def measure_summary(tools: Sequence[Tool], peers: Sequence[PeerRow], cfg: Config) -> list[SummaryRow]:
    """Per target: wireschema uncached against a deepcopy of the same schemas, against
    the fastest installed peer for that wire (from the peer table), and the wide object."""
    schemas = [t.schema for t in tools[: cfg.peer_schemas]]
    deep = _time_each(copy.deepcopy, schemas, cfg)
    deep_rate = len(schemas) / deep.total() * 1e9
    least_rate = len(schemas) / _time_each(_least, schemas, cfg).total() * 1e9
    wide = wide_object()
    rows = []
    with _cache(False):
        floor = _floor_target()
        floor_rate = len(schemas) / _time_each(lambda s: wireschema.normalize(s, floor), schemas, cfg).total() * 1e9
        for target in [t.name for t in wireschema.targets()]:
            ours = _time_each(lambda s, t=target: wireschema.normalize(s, t), schemas, cfg)
            mine = [r for r in peers if r.peer.target == target and r.peer_t is not None]
            best = max(mine, key=lambda r: r.n / r.peer_t.total(), default=None)
            pyd = next((r for r in mine if r.peer.distribution == "pydantic-ai-slim"), None)
            rows.append(
                SummaryRow(
                    target,
                    len(schemas) / ours.total() * 1e9,
                    deep_rate,
                    least_rate,
                    floor_rate,
                    best.peer.label if best else None,
                    best.n / best.peer_t.total() * 1e9 if best else None,
                    pyd.n / pyd.peer_t.total() * 1e9 if pyd else None,
                    _median_ns(lambda t=target: wireschema.normalize(wide, t), cfg) / 1e6,
                    best.n / best.least.total() * 1e9 if best and best.least else None,
                )
            )
    return rows


@dataclass
class CacheRow:
    no_repeat: list[float]  # every schema once, cache on (all misses) ÷ cache off, per round
    hit_ns: float  # one cached schema again (a hit), per schema
    run_ns: float  # the same schemas computed, per schema


def measure_cache(tools: Sequence[Tool], cfg: Config, target: str = "openai-strict") -> CacheRow:
    """What the memo costs where nothing repeats, and what a hit saves."""
    # as many as the memo holds (512 entries by default): more would evict each other,
    # and the "hit" pass would time misses
    schemas = [t.schema for t in tools[: cfg.peer_schemas][:256]]

    def each() -> None:
        for s in schemas:
            wireschema.normalize(s, target)

    def no_repeat_off() -> None:
        os.environ["WIRESCHEMA_NO_CACHE"] = "1"
        each()

    def no_repeat_on() -> None:
        os.environ.pop("WIRESCHEMA_NO_CACHE", None)
        wireschema.clear_cache()  # every call a miss, met for the first time: its key made
        each()

    with _cache(True):
        ratios = _paired_ratios(no_repeat_off, no_repeat_on, 4 * cfg.repeat + 1)
        os.environ["WIRESCHEMA_NO_CACHE"] = "1"
        run = _median_ns(each, cfg)
        os.environ.pop("WIRESCHEMA_NO_CACHE", None)
        each()  # met once; the warm-up call of the timing below stores them (met twice)
        hit = _median_ns(each, cfg)  # every call a hit
    n = len(schemas)
    return CacheRow(ratios, hit / n, run / n)


def _fresh_ms(args: Sequence[str], code: str | None = None) -> float:
    start = time.perf_counter_ns()
    _python(["-c", code] if code else list(args))
    return (time.perf_counter_ns() - start) / 1e6


_FIRST_SCRIPT = """
import time
start = time.perf_counter_ns()
import wireschema
wireschema.normalize({"type": "object", "properties": {"city": {"type": "string"}}}, "openai-strict")
print(time.perf_counter_ns() - start)
"""


@dataclass
class Fresh:
    first_ns: float  # import wireschema + the first normalize, in a fresh interpreter
    targets_ms: float  # `wireschema targets`, the whole process, wall clock
    help_ms: float  # `wireschema --help`, the whole process
    bare_ms: float  # `python -c pass`: what any command pays before wireschema


def measure_fresh(cfg: Config) -> Fresh:
    runs = max(cfg.subprocess_runs, 1)
    first = statistics.median(int(_python(["-c", _FIRST_SCRIPT]).stdout) for _ in range(runs))
    cli = [sys.executable, "-m", "wireschema"]
    targets = statistics.median(_wall(cli + ["targets"]) for _ in range(runs))
    helps = statistics.median(_wall(cli + ["--help"]) for _ in range(runs))
    bare = statistics.median(_wall([sys.executable, "-c", "pass"]) for _ in range(runs))
    return Fresh(first, targets, helps, bare)


def _wall(cmd: Sequence[str]) -> float:
    start = time.perf_counter_ns()
    subprocess.run(cmd, capture_output=True, check=True)
    return (time.perf_counter_ns() - start) / 1e6


# --------------------------------------------------------------------------- (f) against another version

_AGAINST_SCRIPT = """
import importlib.util, json, os, sys, time
source, schemas_file = sys.argv[1], sys.argv[2]
# a checkout: its engine/ folder is the package, its rules/ beside it
spec = importlib.util.spec_from_file_location(
    "wireschema", os.path.join(source, "engine", "__init__.py"), submodule_search_locations=[os.path.join(source, "engine")])
wireschema = importlib.util.module_from_spec(spec)
sys.modules["wireschema"] = wireschema
spec.loader.exec_module(wireschema)
if not schemas_file:  # the targets it ships
    print(json.dumps([t.name for t in wireschema.targets()]))
    sys.exit()
schemas = json.load(open(schemas_file))
out = {}
for name in json.loads(sys.argv[3]):
    for schema in schemas:  # warm: the target compiled, its plans made
        wireschema.normalize(schema, name)
    best = None
    for _ in range(3):  # the least of three passes: what the code costs, not what else ran
        start = time.perf_counter_ns()
        for schema in schemas:
            wireschema.normalize(schema, name)
        took = time.perf_counter_ns() - start
        best = took if best is None else min(best, took)
    out[name] = best
print(json.dumps(out))
"""


@dataclass
class AgainstRow:
    target: str
    ours_ns: float  # all the schemas once, uncached, median over the rounds
    theirs_ns: float


def measure_against(source: Path, tools: Sequence[Tool], cfg: Config) -> list[AgainstRow]:
    """This version and the checkout at `source`, uncached, per target, on the same
    schemas: each round runs both in fresh processes, in alternating order, so that a
    machine's drift falls on both alike; per process the least of three passes, over
    the rounds the median."""
    import tempfile

    schemas = [t.schema for t in tools[: cfg.peer_schemas]]
    theirs = json.loads(_python(["-c", _AGAINST_SCRIPT, str(source), ""]).stdout)
    names = [t.name for t in wireschema.targets() if t.name in theirs]
    here = str(Path(__file__).resolve().parent.parent)
    samples: dict[tuple[str, str], list[int]] = {}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(schemas, f)
    try:
        for rnd in range(max(cfg.repeat, 2)):
            order = [("ours", here), ("theirs", str(source))]
            for side, where in order if rnd % 2 == 0 else order[::-1]:
                run = _python(["-c", _AGAINST_SCRIPT, where, f.name, json.dumps(names)], {"WIRESCHEMA_NO_CACHE": "1"})
                for name, ns in json.loads(run.stdout).items():
                    samples.setdefault((side, name), []).append(ns)
    finally:
        os.unlink(f.name)
    return [AgainstRow(n, statistics.median(samples[("ours", n)]), statistics.median(samples[("theirs", n)])) for n in names]


def _against(source: Path, tools: Sequence[Tool], cfg: Config) -> str:
    _progress("against")
    return table_against(source, measure_against(source, tools, cfg), len(tools[: cfg.peer_schemas]))


def table_against(source: Path, rows: Sequence[AgainstRow], n_schemas: int) -> str:
    out = [[f"`{r.target}`", _rate(n_schemas / r.ours_ns * 1e9), _rate(n_schemas / r.theirs_ns * 1e9), f"{r.theirs_ns / r.ours_ns:.2f}x"] for r in rows]
    total = sum(r.theirs_ns for r in rows) / sum(r.ours_ns for r in rows)
    return (
        f"### (f) Against another version: `{source}` at {_revision(source)}\n\n"
        + _table(["target", "this version, schemas/s", "that version, schemas/s", "this ÷ that (above 1x: faster)"], out)
        + f"\n\nAll targets together: {total:.2f}x. Uncached, {n_schemas} schemas per target, fresh processes in alternating order, each the least of three passes, the median over the rounds."
    )


def table_summary(rows: Sequence[SummaryRow], cache: CacheRow, fresh: Fresh, lists: Sequence[ListRow], wide_deepcopy_ms: float) -> str:
    out = []
    for r in rows:
        vs_peer = r.ours / r.peer_rate if r.peer_rate else None
        vs_pyd = r.ours / r.pydantic_ai if r.pydantic_ai else None
        out.append([
            f"`{r.target}`", _rate(r.ours), _ratio(r.ours / r.deepcopy) + "x",
            (r.peer or "-"), _rate(r.peer_rate) if r.peer_rate else "-",
            (_ratio(vs_peer) + "x") if vs_peer else "-", (_ratio(r.peer_least / r.peer_rate) + "x") if r.peer_rate and r.peer_least else "-",
            (_ratio(vs_pyd) + "x") if vs_pyd else "-",
            f"{r.wide_ms:.3g}",
        ])
    warm = [r for r in lists if r.count == 100 and r.tools_warm_ns is not None]
    warm_ms = ", ".join(f"{r.target} {_ms(r.tools_warm_ns)}" for r in warm) if warm else "not measured"
    overhead = statistics.median(cache.no_repeat) - 1
    quartiles = statistics.quantiles(cache.no_repeat, n=4) if len(cache.no_repeat) > 1 else cache.no_repeat * 3
    return (
        "### (e) Summary: against the speed issue's targets\n\n"
        + _table(
            ["target", "schemas/s (uncached)", "÷ deepcopy (target 1x+)", "fastest peer", "peer schemas/s",
             "÷ fastest peer (target 1x+)", "least possible ÷ fastest peer", "÷ pydantic-ai (target 2x+)",
             "10,000 properties ms (target < 50)"],
            out,
        )
        + "\n\n"
        + _table(
            ["what", "figure", "target"],
            [
                ["fresh process: `import wireschema` + first `normalize`", f"{fresh.first_ns / 1e6:.3g} ms", "< 60 ms"],
                ["`wireschema targets`, whole process (wall)", f"{fresh.targets_ms:.3g} ms", "< 150 ms"],
                ["`wireschema --help`, whole process (wall)", f"{fresh.help_ms:.3g} ms", "compiles nothing"],
                ["`python -c pass` (the interpreter alone)", f"{fresh.bare_ms:.3g} ms", ""],
                ["`copy.deepcopy` of the 10,000-property object", f"{wide_deepcopy_ms:.3g} ms", ""],
                ["least possible: a plain copy of each schema and a Result of it (no rule, no check, no report)",
                 (f"{_rate(rows[0].least)} schemas/s, {_ratio(rows[0].least / rows[0].deepcopy)}x a deepcopy" if rows else "-"), ""],
                ["engine floor: `normalize` on a target of no rule and no check (the validating copy, budgets, census, origins, plan, Result, frame)",
                 (f"{_rate(rows[0].floor)} schemas/s, {_ratio(rows[0].floor / rows[0].deepcopy)}x a deepcopy" if rows else "-"), ""],
                [(f"cache on, nothing repeats ÷ cache off (CPU time, the median of {len(cache.no_repeat)} pairs;"
                  f" the middle half {quartiles[0] - 1:+.1%} to {quartiles[2] - 1:+.1%})"),
                 f"{overhead:+.1%}", "within +5%"],
                ["a cache hit ÷ the run it saves", f"{_ms(cache.hit_ns)} ms ÷ {_ms(cache.run_ns)} ms = {cache.hit_ns / cache.run_ns:.2g}", "far below 1"],
                ["warm 100-tool `normalize_tools`, ms", warm_ms, "< 0.5 ms"],
            ],
        )
        + "\n\nRatios above 1x mean wireschema is faster. Every figure comes from this one run. \"Least"
        " possible\" is what no version of wireschema can beat: the input is never changed, so a call"
        " copies it at least, and returns a Result. The \"engine floor\" is what every target pays before"
        " its rules run: no target is faster."
    )


# --------------------------------------------------------------------------- (g) profile

_PROFILE_EVERY = 8  # every 8th schema of the corpus: a few seconds of tracing per target


def measure_profile(tools: Sequence[Tool], target: str, cfg: Config) -> tuple[int, Counter]:
    """The bytecodes the interpreter runs per `normalize` (cache off), by function, over
    every 8th schema of the corpus (`--quick`: the first 40 of them), after one pass
    that compiles the walks.

    Counted, not timed: a bytecode is no fixed time (a call, or a set made from a list,
    costs more than a comparison), but the counts are the same on any host and in any
    hour, where a profiler's times swing with the host's pace and its own overhead."""
    schemas = [t.schema for t in tools[::_PROFILE_EVERY]][: cfg.peer_schemas]
    by_code: Counter = Counter()

    def count(frame: Any, event: str, arg: Any) -> Any:
        if event == "opcode":
            by_code[frame.f_code] += 1
        return count

    def enter(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return count

    with _cache(False):
        for schema in schemas:
            wireschema.normalize(schema, target)
        sys.settrace(enter)
        try:
            for schema in schemas:
                wireschema.normalize(schema, target)
        finally:
            sys.settrace(None)
    counts: Counter = Counter()
    for code, n in by_code.items():
        counts[(code.co_name, Path(code.co_filename).name)] += n
    return len(schemas), counts


def table_profile(target: str, n: int, counts: Counter, top: int = 25) -> str:
    total = sum(counts.values())
    rows = [
        [f"`{name}` ({where})", f"{c / n:,.0f}", f"{c / total:.1%}"]
        for (name, where), c in counts.most_common(top)
    ]
    return (
        f"### (g) Where `{target}` spends its time: bytecodes per schema, by function\n\n"
        f"{total / n:,.0f} bytecodes per schema over {n:,} schemas of the corpus (every {_PROFILE_EVERY}th), cache off; "
        f"the {top} functions that run the most:\n\n"
        + _table(["function (file)", "bytecodes per schema", "share"], rows)
    )


# --------------------------------------------------------------------------- output


def _rate(n: float) -> str:
    """A rate to 3 significant figures, thousands separated."""
    if n >= 100:
        return f"{round(n, -len(str(int(n))) + 3):,.0f}"
    return f"{n:.3g}"


def _ms(ns: float) -> str:
    ms = ns / 1e6
    return f"{ms:.3g}" if ms < 100 else f"{ms:,.0f}"


def _kib(n: int) -> str:
    return f"{n / 1024:,.0f}"


def _ratio(x: float) -> str:
    return f"{x:.2g}" if x < 10 else f"{x:,.0f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _load() -> str:
    # other work on the machine slows every figure alike; the reader should know
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def _revision(here: Path | None = None) -> str:
    try:
        here = here or Path(__file__).resolve().parent
        rev = subprocess.run(["git", "-C", str(here), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if rev.returncode:
        return "unknown"
    return rev.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")


def machine_lines(cfg: Config, corpus: Path, n_schemas: int, timed: bool = True) -> list[str]:
    """The run's header; `timed=False` (a profile: counted, not timed) says nothing of samples."""
    lines = [
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- machine: {platform.platform()}, {_cpu_model()}, {os.cpu_count()} CPUs, load average {_load()} at start",
        f"- Python {platform.python_version()} ({platform.python_implementation()}), wireschema {wireschema.__version__} at {_revision()}",
        f"- corpus: {n_schemas:,} schemas of {', '.join(CORPUS_FILES)} in {corpus}",
    ]
    if timed:
        lines.append(f"- medians of {cfg.repeat} samples after a warm-up" + (" (--quick: not figures to quote)" if cfg.peer_schemas else ""))
    return lines


def table_lists(floor: dict[int, FloorRow], rows: Sequence[ListRow]) -> str:
    floor_table = _table(
        ["tools", "deepcopy ms", "deepcopy tools/s", "json round trip ms", "json tools/s", "deepcopy peak KiB", "json peak KiB"],
        [
            [f"{f.count:,}", _ms(f.deepcopy_ns), _rate(f.count / f.deepcopy_ns * 1e9), _ms(f.json_ns), _rate(f.count / f.json_ns * 1e9), _kib(f.deepcopy_peak), _kib(f.json_peak)]
            for f in floor.values()
        ],
    )
    main = _table(
        [
            "target", "tools", "cold tools/s", "cold ms", "warm tools/s", "warm ms", "warm speedup",
            "warm hits", "cold ÷ deepcopy", "cold ÷ json", "normalize_tools cold ms", "normalize_tools warm ms",
            "request warm speedup", "cold peak KiB",
        ],
        [
            [
                f"`{r.target}`", f"{r.count:,}", _rate(r.count / r.cold_ns * 1e9), _ms(r.cold_ns),
                _rate(r.count / r.warm_ns * 1e9), _ms(r.warm_ns), _ratio(r.cold_ns / r.warm_ns) + "x",
                f"{r.warm_hit_rate:.0%}", _ratio(r.cold_ns / r.floor.deepcopy_ns) + "x",
                _ratio(r.cold_ns / r.floor.json_ns) + "x",
                _ms(r.tools_ns) if r.tools_ns is not None else "refused (max_tools)",
                _ms(r.tools_warm_ns) if r.tools_warm_ns is not None else "",
                _ratio(r.tools_ns / r.tools_warm_ns) + "x" if r.tools_ns and r.tools_warm_ns else "",
                _kib(r.cold_peak),
            ]
            for r in rows
        ],
    )
    return (
        "### (a) Tool lists: `normalize` per tool, cold (cache off) and warm (same request again)\n\n"
        "Floor: one copy of the same schemas.\n\n" + floor_table + "\n\n" + main + "\n\n"
        "`cold ÷ deepcopy` is how many copies' worth of time a cold request costs (target: 3x or less). "
        "`warm speedup` is cold ms ÷ warm ms (target: 20x at 100 tools); `warm hits` is the memo's hit rate on "
        "the repeated request (a list larger than the memo, 512 entries by default, evicts itself). "
        "`normalize_tools` is the whole-list call (tool shapes, names, request budgets), cold and then repeated "
        "with the cache on, where the whole request is one memo entry; `request warm speedup` is their ratio "
        "(the issue's warm target: 20x at 100 tools)."
    )


def table_peers(rows: Sequence[PeerRow]) -> str:
    out = []
    for r in rows:
        ours_all = r.n / r.ours.total() * 1e9
        if r.peer_t is None:
            out.append([f"`{r.peer.target}`", r.peer.label, r.version or "not installed", "-", _rate(ours_all), "-", "-", "-", "-", "-", _kib(r.ours.peak)])
            continue
        peer_all = r.n / r.peer_t.total() * 1e9
        accepted = set(range(r.n)) - r.peer_t.errors
        # the same comparison on the schemas the peer accepts: a peer that raises early
        # on a schema did less work, which must not count as speed
        on_accepted = r.peer_t.total(accepted) / r.ours.total(accepted) if accepted else float("nan")
        out.append([
            f"`{r.peer.target}`", r.peer.label, r.version, _rate(peer_all), _rate(ours_all),
            _ratio(ours_all / peer_all) + "x", _ratio(on_accepted) + "x",
            (_ratio(r.peer_t.total() / r.least.total()) + "x") if r.least else "-", f"{len(r.peer_t.errors):,} / {r.n:,}",
            _kib(r.peer_t.peak), _kib(r.ours.peak),
        ])
    return (
        "### (b) Peers: the same schemas, the same target, wireschema cache off\n\n"
        + _table(
            [
                "target", "peer", "version", "peer schemas/s", "wireschema schemas/s", "wireschema ÷ peer",
                "wireschema ÷ peer (peer-accepted)", "least possible ÷ peer", "peer errors", "peer peak KiB", "wireschema peak KiB",
            ],
            out,
        )
        + "\n\n`wireschema ÷ peer` is the speed ratio (above 1x: wireschema is faster; target: 1x or more). "
        "Every call is timed alone, each peer on its own deep copy; a schema the peer raises on is an error, "
        "its time kept in the first ratio and left out of the second. \"Least possible\" is a plain copy of each "
        "schema and a Result of it, timed right after the peer: what no version of wireschema can beat. "
        "Peak memory is for the whole list."
    )


def table_startup(s: Startup) -> str:
    top = ", ".join(f"{pkg} {us / 1000:.1f}" for pkg, us in s.import_by_package[:8])
    return (
        "### (c) Startup, each in a fresh interpreter\n\n"
        + _table(
            ["what", "ms"],
            [
                ["`import wireschema` (wall clock; target under 150 ms)", _ms(s.import_ns)],
                ["`wireschema._registry()` (vocabulary and rule dirs)", _ms(s.registry_ns)],
                [f"`get(name)` for all {s.targets} targets: load and compile every rule file", _ms(s.compile_ns)],
                [f"`get(name)` for all {s.targets} targets again (compiled once per process)", _ms(s.again_ns)],
            ],
        )
        + f"\n\nSelf import time by package, ms (`-X importtime`): {top}."
    )


def table_sizes(rows: Sequence[SizeRow], sizes: Sequence[int]) -> str:
    out = []
    for r in rows:
        rates = [r.rates[s] for s in sizes]
        name = r.target if r.target.startswith("floor") else f"`{r.target}`"
        out.append([name, *(_rate(x) for x in rates), _ratio(max(rates) / min(rates)) + "x", "; ".join(r.notes) or ""])
    return (
        "### (d) Nodes per second by schema size (cache off)\n\n"
        + _table(["target", *(f"{s:,} nodes" for s in sizes), "max ÷ min", "note"], out)
        + "\n\nSynthetic object schemas (mixed-type properties in groups of 40, nested objects, arrays, "
        "nullable unions, no `$ref`). Flat rates (max ÷ min near 1x) mean cost linear in size; small schemas "
        "pay the fixed cost per call. A note says where a strict wire gave up on the schema (its limit on "
        "properties or optional parameters), so that the rate includes the fail-open pass."
    )


def peer_versions(rows: Sequence[PeerRow]) -> str:
    seen: dict[str, str] = {}
    for r in rows:
        seen.setdefault(r.peer.distribution, r.version or "not installed")
    return "Peers: " + ", ".join(f"{d} {v}" for d, v in seen.items()) + "."


# --------------------------------------------------------------------------- main


_START = time.perf_counter()


def _progress(message: str) -> None:
    print(f"[bench {time.perf_counter() - _START:6.1f} s] {message}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wireschema.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small configuration that runs in seconds (smoke test)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder of mcp.jsonl and bfcl.jsonl (default: ../shared/corpus)")
    parser.add_argument("--repeat", type=int, default=None, help="samples per measurement, median taken (default 5; 1 with --quick)")
    parser.add_argument("--markdown", action="store_true", help="a CONTRIBUTING.md section: heading, method and peer versions too")
    parser.add_argument("--against", type=Path, default=None, metavar="CHECKOUT",
                        help="also time another version (a checkout's folder) beside this one, uncached, per target; with --only-against, only that")
    parser.add_argument("--only-against", action="store_true", help="with --against: skip (a) to (e)")
    parser.add_argument("--profile", default=None, metavar="TARGET[,TARGET...]",
                        help="only (g): the bytecodes each target runs per schema, by function")
    args = parser.parse_args(argv)
    if args.only_against and args.against is None:
        parser.error("--only-against needs --against")
    if args.against is not None and not (args.against / "engine" / "__init__.py").is_file():
        parser.error(f"{args.against} is no wireschema checkout (no engine/__init__.py)")
    if args.repeat is not None and args.repeat < 1:
        parser.error("--repeat must be at least 1")
    names = [t.name for t in wireschema.targets()]
    profiled = [t.strip() for t in (args.profile or "").split(",") if t.strip()]
    if args.profile is not None and (not profiled or not set(profiled) <= set(names)):
        parser.error(f"--profile takes target names ({', '.join(names)}), got {args.profile!r}")
    missing = [f for f in CORPUS_FILES if not (args.corpus / f).is_file()]
    if missing:
        parser.error(f"no {', '.join(missing)} in {args.corpus} (use --corpus DIR)")

    cfg = _config(args.quick, args.repeat)
    tools = _load_corpus(args.corpus)
    header = machine_lines(cfg, args.corpus, len(tools), timed=args.profile is None or args.only_against)  # date and load as the run starts
    if args.only_against:
        print("\n\n".join(["\n".join(header), _against(args.against, tools, cfg)]))
        return 0
    if args.profile is not None:
        parts = ["\n".join(header)]
        for target in profiled:
            _progress(f"profile: {target}")
            parts.append(table_profile(target, *measure_profile(tools, target, cfg)))
        print("\n\n".join(parts))
        return 0

    _progress("floor")
    floor = measure_floor(tools, cfg)
    list_rows = []
    for name in names:
        _progress(f"tool lists: {name}")
        list_rows += measure_tool_lists(tools, name, floor, cfg)
    _progress("peers")
    peer_rows = measure_peers(tools, cfg)
    _progress("startup")
    startup = measure_startup(cfg)
    _progress("schema sizes")
    size_rows = measure_sizes(names, cfg)
    _progress("summary")
    summary = measure_summary(tools, peer_rows, cfg)
    wide_deepcopy_ms = measure_wide_deepcopy(cfg)
    cache_row = measure_cache(tools, cfg)
    fresh = measure_fresh(cfg)
    _progress("spills")
    spills = measure_spills([t.mcp() for t in tools[: cfg.peer_schemas]], names)

    parts = []
    if args.markdown:
        parts.append("## Benchmarks\n\n`python -m wireschema.bench` (install the peers with `pip install -e '.[bench]'`).")
    parts.append("\n".join(header))
    if args.markdown:
        parts.append(peer_versions(peer_rows))
    parts += [
        table_summary(summary, cache_row, fresh, list_rows, wide_deepcopy_ms),
        table_lists(floor, list_rows),
        table_peers(peer_rows),
        table_startup(startup),
        table_sizes(size_rows, cfg.node_counts),
        table_spills(spills),
    ]
    if args.against is not None:
        parts.append(_against(args.against, tools, cfg))
    print("\n\n".join(parts))
    _progress("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
