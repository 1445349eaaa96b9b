"""wireschema: rewrite LLM tool JSON Schemas into what each provider's wire accepts.

    >>> import wireschema
    >>> r = wireschema.normalize({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}, "gemini")
    >>> r.schema
    {'type': 'object', 'properties': {'a': {'type': 'string', 'nullable': True}}}

Provider behaviour lives in YAML rule files (`rules/`); this package only interprets them.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Union


from . import listing, logs
from .errors import (
    ClientNotInstalledError,
    RequestLimitError,
    RuleFileError,
    OptionsError,
    SchemaInputError,
    ToolNameError,
    ToolShapeError,
    UnknownModelError,
    UnknownTargetError,
    UnknownToolNameError,
    UntranslatableError,
    WireschemaError,
)

if TYPE_CHECKING:
    from .model import Change, Issue, Options, Result, TargetInfo
    from .cache import CacheInfo, Memo
    from .models import Catalog, ModelInfo
    from .names import NameMap, NameRule
    from .outputs import normalize_output
    from .ruletable import Registry, Target
    from .tools import (
        RequestResult,
        ToolResult,
        ToolsResult,
        normalize_mcp_tool,
        normalize_request,
        normalize_tool,
        normalize_tools,
    )

__all__ = [
    "normalize",
    "check",
    "targets",
    "cache_info",
    "clear_cache",
    "configure_cache",
    "CacheInfo",
    "normalize_tool",
    "normalize_tools",
    "normalize_request",
    "normalize_mcp_tool",
    "normalize_output",
    "ToolResult",
    "ToolsResult",
    "RequestResult",
    "NameMap",
    "NameRule",
    "Issue",
    "load_rules",
    "target_for",
    "model_info",
    "load_models",
    "Catalog",
    "ModelInfo",
    "Options",
    "Result",
    "Change",
    "TargetInfo",
    "RuleSet",
    "Target",
    "WireschemaError",
    "SchemaInputError",
    "OptionsError",
    "RuleFileError",
    "UnknownTargetError",
    "UnknownModelError",
    "ToolShapeError",
    "RequestLimitError",
    "UntranslatableError",
    "ToolNameError",
    "UnknownToolNameError",
    "ClientNotInstalledError",
]
__version__ = "0.1.0"

# a fallback, a strict target failing open and a spent request budget are logged on the
# `wireschema` logger (`wireschema.logger`, made on first use: see logs.py), once per
# tool, at WARNING; a normalization that loses nothing logs nothing

TargetLike = Union[str, "Target"]
"""A shipped target's name, or a compiled Target (from `load_rules`)."""

_lock = threading.Lock()
_shipped = None
_memo: "Memo | None" = None  # made on the first normalize (cachetools, pickle): `targets` needs neither


def _the_memo() -> "Memo":
    global _memo
    if _memo is None:
        from .cache import Memo

        with _lock:
            if _memo is None:
                _memo = Memo()
    return _memo


def _registry() -> "Registry":
    global _shipped
    found = _shipped  # once made, read without the lock (every call reads it)
    if found is not None:
        return found
    with _lock:
        if _shipped is None:
            from .ruletable import Registry, Vocabulary

            d = listing.shipped_dir()
            _shipped = Registry([d], Vocabulary(d / "_vocabulary.yaml"))
        return _shipped


class RuleSet:
    """Targets compiled from a user's rule directory or file (see `load_rules`)."""

    def __init__(self, registry: Any, names: list[str], skipped: tuple[tuple[Path, str], ...] = (), catalog: Path | None = None):
        self._registry = registry
        self._names = names
        self.skipped = skipped
        """(path, what it is) of each `*.yaml` name in the folder that is no regular file."""
        self._catalog_file = catalog
        self._catalog: "Catalog | None" = None

    def __getitem__(self, name: str) -> Any:
        target = self._registry.get(name)
        if target is None:
            raise UnknownTargetError(f"no target {name!r} in {', '.join(str(d) for d in self._registry.dirs)}")
        return target

    def __contains__(self, name: str) -> bool:
        return self._registry.get(name) is not None

    def names(self) -> list[str]:
        """The targets this rule set defines itself (not the shipped ones it can extend)."""
        return list(self._names)

    def target_for(self, model: str) -> "Target":
        """`target_for` over this rule set's targets, and its folder's own `_models.yaml`
        (which extends the shipped catalog) where it has one."""
        if self._catalog is None:
            from . import models

            found = self._catalog_file
            self._catalog = (models.extended(found, self._registry) if found is not None and found.is_file()
                             else models.Catalog([models.read_catalog(models.shipped_file())], self._registry))
        return self._catalog.target_for(model)


