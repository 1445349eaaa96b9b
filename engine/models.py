"""The model catalog (`rules/_models.yaml`): the target a model id goes to, with the facts
of that model, or of where it is served, that its target's rule file cannot know.

A model id is read as a router reads it: the catalog's route prefixes are cut from its
front (the first one says where the model is served and, for a router, the request
shape), then the rest is matched against the models' patterns, the most specific one
winning. `Catalog.target_for` gives the place's target with the facts applied: a derived
target, made once per (target, facts), whose related targets (strict variant, fail-open
sibling, output variant) carry the same facts. A user's catalog file extends the shipped
one: its routes, families and models come first, and replace those of the same id.
"""

from __future__ import annotations

import difflib
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

import attrs

from .digests import sha256
from .errors import RuleFileError, UnknownModelError, UnknownTargetError
from .rulefields import err, suggest, unknown
from .yamlsource import MarkedDict, MarkedList

if TYPE_CHECKING:
    from .ruletable import Target

CATALOG = "_models.yaml"
STRICT = (True, False, "refused")
_LIMITS = ("max_name_bytes", "max_tools", "max_strict_tools")
_FACTS = ("strict", *_LIMITS)
DIRECT = "direct"  # where a model id with no route prefix is served: its own vendor's API


@attrs.frozen
class Facts:
    """What a model, where it is served, changes of its target: None leaves the
    target's own. `strict` is True, False or "refused" (the strict field refused by its
    presence); `shape` the target whose tool and request fields a router's request uses."""

    strict: bool | str | None = None
    max_name_bytes: int | None = None
    max_tools: int | None = None
    max_strict_tools: int | None = None
    shape: str | None = None


@attrs.frozen
class ModelInfo:
    """One model id as the catalog reads it: the entry it matched, where it is served,
    the target, the facts applied to it and each source (a `why`) they came from."""

    model: str
    entry: str
    family: str
    place: str
    route: str | None
    target: str
    facts: Facts
    sources: tuple[str, ...]


@attrs.frozen
class _Route:
    id: str
    prefixes: tuple[str, ...]
    place: str
    shape: str | None
    why: str
    where: tuple[str, Any] = attrs.field(eq=False, repr=False)  # (file, entry): for a mistake


@attrs.frozen
class _Layer:
    """A family's place or a model's (own, or `at` one place): its facts and source."""

    target: str | None
    facts: dict[str, Any]
    why: str


@attrs.frozen
class _Model:
    id: str
    family: str
    patterns: tuple[str, ...]
    compiled: tuple[tuple[int, re.Pattern[str]], ...]  # (literal characters, pattern)
    own: _Layer
    at: dict[str, _Layer]
    where: tuple[str, Any] = attrs.field(eq=False, repr=False)  # (file, entry): for a mistake


def canonical(model: str) -> str:
    """A model id as the catalog matches it: lower case, a dot between digits a dash."""
    return re.sub(r"(?<=\d)\.(?=\d)", "-", model.strip().lower())


def _glob(text: str, star: str) -> re.Pattern[str]:
    return re.compile(star.join(re.escape(part) for part in canonical(text).split("*")))


