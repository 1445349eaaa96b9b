"""Load rule files (YAML), resolve `extends:`, validate every field, compile pipelines.

A rule file compiles once per process into a `Target`: an ordered tuple of stages,
each either one whole-tree pass or one fused walk of node rules. Any mistake in a
rule file is a `RuleFileError` naming file, line and column.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Iterable

import attrs

from . import logs, rulepaths
from .digests import sha256
from .errors import RuleFileError
from .facts import ENGINE_FACTS, FACTS
from .listing import VOCABULARY
from .positions import is_schema_path
from .probespec import check_probe
from .requestspec import check_request
from .rulefields import (
    DEFAULT_SPILL,
    RULE_FIELDS,
    TOP_FIELDS,
    Entry,
    Keyed,
    NamedList,
    check_fields,
    check_keywords,
    check_locate,
    check_names,
    check_output,
    check_reader,
    check_spill,
    check_tool,
    err as _err,
    freeze_json as _freeze_json,
    jsonpath,  # noqa: F401 - tools and compiler parse JSONPath through here
    layer,
    layer_parent,
    never_selects,
    parse_jsonpath,
    resolve_lists,
    suggest,
    unknown,
)
from .run import trigger_union
from .yamlsource import MarkedDict, MarkedList, empty_mapping, load_file, mark_of

if TYPE_CHECKING:
    from .passes import Kind, Opt

# a rule file is named, never addressed by path: names are looked up in the rule dirs only
_NAME = re.compile(r"^_?[A-Za-z0-9][A-Za-z0-9_.-]*$")
_RULE_ID = re.compile(r"^[a-z0-9][a-z0-9._/-]*$")


def _valid_name(name: Any) -> bool:
    """True for a rule-file name such as `gemini` or `_base`; never a path (`../x`, `a/b`)."""
    if not isinstance(name, str) or not _NAME.match(name) or ".." in name:
        return False
    return not any(sep and sep in name for sep in ("/", "\\", os.sep, os.altsep))


@attrs.frozen(eq=False)
class Rule:
    """One compiled rule: what a rule file's entry means, validated."""

    id: str
    kind: str
    why: str
    options: MappingProxyType
    where: str | None
    source: str
    _where_expr: Any = attrs.field(default=None, repr=False)
    fast: str | None = attrs.field(default=None, repr=False)
    """The kind's cheap test for this rule's options (see `Kind.acts_if`), or None."""
    spec: Any = attrs.field(default=None, repr=False)
    """The `Kind` (or check kind) this rule is an instance of."""
    origins: tuple = attrs.field(default=(), repr=False)
    """Where the rule was written: `(file, line, column, fields)` for the entry that
    declared it, then for each override along the `extends` chain."""
    lists: tuple = attrs.field(default=(), repr=False)
    """`(option, list name)` for each option given as a named list (`list:NAME`)."""

    def select(self, root: Any) -> set[int] | None:
        """Ids of the schema nodes this rule's `where:` selects in `root` (None: all)."""
        if self._where_expr is None:
            return None
        if self.where == "$":
            # the common root-only selector needs no JSONPath search
            return {id(root)} if isinstance(root, dict) else set()
        return _select(self._where_expr, root, ".." in (self.where or ""))


def _visitor(entry: tuple, selectors: list) -> Any:
    from .compiler import Visitor

    rule, fn, bools, trig = entry
    selected = selectors.index(rule) if rule._where_expr is not None else None
    return Visitor(rule, fn, bools, trig, rule.fast, rule.spec.creates_of(rule.options), selected)


@attrs.frozen(eq=False)
class Stage:
    tree: tuple[Rule, Any] | None
    # (rule, visit function, sees booleans, trigger keywords or None)
    pre: tuple[tuple[Rule, Any, bool, Any], ...] = ()
    post: tuple[tuple[Rule, Any, bool, Any], ...] = ()
    reads_only: bool = False  # residual checks: one top-down scan, nothing replaced
    # the visitor lists of a stage whose rules select no nodes (`where:`), made once
    _static: Any = attrs.field(init=False, default=None, repr=False)

    # keywords that wake some visitor up (None: any node does), for (pre, post, both)
    keys: Any = attrs.field(init=False, default=None, repr=False)
    _walk: Any = attrs.field(init=False, default=None, repr=False)

    def __attrs_post_init__(self) -> None:
        if all(r._where_expr is None for r in self.rules):
            object.__setattr__(self, "_static", self._visitors(None))
        object.__setattr__(self, "keys", (trigger_union(self.pre), trigger_union(self.post), trigger_union(self.pre + self.post)))

    def compiled(self) -> Any:
        """This stage's walk as one specialized function (see `compiler`), made on first use."""
        fn = self._walk
        if fn is None:
            from .compiler import Variant, compile_variants

            selectors = [v[0] for v in self.pre + self.post if v[0]._where_expr is not None]
            pre = tuple(_visitor(v, selectors) for v in self.pre)
            post = tuple(_visitor(v, selectors) for v in self.post)
            if self.reads_only:
                pre, post = pre + post, ()
            fn = compile_variants((Variant("s", pre, post, "s", "s"),), "stage")
            object.__setattr__(self, "_walk", fn)
        return fn

    def selections(self, root: Any) -> tuple:
        """Per rule with a `where:` selector, the ids it selects in `root`."""
        return tuple(v[0].select(root) for v in self.pre + self.post if v[0]._where_expr is not None)

    def visitors(self, root: Any) -> tuple[tuple, tuple]:
        """(pre, post) visitors for one tree: each with the ids its `where:` selects."""
        if self._static is not None:
            return self._static
        return self._visitors(root)

    def _visitors(self, root: Any) -> tuple[tuple, tuple]:
        pre = tuple((r, fn, bools, trig, r.select(root)) for r, fn, bools, trig in self.pre)
        post = tuple((r, fn, bools, trig, r.select(root)) for r, fn, bools, trig in self.post)
        return pre, post

    @property
    def rules(self) -> tuple[Rule, ...]:
        if self.tree is not None:
            return (self.tree[0],)
        return tuple(v[0] for v in self.pre) + tuple(v[0] for v in self.post)


@attrs.frozen(eq=False)
class Target:
    """A compiled rule file."""

    name: str
    description: str
    path: str
    files: tuple[str, ...]
    abstract: bool
    strict: bool
    fail_open: str | None
    non_strict: str | None
    strict_variant: str | None
    spill: MappingProxyType
    fallback: Any
    locate: MappingProxyType
    names: MappingProxyType
    tool: MappingProxyType
    request_limits: MappingProxyType
    request: MappingProxyType  # see requestspec: how the wire spells a request's tool-related parts
    output: MappingProxyType
    reader: MappingProxyType  # see rulefields' `reader`: what `check` reads as the wire does
    risks: MappingProxyType  # see rulefields' `risks`: what `check` reports, never enforced
    probe: MappingProxyType | None  # see probespec: where `wireschema probe` sends its battery
    rules: tuple[Rule, ...]
    checks: tuple[Rule, ...]
    stages: tuple[Stage, ...]
    check_stages: tuple[Stage, ...]
    digest: str
    # the keyword a finish rule leaves the root's definitions under, in the wire's own
    # spelling (Vertex's `defs`), or None: the checks walk each definition there too
    wire_defs: str | None
    registry: Any = attrs.field(repr=False)
    # where the name is given (`target:`), for a clash between two files
    name_at: tuple[int | None, int | None] = attrs.field(default=(None, None), repr=False)
    # a derived target (see `Registry.derive`): the files whose own fields and rules lie over
    # the chain of `path`, in order; () for a rule file's own target
    layers: tuple[str, ...] = attrs.field(default=(), repr=False)

    _planner: Any = attrs.field(init=False, default=None, repr=False, eq=False)

    def planner(self) -> Any:
        """How this target runs on each input (see `plans`), made on first use."""
        planner = self._planner
        if planner is None:
            from .plans import Planner

            planner = Planner(self)
            object.__setattr__(self, "_planner", planner)
        return planner

    def related(self, name: str | None) -> "Target | None":
        return None if name is None else self.registry.get(name)

    def strict_form(self) -> "Target | None":
        """The target strict mode runs as: this one where it is strict, else its strict
        variant; None where it has neither."""
        return self if self.strict else self.related(self.strict_variant)