def load_rules(path: Union[str, "os.PathLike[str]"]) -> RuleSet:
    """Compile a user's rule file, or every rule file in a directory.

    A user file may `extends:` a shipped target by name. Every file is compiled now,
    so a mistake raises `RuleFileError` (file:line:column) here, not mid-request.
    In a directory, a name that is no regular file (a FIFO, a device, a link that loops)
    is skipped, logged and listed in `RuleSet.skipped`.
    """
    from .rulepaths import not_regular, rule_files
    from .ruletable import Registry, compile_file

    p = Path(path)
    shipped = _registry()
    skipped: list[tuple[Path, str]] = []
    if p.is_dir():
        files, skipped = rule_files(p)
        directory = p
    else:
        why = not_regular(p)
        if why is not None:
            said = "no such rule file or directory" if why == "missing" else f"not a rule file or directory: {why}"
            raise RuleFileError(str(p), None, None, said)
        files = [p]
        directory = p.parent
    for f, why in skipped:
        logs.warning("rule file %s is skipped: %s, not a regular file", f, why)
    reg = Registry([directory, *shipped.dirs], shipped.vocabulary)
    names = []
    for f in files:
        # with the targets it may hand a schema to: a broken one fails here, not mid-request
        target = compile_file(f, reg)
        reg.add(target)
        names.append(target.name)
    return RuleSet(reg, names, tuple(skipped), directory / "_models.yaml" if p.is_dir() else None)


def load_models(path: Union[str, "os.PathLike[str]"], *, rules: RuleSet | None = None) -> "Catalog":
    """A user's model catalog file over the shipped one (`rules/_models.yaml`): its routes,
    families and models come first, and replace the shipped ones of the same id. Its
    targets are the shipped ones, or those of `rules`. Raises `RuleFileError` here for a
    mistake (file:line:column), not at the first lookup."""
    from .models import extended

    return extended(Path(path), rules._registry if rules is not None else _registry())


def target_for(model: str, *, shape: str | None = None) -> "Target":
    """The target a model id goes to in the shipped catalog, with its facts applied (strict
    mode, tool-name length, request limits; a router's request shape): `bedrock/us.anthropic.
    claude-opus-4-7` is bedrock whose tools never carry a strict flag. `shape` names the
    target whose request shape the caller sends (LiteLLM: `openai-chat`). An unknown id is
    an `UnknownModelError` naming the nearest known ones."""
    from .models import shipped

    return shipped(_registry()).target_for(model, shape)


def model_info(model: str) -> "ModelInfo":
    """How the shipped catalog reads a model id: its entry, place, target, facts, sources."""
    from .models import shipped

    return shipped(_registry()).resolve(model)


def _target(target: Any, model: str | None = None) -> "Target":
    """A target named or given, or (`model`) the one a model id goes to: exactly one."""
    if model is not None or target is None:
        if (target is None) == (model is None):
            raise TypeError("give a target or model=, not both" if target is not None else "give a target or model=")
        return target_for(model)  # type: ignore[arg-type]
    if isinstance(target, str):
        found = _registry().get(target)
        if found is None or found.abstract:
            from .rulefields import unknown

            raise UnknownTargetError(unknown("target", target, [i.name for i in targets()]))
        return found
    from .ruletable import Target

    if isinstance(target, Target):
        return target
    raise UnknownTargetError(f"target must be a name or a compiled Target, got {type(target).__name__}")


def targets() -> list[TargetInfo]:
    """The shipped targets, with their one-line descriptions."""
    from .model import TargetInfo

    return [TargetInfo(*row) for row in _shipped_rows()]


def _shipped_rows() -> list[tuple[str, str, str, bool]]:
    """The shipped targets as (name, description, rule file, strict): read from the
    registry where this process has one, else from the listing kept beside the rules
    (see `listing`), which reads the files only where they changed."""
    if _shipped is not None:
        return _rows(_shipped)[0]
    return listing.shipped(lambda: _rows(_registry()))


