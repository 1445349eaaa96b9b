"""Load rule files (YAML), resolve `extends:`, validate every field, compile pipelines.

A rule file compiles once per process into a `Target`: an ordered tuple of stages,
each either one whole-tree pass or one fused walk of node rules. Any mistake in a
rule file is a `RuleFileError` naming file, line and column.
"""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterable

import attrs
import yaml

from .errors import RuleFileError
from .passes import CHECKS, KINDS, Kind, Opt
from .positions import SLOT_SINGLE, SUBSCHEMA, SUBSCHEMA_ARRAY, SUBSCHEMA_MAP
from .yamlsource import MarkedDict, MarkedList, load_marked, mark_of

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_RULE_ID = re.compile(r"^[a-z0-9][a-z0-9._/-]*$")
_TOP_FIELDS = {
    "target": "str",
    "description": "str",
    "extends": "names",
    "abstract": "bool",
    "strict": "bool",
    "fail_open": "name",
    "non_strict": "name",
    "strict_variant": "name",
    "spill": "spill",
    "fallback": "json",
    "locate": "locate",
    "names": "names-rule",
    "rules": "rules",
    "checks": "rules",
}
_RULE_FIELDS = {"id", "kind", "why", "where", "before", "after", "disabled"}
_SPILL_FIELDS = {"template": str, "skip_if": str}
_NAME_FIELDS = {"max_bytes": int, "allowed": str, "first": str, "replacement": str}
_DEFAULT_SPILL = {"template": " ({key}: {value})", "skip_if": "({key}:"}


def _shipped_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "rules", here.parent / "rules"):
        if (candidate / "_vocabulary.yaml").is_file():
            return candidate
    raise RuntimeError("wireschema is installed without its rules/ folder")


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

    def select(self, root: Any) -> set[int] | None:
        """Ids of the schema nodes this rule's `where:` selects in `root` (None: all)."""
        if self._where_expr is None:
            return None
        return _select(self._where_expr, root, ".." in (self.where or ""))


@attrs.frozen(eq=False)
class Stage:
    tree: tuple[Rule, Any] | None
    pre: tuple[tuple[Rule, Any, bool], ...] = ()
    post: tuple[tuple[Rule, Any, bool], ...] = ()

    @property
    def rules(self) -> tuple[Rule, ...]:
        if self.tree is not None:
            return (self.tree[0],)
        return tuple(r for r, _, _ in self.pre) + tuple(r for r, _, _ in self.post)


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
    rules: tuple[Rule, ...]
    checks: tuple[Rule, ...]
    stages: tuple[Stage, ...]
    check_stages: tuple[Stage, ...]
    digest: str
    registry: Any = attrs.field(repr=False)

    def related(self, name: str | None) -> "Target | None":
        return None if name is None else self.registry.get(name)