class Vocabulary:
    """Named keyword groups and maps shared by every rule file (`rules/_vocabulary.yaml`),
    and the JSON Schema vocabulary a `keys` option is checked against."""

    _SECTIONS = ("keywords", "groups", "maps")

    def __init__(self, path: Path):
        self.path = str(path)
        data, self.text = read_rule_file(path)
        if not isinstance(data, MarkedDict):
            raise RuleFileError(self.path, 1, 1, "the vocabulary must be a mapping")
        self.groups: dict[str, tuple[str, ...]] = {}
        self.maps: dict[str, dict[str, Any]] = {}
        self.keywords: frozenset[str] = frozenset()
        for field in data:
            if field not in self._SECTIONS:
                _err(self.path, data, field, unknown("vocabulary field", field, self._SECTIONS), of_key=True)
        for section in self._SECTIONS:
            want = list if section == "keywords" else dict
            if data.get(section) is not None and not isinstance(data[section], want):
                _err(self.path, data, section, f"{section} must be a {'list' if want is list else 'mapping'}")
        words = data.get("keywords") or []
        for i, w in enumerate(words):
            if not isinstance(w, str) or not w:
                _err(self.path, words, i, f"a keyword is a non-empty string, got {w!r}")
        self.keywords = frozenset(words)
        for name, group in (data.get("groups") or {}).items():
            if not isinstance(group, list):
                _err(self.path, data["groups"], name, f"group {name!r} must be a list of keywords")
            self.groups[name] = tuple(self._expand(group))
        for name, mapping in (data.get("maps") or {}).items():
            if not isinstance(mapping, dict):
                _err(self.path, data["maps"], name, f"map {name!r} must be a mapping")
            self.maps[name] = dict(mapping)

    def known(self, word: str, extra: frozenset[str] = frozenset()) -> bool:
        """A keyword a rule may name: JSON Schema's, one a file declares, or an extension."""
        return word in self.keywords or word in extra or word.startswith("x-") or not self.keywords

    def _expand(self, words: MarkedList) -> list[str]:
        out: list[str] = []
        for i, w in enumerate(words):
            if not isinstance(w, str):
                _err(self.path, words, i, f"a keyword must be a string, got {w!r}")
            if w.startswith("group:"):
                sub = w[6:]
                if sub not in self.groups:
                    # groups are read in order: a group may only use the ones above it
                    _err(self.path, words, i, unknown("keyword group", sub, self.groups) + " (a group may use only the groups above it)")
                out.extend(self.groups[sub])
            elif not self.known(w):
                _err(self.path, words, i, unknown("keyword", w, self.keywords, listing=False) + " (not in keywords: above)")
            else:
                out.append(w)
        return out