class Catalog:
    """Model ids to targets with facts; `layers` are parsed catalog files, the first winning."""

    def __init__(self, layers: Iterable[tuple[str, Any]], registry: Any):
        self.registry = registry
        self.files: tuple[str, ...] = ()
        routes: dict[str, _Route] = {}
        families: dict[str, dict[str, _Layer]] = {}
        models: dict[str, _Model] = {}
        for path, data in layers:
            self.files += (path,)
            top = _mapping(path, data, None, "a model catalog", ("routes", "families", "models"))
            for item, entry in _items(path, top, "routes"):
                routes.setdefault(item["id"], _route(path, item, entry))
            for item, entry in _items(path, top, "families"):
                families.setdefault(item["id"], _family(path, item, entry))
            for item, entry in _items(path, top, "models"):
                models.setdefault(item["id"], _model(path, item, entry))
        served = {place for places in families.values() for place in places}
        for r in routes.values():
            if r.place not in served:
                err(*r.where, "place", unknown("place", r.place, sorted(served)))
        for m in models.values():
            path, item = m.where
            if m.family not in families:
                err(path, item, "family", unknown("family", m.family, families))
            for place in m.at:
                if place not in families[m.family]:
                    err(path, item["at"], place, f"family {m.family}: {unknown('place', place, families[m.family])}", of_key=True)
        self._routes = tuple(routes.values())
        self._prefixes = tuple((r, tuple(_glob(p, "[^/]*") for p in r.prefixes)) for r in self._routes)
        self._families = families
        self._models = tuple(models.values())
        self._derived: dict[tuple[str, Facts], Any] = {}
        self._lock = threading.Lock()

    def ids(self) -> list[str]:
        """Every model entry's id, in catalog order."""
        return [m.id for m in self._models]

    def section(self) -> list[str]:
        """The catalog as CONSTRAINTS.md's Markdown: its routes, families and models."""
        def cell(text: str) -> str:
            return text.replace("|", "\\|")

        def facts(layer: _Layer) -> str:
            return ", ".join(f"{k}: {str(v).lower() if isinstance(v, bool) else v}" for k, v in layer.facts.items())

        out = ["## Model catalog", "", _SECTION, "", "### Routes", "",
               "| route | prefixes | place | request shape | why |", "| --- | --- | --- | --- | --- |"]
        own = "the target's own"
        out += [f"| `{r.id}` | {', '.join(f'`{p}`' for p in r.prefixes)} | {r.place} | {f'`{r.shape}`' if r.shape else own} "
                f"| {cell(r.why)} |" for r in self._routes]
        out += ["", "### Families", "", "| family | place | target | facts | why |", "| --- | --- | --- | --- | --- |"]
        out += [f"| `{name}` | {place} | `{layer.target}` | {facts(layer) or '—'} | {cell(layer.why)} |"
                for name, places in self._families.items() for place, layer in places.items()]
        out += ["", "### Models", "", "| model | family | matches | facts | why |", "| --- | --- | --- | --- | --- |"]
        for m in self._models:
            said = [f for f in [facts(m.own)] if f] + [f"at {place}: {facts(layer)} ({cell(layer.why)})" for place, layer in m.at.items()]
            out.append(f"| `{m.id}` | `{m.family}` | {', '.join(f'`{p}`' for p in m.patterns)} | {'; '.join(said) or '—'} | {cell(m.own.why)} |")
        return out

    def resolve(self, model: str) -> ModelInfo:
        """How `model` is read: its entry, place, target and facts (see `ModelInfo`)."""
        if not isinstance(model, str):
            raise UnknownModelError(f"a model id must be a string, got {type(model).__name__}")
        rest, route = canonical(model), None
        cut = True
        while cut:
            cut = False
            for r, prefixes in self._prefixes:
                found = next((m for m in (p.match(rest) for p in prefixes) if m and m.end() < len(rest)), None)
                if found is not None:
                    rest, route, cut = rest[found.end():], route or r, True
                    break
        matched = [(literal, m) for m in self._models for literal, p in m.compiled if p.fullmatch(rest)]
        if not matched:
            ids = {canonical(i): i for i in self.ids()}
            close = [ids[c] for c in difflib.get_close_matches(rest, list(ids), n=3, cutoff=0.5)]
            said = f" (read as {rest!r} after the {route.id} prefix)" if route is not None else ""
            raise UnknownModelError(
                f"unknown model {model!r}{said}{suggest(rest, self.ids())} (nearest in the model catalog: "
                f"{', '.join(close) or 'none'}; a catalog of your own adds a model: load_models)")
        best = max(matched, key=lambda lm: lm[0])[1]
        place = route.place if route is not None else DIRECT
        places = self._families[best.family]
        if place not in places:
            raise UnknownModelError(
                f"model {model!r} ({best.id}) is not served at {place} in the model catalog "
                f"(it is at: {', '.join(places)}; a catalog of your own adds it: load_models)")
        layers = [places[place], best.own, *([best.at[place]] if place in best.at else [])]
        target = next(layer.target for layer in reversed(layers) if layer.target is not None)
        facts: dict[str, Any] = {}
        for layer in layers:
            facts.update(layer.facts)
        shape = route.shape if route is not None else None
        sources = ([route.why] if route is not None else []) + [layer.why for layer in layers]
        return ModelInfo(model, best.id, best.family, place, route.id if route else None, target,
                         Facts(shape=shape, **facts), tuple(dict.fromkeys(sources)))

    def target_for(self, model: str, shape: str | None = None) -> "Target":
        """The target `model` goes to, with its facts applied; `shape` names the target whose
        request shape the caller sends, whatever the route says (a router of its own)."""
        info = self.resolve(model)
        if shape is not None:
            info = attrs.evolve(info, facts=attrs.evolve(info.facts, shape=self._shape(shape)))
        base = self.registry.get(info.target)
        if base is None or base.abstract:
            raise UnknownTargetError(f"model {model!r}: the catalog names {unknown('target', info.target, self.registry.names())}")
        derived: Target = self._registry_for(info.facts).derive(base)
        return derived

    def in_shape(self, target: "Target", shape: str) -> "Target":
        """`target`'s rules, with the tool and request fields of the target `shape` names."""
        derived: Target = self._registry_for(Facts(shape=self._shape(shape))).derive(target)
        return derived

    def _shape(self, shape: str) -> str:
        if self.registry.get(shape) is None:
            raise UnknownTargetError(unknown("target", shape, self.registry.names()))
        return shape

    def _registry_for(self, facts: Facts) -> "_Derived":
        key = (facts.shape or "", facts)
        with self._lock:
            found = self._derived.get(key)
            if found is None:
                shape = None if facts.shape is None else self.registry.get(facts.shape)
                found = self._derived[key] = _Derived(self.registry, facts, shape)
            return found


