"""Tools that agent frameworks and SDKs hold as Python objects (openai-agents'
`FunctionTool`, pydantic-ai's `ToolDefinition`, LangChain's `BaseTool`, LlamaIndex's,
smolagents', Haystack's and Google ADK's tools, the anthropic SDK's tool-runner
functions, the MCP SDK's server-side tools): read as `rules/_objects.yaml` says for
their class, by the attributes holding the tool's parts, the method giving the whole
tool (`dump`), the framework's own function giving it (`sent_by`), the attributes its
SDK lists the tool's fields from (`fields`) or the attribute holding another object to
read (`via`), so that a framework's tool is a YAML entry, not code here. A class named
there is read so even where it has a `model_dump` (a LangChain tool is a pydantic model
whose dump holds its callbacks, not its schema)."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from typing import Any

import attrs

from . import listing
from .errors import RuleFileError, SchemaInputError, ToolShapeError
from .prepare import json_copy
from .rulefields import err, unknown
from .yamlsource import MarkedDict

_PARTS = ("name", "description", "schema", "strict")
_ALONE = ("dump", "sent_by", "via", "fields", "holds")  # fields that say where the whole tool is: nothing else to read beside one
_FIELDS = (*_PARTS, "made_from", "if_none", "once", "root", *_ALONE, "why")
# the schema's root keywords that may repeat the tool's own parts (`once`), by the part
_ONCE = {"title": "name", "description": "description"}
_VIA_HOPS = 4  # objects held by objects: a `via` chain longer than this is a loop
_REQUIRED = ("name", "schema", "why")
_SECTIONS = ("objects", "injected")


@attrs.frozen
class Read:
    """A tool read off an object: its parts, and the attributes of the object's own that
    are not sent (those that differ from their defaults)."""

    name: str
    description: str | None
    schema: Any
    strict: bool | None
    left: tuple[str, ...]
    of: str  # the class of the object read (the one another held, for `via`)
    once: tuple[str, ...] = ()  # the schema's root keywords sent once, in the tool, where they repeat it
    root: tuple[str, ...] | None = None  # the schema's root keywords the framework sends, where it sends only some

    def schema_sent(self) -> tuple[Any, tuple[str, ...], tuple[str, ...]]:
        """The schema without the root keywords of `once` that repeat the tool's own
        name or description (docstrings compared as Python cleans them), nor those
        `root` does not list; and those keywords, each apart: a framework that
        describes its tool by one docstring sends it once, and one that sends only some
        root keywords leaves the others out. A Python type is made JSON Schema first,
        as pydantic makes it (its docstring describes no parameter: a framework that
        sends the docstring as the tool's description says them there already); the
        caller's dict is not changed."""
        if not self.once and self.root is None:
            return self.schema, (), ()
        from .native import is_native, to_schema

        schema = to_schema(self.schema, docstring=False) if is_native(self.schema) else self.schema
        if not isinstance(schema, dict):
            return schema, (), ()
        parts = {"name": self.name, "description": self.description}
        same = tuple(k for k in self.once if _same_text(schema.get(k), parts[_ONCE[k]]))
        unsent = () if self.root is None else tuple(k for k in schema if k not in self.root and k not in same)
        if not same and not unsent:
            return schema, (), ()
        return {k: v for k, v in schema.items() if k not in same and k not in unsent}, same, unsent


@attrs.frozen
class Reader:
    """Where objects of one class keep a tool's parts (attribute names), the method that
    gives the whole tool as the SDK sends it (`dump`), or the attribute holding another
    object that is read instead (`via`)."""

    cls: str  # module and qualified name
    name: str | None
    schema: str | None
    description: str | None = None
    strict: str | None = None
    why: str = ""
    made_from: tuple[str, ...] = ()  # attributes the parts are computed from: read, so not named as left
    if_none: tuple[str, Any] | None = None  # (attribute, schema): the schema where that attribute is None
    once: tuple[str, ...] = ()  # root keywords of the schema that may repeat the tool's name or description
    dump: str | None = None  # a method giving the tool as a dict in a shipped shape
    sent_by: str | None = None  # module.function of the framework's own, giving the tool as a dict in a shipped shape
    via: str | None = None  # an attribute holding the object to read instead
    fields: tuple[tuple[str, str], ...] | None = None  # (key, attribute): the tool as the dict its SDK lists
    root: tuple[str, ...] | None = None  # the schema's root keywords the framework sends (see `Read.root`)
    holds: str | None = None  # a collection of tools (a toolkit): the attribute or method holding them

    def held(self, item: Any, where: str) -> list[Any]:
        """The tools a collection holds (`holds`: a list, or a mapping whose values they
        are; a method is called)."""
        try:
            value = getattr(item, str(self.holds))
            if callable(value):
                value = value()
        except Exception as exc:  # noqa: BLE001 - the framework's own code failed: say which
            raise ToolShapeError(f"{where} ({self.cls}): reading its {self.holds} failed: {type(exc).__name__}: {exc}") from None
        if isinstance(value, dict):
            return list(value.values())
        if isinstance(value, (list, tuple)):
            return list(value)
        raise ToolShapeError(f"{where} ({self.cls}): its {self.holds} is {type(value).__name__}, not a list of tools")

    def dumped(self, item: Any, where: str) -> dict[str, Any]:
        """The tool as `dump` gives it, or the framework's function `sent_by` (a dict, or
        an SDK object dumped as its SDK sends it: read as a dict tool is)."""
        from .native import plain

        said = f"its {self.dump}()" if self.sent_by is None else f"{self.sent_by}(the tool)"
        try:
            if self.sent_by is None:
                out = getattr(item, str(self.dump))()
            else:
                import importlib

                # the object's own framework is installed: its module is imported here, never before
                module, _, name = self.sent_by.rpartition(".")
                out = getattr(importlib.import_module(module), name)(item)
        except Exception as exc:  # noqa: BLE001 - the SDK's or framework's own code failed: say which
            raise ToolShapeError(f"{where} ({self.cls}): {said} failed: {type(exc).__name__}: {exc}") from None
        if out is None:
            # Google ADK's built-in tools (google_search) change the request some other way
            raise ToolShapeError(
                f"{where} ({type(item).__qualname__}, a {self.cls}): {said} gives no tool: its framework sends it "
                "some other way, not in a list of tools; leave it out"
            )
        try:
            out = plain(out)  # Google ADK's tools give python-genai's FunctionDeclaration
        except SchemaInputError as exc:
            raise ToolShapeError(f"{where} ({self.cls}): {said} gives {exc}") from None
        if not isinstance(out, dict):
            raise ToolShapeError(f"{where} ({self.cls}): {said} gives {type(out).__name__}, not a tool object")
        return out

    def listed(self, item: Any, where: str) -> dict[str, Any]:
        """The tool as the dict of `fields` (a field whose attribute is None left out, an
        SDK object in one dumped as its SDK sends it), read as a dict tool is."""
        from .native import plain

        out = {}
        for key, attr in self.fields or ():
            try:
                value = getattr(item, attr)
            except Exception as exc:  # noqa: BLE001 - a property of the object's own failed: say which
                raise ToolShapeError(f"{where} ({self.cls}): reading its {attr} failed: {type(exc).__name__}: {exc}") from None
            if value is not None:
                out[key] = json_copy(plain(value), objects=plain)
        return out

    def read(self, item: Any, where: str) -> Read:
        got: dict[str, Any] = {}
        if self.if_none is not None and getattr(item, self.if_none[0], None) is None:
            # what the framework itself sends then (the schema attribute is not read: it
            # may describe the callback's Python signature, or fail)
            got["schema"] = json_copy(self.if_none[1])  # each tool its own
        for part in _PARTS:
            attr = getattr(self, part)
            if attr is None or part in got:
                continue
            try:
                got[part] = getattr(item, attr)
            except AttributeError:
                raise ToolShapeError(
                    f"{where} ({self.cls}) has no attribute {attr!r}, which rules/_objects.yaml names as its {part}"
                ) from None
            except Exception as exc:  # noqa: BLE001 - a property of the object's own failed: say which
                raise ToolShapeError(f"{where} ({self.cls}): reading its {attr} failed: {type(exc).__name__}: {exc}") from None
        name, description, schema, strict = got["name"], got.get("description"), got["schema"], got.get("strict")
        if not isinstance(name, str) or not name:
            raise ToolShapeError(f"{where} ({self.cls}) has no name: its {self.name} is {name!r}")
        if description is not None and not isinstance(description, str):
            raise ToolShapeError(f"{where} ({self.cls}): its {self.description} is {type(description).__name__}, not text")
        if schema is None:
            raise ToolShapeError(f"{where} ({self.cls}) has no parameters schema: its {self.schema} is None")
        if strict is not None and strict.__class__ is not bool:
            raise ToolShapeError(f"{where} ({self.cls}): its {self.strict} is {strict!r}, not true or false")
        read = {a for a in (self.name, self.description, self.schema, self.strict, *self.made_from) if a is not None}
        return Read(name, description, schema, strict, _others(item, read), type(item).__name__, self.once, self.root)


def _same_text(value: Any, part: Any) -> bool:
    """Two texts saying the same, a docstring's indentation aside."""
    import inspect

    return isinstance(value, str) and isinstance(part, str) and inspect.cleandoc(value) == inspect.cleandoc(part)


def _others(item: Any, read: set[str]) -> tuple[str, ...]:
    """The public attributes of `item` beside those read that hold something other than
    their declared default (a dataclass's or a pydantic model's fields; another object's
    instance dict)."""
    if dataclasses.is_dataclass(item):
        fields = [(f.name, _dataclass_default(f)) for f in dataclasses.fields(item)]
    elif isinstance(getattr(type(item), "model_fields", None), dict):
        fields = [(name, _pydantic_default(f)) for name, f in type(item).model_fields.items()]
    else:
        return tuple(k for k in getattr(item, "__dict__", {}) if k not in read and not k.startswith("_"))
    return tuple(name for name, default in fields if name not in read and not name.startswith("_") and not _is_default(item, name, default))


def _dataclass_default(f: Any) -> Any:
    if f.default is not dataclasses.MISSING:
        return lambda: f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory
    return None


def _pydantic_default(f: Any) -> Any:
    return None if f.is_required() else lambda: f.get_default(call_default_factory=True)


def _is_default(item: Any, name: str, default: Any) -> bool:
    """Whether `item.name` holds its field's default (`default`: a function making it,
    None for a field with none)."""
    if default is None:
        return False
    try:
        value, expected = getattr(item, name, None), default()
        return value is expected or bool(value == expected)
    except Exception:  # noqa: BLE001 - what cannot be read or compared is named, as not sent
        return False


def load_readers(path: Path) -> dict[str, Reader]:
    """The readers `path` (a file shaped as `rules/_objects.yaml`) declares, by class.
    Raises RuleFileError, at its line, for an entry that is not one."""
    return load_objects(path)[0]


def load_injected(path: Path) -> dict[str, str]:
    """The classes `path`'s `injected` section names, each with its why: a framework
    passes a parameter so annotated to its tool function itself (see
    `native.injected_by`). The file is checked whole, as `load_readers` checks it."""
    return load_objects(path)[1]


def load_objects(path: Path) -> tuple[dict[str, Reader], dict[str, str]]:
    """Both sections of `path` (a file shaped as `rules/_objects.yaml`), read once: the
    readers by class, and the injected classes with their whys. Raises RuleFileError,
    at its line, for an entry that is none."""
    from .ruletable import read_rule_file

    where = str(path)
    data, _text = read_rule_file(path)
    if not isinstance(data, MarkedDict) or not isinstance(data.get("objects"), dict):
        raise RuleFileError(where, 1, 1, "the file must be a mapping with an `objects` mapping")
    for field in data:
        if field not in _SECTIONS:
            err(where, data, field, unknown("field", field, _SECTIONS), of_key=True)
    injected = data.get("injected", {})
    if not isinstance(injected, dict):
        err(where, data, "injected", "injected maps each class a framework passes its tool functions to why")
    for cls, why in injected.items():
        if not isinstance(cls, str) or "." not in cls:
            err(where, injected, cls, f"{cls!r} is no class: write its module and name (pydantic_ai._run_context.RunContext)", of_key=True)
        if not isinstance(why, str) or not why.strip():
            err(where, injected, cls, f"{cls}: say in one line why (where the framework passes it)")
    injected_whys = {str(cls): str(why) for cls, why in injected.items()}
    readers: dict[str, Reader] = {}
    objects = data["objects"]
    for cls, entry in objects.items():
        if not isinstance(cls, str) or "." not in cls:
            err(where, objects, cls, f"{cls!r} is no class: write its module and name (agents.tool.FunctionTool)", of_key=True)
        if not isinstance(entry, dict):
            err(where, objects, cls, f"{cls}: an entry is a mapping of {', '.join(_FIELDS)}")
        for field, value in entry.items():
            if field not in _FIELDS:
                err(where, entry, field, unknown(f"{cls} field", field, _FIELDS), of_key=True)
            if field == "made_from":
                if not isinstance(value, list) or not all(isinstance(v, str) and v.isidentifier() for v in value):
                    err(where, entry, field, f"{cls}: made_from is a list of attribute names")
            elif field == "once":
                if not isinstance(value, list) or not value or not set(value) <= _ONCE.keys():
                    err(where, entry, field, f"{cls}: once lists the schema's root keywords that may repeat the tool's: {', '.join(_ONCE)}")
            elif field == "sent_by":
                module, _, name = value.rpartition(".") if isinstance(value, str) else ("", "", "")
                if not module or not name.isidentifier() or not all(p.isidentifier() for p in module.split(".")):
                    err(where, entry, field, f"{cls}: sent_by names a function by its module and name, got {value!r}")
                if module.split(".")[0] != str(cls).split(".")[0]:
                    # the file names code to run: only its own framework's, never any module's
                    err(where, entry, field, f"{cls}: sent_by names a function of the class's own package, {str(cls).split('.')[0]}")
            elif field == "root":
                if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
                    err(where, entry, field, f"{cls}: root lists the schema's root keywords its framework sends")
            elif field == "if_none":
                continue  # see _if_none
            elif field == "fields":
                if not isinstance(value, dict) or not value or not all(
                        isinstance(k, str) and isinstance(v, str) and v.isidentifier() for k, v in value.items()):
                    err(where, entry, field, f"{cls}: fields maps each key of the tool its SDK lists to an attribute name")
            elif field == "why":
                if not isinstance(value, str) or not value.strip():
                    err(where, entry, field, f"{cls}: why is one line saying where the class comes from")
            elif not isinstance(value, str) or not value.isidentifier():
                err(where, entry, field, f"{cls}: {field} names an attribute, got {value!r}")
        alone = next((f for f in entry if f in _ALONE), None)
        if alone is not None:
            for field in entry:
                if field not in (alone, "why"):
                    whole = "the tools are" if alone == "holds" else "the whole tool is"
                    err(where, entry, field, f"{cls}: {alone} says where {whole}: {field} has nothing to read", of_key=True)
        for field in ("why",) if alone is not None else _REQUIRED:
            if field not in entry:
                err(where, objects, cls, f"{cls}: {field} is required", of_key=True)
        readers[cls] = Reader(
            cls, entry.get("name"), entry.get("schema"), entry.get("description"), entry.get("strict"), entry["why"],
            tuple(entry.get("made_from", ())), _if_none(where, entry), tuple(entry.get("once", ())),
            dump=entry.get("dump"), sent_by=entry.get("sent_by"), via=entry.get("via"),
            fields=tuple(entry["fields"].items()) if "fields" in entry else None,
            root=tuple(entry["root"]) if "root" in entry else None,
            holds=entry.get("holds"),
        )
    return readers, injected_whys


def _if_none(where: str, entry: Any) -> tuple[str, Any] | None:
    """An entry's `if_none: {attribute: schema}`, checked."""
    value = entry.get("if_none")
    if value is None:
        return None
    if not isinstance(value, dict) or len(value) != 1:
        err(where, entry, "if_none", "if_none is one attribute name and the schema sent where it is None")
    ((attr, schema),) = value.items()
    if not isinstance(attr, str) or not attr.isidentifier() or not isinstance(schema, dict):
        err(where, entry, "if_none", f"if_none maps an attribute name to a schema (an object), got {attr!r}")
    return attr, json_copy(schema)  # plain dicts, not the YAML reader's


_lock = threading.Lock()
_shipped: dict[str, Reader] | None = None
_shipped_injected: frozenset[str] | None = None


def _load_shipped() -> None:
    """Both sections of the shipped file, read once (under `_lock`); readers already set
    (a test's own) are kept."""
    global _shipped, _shipped_injected
    readers, injected = load_objects(listing.shipped_dir() / "_objects.yaml")
    if _shipped is None:
        _shipped = readers
    _shipped_injected = frozenset(injected)


def _shipped_readers() -> dict[str, Reader]:
    # read on the first object met: a process that only sees dicts never opens the file
    with _lock:
        if _shipped is None:
            _load_shipped()
        return _shipped


def injected_classes() -> frozenset[str]:
    """The classes of the parameters frameworks pass their tool functions themselves
    (rules/_objects.yaml `injected`), read on the first function made a tool or schema."""
    with _lock:
        if _shipped_injected is None:
            _load_shipped()
        return _shipped_injected


def read_object(item: Any, where: str) -> Read | dict[str, Any] | None:
    """The tool `item` holds, where its class (or one it derives from) has a reader: its
    parts, or the dict its `dump` method gives or its `fields` make (of the object its
    `via` attribute holds, where the class names one); None where no class has one."""
    readers = _shipped_readers()
    reader = _reader_of(item, readers)
    hops = 0
    while reader is not None and reader.via is not None:
        if hops == _VIA_HOPS:
            raise ToolShapeError(f"{where}: more than {_VIA_HOPS} objects held by one another (rules/_objects.yaml via)")
        hops += 1
        holder = reader
        try:
            item = getattr(item, holder.via)
        except Exception as exc:  # noqa: BLE001 - a property of the object's own failed: say which
            raise ToolShapeError(f"{where} ({holder.cls}): reading its {holder.via} failed: {type(exc).__name__}: {exc}") from None
        reader = _reader_of(item, readers)
        if reader is None:
            raise ToolShapeError(f"{where} ({holder.cls}): its {holder.via} is {type(item).__qualname__}, which rules/_objects.yaml does not name")
    if reader is None:
        return None
    if reader.holds is not None:
        raise ToolShapeError(f"{where} ({reader.cls}) is a collection of tools, not one tool: pass it to normalize_tools")
    if reader.fields is not None:
        return reader.listed(item, where)
    return reader.read(item, where) if reader.dump is None and reader.sent_by is None else reader.dumped(item, where)


def collected_tools(item: Any, where: str) -> list[Any] | None:
    """The tools `item` holds where its class is a collection of tools (`holds`: a
    LangChain toolkit, a pydantic-ai toolset), a collection within it read as its tools
    in turn; None for any other object."""
    readers = _shipped_readers()
    reader = _reader_of(item, readers)
    if reader is None or reader.holds is None:
        return None
    return _held_tools(item, reader, readers, where, 1)


def _held_tools(item: Any, reader: Reader, readers: dict[str, Reader], where: str, depth: int) -> list[Any]:
    """The tools of one collection, in order, those of a collection within it in its
    place; a collection holding itself stops at the bound (so the recursion does too)."""
    out: list[Any] = []
    for tool in reader.held(item, where):
        inner = _reader_of(tool, readers)
        if inner is None or inner.holds is None:
            out.append(tool)
        elif depth == _VIA_HOPS:
            raise ToolShapeError(f"{where}: more than {_VIA_HOPS} collections of tools within one another (rules/_objects.yaml holds)")
        else:
            out.extend(_held_tools(tool, inner, readers, where, depth + 1))
    return out


def dumped_object(item: Any, where: str) -> dict[str, Any] | None:
    """The dict `item`'s `dump` method gives, where its class names one (the Vertex AI
    SDK's Tool, a group of declarations); None for any other object."""
    reader = _reader_of(item, _shipped_readers())
    return reader.dumped(item, where) if reader is not None and reader.dump is not None else None


def _reader_of(item: Any, readers: dict[str, Reader]) -> Reader | None:
    """The reader of `item`'s class or of the nearest class it derives from."""
    for k in type(item).__mro__:
        reader = readers.get(f"{k.__module__}.{k.__qualname__}")
        if reader is not None:
            return reader
    return None