class Vocabulary:
    """Named keyword groups and maps shared by every rule file (`rules/_vocabulary.yaml`)."""

    def __init__(self, path: Path):
        self.path = str(path)
        data = _read(path)
        if not isinstance(data, MarkedDict):
            raise RuleFileError(self.path, 1, 1, "the vocabulary must be a mapping")
        self.groups: dict[str, tuple[str, ...]] = {}
        self.maps: dict[str, dict[str, Any]] = {}
        self.text = path.read_text(encoding="utf-8")
        for field in data:
            if field not in ("groups", "maps"):
                _err(self.path, data, field, f"unknown vocabulary field {field!r} (known: groups, maps)")
        for name, words in (data.get("groups") or {}).items():
            if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
                _err(self.path, data["groups"], name, f"group {name!r} must be a list of keywords")
            self.groups[name] = tuple(self._expand(words, data["groups"], name))
        for name, mapping in (data.get("maps") or {}).items():
            if not isinstance(mapping, dict):
                _err(self.path, data["maps"], name, f"map {name!r} must be a mapping")
            self.maps[name] = dict(mapping)

    def _expand(self, words: list[str], where: Any, name: str) -> list[str]:
        out: list[str] = []
        for w in words:
            if w.startswith("group:"):
                sub = w[6:]
                if sub not in self.groups:
                    _err(self.path, where, name, f"unknown keyword group {sub!r}")
                out.extend(self.groups[sub])
            else:
                out.append(w)
        return out


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RuleFileError(str(path), None, None, f"cannot read rule file: {exc.strerror}") from None
    try:
        return load_marked(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        col = mark.column + 1 if mark else None
        raise RuleFileError(str(path), line, col, f"not valid YAML: {exc.problem or exc}") from None
    except yaml.YAMLError as exc:
        raise RuleFileError(str(path), None, None, f"not valid YAML: {exc}") from None


def _err(path: str, container: Any, key: Any, message: str) -> None:
    line, col = mark_of(container, key)
    raise RuleFileError(path, line, col, message)


# ---------------------------------------------------------------------------
# JSONPath selection limited to schema positions


def _jsonpath(text: str, path: str, container: Any, key: Any) -> Any:
    from jsonpath_ng import parse  # deferred: costly import, needed only by selectors
    from jsonpath_ng.exceptions import JsonPathLexerError, JsonPathParserError

    if not isinstance(text, str) or not text.startswith("$"):
        _err(path, container, key, f"{key} must be a JSONPath starting with '$', got {text!r}")
    try:
        return parse(text)
    except (JsonPathParserError, JsonPathLexerError, Exception) as exc:  # jsonpath-ng raises bare Exception too
        _err(path, container, key, f"bad JSONPath {text!r}: {exc}")


def _path_tokens(datum: Any) -> list[Any]:
    from jsonpath_ng.jsonpath import Fields, Index, Root, This

    tokens: list[Any] = []
    while datum is not None and getattr(datum, "path", None) is not None:
        p = datum.path
        if isinstance(p, Fields):
            tokens.append(p.fields[0])
        elif isinstance(p, Index):
            tokens.append(p.index)
        elif isinstance(p, (Root, This)):
            pass
        datum = datum.context
    tokens.reverse()
    return tokens


def _is_schema_path(tokens: list[Any], last_is_keyword: bool) -> bool:
    """True if `tokens` walk from the root through schema positions only.

    With recursive descent (`..name`) the final token must be a keyword, not a
    property name that happens to be spelled like one.
    """
    i = 0
    ended_on_keyword = True
    while i < len(tokens):
        kw = tokens[i]
        if kw in SUBSCHEMA:
            i += 1
            ended_on_keyword = True
            if kw == "items" and i < len(tokens) and isinstance(tokens[i], int):
                i += 1
        elif kw in SUBSCHEMA_MAP or kw in SUBSCHEMA_ARRAY:
            if i + 1 >= len(tokens):
                return False
            i += 2
            ended_on_keyword = kw in SUBSCHEMA_ARRAY
        else:
            return False
    return ended_on_keyword or not last_is_keyword


def _select(expr: Any, root: Any, recursive: bool) -> set[int]:
    out: set[int] = set()
    for datum in expr.find(root):
        if isinstance(datum.value, dict) and _is_schema_path(_path_tokens(datum), recursive):
            out.add(id(datum.value))
    return out


# ---------------------------------------------------------------------------
# loading and merging


class Registry:
    """Compiled targets by name, compiled lazily and once (thread-safe)."""

    def __init__(self, dirs: Iterable[Path], vocabulary: Vocabulary):
        self.dirs = tuple(dirs)
        self.vocabulary = vocabulary
        self._compiled: dict[str, Target] = {}
        self._lock = threading.RLock()

    def names(self) -> list[str]:
        seen: dict[str, None] = {}
        for d in self.dirs:
            for p in sorted(d.glob("*.yaml")):
                if not p.name.startswith("_"):
                    seen.setdefault(p.stem, None)
        return list(seen)

    def file_for(self, name: str, near: Path | None = None) -> Path | None:
        dirs = ((near,) if near is not None else ()) + self.dirs
        for d in dirs:
            p = d / f"{name}.yaml"
            if p.is_file():
                return p
        return None

    def get(self, name: str) -> Target | None:
        with self._lock:
            if name in self._compiled:
                return self._compiled[name]
            path = self.file_for(name)
            if path is None:
                return None
            target = compile_file(path, self)
            self._compiled[name] = target
            return target

    def add(self, target: Target) -> None:
        with self._lock:
            self._compiled[target.name] = target


def compile_file(path: Path, registry: Registry) -> Target:
    spec = _merge_chain(path, registry, ())
    return _compile(spec, path, registry)


def _merge_chain(path: Path, registry: Registry, stack: tuple[str, ...]) -> dict[str, Any]:
    key = str(path.resolve())
    if key in stack:
        cycle = " -> ".join(Path(s).stem for s in (*stack, key))
        raise RuleFileError(str(path), 1, 1, f"extends cycle: {cycle}")
    data = _read(path)
    spath = str(path)
    if data is None:
        data = MarkedDict()
        data.mark, data.key_marks = (1, 1), {}
    if not isinstance(data, MarkedDict):
        raise RuleFileError(spath, 1, 1, "a rule file must be a mapping")
    for field in data:
        if field not in _TOP_FIELDS:
            _err(spath, data, field, f"unknown field {field!r} (known: {', '.join(sorted(_TOP_FIELDS))})")
    merged: dict[str, Any] = {"rules": [], "checks": [], "files": [], "texts": []}
    parents = data.get("extends") or []
    if isinstance(parents, str):
        parents = [parents]
    if not isinstance(parents, list):
        _err(spath, data, "extends", "extends must be a name or a list of names")
    for i, parent in enumerate(parents):
        if not isinstance(parent, str) or not _NAME.match(parent) and not parent.startswith("_"):
            _err(spath, parents, i, f"extends names a rule file by name, not a path: {parent!r}")
        if "/" in parent or "\\" in parent or parent.startswith("."):
            _err(spath, parents, i, f"extends names a rule file by name, not a path: {parent!r}")
        ppath = registry.file_for(parent, near=path.parent)
        if ppath is None:
            _err(spath, parents, i, f"extends {parent!r}: no such rule file")
        base = _merge_chain(ppath, registry, (*stack, key))
        _overlay(merged, base)
    own: dict[str, Any] = {"rules": [], "checks": [], "files": [spath], "texts": [path.read_text("utf-8")]}
    for field, value in data.items():
        if field in ("rules", "checks"):
            if not isinstance(value, list):
                _err(spath, data, field, f"{field} must be a list of rules")
            own[field] = [(spath, value, i) for i in range(len(value))]
        elif field != "extends":
            own[field] = (spath, data, field)
    own.setdefault("abstract", None)
    _overlay(merged, own)
    return merged


def _overlay(merged: dict[str, Any], layer: dict[str, Any]) -> None:
    merged["files"] = merged["files"] + [f for f in layer["files"] if f not in merged["files"]]
    merged["texts"] = merged["texts"] + layer["texts"]
    for field, value in layer.items():
        if field in ("rules", "checks"):
            merged[field] = _merge_rules(merged[field], value)
        elif field in ("files", "texts"):
            continue
        elif field == "abstract":
            # abstract is never inherited: a file is abstract only if it says so
            merged["abstract"] = value
        else:
            merged[field] = value


def _entry(item: tuple[str, Any, int]) -> Any:
    spath, seq, i = item
    return seq[i]


def _merge_rules(base: list, layer: list) -> list:
    out = list(base)
    for item in layer:
        spath, seq, i = item
        raw = seq[i]
        if not isinstance(raw, MarkedDict):
            _err(spath, seq, i, "each rule must be a mapping with at least id")
        rid = raw.get("id")
        if not isinstance(rid, str) or not _RULE_ID.match(rid):
            _err(spath, raw, "id" if "id" in raw else None, f"rule id must match {_RULE_ID.pattern}, got {rid!r}")
        idx = next((k for k, it in enumerate(out) if _rid(it) == rid), None)
        if raw.get("disabled") is True:
            if idx is None:
                _err(spath, raw, "disabled", f"cannot disable {rid!r}: no inherited rule has that id")
            del out[idx]
            continue
        placement = [k for k in ("before", "after") if k in raw]
        if idx is not None and "kind" not in raw:
            # an override: the inherited rule with some fields replaced
            out[idx] = ("override", out[idx], item)
            continue
        if idx is not None:
            out[idx] = item
            continue
        if placement:
            anchor = raw[placement[0]]
            pos = next((k for k, it in enumerate(out) if _rid(it) == anchor), None)
            if pos is None:
                _err(spath, raw, placement[0], f"{placement[0]}: no rule with id {anchor!r} to place against")
            out.insert(pos if placement[0] == "before" else pos + 1, item)
        else:
            out.append(item)
    return out


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


def _compile(spec: dict[str, Any], path: Path, registry: Registry) -> Target:
    spath = str(path)
    vocab = registry.vocabulary

    def top(field: str, default: Any = None) -> Any:
        if field not in spec:
            return default
        fpath, container, key = spec[field]
        value = container[key]
        kind = _TOP_FIELDS[field]
        if kind == "str" and not isinstance(value, str):
            _err(fpath, container, key, f"{field} must be a string")
        if kind == "bool" and not isinstance(value, bool):
            _err(fpath, container, key, f"{field} must be true or false")
        if kind == "name" and (not isinstance(value, str) or not _NAME.match(value)):
            _err(fpath, container, key, f"{field} must name a target")
        if kind == "spill":
            value = _check_fields(fpath, container, key, value, _SPILL_FIELDS)
        if kind == "names-rule":
            value = _check_fields(fpath, container, key, value, _NAME_FIELDS)
            for rk in ("allowed", "first"):
                if rk in value:
                    _regex(value[rk], fpath, value, rk)
        if kind == "locate":
            if not isinstance(value, dict):
                _err(fpath, container, key, "locate must map a place (tool, request, ...) to JSONPaths")
            for place, paths in value.items():
                plist = paths if isinstance(paths, list) else [paths]
                for j, p in enumerate(plist):
                    _jsonpath(p, fpath, paths if isinstance(paths, list) else value, j if isinstance(paths, list) else place)
            value = {k: tuple(v if isinstance(v, list) else [v]) for k, v in value.items()}
        return value

    name = top("target", path.stem)
    spill = dict(_DEFAULT_SPILL)
    spill.update(top("spill", {}) or {})
    rules = tuple(_compile_rule(item, KINDS, vocab, "rule") for item in spec["rules"])
    checks = tuple(_compile_rule(item, CHECKS, vocab, "check") for item in spec["checks"])
    seen: dict[str, str] = {}
    for r in rules + checks:
        if r.id in seen:
            raise RuleFileError(r.source.rsplit(":", 2)[0], None, None, f"rule id {r.id!r} is used twice")
        seen[r.id] = r.source
    digest = hashlib.sha256(
        "\0".join([vocab.text, *spec["texts"]]).encode("utf-8")
    ).hexdigest()
    return Target(
        name=name,
        description=top("description", ""),
        path=spath,
        files=tuple(spec["files"]),
        abstract=bool(spec.get("abstract") and top("abstract", False)),
        strict=top("strict", False),
        fail_open=top("fail_open"),
        non_strict=top("non_strict"),
        strict_variant=top("strict_variant"),
        spill=MappingProxyType(spill),
        fallback=top("fallback", {"type": "object", "properties": {}}),
        locate=MappingProxyType(top("locate", {}) or {}),
        names=MappingProxyType(top("names", {}) or {}),
        rules=rules,
        checks=checks,
        stages=_stages(rules, KINDS),
        check_stages=_stages(checks, CHECKS),
        digest=digest,
        registry=registry,
    )


def _check_fields(fpath: str, container: Any, key: str, value: Any, fields: dict[str, type]) -> dict:
    if not isinstance(value, dict):
        _err(fpath, container, key, f"{key} must be a mapping")
    for k, v in value.items():
        if k not in fields:
            _err(fpath, value, k, f"unknown {key} field {k!r} (known: {', '.join(fields)})")
        if not isinstance(v, fields[k]) or isinstance(v, bool) and fields[k] is int:
            _err(fpath, value, k, f"{key}.{k} must be {fields[k].__name__}")
    return dict(value)


def _regex(text: Any, fpath: str, container: Any, key: Any) -> re.Pattern:
    if not isinstance(text, str):
        _err(fpath, container, key, "must be a regular expression string")
    try:
        return re.compile(text)
    except re.error as exc:
        _err(fpath, container, key, f"bad regex {text!r}: {exc}")
    raise AssertionError  # unreachable


def _compile_rule(item: Any, table: dict[str, Kind], vocab: Vocabulary, what: str) -> Rule:
    fields, where = _flatten(item)
    rid = fields["id"]

    def err(field: str | None, message: str) -> None:
        fpath, raw = where.get(field, where["id"]) if field else where["id"]
        _err(fpath, raw, field if field in raw else None, f"{what} {rid!r}: {message}")

    kname = fields.get("kind")
    if kname is None:
        err("id", "kind is missing")
    if kname not in table:
        err("kind", f"unknown {what} kind {kname!r} (known: {', '.join(sorted(table))})")
    kind = table[kname]
    why = fields.get("why")
    if not isinstance(why, str) or not why.strip():
        err("why" if "why" in fields else "id", "why is missing: say in one line why the wire needs this")
    options: dict[str, Any] = {}
    for field, value in fields.items():
        if field in _RULE_FIELDS:
            continue
        if field not in kind.options:
            known = ", ".join(sorted(kind.options)) or "none"
            err(field, f"unknown option {field!r} for kind {kname!r} (known: {known})")
        options[field] = _option(kind.options[field], value, vocab, lambda m, f=field: err(f, m))
    for oname, opt in kind.options.items():
        if oname not in options:
            if opt.required:
                err("kind", f"option {oname!r} is required for kind {kname!r}")
            options[oname] = _option(opt, opt.default, vocab, lambda m: err("kind", m)) if opt.default is not None else None
    where_text = fields.get("where")
    expr = None
    if where_text is not None:
        fpath, raw = where["where"]
        expr = _jsonpath(where_text, fpath, raw, "where")
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
    )