class _Derived:
    """`base`'s targets with `facts` applied, each made once: a target found through one
    of them (its strict variant, its output variant) is derived too. Anything else is
    the base registry's (`__getattr__`)."""

    def __init__(self, base: Any, facts: Facts, shape: Any):
        self.base, self.facts, self.shape = base, facts, shape
        self._made: dict[int, Any] = {}
        self._origin: dict[int, Any] = {}
        self._lock = threading.RLock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.base, name)

    def get(self, name: str) -> Any:
        found = self.base.get(name)
        return None if found is None else self.derive(found)

    def output_variant(self, target: Any) -> Any:
        return self.derive(self.base.output_variant(self._origin.get(id(target), target)))

    def variant(self, target: Any, drop: Iterable[str], tag: str) -> Any:
        return self.derive(self.base.variant(self._origin.get(id(target), target), drop, tag))

    def derive(self, target: Any) -> Any:
        with self._lock:
            found = self._made.get(id(target))
            if found is None:
                found = _applied(target, self.facts, self.shape, self)
                self._made[id(target)] = found
                self._origin[id(found)] = target
            return found


def _applied(t: Any, facts: Facts, shape: Any, registry: Any) -> Any:
    """`t` with `facts` applied (no rule changes): the strict variant gone where the model
    has no strict mode, the tool, locate and request fields of `shape` where the target writes
    its tools elsewhere, the strict field refused, the name and request limits."""
    from types import MappingProxyType

    changes: dict[str, Any] = {}
    tool, locate, request = dict(t.tool), t.locate, t.request
    if shape is not None and tool.get("schema") != shape.tool.get("schema"):
        spoken = (shape.strict_form() or shape) if t.strict else shape
        tool, locate, request = dict(spoken.tool), spoken.locate, spoken.request
    if facts.strict in (False, "refused") and not t.strict:
        changes["strict_variant"] = None
    if facts.strict == "refused":
        tool.pop("strict", None)
        if "aliases" in tool:
            tool["aliases"] = {k: v for k, v in tool["aliases"].items() if k != "strict"}
        tool["refuses_strict"] = True
    names = dict(t.names)
    if facts.max_name_bytes is not None:
        names["max_bytes"] = facts.max_name_bytes
    limits = dict(t.request_limits)
    for field in ("max_tools", "max_strict_tools"):
        if getattr(facts, field) is not None:
            limits[field] = getattr(facts, field)
    if (tool, locate, request, names, limits) == (dict(t.tool), t.locate, t.request, dict(t.names), dict(t.request_limits)) and not changes:
        return t  # nothing to apply: the target itself, whose results its caches share
    digest = sha256(f"{t.digest}\0{facts!r}\0{shape.digest if shape is not None else ''}".encode()).hexdigest()
    return attrs.evolve(
        t, tool=MappingProxyType(tool), locate=locate, request=request, names=MappingProxyType(names),
        request_limits=MappingProxyType(limits), digest=digest, registry=registry, **changes)