def read_rule_file(path: Path) -> tuple[Any, str]:
    """The parsed file (MarkedDict/MarkedList tree) and its text."""
    try:
        raw = rulepaths.read_bytes(path)
    except OSError as exc:
        raise RuleFileError(str(path), None, None, f"cannot read rule file: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise RuleFileError(str(path), line, col, f"not UTF-8 text: {exc.reason}") from None
    try:
        return load_file(path, raw, text), text
    except RecursionError:
        # a safety net: the loader bounds nesting, but a caller already deep in its own
        # stack must still get a RuleFileError, never a RecursionError
        raise RuleFileError(str(path), None, None, "nested too deeply to read") from None
    except Exception as exc:
        # only a file that was parsed can fail: yaml is imported by then
        import yaml

        if isinstance(exc, yaml.MarkedYAMLError):
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark else None
            col = mark.column + 1 if mark else None
            raise RuleFileError(str(path), line, col, f"not valid YAML: {exc.problem or exc}") from None
        if isinstance(exc, yaml.YAMLError):
            raise RuleFileError(str(path), None, None, f"not valid YAML: {exc}") from None
        raise


# ---------------------------------------------------------------------------
# JSONPath selection limited to schema positions


_ROOT_ONLY = object()  # the parsed form of `where: "$"`, which `Rule.select` answers itself


def path_tokens(datum: Any) -> list[Any]:
    """The keys and indices from the root to a JSONPath match."""
    from jsonpath_ng.jsonpath import Fields, Index, Root, This

    tokens: list[Any] = []
    while datum is not None and getattr(datum, "path", None) is not None:
        p = datum.path
        if isinstance(p, Fields):
            tokens.append(p.fields[0])
        elif isinstance(p, Index):
            # jsonpath-ng 1.8 names it `indices` (a slice may select several)
            idx = getattr(p, "index", None)
            if idx is None:
                idx = p.indices[0] if getattr(p, "indices", None) else None
            tokens.append(idx)
        elif isinstance(p, (Root, This)):
            pass
        datum = datum.context
    tokens.reverse()
    return tokens


def _select(expr: Any, root: Any, recursive: bool) -> set[int]:
    out: set[int] = set()
    for datum in expr.find(root):
        if isinstance(datum.value, dict) and is_schema_path(path_tokens(datum), recursive):
            out.add(id(datum.value))
    return out


# ---------------------------------------------------------------------------
# loading and merging


class Registry:
    """Compiled targets by name, compiled lazily and once (thread-safe).

    A target compiles with the files it extends and the targets it may hand a schema
    to (`fail_open`, `non_strict`, `strict_variant`), and nothing else: a broken file
    the target does not use never fails it. Reading every file's top-level fields (the
    target list, the tool shapes) leaves a broken file out, and says which (`skipped`).
    """

    def __init__(self, dirs: Iterable[Path], vocabulary: Vocabulary):
        self.dirs = tuple(dirs)
        self.vocabulary = vocabulary
        self._compiled: dict[str, Target] = {}
        self._names: list[str] | None = None
        self._parsed: dict[str, tuple[Any, str]] = {}
        self._real: dict[str, str] = {}
        self._fields: dict[str, dict[str, Any]] = {}
        self._shapes: list[Any] | None = None
        self._shapes_key: str | None = None
        self._body_paths: tuple[tuple[str, str, tuple[str, ...]], ...] | None = None
        self._variants: dict[tuple[Any, ...], Target] = {}
        self.merged: dict[tuple[str, bool], dict[str, Any]] = {}
        """Each file's merge with what it extends (`_merge_chain`), by (path, with rules)."""
        # derived targets by (target named, files laid over it), and by name until kept
        self._derivations: dict[tuple[str, tuple[str, ...]], str] = {}
        self._derived: dict[str, Target] = {}
        self._lock = threading.RLock()
        self.skipped: dict[str, RuleFileError] = {}
        """Files left out where every file is read (target list, tool shapes), by name."""

    def names(self) -> list[str]:
        # the rule folders are read once: a registry stands for one set of files
        if self._names is None:
            seen: dict[str, None] = {}
            for d in self.dirs:
                for p in sorted(d.glob("*.yaml")):
                    if not p.name.startswith("_"):
                        seen.setdefault(p.stem, None)
            self._names = list(seen)
        return list(self._names)

    def read(self, path: Path) -> tuple[Any, str]:
        """A rule file parsed once per registry: every `extends` chain shares `_base`."""
        key = self.real(path)
        if key not in self._parsed:
            self._parsed[key] = read_rule_file(path)
        return self._parsed[key]

    def real(self, path: Path) -> str:
        """`path` with its links resolved, looked up once per registry (like its files)."""
        key = str(path)
        found = self._real.get(key)
        if found is None:
            # realpath, not resolve(): a link that loops is left as it is, never a RuntimeError
            found = self._real[key] = os.path.realpath(path)
        return found

    def fields(self, name: str) -> dict[str, Any] | None:
        """A target's top-level fields (description, strict, tool, ...) read from its rule
        file and what it extends, validated, without compiling its rules; None if no file."""
        with self._lock:
            if name in self._fields:
                return self._fields[name]
            path = self.file_for(name)
            if path is None:
                return None
            # the fields only: the rules of the chain are merged (and checked) when it compiles
            spec = _merge_chain(path, self, (), rules=False)
            abstract = bool(_top(spec, self, "abstract")) or path.stem.startswith("_")
            out = {f: _top(spec, self, f, abstract=abstract) for f in ("description", "strict", "tool", "mcp_ingest", "locate", "request")}
            out["abstract"] = abstract
            out["path"] = str(path)
            out["files"] = tuple(spec["files"])
            self._fields[name] = out
            return out

    def listed(self) -> list[tuple[str, dict[str, Any]]]:
        """(name, fields) of every file whose fields can be read; a broken one is left
        out, named in `skipped` and logged once, so that one bad file never hides the rest."""
        out = []
        for name in self.names():
            try:
                f = self.fields(name)
            except RuleFileError as exc:
                with self._lock:
                    if name not in self.skipped:
                        self.skipped[name] = exc
                        logs.warning("rule file %s is left out: %s", name, exc)
                continue
            if f is not None:
                out.append((name, f))
        return out

    def tool_shapes(self) -> list[Any]:
        """Every distinct `tool:` shape of the registry's targets (computed once, no rules compiled)."""
        if self._shapes is None:
            shapes: list[Any] = []
            for _, f in self.listed():
                tool = MappingProxyType(f["tool"] or {})
                # an abstract file's may be a part of a shape, which no tool is read by
                if tool and not f["abstract"] and tool not in shapes:
                    shapes.append(tool)
            self._shapes = shapes
        return self._shapes

    def body_paths(self) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
        """(field, JSONPath, targets) of every place a target's `locate` finds tool lists
        (`tools`) or output schemas (`outputs`, `strict_outputs`) in a request body, each
        once with the targets that look there, in the registry's order (computed once, no
        rules compiled)."""
        if self._body_paths is None:
            found: dict[tuple[str, str], tuple[str, ...]] = {}
            for name, f in self.listed():
                if f["abstract"]:
                    continue
                for field in ("tools", "outputs", "strict_outputs"):
                    for path in (f["locate"] or {}).get(field) or ():
                        found[field, path] = (*found.get((field, path), ()), name)
            self._body_paths = tuple((field, path, names) for (field, path), names in found.items())
        return self._body_paths

    def mcp_ingest(self) -> str:
        """The target whose file says `mcp_ingest: true` (what `normalize_mcp_tool` uses)."""
        found = [name for name, f in self.listed() if f.get("mcp_ingest") and not f["abstract"]]
        if len(found) != 1:
            from .errors import UnknownTargetError

            raise UnknownTargetError(f"{len(found)} rule files say mcp_ingest: true ({', '.join(found) or 'none'}); one must")
        return found[0]

    def shapes_key(self) -> str:
        """A digest of `tool_shapes()`: how this registry reads tools, for cache keys."""
        if self._shapes_key is None:
            text = repr([dict(s) for s in self.tool_shapes()])
            self._shapes_key = sha256(text.encode()).hexdigest()
        return self._shapes_key

    def file_for(self, name: str, near: Path | None = None, skip: Path | None = None) -> Path | None:
        """The rule file called `name`: next to `near` first, then in the rule dirs.

        `skip` leaves one file out, so that a user's `gemini.yaml` saying
        `extends: gemini` finds the shipped gemini rather than itself.
        """
        if not _valid_name(name) or name == VOCABULARY:
            # compiled as a rule file the vocabulary is only a RuleFileError: it is no target
            return None
        dirs = ((near,) if near is not None else ()) + self.dirs
        skipped = self.real(skip) if skip is not None else None
        for d in dirs:
            p = d / f"{name}.yaml"
            if p.is_file() and (skipped is None or self.real(p) != skipped):
                return p
        return None

    def searched(self, near: Path | None = None) -> list[str]:
        """The folders a name is looked up in, each once, in order."""
        out: dict[str, None] = {}
        for d in ((near,) if near is not None else ()) + self.dirs:
            out.setdefault(str(d), None)
        return list(out)

    def knows(self, name: str) -> bool:
        with self._lock:
            return name in self._compiled or self.file_for(name) is not None

    def get(self, name: str) -> Target | None:
        found = self._compiled.get(name)  # a compiled target is kept for good: no lock to read it
        if found is not None:
            return found
        with self._lock:
            if name in self._compiled:
                return self._compiled[name]
            path = self.file_for(name)
            if path is None:
                return None
            target = compile_file(path, self)
            self._with_related(name, target)
            return target

    def add(self, target: Target) -> None:
        """A target compiled from a user's file, with the targets it may hand a schema to."""
        with self._lock:
            known = self._compiled.get(target.name)
            if known is not None and known.path != target.path:
                # two files, one target name: the later one would silently win
                line, col = target.name_at
                raise RuleFileError(target.path, line, col, f"target {target.name!r} is already defined by {known.path}")
            self._with_related(target.name, target)

    def _with_related(self, name: str, target: Target) -> None:
        # the whole set compiles before any of it is kept: a broken sibling fails its
        # target now, every time, and never half-way through a request
        pending = {name: target}
        todo = [target]
        while todo:
            t = todo.pop()
            for rel in (t.fail_open, t.non_strict, t.strict_variant, t.output.get("variant")):
                if rel is None or rel in pending or rel in self._compiled:
                    continue
                if rel in self._derived:
                    pending[rel] = self._derived[rel]
                    todo.append(pending[rel])
                    continue
                path = self.file_for(rel)
                if path is not None:
                    pending[rel] = compile_file(path, self)
                    todo.append(pending[rel])
        self._compiled.update(pending)

    def output_variant(self, target: Target) -> Target:
        """`target` as it reads structured-output schemas: the target its `output.variant`
        names (one hop), without the rules and checks that one's `output.disable` names
        (those that only hold for tool parameters)."""
        named = target.related(target.output.get("variant")) or target
        return self.variant(named, named.output.get("disable", ()), "output")

    def variant(self, target: Target, drop: Iterable[str], tag: str) -> Target:
        """`target` compiled without the rules and checks whose ids are in `drop`, under
        a digest of its own (`tag`), so its results never share a cache entry with the
        target's; compiled once per registry."""
        ids = frozenset(drop)
        if not ids:
            return target
        key = (target.path, target.layers, tag, ids)
        digest = sha256(f"{tag}\0{target.digest}\0{sorted(ids)}".encode()).hexdigest()
        with self._lock:
            found = self._variants.get(key)
            if found is None or found.digest != digest:
                path = Path(target.path)
                spec = _spec_of(path, target.layers, self)
                for field in ("rules", "checks"):
                    spec[field] = [it for it in spec[field] if _rid(it) not in ids]
                found = attrs.evolve(
                    _compile(spec, path, self, variant=True), digest=digest, name=target.name, layers=target.layers,
                    fail_open=target.fail_open, non_strict=target.non_strict, strict_variant=target.strict_variant,
                    output=target.output)
                self._variants[key] = found
            return found

    def derive(self, named: str, layers: tuple[str, ...], child: str, child_files: tuple[str, ...]) -> str:
        """The target `named` with the own fields and rules of the files `layers` laid
        over it, in order: what a file extending a target hands a schema to, where it
        states no target of its own (`child`, whose chain is `child_files`). Its own
        relations are derived alike; one that would make `child` again names it. Its
        name is `named+` the layers' names; compiled once per registry."""
        with self._lock:
            key = (named, layers)
            name = self._derivations.get(key)
            if name is not None:
                return name
            name = "+".join([named, *(Path(f).stem for f in layers)])
            self._derivations[key] = name
            try:
                path = self.file_for(named)
                target = _compile(_spec_of(path, layers, self), path, self, variant=True)
                related = {f: self._derived_relation(getattr(target, f), layers, child, child_files) for f in _RELATIONS}
                output = dict(target.output)
                if output.get("variant") is not None:
                    output["variant"] = self._derived_relation(output["variant"], layers, child, child_files)
                self._derived[name] = attrs.evolve(
                    target, name=name, layers=layers, output=MappingProxyType(output), **related)
            except RuleFileError:
                del self._derivations[key]
                raise
            return name

    def _derived_relation(self, named: str | None, layers: tuple[str, ...], child: str, child_files: tuple[str, ...]) -> str | None:
        """Where a derived target hands a schema: `named` itself where it makes the
        changes of `layers` already, `child` where `named` with them is `child`, else
        `named` derived with the layers it lacks."""
        path = None if named is None else self.file_for(named)
        if path is None:
            return named
        carried = _chain_files(path, self)
        lacking = tuple(f for f in layers if f not in carried)
        if not lacking:
            return named
        if set(carried) <= set(child_files) and all(
                f in carried or f in lacking or not _changes(self.read(Path(f))[0]) for f in child_files):
            return child
        return self.derive(named, lacking, child, child_files)

    def problems(self) -> dict[str, RuleFileError]:
        """Every file of the rule dirs that does not compile (with what it extends and
        hands schemas to), by name: what `wireschema rules lint` reports."""
        out = {}
        for name in self.names():
            try:
                self.get(name)
            except RuleFileError as exc:
                out[name] = exc
        return out


def list_origins(target: Target) -> dict[str, list[tuple[str, str, int | None]]]:
    """Per named list of `target`, where it was declared and edited, in order:
    ("declared" | "edited", file, line) (what `wireschema rules explain` prints)."""
    if target.registry is None:
        return {}
    spec = _spec_of(Path(target.path), target.layers, target.registry)
    out = {}
    for name, layers in spec.get("lists", {}).items():
        places = []
        for entry in layers:
            line, _ = mark_of(entry.container, entry.key)
            places.append(("edited" if places else "declared", entry.path, line))
        out[name] = places
    return out


def compile_file(path: Path, registry: Registry) -> Target:
    spec = _merge_chain(path, registry, ())
    return _compile(spec, path, registry)


def _parents(spath: str, data: MarkedDict) -> list[tuple[str, Any, Any]]:
    """The names in `extends:`, each with where it is written (container, key)."""
    value = data.get("extends")
    if value is None:
        return []
    if isinstance(value, str):
        items = [(value, data, "extends")]
    elif isinstance(value, list):
        items = [(v, value, i) for i, v in enumerate(value)]
    else:
        _err(spath, data, "extends", "extends must be a name or a list of names")
    for name, container, at in items:
        if not _valid_name(name):
            _err(spath, container, at, f"extends names a rule file by name (like gemini or _base), not a path: {name!r}")
    return items


# fields a file says for itself only: a parent's never reach the file that extends it
_OWN_ONLY = tuple(f for f, spec in TOP_FIELDS.items() if spec.inherit == "never")


def _merge_chain(path: Path, registry: Registry, stack: tuple[str, ...], rules: bool = True) -> dict[str, Any]:
    """The file's fields and rules over those of everything it extends, unvalidated.
    Without `rules`, the fields only: "rules" and "checks" stay empty, unread.

    Each file's merge is made once per registry and copied out: a folder of n files
    extending each other in a chain merges n files, not n * n / 2. A merge that fails
    is not kept (it fails again, the same way, where it is asked for again).
    """
    key = (str(path), rules)
    found = registry.merged.get(key)
    if found is None:
        found = registry.merged[key] = _merge_file(path, registry, stack, rules)
    # a copy: a caller replaces fields of its own (variants), never the lists inside
    return dict(found)


def _merge_file(path: Path, registry: Registry, stack: tuple[str, ...], rules: bool) -> dict[str, Any]:
    spath = str(path)
    key = registry.real(path)
    data, text = registry.read(path)
    if data is None:
        data = empty_mapping()
    if not isinstance(data, MarkedDict):
        line, col = mark_of(data)
        raise RuleFileError(spath, line or 1, col or 1, "a rule file must be a mapping of fields (extends, rules, ...)")
    for field in data:
        if field not in TOP_FIELDS:
            _err(spath, data, field, unknown("field", field, sorted(TOP_FIELDS)), of_key=True)
    merged: dict[str, Any] | None = None
    for parent, container, at in _parents(spath, data):
        ppath = registry.file_for(parent, near=path.parent, skip=path)
        if ppath is None and registry.file_for(parent, near=path.parent) is not None:
            ppath = path  # the only file of that name is this one
        if ppath is None:
            looked = ", ".join(registry.searched(path.parent))
            names = {p.stem for d in registry.searched(path.parent) for p in Path(d).glob("*.yaml")} - {VOCABULARY}
            _err(spath, container, at, f"extends {parent!r}: no such rule file{suggest(parent, names)} (looked in {looked})")
        pkey = registry.real(ppath)
        chain = (*stack, key)
        if pkey in chain:
            cycle = " -> ".join(Path(s).stem for s in (*chain[chain.index(pkey):], pkey))
            _err(spath, container, at, f"extends cycle: {cycle}")
        base = _merge_chain(ppath, registry, chain, rules)
        merged = base if merged is None else _overlay_parent(merged, base)
    if merged is None:
        merged = {"rules": [], "checks": [], "files": [], "texts": []}
    # a file is abstract, named, or the MCP ingestion target only by what it says itself
    for field in _OWN_ONLY:
        merged.pop(field, None)
    _lay_own(merged, spath, data, text, rules)
    return merged


def _lay_own(merged: dict[str, Any], spath: str, data: MarkedDict, text: str, rules: bool, skip: frozenset[str] = frozenset()) -> None:
    """One file's own fields (but `extends` and `skip`) and rules over `merged`."""
    own: dict[str, Any] = {"rules": [], "checks": [], "files": [spath], "texts": [text]}
    fields: list[tuple[str, Entry]] = []
    for field, value in data.items():
        if field in ("rules", "checks"):
            if value is None:
                continue
            if not isinstance(value, list):
                _err(spath, data, field, f"{field} must be a list of rules")
            if rules:
                own[field] = [(spath, value, i) for i in range(len(value))]
        elif field != "extends" and field not in skip:
            fields.append((field, Entry(spath, data, field)))
    _unique_ids(spath, own["rules"] + own["checks"])
    _overlay(merged, own)
    for field, entry in fields:
        layer(merged, field, entry)


def _spec_of(path: Path, layers: tuple[str, ...], registry: Registry) -> dict[str, Any]:
    """The merged chain of `path`, with each file of `layers` laid over it (its own
    fields and rules, but its name, words and relations: the chain's stand)."""
    spec = _merge_chain(path, registry, ())
    if not layers:
        return spec
    output = spec.get("output")
    variant = output.items.get("variant") if isinstance(output, Keyed) else None
    for f in layers:
        data, text = registry.read(Path(f))
        _lay_own(spec, f, data, text, True, skip=_NO_CHANGE)
    output = spec.get("output")
    if isinstance(output, Keyed):
        items = {k: v for k, v in output.items.items() if k != "variant"}
        if variant is not None:
            items["variant"] = variant
        spec["output"] = Keyed(output.at, items)
    return spec


def _unique_ids(spath: str, items: list[tuple[str, Any, int]]) -> None:
    """One id per rule or check within a file; the later one (in the file) is the mistake."""
    found = []
    for _, seq, i in items:
        raw = seq[i]
        if isinstance(raw, MarkedDict) and isinstance(raw.get("id"), str):
            found.append((mark_of(raw, "id"), raw["id"], raw))
    seen: dict[str, tuple[int, int]] = {}
    for mark, rid, raw in sorted(found, key=lambda f: f[0]):
        if rid in seen:
            line, col = seen[rid]
            _err(spath, raw, "id", f"duplicate rule id {rid!r}: already used at line {line}, column {col}")
        seen[rid] = mark


def _overlay_parent(merged: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """A later parent over an earlier one: its fields win, its rules replace theirs by
    id, except what it has only from a file the earlier one extends too."""
    out = dict(merged)
    known = set(merged["files"])
    out["files"] = merged["files"] + [f for f in base["files"] if f not in merged["files"]]
    out["texts"] = merged["texts"] + base["texts"]
    for field, value in base.items():
        if field in ("rules", "checks"):
            out[field] = _merge_resolved(merged[field], value, known)
        elif field not in ("files", "texts"):
            layer_parent(out, field, value, known)
    return out


def _merge_resolved(base: list, other: list, known: set[str]) -> list:
    # both lists are already merged chains: keep base's order, and put other's new rules
    # right after the rule they follow there. Of a shared id other's version wins, unless
    # it comes unchanged from a file base has too (a common ancestor such as gemini):
    # that copy must not undo base's own override.
    out = list(base)
    prev: str | None = None
    for item in other:
        rid = _rid(item)
        idx = next((k for k, it in enumerate(out) if _rid(it) == rid), None)
        if idx is not None:
            if _origin(item) not in known:
                out[idx] = item
        else:
            pos = 0 if prev is None else next(k for k, it in enumerate(out) if _rid(it) == prev) + 1
            out.insert(pos, item)
        prev = rid
    return out


def _overlay(merged: dict[str, Any], own: dict[str, Any]) -> None:
    """The file's own rules and checks over the inherited ones."""
    merged["files"] = merged["files"] + [f for f in own["files"] if f not in merged["files"]]
    merged["texts"] = merged["texts"] + own["texts"]
    for field in ("rules", "checks"):
        other = "checks" if field == "rules" else "rules"
        taken = {_rid(it) for it in merged[other]}
        merged[field] = _merge_rules(merged[field], own[field], taken, field[:-1], other[:-1])


def _entry(item: tuple[str, Any, int]) -> Any:
    spath, seq, i = item
    return seq[i]


def _merge_rules(base: list, layer: list, taken: set[str], what: str, other: str) -> list:
    """One file's rule entries over the inherited list: override, replace, disable, add."""
    out = list(base)
    for item in layer:
        spath, seq, i = item
        raw = seq[i]
        if not isinstance(raw, MarkedDict):
            _err(spath, seq, i, f"each {what} must be a mapping with at least id")
        if "id" not in raw:
            _err(spath, raw, None, f"{what} id is missing: every {what} needs an id such as team/drop-title")
        rid = raw["id"]
        if not isinstance(rid, str) or not _RULE_ID.match(rid):
            _err(spath, raw, "id", f"{what} id must match {_RULE_ID.pattern}, got {rid!r}")
        if rid in taken:
            _err(spath, raw, "id", f"duplicate rule id {rid!r}: a {other} already has it")
        idx = next((k for k, it in enumerate(out) if _rid(it) == rid), None)
        disabled = raw.get("disabled", False)
        if not isinstance(disabled, bool):
            _err(spath, raw, "disabled", f"disabled must be true or false, got {disabled!r}")
        if disabled:
            if idx is None:
                ids = [_rid(it) for it in out]
                _err(spath, raw, "disabled", f"cannot disable {rid!r}: no inherited {what} has that id{suggest(rid, ids)}")
            extra = [k for k in raw if k not in ("id", "disabled", "why")]
            if extra:
                # options beside `disabled: true` would be silently dropped
                _err(spath, raw, extra[0], f"{what} {rid!r} is disabled: {extra[0]!r} has no effect", of_key=True)
            del out[idx]
            continue
        placement = [k for k in ("before", "after") if k in raw]
        if len(placement) > 1:
            _err(spath, raw, "after", f"{what} {rid!r}: give before or after, not both", of_key=True)
        if idx is not None:
            # without kind: an override, the inherited rule with some fields replaced
            entry = ("override", out[idx], item) if "kind" not in raw else item
            if not placement:
                out[idx] = entry
                continue
            del out[idx]
        else:
            entry = item
        if placement:
            _place(out, entry, spath, raw, placement[0], what)
        else:
            out.append(entry)
    return out


def _place(out: list, entry: Any, spath: str, raw: MarkedDict, field: str, what: str) -> None:
    anchor = raw[field]
    pos = next((k for k, it in enumerate(out) if _rid(it) == anchor), None)
    if pos is None:
        ids = [_rid(it) for it in out]
        _err(spath, raw, field, f"{field}: no {what} with id {anchor!r} to place against{suggest(anchor, ids)}")
    out.insert(pos if field == "before" else pos + 1, entry)


def _origin(item: Any) -> str:
    """The file that last wrote this rule (the override's, for an override)."""
    return item[2][0] if item[0] == "override" else item[0]


def _rid(item: Any) -> str:
    if item[0] == "override":
        return _rid(item[1])
    return _entry(item)["id"]


def _flatten(item: Any) -> tuple[dict[str, Any], dict[str, tuple[str, Any]]]:
    """Fields of a (possibly overridden) rule, and where each came from."""
    if item[0] == "override":
        fields, where = _flatten(item[1])
        spath, seq, i = item[2]
        raw = seq[i]
        for k, v in raw.items():
            fields[k] = v
            where[k] = (spath, raw)
        return fields, where
    spath, seq, i = item
    raw = seq[i]
    return dict(raw), {k: (spath, raw) for k in raw}


# ---------------------------------------------------------------------------
# compiling


def _top(spec: dict[str, Any], registry: Registry, field: str, default: Any = None, *, abstract: bool = False) -> Any:
    """One top-level field of a merged rule file, validated (its default if absent; an
    abstract file's `tool` may be a part of one, for the files extending it to finish)."""
    if field not in spec:
        return default
    value = spec[field]
    if field == "tool":  # the one field whose check depends on the file's kind
        return check_tool(value, partial=abstract)
    if field in _TOP_CHECKS:
        return _TOP_CHECKS[field](value)
    if field in ("fail_open", "non_strict", "strict_variant"):
        name = value.value
        if not _valid_name(name):
            value.err(f"{field} must name a target (not a path), got {name!r}")
        _refuse_unknown_target(value.err, field, name, registry)
        return name
    if field == "fallback":
        if not isinstance(value.value, (dict, bool)):
            value.err(f"{field} must be a JSON Schema (a mapping or true/false)")
        return _freeze_json(value.value)
    if field == "lists":
        return resolve_lists(value)
    if field == "keywords":
        return check_keywords(value)
    return value.value


def _of_type(field: str, kind: type, what: str) -> Any:
    """The checker of a field that holds one plain value of `kind`."""

    def check(entry: Entry) -> Any:
        if not isinstance(entry.value, kind):
            entry.err(f"{field} must be {what}")
        return entry.value

    return check


_TOP_CHECKS: dict[str, Any] = {
    "target": _of_type("target", str, "a string"),
    "description": _of_type("description", str, "a string"),
    "abstract": _of_type("abstract", bool, "true or false"),
    "strict": _of_type("strict", bool, "true or false"),
    "mcp_ingest": _of_type("mcp_ingest", bool, "true or false"),
    "spill": check_spill,
    "names": check_names,
    "locate": check_locate,
    "request_limits": lambda v: check_fields(v, "request_limits"),
    "request": check_request,
    "output": check_output,
    "reader": check_reader,
    "risks": lambda v: check_fields(v, "risks"),
    "probe": check_probe,
}


@attrs.frozen(eq=False)
class _Scope:
    """What a rule's options may refer to: the shared vocabulary, the file's named
    lists, and the keywords the file declares beyond JSON Schema's own."""

    vocab: Vocabulary
    lists: dict[str, NamedList]
    keywords: frozenset[str]


def _compile(spec: dict[str, Any], path: Path, registry: Registry, *, variant: bool = False) -> Target:
    # the rule kinds (every pass module) are imported by the first compile: reading the
    # target list needs none of them
    from .passes import CHECKS, KINDS

    spath = str(path)
    vocab = registry.vocabulary

    def top(field: str, default: Any = None) -> Any:
        return _top(spec, registry, field, default)

    name = top("target", path.stem)
    if "target" in spec and (not _valid_name(name) or name.startswith("_")):
        spec["target"].err(f"target must be a name like my-gemini, got {name!r}")
    if "target" in spec and name != path.stem:
        # targets are found by file name; a different name could never be looked up
        spec["target"].err(f"target must match the file name {path.stem!r}, got {name!r}")
    # a `_` file is a parent (like _base), never a target, whatever it says
    abstract = bool(top("abstract", False)) or path.stem.startswith("_")
    spill = dict(DEFAULT_SPILL)
    spill.update(top("spill", {}))
    scope = _Scope(vocab, top("lists", {}), frozenset(top("keywords", ())))
    rules = tuple(_compile_rule(item, KINDS, CHECKS, scope, "rule") for item in spec["rules"])
    checks = tuple(_compile_rule(item, CHECKS, KINDS, scope, "check") for item in spec["checks"])
    if not abstract:
        _check_order(rules)
    output = top("output", {})
    for j, rid in enumerate(() if variant else output.get("disable", ())):
        # an output variant leaves these out: a name that matches nothing would leave a
        # tool-only rule on every output without a word
        if not any(r.id == rid for r in (*rules, *checks)):
            ids = [r.id for r in (*rules, *checks)]
            spec["output"].items["disable"].err_in(j, f"output.disable: no rule or check with id {rid!r}{suggest(rid, ids)}")
    if output.get("variant") is not None:
        _refuse_unknown_target(spec["output"].items["variant"].err, "output.variant", output["variant"], registry)
    locate = top("locate", {})
    for j, other in enumerate(locate.get("outputs_of", ())):
        _refuse_unknown_target(lambda m, j=j: spec["locate"].items["outputs_of"].err_in(j, m), "locate.outputs_of", other, registry)
    seen: set[str] = set()
    for item in spec["rules"] + spec["checks"]:
        # a safety net: ids are unique per file and per list already, but parents may clash
        rid = _rid(item)
        if rid in seen:
            fpath, raw = _flatten(item)[1]["id"]
            _err(fpath, raw, "id", f"duplicate rule id {rid!r}: used by a rule and a check")
        seen.add(rid)
    derived = _relations_stated(spec, path, registry, name) if not abstract and not variant else {}
    if "output.variant" in derived:
        output = {**output, "variant": derived["output.variant"]}
    digest = sha256(
        "\0".join([vocab.text, *spec["texts"]]).encode("utf-8")
    ).hexdigest()
    return Target(
        name=name,
        description=top("description", ""),
        path=spath,
        files=tuple(spec["files"]),
        abstract=abstract,
        strict=top("strict", False),
        fail_open=top("fail_open"),
        non_strict=top("non_strict"),
        strict_variant=derived.get("strict_variant", top("strict_variant")),
        spill=MappingProxyType(spill),
        fallback=top("fallback", {"type": "object", "properties": {}}),
        locate=MappingProxyType(locate),
        tool=MappingProxyType(_top(spec, registry, "tool", {}, abstract=abstract)),
        request_limits=MappingProxyType(top("request_limits", {})),
        request=MappingProxyType(top("request", {})),
        output=MappingProxyType(output),
        reader=MappingProxyType(top("reader", {})),
        risks=MappingProxyType(top("risks", {})),
        probe=top("probe"),
        names=MappingProxyType(top("names", {})),
        rules=rules,
        checks=checks,
        stages=_stages(rules, KINDS),
        check_stages=_stages(_checks_walked_once(checks, CHECKS), CHECKS, reads_only=True),
        digest=digest,
        wire_defs=_wire_defs(rules),
        registry=registry,
        name_at=mark_of(spec["target"].container, spec["target"].key) if "target" in spec else (None, None),
    )


_RELATIONS = ("fail_open", "non_strict", "strict_variant")  # the targets a target hands schemas to, beside output.variant
# the relations a file inherits derived (`Registry.derive`) where their target lacks its changes
_DERIVED = ("strict_variant", "output.variant")
# what a file may state and still do what the file it extends does: its name and words,
# the targets it hands schemas to, what `check` reports as risks, and where `wireschema probe` sends its battery
_NO_CHANGE = frozenset({"target", "description", "extends", "abstract", "mcp_ingest", "risks", "probe", *_RELATIONS})


def _relations_stated(spec: dict[str, Any], path: Path, registry: Registry, name: str) -> dict[str, str]:
    """Derived targets, by field, for the variants this file inherits whose target
    lacks changes this file (or a file between it and the one naming the target)
    makes: sent there, a strict tool or an output would go without them, unsaid. A
    target extending those files carries them (anthropic-output extends
    anthropic-strict). `strict_variant` and `output.variant` are derived
    (`Registry.derive`); an inherited `fail_open` or `non_strict`, or a derivation
    that does not compile, is refused at `extends`."""
    spath = str(path)
    stated = [(f, spec[f]) for f in _RELATIONS if f in spec]
    if "output" in spec and "variant" in spec["output"].items:
        stated.append(("output.variant", spec["output"].items["variant"]))
    unstated = []  # (field, target named, the file naming it, the files whose changes it does not make, why not derived)
    derived: dict[str, str] = {}
    for field, entry in stated:
        named = entry.value
        named_path = None if entry.path == spath or named is None else registry.file_for(named)
        if named_path is None:
            continue
        carried = {*_chain_files(Path(entry.path), registry), *_chain_files(named_path, registry)}
        changed = [f for f in spec["files"] if f not in carried and _changes(registry.read(Path(f))[0])]
        if not changed:
            continue
        if field in _DERIVED:
            try:
                derived[field] = registry.derive(named, tuple(changed), name, tuple(spec["files"]))
                continue
            except RuleFileError as exc:
                failed = f" ({named} with those changes does not compile: {exc})"
        else:
            failed = ""
        unstated.append((field, named, Path(entry.path).stem, [Path(f).stem for f in changed], failed))
    if unstated:
        # every one at once: a file stating one relation would otherwise meet the next only then
        data, _ = registry.read(path)
        said = "; ".join(
            f"{field}: {named} from {by}, but {named} does not make the changes {', '.join(changed)} "
            f"make{'s' if len(changed) == 1 else ''}{failed}" for field, named, by, changed, failed in unstated)
        lines = ", ".join(f"`output: {{variant: {named}}}`" if field == "output.variant" else f"`{field}: {named}`"
                          for field, named, *_rest in unstated)
        _err(spath, data, "extends", (
            f"{path.stem} inherits {said}: a schema {path.stem} sends there would go without them, and nothing would "
            f"say so. State each in this file: {lines} to send it there as that target does, a target of yours that "
            f"makes the same changes, or null for none"))
    return derived


def _chain_files(path: Path, registry: Registry) -> list[str]:
    return _merge_chain(path, registry, (), rules=False)["files"]


def _changes(data: Any) -> bool:
    """Whether a rule file's own fields change what the file it extends does."""
    if not isinstance(data, dict):
        return False
    for field, value in data.items():
        if field in _NO_CHANGE or (field in ("rules", "checks") and not value):
            continue
        if field == "output" and isinstance(value, dict) and set(value) <= {"variant"}:
            continue
        return True
    return False


def _refuse_unknown_target(err: Callable[[str], Any], field: str, name: Any, registry: Registry) -> None:
    """A field naming a target is checked when its file compiles: at request time an
    unknown name would be skipped without a word (a sibling never run, outputs left as
    written)."""
    if not (_valid_name(name) and registry.knows(name)):
        err(f"{field}: no target named {name!r}{suggest(name, registry.names())}")


_PHASES = ("prepare", "resolve", "rewrite", "finish")


def _check_order(rules: tuple[Rule, ...]) -> None:
    """Refuse a rule list whose kinds' contracts say the order is wrong: a rule needs a
    fact (see `facts.FACTS`) no rule before it makes, or comes before a rule of an
    earlier phase. Each refusal points at the rule and names what it needs."""
    made: dict[str, Rule | None] = dict.fromkeys(ENGINE_FACTS)  # fact -> the first rule that made it
    latest: Rule | None = None  # the rule of the latest phase so far
    for rule in rules:
        spec = rule.spec
        for fact in spec.facts_needed(rule.options):
            if fact not in made:
                _err_at(rule, f"rule {rule.id!r} ({rule.kind}) needs {FACTS[fact]} before it")
        for fact in spec.facts_preceded(rule.options):
            maker = made.get(fact)
            if maker is not None:
                _err_at(rule, f"rule {rule.id!r} ({rule.kind}) must come before {maker.id!r}, {FACTS[fact]}: put `before: {maker.id}` on it")
        phase = spec.phase_of(rule.options)
        if phase is not None:
            if latest is not None and _PHASES.index(phase) < _PHASES.index(latest.spec.phase_of(latest.options)):
                other = latest.spec.phase_of(latest.options)
                _err_at(rule, f"rule {rule.id!r} ({rule.kind}, a {phase} rule) must come before {latest.id!r} ({latest.kind}, a {other} rule)")
            if latest is None or _PHASES.index(phase) >= _PHASES.index(latest.spec.phase_of(latest.options)):
                latest = rule
        for fact in spec.facts_made(rule.options):
            made.setdefault(fact, rule)


def _err_at(rule: Rule, message: str) -> None:
    fpath, line, col = rule.source.rsplit(":", 2)
    raise RuleFileError(fpath, int(line), int(col), message)


def _origins(item: Any) -> tuple:
    """(file, line, column, fields) of the entry that declared a rule, then of each
    override, in the order the `extends` chain applied them."""
    if item[0] == "override":
        spath, seq, i = item[2]
        raw = seq[i]
        line, col = raw.mark
        return (*_origins(item[1]), (spath, line, col, tuple(raw)))
    spath, seq, i = item
    raw = seq[i]
    line, col = raw.mark
    return ((spath, line, col, tuple(raw)),)


def _compile_rule(item: Any, table: dict[str, Kind], other: dict[str, Kind], scope: _Scope, what: str) -> Rule:
    fields, where = _flatten(item)
    rid = fields["id"]

    def err(field: str | None, message: str, sub: Any = None, of_key: bool = False, at: Entry | None = None) -> None:
        # at the field's value (or its key), at item `sub` inside that value, or at `at`
        # (an item of a named list the option refers to)
        if at is not None:
            at.err(f"{what} {rid!r}: {message}")
        fpath, raw = where.get(field, where["id"]) if field else where["id"]
        if field in raw and sub is not None and isinstance(raw[field], (MarkedDict, MarkedList)):
            _err(fpath, raw[field], sub, f"{what} {rid!r}: {message}")
        _err(fpath, raw, field if field in raw else None, f"{what} {rid!r}: {message}", of_key=of_key)

    kname = fields.get("kind")
    if kname is None:
        err("id", f"kind is missing (and no inherited {what} has this id to override)")
    if not isinstance(kname, str) or kname not in table:
        if isinstance(kname, str) and kname in other:
            home = "checks" if what == "rule" else "rules"
            err("kind", f"unknown {what} kind {kname!r}: it is a {home[:-1]} kind, move this entry under {home}:")
        err("kind", unknown(f"{what} kind", kname, sorted(table)))
    kind = table[kname]
    why = fields.get("why")
    if not isinstance(why, str) or not why.strip():
        err("why" if "why" in fields else "id", "why is missing: say in one line why the wire needs this")
    options: dict[str, Any] = {}
    used: list[tuple[str, str]] = []
    for field, value in fields.items():
        if field in RULE_FIELDS:
            continue
        if field not in kind.options:
            known = sorted(kind.options)
            err(field, f"unknown option {field!r} for kind {kname!r}{suggest(field, known)} (known: {', '.join(known) or 'none'})", of_key=True)
        options[field] = _option(
            kind.options[field], value, scope,
            lambda m, sub=None, at=None, f=field: err(f, f"{f}: {m}", sub, at=at),
            lambda name, f=field: used.append((f, name)),
        )
    for oname, opt in kind.options.items():
        if oname not in options:
            if opt.required:
                err("kind", f"option {oname!r} is required for kind {kname!r}")
            default = opt.default
            options[oname] = None if default is None else _option(
                opt, default, scope, lambda m, sub=None, at=None, o=oname: err("kind", f"default of {o}: {m}"), lambda name: None
            )
    where_text = fields.get("where")
    expr = None
    if where_text is not None:
        fpath, raw = where["where"]
        if kind.order == "tree":
            err("where", f"kind {kname!r} works on the whole tree; where: cannot narrow it")
        # the root-only selector needs no JSONPath (nor jsonpath-ng's import and parser)
        if where_text == "$":
            expr = _ROOT_ONLY
        else:
            expr = parse_jsonpath(where_text, Entry(fpath, raw, "where"), "where")
            reason = never_selects(expr, ".." in where_text)
            if reason is not None:
                err("where", f"where {where_text!r} can never select a schema: {reason}")
    fpath, raw = where["id"]
    line, col = raw.mark
    return Rule(
        id=rid,
        kind=kname,
        why=why.strip(),
        options=MappingProxyType(options),
        where=where_text,
        source=f"{fpath}:{line}:{col}",
        where_expr=expr,
        fast=kind.fast_test(options),
        spec=kind,
        origins=_origins(item),
        lists=tuple(used),
    )


def _strings(value: Any, err: Any, message: str) -> list[str]:
    # YAML gives lists; a kind's default may be a tuple
    if not isinstance(value, (list, tuple)):
        err(message)
    for i, v in enumerate(value):
        if not isinstance(v, str):
            err(f"{message}, got {v!r}", i)
    return list(value)


def _named(scope: _Scope, ref: str, err: Any, sub: Any, typemap: bool) -> NamedList:
    """The named list `list:NAME` refers to, of the shape the option takes."""
    name = ref[5:]
    found = scope.lists.get(name)
    if found is None:
        err(unknown("list", name, sorted(scope.lists)) + " (a file declares its lists under lists:)", sub)
    if found.typemap != typemap:
        shape = "a mapping of a type to a list" if typemap else "a list of strings"
        err(f"list {name!r} is {'a type map' if found.typemap else 'a flat list'}; this option takes {shape}", sub)
    return found


def _flat(value: Any, scope: _Scope, err: Any, use: Any, message: str, keys: bool = False) -> list[tuple[str, Any, Entry | None]]:
    """A list option's items, `list:NAME` references expanded: (item, index in the
    option's own list, where a list's item was written)."""
    # a keys option may name one keyword alone; any list option may be one named list
    alone = isinstance(value, str) and (keys or value.startswith("list:"))
    words = [value] if alone else _strings(value, err, message)
    out: list[tuple[str, Any, Entry | None]] = []
    for i, w in enumerate(words):
        if w.startswith("list:"):
            found = _named(scope, w, err, None if alone else i, False)
            use(found.name)
            out.extend((x, i, found.mark(x)) for x in found.items)
        else:
            out.append((w, None if alone else i, None))
    return out


def _option(opt: Opt, value: Any, scope: _Scope, err: Any, use: Any) -> Any:
    """The option's value, checked against its type; `err(message, sub=None, at=None)`
    raises, `use(name)` records a named list the value refers to."""
    t = opt.type
    vocab = scope.vocab
    if t == "str":
        if not isinstance(value, str):
            err(f"must be a string, got {type(value).__name__}")
        return value
    if t == "int":
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            err(f"must be a non-negative integer, got {value!r}")
        return value
    if t == "bool":
        if not isinstance(value, bool):
            err(f"must be true or false, got {value!r}")
        return value
    if t == "choice":
        if not isinstance(value, str) or value not in opt.choices:
            err(f"must be one of {', '.join(opt.choices)}, got {value!r}{suggest(value, opt.choices)}")
        return value
    if t == "keys":
        out: list[str] = []
        for w, i, at in _flat(value, scope, err, use, "must be a list of keywords or group:NAME / list:NAME references", keys=True):
            if w == "group:keywords":  # every keyword a rule may name but extensions
                out.extend(vocab.keywords | scope.keywords)
            elif w.startswith("group:"):
                if w[6:] not in vocab.groups:
                    err(unknown("keyword group", w[6:], sorted(vocab.groups)), i, at)
                out.extend(vocab.groups[w[6:]])
            elif not vocab.known(w, scope.keywords):
                known = vocab.keywords | scope.keywords
                err(unknown("keyword", w, known, listing=False) + " (not JSON Schema's: a wire's own keyword is declared in keywords:, an extension starts with x-)", i, at)
            else:
                out.append(w)
        return frozenset(out)
    if t == "strlist":
        items = tuple(w for w, _, _ in _flat(value, scope, err, use, "must be a list of strings"))
        bad = [v for v in items if opt.choices and v not in opt.choices]
        if bad:
            err(f"{bad[0]!r} is not one of {', '.join(opt.choices)}{suggest(bad[0], opt.choices)}")
        return items
    if t == "map":
        if isinstance(value, str) and value.startswith("map:"):
            if value[4:] not in vocab.maps:
                err(unknown("map", value[4:], sorted(vocab.maps)))
            return MappingProxyType(_freeze_json(vocab.maps[value[4:]]))
        if not isinstance(value, dict):
            err("must be a mapping or map:NAME")
        return MappingProxyType(_freeze_json(value))
    if t == "typemap":
        if isinstance(value, str) and value.startswith("list:"):
            found = _named(scope, value, err, None, True)
            use(found.name)
            value = found.items
        if not isinstance(value, dict):
            err("must map a type name to a list of strings (or be list:NAME)")
        for k, v in value.items():
            _strings(v, lambda m, sub=None, k=k: err(m, k), f"{k} must be a list of strings")
        return MappingProxyType({k: frozenset(v) for k, v in value.items()})
    if t == "regex":
        if not isinstance(value, str):
            err("must be a regular expression string")
        try:
            return re.compile(value)
        except re.error as exc:
            err(f"bad regex {value!r}: {exc}")
    if t == "ranges":
        return _ranges(value, err)
    if t == "json":
        return _freeze_json(value)
    raise AssertionError(f"unknown option type {t}")


def _ranges(value: Any, err: Any) -> tuple:
    """Inclusive [low, high] number pairs, either end null for none."""
    def number(x: Any) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and x == x and abs(x) != float("inf")

    if not isinstance(value, list) or not value:
        err("must be a non-empty list of [low, high] ranges")
    out = []
    for i, pair in enumerate(value):
        if not (isinstance(pair, list) and len(pair) == 2 and all(e is None or number(e) for e in pair)):
            err(f"a range is [low, high], each a number or null, got {pair!r}", i)
        lo, hi = pair
        if lo is not None and hi is not None and lo > hi:
            err(f"the range [{lo}, {hi}] holds no number (low above high)", i)
        out.append((lo, hi))
    return tuple(out)


def _wire_defs(rules: tuple[Rule, ...]) -> str | None:
    """Where the last rule that respells the root's definitions leaves them (`Kind.respells_defs`)."""
    spelled = None
    for rule in rules:
        if rule.spec.respells_defs is not None:
            spelled = rule.spec.respells_defs(rule.options) or spelled
    return spelled


def _checks_walked_once(checks: tuple[Rule, ...], table: dict[str, Kind]) -> tuple[Rule, ...]:
    """Checks only read the tree, so every node check can share one walk: they move up
    to the first of them, the whole-tree checks keep their order around it."""
    node = [c for c in checks if table[c.kind].order != "tree"]
    if not node:
        return checks
    first = checks.index(node[0])
    tree = [c for c in checks if table[c.kind].order == "tree"]
    before = [c for c in tree if checks.index(c) < first]
    after = [c for c in tree if checks.index(c) > first]
    return (*before, *node, *after)


def _stages(rules: tuple[Rule, ...], table: dict[str, Kind], reads_only: bool = False) -> tuple[Stage, ...]:
    """Fuse consecutive node rules into one walk, as long as order is preserved.

    A `pre` rule listed after a `post` rule starts a new walk: fusing them would run
    the later rule first on every node.
    """
    stages: list[Stage] = []
    pre: list = []
    post: list = []

    def close() -> None:
        if pre or post:
            stages.append(Stage(None, tuple(pre), tuple(post), reads_only))
            pre.clear()
            post.clear()

    for r in rules:
        k = table[r.kind]
        if k.order == "tree":
            close()
            stages.append(Stage((r, k.fn)))
        elif k.order == "pre":
            if post:
                close()
            pre.append((r, k.fn, k.bools, k.trigger_keys(r.options)))
        else:
            post.append((r, k.fn, k.bools, k.trigger_keys(r.options)))
    close()
    return tuple(stages)