def _rows(reg: "Registry") -> tuple[list[tuple[str, str, str, bool]], bool]:
    """The registry's targets as rows, and whether every file could be read. No rules
    are compiled: a target compiles on its first use; a broken file is left out (and
    logged), never the reason the others cannot be listed."""
    rows = [(name, f["description"] or "", f["path"], bool(f["strict"])) for name, f in reg.listed() if not f["abstract"]]
    return rows, not reg.skipped


_ON = ("1", "true", "yes", "on")


def _env(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in _ON


_SWITCHES = ("WIRESCHEMA_NO_NORMALIZATION", "WIRESCHEMA_NO_STRICT", "WIRESCHEMA_NO_CACHE")


# os.environ's own table, keyed by encoded names (POSIX): one dict lookup per switch rather
# than an encoding per read, on every call
_ENV_TABLE: Any = getattr(os.environ, "_data", None)
_ENV_KEYS: tuple[bytes, ...] | None = tuple(os.fsencode(n) for n in _SWITCHES) if os.name == "posix" else None


def _switches() -> tuple[bool, bool, bool]:
    """The environment switches, read on every call (no normalization, no strict, no cache)."""
    table = getattr(os.environ, "_data", None)
    if table is not _ENV_TABLE or _ENV_KEYS is None:
        return _env(_SWITCHES[0]), _env(_SWITCHES[1]), _env(_SWITCHES[2])
    if table.keys().isdisjoint(_ENV_KEYS):
        return False, False, False
    # one set (the benchmark's uncached runs, say): decoded as os.environ decodes it,
    # once per value the process sets it to
    raw = (table.get(_ENV_KEYS[0]), table.get(_ENV_KEYS[1]), table.get(_ENV_KEYS[2]))
    known = _decoded.get(raw)
    if known is None:
        on = [v is not None and os.fsdecode(v).strip().lower() in _ON for v in raw]
        if len(_decoded) > 64:
            _decoded.clear()
        known = _decoded[raw] = (on[0], on[1], on[2])
    return known


_decoded: dict[tuple[bytes | None, ...], tuple[bool, bool, bool]] = {}


def _uncached() -> bool:
    """A switch is on that a cached tool list would not see (read on every call)."""
    return any(_switches())


def normalize(
    schema: Any, target: TargetLike | None = None, *, strict: bool | None = None, options: Options | None = None,
    model: str | None = None,
) -> Result:
    """Rewrite one JSON Schema for one target's wire.

    `schema` is a dict, a boolean schema, JSON text (str/bytes), or a Python type
    (pydantic model, TypeAdapter, dataclass, TypedDict, typed function); it is never
    mutated. `target` is a shipped target name (see `targets()`) or a Target from
    `load_rules`; or `model=` names a model instead (see `target_for`). `strict=False` on a strict target gives its non-strict sibling;
    `strict=True` on a non-strict one gives its strict variant, where it has one.
    Never raises for a schema the wire cannot take: that is a reported fallback
    (and a WARNING on the `wireschema` logger). Raises `SchemaInputError` for input
    that is not JSON.
    """
    result = _normalize(schema, _target(target, model), strict=strict, options=options)
    _log_result(result, "the schema")
    return result


def _past_a_budget(result: Result) -> bool:
    return result.used_fallback and (result.fallback_reason or "").startswith("budget/")


def _log_result(result: Result, what: str) -> None:
    """One WARNING for a result that lost its schema or its strictness, none otherwise."""
    loss = _loss(result)
    if loss is not None:
        logs.warning("%s %s", what, loss)


def _lost(result: Result) -> bool:
    """Whether `result` lost its schema, its strictness or a tool's fields (what `_loss` says)."""
    return result.used_fallback or bool(result.strict_reason) or _tool_losses(result.changes) != (None, None)


def _loss(result: Result) -> str | None:
    """What `result` lost, said after its subject; None where it lost nothing."""
    if result.used_fallback:
        return f"fell back on {result.target}: {result.fallback_reason}"
    budget, fields = _tool_losses(result.changes)
    if budget is not None:
        return f"{budget.detail} on {result.target}"
    if result.strict_reason:
        return f"sent non-strict on {result.target}: {result.strict_reason}"
    if fields is not None:
        return f"lost fields on {result.target}: {fields.detail}"
    return None


def _tool_losses(changes: tuple[Change, ...]) -> tuple[Any, Any]:
    """A tool's spent strict budget (`budgets.strict_budget`) and dropped fields
    (`tools.build_tool`), each None where absent. A tool list puts its own changes (these
    and a rename) before the schema's, so a first change of the schema's own says none."""
    if not changes or not changes[0].rule.startswith(_TOOLS_OWN):
        return None, None
    budget = fields = None
    for change in changes:
        if not change.rule.startswith(_TOOLS_OWN):
            break
        if change.rule == "request/strict-budget":
            budget = change
        elif change.rule == "tool/fields":
            fields = change
    return budget, fields


_TOOLS_OWN = ("tool/", "request/")


class _ToolLosses:
    """A tool list's losses, spelled out only when a handler formats the record: a
    gateway's repeated request logs one record, and names nobody unless it is shown."""

    def __init__(self, out: Any, lost: tuple[int, ...]):
        self._out, self._lost = out, lost

    def __str__(self) -> str:
        names = dict(self._out.names.items())
        wires, results = self._out.wire_names, self._out._outcomes()
        told = "; ".join(f"tool {names.get(wires[i], wires[i])!r} {_loss(results[i])}" for i in self._lost)
        return f"{len(self._lost)} of {sum(r is not None for r in results)} tools lost something: {told}"


def _log_tools(out: Any) -> None:
    """One WARNING for a tool list of which some tools lost their schema or strictness."""
    lost = out._losing()
    if lost:
        logs.warning("%s", _ToolLosses(out, lost))


# what a normalize calls, imported by the first (not by `import wireschema`, whose
# `targets` needs none of it: attrs alone is tens of milliseconds) and bound here: a
# relative import statement per call goes through importlib each time
_Engine = tuple[
    Callable[[Any], "Options"],
    Callable[["Options"], Any],
    Callable[[Any], Union[bytes, None]],
    Callable[[Callable[[], "Result"]], "Result"],
    Callable[..., "Result"],
]
_engine: _Engine | None = None


def _engine_parts() -> _Engine:
    global _engine
    from .blobs import freeze
    from .cache import collector_paused
    from .model import options_key, options_of
    from .pipeline import run_target

    _engine = (options_of, options_key, freeze, collector_paused, run_target)
    return _engine


def _normalize(
    schema: Any, target: TargetLike, *, strict: bool | None = None, options: Options | None = None, output: bool = False
) -> Result:
    """`normalize` without the log: the APIs built on it log once, for the whole tool.
    With `output`, `schema` is a structured output's, not a tool's parameters (see
    `Facts.output_root`)."""
    options_of, options_key, freeze, collector_paused, run_target = _engine or _engine_parts()
    opts = options_of(options)
    t = _target(target)
    # an SDK's schema object (python-genai's types.Schema, say) as the SDK sends it; a
    # plain dict, the common case, is taken as it is
    value = schema if schema.__class__ is dict else _parsed(schema, opts)
    no_normalization, no_strict, no_cache = _switches()
    if opts.bypass or no_normalization:
        return _bypassed(value, t, opts)
    want = strict if strict is not None else opts.strict
    if no_strict:
        want = False
    if want is False and t.strict:
        t = t.related(t.non_strict or t.fail_open) or t
    elif want is True:
        t = t.strict_form() or t
    named = t.name
    if output and t.registry is not None:
        # the Result names the target asked for (after strictness), not its output variant
        t = t.registry.output_variant(t)

    def run() -> Result:
        result = run_target(value, t, opts, output=output)
        if result.target != named:
            import attrs

            result = attrs.evolve(result, target=named)
        if result.origin is None and not _past_a_budget(result):
            # just made and not yet handed to anyone (nor stored): given its origin in
            # place, not copied into a second Result. An input past a budget is not
            # kept: its copy would cost what the budget is there to bound
            object.__setattr__(result, "origin", freeze(value))
        return result

    if no_cache:
        result = collector_paused(run)
    else:
        # an output's free-form root is open where a tool's is not: the two never share an entry;
        # nor do two targets whose outputs run by one variant, each Result naming its own
        key = (t.digest, t.name, t.path, options_key(opts), output, named)
        memo = _the_memo()
        result = collector_paused(lambda: memo.lookup(key, value, run))
    # the caller's own ask for strict mode (its argument, a tool's or an output's flag; not
    # Options' default) that this wire's rules cannot meet is said, never dropped quietly
    if strict is True and not no_strict and not result.strict and result.strict_reason is None:
        import attrs

        result = attrs.evolve(result, strict_reason=f"strict mode was asked; {named} has no strict form")
    return result


def _parsed(schema: Any, opts: Options) -> Any:
    """`schema` as a JSON value (`prepare.parse_input`), an SDK object (python-genai's
    `types.Schema`) dumped first as its SDK sends it."""
    from .native import plain
    from .prepare import parse_input
    from .run import first_few

    value = plain(schema)
    if value is not schema and value.__class__ is dict and value and _registry().vocabulary.keywords.isdisjoint(value):
        # an object whose dump holds no schema keyword is data (a model instance passed
        # for its class): read as a schema, its fields would go to the wire as keywords
        raise SchemaInputError(
            f"{type(schema).__qualname__} object holds no schema keyword (its fields: {first_few(value, 5)}): "
            "it is data, not a schema (a model instance: pass its class; a tool: normalize_tool takes it)")
    return parse_input(value, opts)


def cache_info() -> "CacheInfo":
    """Hits, misses, entries and estimated bytes of the process-local memo (an input is
    stored the second time it is met: its first two calls are misses)."""
    return _the_memo().info()


def clear_cache() -> None:
    """Forget every memoized result."""
    _the_memo().clear()


def configure_cache(*, max_entries: int = 512, max_bytes: int = 16 * 1024 * 1024) -> None:
    """Resize the memo (this also empties it); 0 for either keeps nothing.

    A size that is no int of at least 0 raises `OptionsError`, and the memo stays as it was.
    """
    _the_memo().configure(max_entries, max_bytes)


def check(
    schema: Any, target: TargetLike | None = None, *, options: Options | None = None, model: str | None = None
) -> tuple[Change, ...]:
    """The target's residual checks that `schema`, taken as it stands, breaks (`model=`
    names a model in place of the target).

    Empty means the wire takes it as is. Nothing is rewritten; budgets still apply
    (a schema beyond them raises nothing here: it is judged as far as it was read).
    """
    from .model import options_of
    from .pipeline import residual_violations

    opts = options_of(options)
    return residual_violations(_parsed(schema, opts), _target(target, model), opts)


def _bypassed(value: Any, target: Any, opts: Options) -> Result:
    from .model import Change, Options, Result
    from .prepare import copy_input
    from .run import Run, Unrepresentable

    run = Run(target, Options(max_depth=10**6, max_nodes=10**9, max_literal_bytes=10**12, allow_nan=opts.allow_nan))
    try:
        schema = copy_input(value, run)
    except Unrepresentable:  # pragma: no cover - budgets are unbounded here
        schema = value
    return Result(
        schema=schema,
        target=target.name,
        strict=False,
        # strings no UTF-8 text holds are mended even here: no wire could carry them
        changes=(Change("bypass", "", "kept", "normalization bypassed: schema returned as given"), *run.changes),
    )


# The services around the walk (they call back into normalize()), the compiled-target
# class, the memo's CacheInfo and the value classes are imported on first use (PEP
# 562), not by `import wireschema`: normalize needs only the last, `targets` none, and
# each costs a fresh process milliseconds of imports and attrs classes.
_LAZY = {
    "CacheInfo": "cache",
    "NameMap": "names", "NameRule": "names",
    "normalize_output": "outputs",
    "RequestResult": "tools", "ToolResult": "tools", "ToolsResult": "tools",
    "normalize_mcp_tool": "tools", "normalize_request": "tools", "normalize_tool": "tools", "normalize_tools": "tools",
    "Target": "ruletable",
    "Catalog": "models", "ModelInfo": "models",
    "Change": "model", "Issue": "model", "Options": "model", "Result": "model", "TargetInfo": "model",
}


def __getattr__(name: str) -> Any:
    if name == "logger":
        return logs.logger()
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module 'wireschema' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, "logger"})