# ---------------------------------------------------------------------------
# reading a catalog file


def read_catalog(path: Path) -> tuple[str, Any]:
    from .ruletable import read_rule_file

    return str(path), read_rule_file(path)[0]


def _mapping(path: str, container: Any, key: Any, what: str, fields: Iterable[str] | None) -> MarkedDict:
    """`container[key]` (or `container`), a mapping of `fields`, or of any names where None."""
    value = container if key is None else container[key]
    if not isinstance(value, MarkedDict) or (fields is None and not value):
        err(path, container, key, f"{what} must be a mapping of {', '.join(fields) if fields else 'place names'}")
    for field in value:
        if fields is None and not (isinstance(field, str) and field):
            err(path, value, field, f"{what}: a place is a name", of_key=True)
        if fields is not None and field not in fields:
            err(path, value, field, unknown(f"field of {what}", field, fields), of_key=True)
    return value


def _items(path: str, top: MarkedDict, field: str) -> list[tuple[MarkedDict, tuple[Any, Any]]]:
    seq = top.get(field)
    if seq is None:
        return []
    if not isinstance(seq, MarkedList):
        err(path, top, field, f"{field} must be a list")
    seen: set[str] = set()
    out = []
    for i, item in enumerate(seq):
        if not isinstance(item, MarkedDict) or not isinstance(item.get("id"), str) or not item["id"]:
            err(path, seq, i, f"each of {field} must be a mapping with an id")
        if not isinstance(item.get("why"), str) or not item["why"].strip():
            err(path, item, "id", f"{field[:-1]} {item['id']!r} says no why: every entry cites its source")
        if item["id"] in seen:
            err(path, item, "id", f"duplicate id {item['id']!r} in {field}")
        seen.add(item["id"])
        out.append((item, (seq, i)))
    return out


def _strings(path: str, item: MarkedDict, key: str) -> list[str]:
    value = item[key]
    if not isinstance(value, list) or not value or not all(isinstance(s, str) and s for s in value):
        err(path, item, key, f"{key} must be a list of non-empty strings")
    return list(value)


def _route(path: str, item: MarkedDict, entry: Any) -> _Route:
    _mapping(path, *entry, "a route", ("id", "prefixes", "place", "shape", "why"))
    place = item.get("place")
    if not isinstance(place, str) or not place:
        err(path, item, "place" if "place" in item else "id", "a route names the place it serves (direct, bedrock, ...)")
    shape = item.get("shape")
    if shape is not None and not isinstance(shape, str):
        err(path, item, "shape", "shape must name a target")
    return _Route(item["id"], tuple(_strings(path, item, "prefixes")), place, shape, item["why"], (path, item))