def _option(opt: Opt, value: Any, vocab: Vocabulary, err: Any) -> Any:
    t = opt.type
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
        if value not in opt.choices:
            err(f"must be one of {', '.join(opt.choices)}, got {value!r}")
        return value
    if t == "keys":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            err("must be a list of keywords or group:NAME references")
        out: list[str] = []
        for v in value:
            if v.startswith("group:"):
                if v[6:] not in vocab.groups:
                    err(f"unknown keyword group {v[6:]!r} (known: {', '.join(sorted(vocab.groups))})")
                out.extend(vocab.groups[v[6:]])
            else:
                out.append(v)
        return frozenset(out)
    if t == "strlist":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            err("must be a list of strings")
        return tuple(value)
    if t == "map":
        if isinstance(value, str) and value.startswith("map:"):
            if value[4:] not in vocab.maps:
                err(f"unknown map {value[4:]!r} (known: {', '.join(sorted(vocab.maps))})")
            return MappingProxyType(dict(vocab.maps[value[4:]]))
        if not isinstance(value, dict):
            err("must be a mapping or map:NAME")
        return MappingProxyType(dict(value))
    if t == "typemap":
        if not isinstance(value, dict) or not all(
            isinstance(v, list) and all(isinstance(x, str) for x in v) for v in value.values()
        ):
            err("must map a type name to a list of strings")
        return MappingProxyType({k: frozenset(v) for k, v in value.items()})
    if t == "regex":
        if not isinstance(value, str):
            err("must be a regular expression string")
        try:
            return re.compile(value)
        except re.error as exc:
            err(f"bad regex {value!r}: {exc}")
    if t == "json":
        return _freeze_json(value)
    raise AssertionError(f"unknown option type {t}")


def _freeze_json(value: Any) -> Any:
    # YAML gives MarkedDict/MarkedList: hand plain JSON to the kinds
    if isinstance(value, dict):
        return {k: _freeze_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_freeze_json(v) for v in value]
    return value


def _stages(rules: tuple[Rule, ...], table: dict[str, Kind]) -> tuple[Stage, ...]:
    """Fuse consecutive node rules into one walk, as long as order is preserved.

    A `pre` rule listed after a `post` rule starts a new walk: fusing them would run
    the later rule first on every node.
    """
    stages: list[Stage] = []
    pre: list = []
    post: list = []

    def close() -> None:
        if pre or post:
            stages.append(Stage(None, tuple(pre), tuple(post)))
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
            pre.append((r, k.fn, k.bools))
        else:
            post.append((r, k.fn, k.bools))
    close()
    return tuple(stages)