def _layer(path: str, item: MarkedDict, target_allowed: bool) -> _Layer:
    facts: dict[str, Any] = {}
    for key in _FACTS:
        if key not in item:
            continue
        value = item[key]
        if key == "strict" and value not in STRICT:
            err(path, item, key, f"strict must be true, false or refused, got {value!r}")
        if key in _LIMITS and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            err(path, item, key, f"{key} must be a whole number of at least 1, got {value!r}")
        facts[key] = value
    target = item.get("target")
    if target is not None and (not target_allowed or not isinstance(target, str)):
        err(path, item, "target", "target must name a target" if target_allowed else "a model's target is its family's, per place")
    return _Layer(target, facts, item["why"])


def _family(path: str, item: MarkedDict, entry: Any) -> dict[str, _Layer]:
    _mapping(path, *entry, "a family", ("id", "places", "why"))
    places = _mapping(path, item, "places", "a family's places", None)
    out = {}
    for place in places:
        _mapping(path, places, place, f"place {place}", ("target", *_FACTS, "why"))
        layer = places[place]
        if not isinstance(layer.get("why"), str) or not isinstance(layer.get("target"), str):
            err(path, places, place, f"place {place} must give its target and why")
        out[place] = _layer(path, layer, True)
    return out


def _model(path: str, item: MarkedDict, entry: Any) -> _Model:
    _mapping(path, *entry, "a model", ("id", "family", "match", *_FACTS, "at", "why"))
    if not isinstance(item.get("family"), str):
        err(path, item, "id", f"model {item['id']!r} names no family")
    mid = canonical(item["id"])
    patterns = _strings(path, item, "match") if "match" in item else [mid, f"{mid}-*", f"{mid}@*", f"{mid}:*"]
    at = {}
    if "at" in item:
        places = _mapping(path, item, "at", "a model's places", None)
        for place in places:
            _mapping(path, places, place, f"place {place}", (*_FACTS, "why"))
            if not isinstance(places[place].get("why"), str):
                err(path, places, place, f"place {place} must say why")
            at[place] = _layer(path, places[place], False)
    compiled = tuple((len(p.replace("*", "")), _glob(p, ".*")) for p in patterns)
    return _Model(item["id"], item["family"], tuple(patterns), compiled, _layer(path, item, False), at, (path, item))


_SECTION = (
    "From `rules/_models.yaml`: the target a model id goes to (`target_for`, `model=`, `--model`), with the "
    "facts of the model, or of where it is served, that its target's rule file cannot know. A route's prefix "
    "is cut from the id's front, the first one found saying where the model is served and in which request "
    "shape; the rest is matched against the models' patterns, lower-cased, a dot between digits read as a "
    "dash, the pattern with the most literal characters winning. A family gives each place's target and "
    "facts; a model adds its own. `strict`: true, false (no strict mode: a strict ask is sent non-strict, "
    "said), refused (none, and the strict field is refused by its presence: never sent, reported). A user's "
    "catalog (`load_models`, or `_models.yaml` in the folder `load_rules` reads) comes first and replaces "
    "entries of the same id."
)


# ---------------------------------------------------------------------------
# the shipped catalog


_shipped: Catalog | None = None
_shipped_lock = threading.Lock()


def shipped(registry: Any) -> Catalog:
    """The shipped catalog over the shipped registry, read once."""
    global _shipped
    with _shipped_lock:
        if _shipped is None or _shipped.registry is not registry:
            _shipped = Catalog([read_catalog(shipped_file())], registry)
        return _shipped


def shipped_file() -> Path:
    from .listing import shipped_dir

    return shipped_dir() / CATALOG


def extended(path: Path, registry: Any) -> Catalog:
    """A user's catalog file over the shipped one, its targets looked up in `registry`."""
    if not path.is_file():
        raise RuleFileError(str(path), None, None, "no such model catalog file")
    return Catalog([read_catalog(path), read_catalog(shipped_file())], registry)

