"""Python-native inputs: pydantic models, TypeAdapters, dataclasses, TypedDicts, typed
functions. They are turned into JSON Schema by pydantic's own schema generation, so
wireschema sees exactly what pydantic would publish; pydantic is optional.

A function or a class can also be a whole tool (`python_tool`): its name, its
docstring as the tool's description, and per-parameter descriptions read from the
docstring's Google (`Args:`), NumPy (`Parameters`) or Sphinx (`:param x:`) sections
by `docstring_parser` (`pip install 'wireschema[pydantic]'` brings both): those
sections go to the parameters, the rest of the docstring (its body, `Returns:`,
`Note:`) stays in the description.
"""

from __future__ import annotations

import functools
import inspect
import re
import typing
from typing import Annotated, Any

import attrs

from . import logs
from .errors import SchemaInputError


def is_native(value: Any) -> bool:
    """A Python type (a class or a typing form), a callable, or a TypeAdapter: not a JSON value."""
    if isinstance(value, (dict, list, str, bytes, bytearray, memoryview, int, float, bool)) or value is None:
        return False
    return isinstance(value, type) or _is_type_form(value) or _is_function(value) or _is_adapter(value)


def _is_type_form(value: Any) -> bool:
    """A typing form, no class itself: `list[Recipe]`, `Recipe | None`, `Literal["a"]`,
    `Annotated[...]`, as google-genai takes `list[Recipe]` for a response schema."""
    return typing.get_origin(value) is not None


def _is_function(value: Any) -> bool:
    """A function, a bound method, or a `functools.partial` of one (its signature leaves
    out the arguments it binds by position)."""
    return inspect.isfunction(value) or inspect.ismethod(value) or isinstance(value, functools.partial)


def _origin(value: Any) -> Any:
    """The function a partial applies (through partials of partials): its name and docstring are the tool's."""
    while isinstance(value, functools.partial):
        value = value.func
    return value


def _is_adapter(value: Any) -> bool:
    return type(value).__name__ == "TypeAdapter" and callable(getattr(value, "json_schema", None))


def has_dump(value: Any) -> bool:
    """An SDK or pydantic object (an instance with `model_dump`), not a class."""
    return not isinstance(value, type) and callable(getattr(value, "model_dump", None))


def dump(value: Any) -> Any:
    """An SDK or pydantic object as the SDK would send it: by alias, None fields left out,
    and a Python type where the SDK takes one (python-genai's `response_schema=Recipe`
    or `list[Recipe]`) as the JSON Schema pydantic makes of it."""
    try:
        return value.model_dump(by_alias=True, exclude_none=True, mode="json", fallback=_schema_of_type)
    except TypeError:  # pydantic before 2.11 has no `fallback`; an SDK's own model_dump none of these keywords
        pass
    try:
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    except TypeError:
        return value.model_dump()


def _schema_of_type(value: Any) -> Any:
    """What pydantic's serializer calls with a value it cannot write as JSON."""
    if isinstance(value, type) or _is_type_form(value):
        return to_schema(value)
    raise ValueError(f"{type(value).__qualname__} is no JSON value{tool_hint(value)}")


def tool_hint(value: Any) -> str:
    """What to do with a Python function met where JSON is read (in a body's tool list the
    target does not read, in an SDK's config): make it a tool first. Empty for any other value."""
    if callable(value) and is_python_tool(value):
        return f" ({getattr(value, '__name__', 'it')} is a Python function or class: normalize_tool makes a tool of it)"
    return ""


def plain(value: Any) -> Any:
    """`value` with an SDK object (python-genai's `types.Schema`, say) dumped to JSON."""
    if not has_dump(value):
        return value
    try:
        return dump(value)
    except Exception as exc:  # the SDK's own serializer failed: say on which object
        raise SchemaInputError(f"{type(value).__qualname__} cannot be dumped to JSON: {exc}") from None


def is_python_tool(value: Any) -> bool:
    """A function or a class: something with a name of its own to be a tool."""
    return is_native(value) and not _is_adapter(value)


@attrs.frozen
class PythonTool:
    """A tool made from a Python function or class, before any target rewrites it."""

    name: str
    description: str | None
    schema: dict[str, Any]
    unnamed: str | None = None
    """A function's `*args` (`*args: int`), which no argument passed by name reaches: left out."""
    injected: tuple[str, ...] = ()
    """A function's parameters its framework passes itself (`ctx: RunContext[Deps]`, see
    `injected_by`), each with the class that says so: left out, never the model's to give."""
    returns: Any = None
    """The JSON Schema of a function's return annotation (None: not annotated, `None`, or
    not a function), or the text of why pydantic cannot describe it (a str)."""
    untyped: tuple[str, ...] = ()
    """A function's parameters with no annotation, each a property taking any value."""


def to_schema(value: Any, *, docstring: bool = True) -> dict[str, Any]:
    """The JSON Schema pydantic generates for a model, adapter, type or function.

    With `docstring`, the docstring's parameter sections describe the parameters (or
    fields), and the rest of it is the description (see `_Doc.body`); a function's
    schema has no title (the function's name is not one). Without, a class's schema is
    pydantic's own (a framework's `args_schema`, sent as the framework sends it).
    """
    schema, doc = _generate(value, docstring)
    if _is_function(value) and doc.body:
        schema["description"] = doc.body
    return schema


def python_tool(value: Any) -> PythonTool:
    """`value` (a typed function, or a pydantic model, dataclass or TypedDict class) as a tool.

    The name is the function's `__name__` or the class's schema title; the description
    is the docstring but its parameter sections, which describe the parameters, and
    nothing else of the docstring stays in the schema.
    """
    schema, doc = _generate(value)
    title = schema.pop("title", None)
    name = getattr(_origin(value), "__name__", None) if _is_function(value) else None
    if not isinstance(name, str) or not name or name == "<lambda>":
        name = title if isinstance(title, str) and title else getattr(value, "__name__", None)
    if not isinstance(name, str) or not name or name == "<lambda>":
        raise SchemaInputError(f"{_describe(value)} has no name to give its tool")
    # a class's description (its docstring, read as `_generate` reads it) is the tool's
    description = doc.body if _is_function(value) else schema.pop("description", None)
    if not _is_function(value):
        return PythonTool(name, description if isinstance(description, str) else None, schema)
    signature = _signature(value)
    return PythonTool(
        name, description if isinstance(description, str) else None, schema,
        _var_positional(value), _injected_parameters(signature), _return_schema(signature),
        _untyped_parameters(signature, schema),
    )


def _untyped_parameters(signature: inspect.Signature, schema: dict[str, Any]) -> tuple[str, ...]:
    """The parameters without an annotation that are properties of `schema`, in order."""
    props = schema.get("properties")
    named = props if isinstance(props, dict) else {}
    return tuple(n for n, p in signature.parameters.items() if p.annotation is p.empty and n in named)


def _return_schema(signature: inspect.Signature) -> dict[str, Any] | str | None:
    """The JSON Schema pydantic makes of a function's return annotation; None where it
    is not annotated or returns `None` (nothing to describe); the reason where pydantic
    cannot describe it."""
    import pydantic

    annotation = signature.return_annotation
    if annotation is inspect.Signature.empty or annotation is None or annotation is type(None):
        return None
    try:
        return pydantic.TypeAdapter(annotation).json_schema(schema_generator=_generator())
    except (pydantic.PydanticUserError, pydantic.errors.PydanticSchemaGenerationError, TypeError, ValueError, NameError) as exc:
        return f"{annotation!r}: {str(exc).splitlines()[0]}"


def _injected_parameters(signature: inspect.Signature) -> tuple[str, ...]:
    """A function's parameters its framework passes itself, each with the class that
    says so (`ctx (RunContext)`), in order."""
    found = ((name, injected_by(param.annotation, param.default)) for name, param in signature.parameters.items())
    return tuple(f"{name} ({by})" for name, by in found if by is not None)


def injected_by(annotation: Any, default: Any = inspect.Parameter.empty) -> str | None:
    """The name of the class that makes a parameter so annotated (and defaulting to
    `default`) one a framework passes its tool function itself (rules/_objects.yaml
    `injected`), or None: the annotation, or its generic's origin (`RunContext[Deps]`),
    is or derives from a class named there, or an item of its `Annotated[...]` is such a
    class or an instance of one (LangChain's `Annotated[str, InjectedToolArg]`), or its
    default is an instance of one (FastMCP's `db = Depends(get_db)`)."""
    from .toolobjects import injected_classes

    held: list[Any] = []
    if annotation is not inspect.Parameter.empty:
        metadata: tuple[Any, ...] = ()
        if typing.get_origin(annotation) is Annotated:
            annotation, *rest = typing.get_args(annotation)
            metadata = tuple(rest)
        held.append(annotation if isinstance(annotation, type) else typing.get_origin(annotation))
        held += [item if isinstance(item, type) else type(item) for item in metadata]
    if default is not inspect.Parameter.empty:
        held.append(type(default))
    if not held:
        return None
    named = injected_classes()
    return next((cls.__qualname__ for cls in held if isinstance(cls, type)
                 for k in cls.__mro__ if f"{k.__module__}.{k.__qualname__}" in named), None)


def _signature(fn: Any) -> inspect.Signature:
    """`fn`'s signature, string annotations (`from __future__ import annotations`)
    resolved in the function's own module where they can be."""
    try:
        return inspect.signature(fn, eval_str=True)
    except (NameError, TypeError, SyntaxError):
        return inspect.signature(fn)


def _var_positional(fn: Any) -> str | None:
    """The spelling of a function's `*args` (with its annotation), or None."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    for param in params:
        if param.kind is param.VAR_POSITIONAL:
            if param.annotation is param.empty:
                return f"*{param.name}"
            shown = param.annotation if isinstance(param.annotation, str) else inspect.formatannotation(param.annotation)
            return f"*{param.name}: {shown}"
    return None


def _generate(value: Any, docstring: bool = True) -> tuple[dict[str, Any], "_Doc"]:
    try:
        import pydantic
    except ImportError:
        raise SchemaInputError(
            f"{_describe(value)} is a Python type; turning it into JSON Schema needs pydantic "
            "(pip install 'wireschema[pydantic]')"
        ) from None
    try:
        if _is_adapter(value):
            return value.json_schema(schema_generator=_generator()), _Doc(None, None, {})
        if _is_type_form(value):  # no docstring of its own (a `list[X]` shows list's)
            return pydantic.TypeAdapter(value).json_schema(schema_generator=_generator()), _Doc(None, None, {})
        if isinstance(value, type) and issubclass(value, pydantic.BaseModel):
            schema = value.model_json_schema(schema_generator=_generator())
        elif _is_v1_model(value):
            schema = _v1_schema(value)
        elif isinstance(value, type):
            schema = pydantic.TypeAdapter(value).json_schema(schema_generator=_generator())
        else:
            schema = _function_schema(value, pydantic)
    except pydantic.PydanticUserError as exc:  # e.g. an annotation pydantic cannot express
        raise SchemaInputError(f"pydantic cannot describe {_describe(value)}: {exc}") from None
    except pydantic.errors.PydanticSchemaGenerationError as exc:
        raise SchemaInputError(f"pydantic cannot describe {_describe(value)}: {exc}") from None
    if not docstring:
        return schema, _Doc(None, None, {})
    doc = _read_doc(value, schema)
    _describe_parameters(schema, doc.params)
    if doc.text is not None and schema.get("description") == doc.text:
        # pydantic's description of a class is its whole docstring: its parameter
        # sections now describe the fields, so they are not said twice
        if doc.body:
            schema["description"] = doc.body
        else:
            del schema["description"]
    return schema, doc


def _is_v1_model(value: Any) -> bool:
    """A model class of pydantic's v1 API (`pydantic.v1`, which LangChain's older tools
    and much legacy code define their arguments with), which v2's schema generator refuses."""
    meta = type(value)
    return isinstance(value, type) and meta.__name__ == "ModelMetaclass" and meta.__module__.startswith("pydantic.v1")


def _v1_schema(model: Any) -> dict[str, Any]:
    """A v1 model's JSON Schema as v1 writes it (draft-07 words: `definitions`)."""
    try:
        schema = model.schema()
    except (TypeError, ValueError) as exc:  # a field type v1 cannot express
        raise SchemaInputError(f"pydantic cannot describe {_describe(model)}: {exc}") from None
    if not isinstance(schema, dict):
        raise SchemaInputError(f"pydantic cannot describe {_describe(model)}: its schema() gave {type(schema).__name__}")
    return schema


def _function_schema(fn: Any, pydantic: Any) -> dict[str, Any]:
    """A function's parameters as one object: each parameter a property, those without a
    default required, and `**kwargs` the schema of any other property (a call passes its
    arguments by name, so they reach it). `*args` has no name a call could give, and a
    parameter its framework passes itself (`injected_by`) is none the model gives: both
    left out."""
    from pydantic.fields import FieldInfo  # a submodule `import pydantic` does not load

    fields: dict[str, Any] = {}
    base = pydantic.BaseModel
    for at, (name, param) in enumerate(_signature(fn).parameters.items()):
        annotation = Any if param.annotation is param.empty else param.annotation
        if param.kind is param.VAR_KEYWORD:
            base = _extras(fn, name, annotation, pydantic)
            continue
        if param.kind is param.VAR_POSITIONAL or _is_receiver(at, name, param) or injected_by(param.annotation, param.default):
            continue
        annotation = _described(annotation, pydantic)
        default = ... if param.default is param.empty else param.default
        if _private_to_pydantic(name, pydantic) and not (isinstance(default, FieldInfo) and default.alias):
            # pydantic takes `_x` for a private attribute (left out of the schema) and
            # refuses a model's own names (`model_config`, `copy`): a call passes the
            # argument by its name all the same, so the field is named by an alias
            if isinstance(default, FieldInfo):
                annotation, default = Annotated[annotation, default], pydantic.Field(alias=name)
            else:
                default = pydantic.Field(default, alias=name)
            fields[f"wireschema_argument_{at}"] = (annotation, default)
            continue
        fields[name] = (annotation, default)
    _refuse_one_name_twice(fields, fn, FieldInfo)
    try:
        model = pydantic.create_model(getattr(fn, "__name__", "arguments"), __base__=base, **fields)
        schema: dict[str, Any] = model.model_json_schema(schema_generator=_generator())
    except (TypeError, ValueError, NameError, pydantic.PydanticUserError) as exc:  # a parameter pydantic cannot take as a field
        where = _first_undescribed(fields, pydantic)
        raise SchemaInputError(f"pydantic cannot describe the parameters of {_describe(fn)}{where}: {exc}") from None
    # the model is ours, named after the function: its title says nothing of the arguments
    schema.pop("title", None)
    return schema


def _first_undescribed(fields: dict[str, Any], pydantic: Any) -> str:
    """Which parameter pydantic refused, as ` (parameter 'x')`: its error names the type
    (a `Callable`, a class it has no schema for, a name not defined), not the argument.
    Each field is tried alone, on the error's path only."""
    for field, (annotation, default) in fields.items():
        try:
            pydantic.create_model("one", **{field: (annotation, default)}).model_json_schema(schema_generator=_generator())
        except (TypeError, ValueError, NameError, pydantic.PydanticUserError):
            name = default.alias if field.startswith("wireschema_argument_") else field
            return f" (parameter {name!r})"
    return ""


def _extras(fn: Any, name: str, annotation: Any, pydantic: Any) -> Any:
    """The base model for `**name: T`: pydantic's typed extras, whose schema is
    additionalProperties'."""
    try:
        return type("_Extras", (pydantic.BaseModel,), {
            "__annotations__": {"__pydantic_extra__": dict[str, annotation]},  # type: ignore[valid-type]
            "model_config": pydantic.ConfigDict(extra="allow"),
        })
    except (TypeError, ValueError, NameError, pydantic.PydanticUserError) as exc:
        raise SchemaInputError(f"pydantic cannot describe the parameters of {_describe(fn)} (parameter '**{name}'): {exc}") from None


def _described(annotation: Any, pydantic: Any) -> Any:
    """A parameter's `Annotated[T, "text"]` with the text as its description (see
    `_annotated_text`), put before the annotation's own metadata, where a
    `Field(description=...)` there or as the default wins over it."""
    text = _annotated_text(annotation)
    if text is None:
        return annotation
    inner, *metadata = typing.get_args(annotation)
    return Annotated[(inner, pydantic.Field(description=text), *metadata)]  # type: ignore[valid-type]


@functools.cache
def _qualifiers() -> frozenset[Any]:
    """A TypedDict field's qualifiers, wrapped around its type: typing's, and
    typing_extensions' where they differ (pydantic brings it; wireschema does not)."""
    modules = [typing]
    try:
        import typing_extensions

        modules.append(typing_extensions)
    except ImportError:
        pass
    return frozenset(getattr(m, name) for m in modules for name in ("Required", "NotRequired", "ReadOnly") if hasattr(m, name))


def _annotated_text(annotation: Any) -> str | None:
    """The first text of an `Annotated[T, "text"]` (or a PEP 727 `Doc`): the spelling
    LangChain's, AutoGen's and Semantic Kernel's tools describe an argument or a
    TypedDict's field by, which pydantic reads as nothing."""
    while typing.get_origin(annotation) in _qualifiers():
        annotation = typing.get_args(annotation)[0]  # a TypedDict's NotRequired[Annotated[...]]
    if typing.get_origin(annotation) is not Annotated:
        return None
    for item in typing.get_args(annotation)[1:]:
        text = item if isinstance(item, str) else getattr(item, "documentation", None) if type(item).__name__ == "Doc" else None
        if isinstance(text, str) and text.strip():
            return text.strip()
    return None


@functools.cache
def _generator() -> Any:
    """pydantic's JSON Schema generator, reading a TypedDict's or a dataclass's fields'
    `Annotated` texts as their descriptions where nothing else describes them: each
    class where its own schema is made, so nested, recursive and same-named ones alike."""
    from pydantic.json_schema import GenerateJsonSchema

    class _Described(GenerateJsonSchema):
        def typed_dict_schema(self, schema: Any) -> Any:
            return _fields_described(super().typed_dict_schema(schema), schema.get("cls"))

        def dataclass_schema(self, schema: Any) -> Any:
            return _fields_described(super().dataclass_schema(schema), schema.get("cls"))

    return _Described


def _fields_described(out: Any, cls: Any) -> Any:
    props = out.get("properties") if isinstance(out, dict) else None
    if cls is None or not isinstance(props, dict):
        return out
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve: pydantic resolved what it could
        return out
    for name, hint in hints.items():
        text = _annotated_text(hint)
        prop = props.get(name)
        if text is not None and isinstance(prop, dict) and "description" not in prop:
            prop["description"] = text
    return out


def _refuse_one_name_twice(fields: dict[str, Any], fn: Any, field_info: type) -> None:
    """Two parameters the schema would name alike (a `Field(alias=...)` naming another
    parameter): pydantic keeps the last, and the other argument is lost with no word."""
    named: dict[str, str] = {}
    for field, (_annotation, default) in fields.items():
        alias = (default.alias if isinstance(default, field_info) else None) or field
        parameter = alias if field.startswith("wireschema_argument_") else field
        if alias in named:
            raise SchemaInputError(
                f"pydantic cannot describe the parameters of {_describe(fn)}: {named[alias]!r} and {parameter!r} are both named {alias!r} in the schema"
            )
        named[alias] = parameter


def _is_receiver(at: int, name: str, param: Any) -> bool:
    """The `self` or `cls` of a method given unbound (`Class.method`): its first parameter,
    unannotated, which no call passes as an argument. A parameter so named anywhere
    else, or annotated, is an argument like any other."""
    return at == 0 and name in ("self", "cls") and param.annotation is param.empty and param.kind is not param.KEYWORD_ONLY


def _private_to_pydantic(name: str, pydantic: Any) -> bool:
    return name.startswith("_") or name.startswith("model_") or hasattr(pydantic.BaseModel, name)


def _describe_parameters(schema: dict[str, Any], params: dict[str, str]) -> None:
    # a description the code gives (Field(description=...)) wins over the docstring's
    props = schema.get("properties")
    if not isinstance(props, dict):
        return
    for name, text in params.items():
        prop = props.get(name)
        if isinstance(prop, dict) and "description" not in prop:
            prop["description"] = text


@attrs.frozen
class _Doc:
    text: str | None
    """The docstring as pydantic reads it (cleaned)."""
    body: str | None
    """It without the sections `params` is read from, the rest as written (None where
    nothing is left): the description."""
    params: dict[str, str]
    """Parameter (or attribute) name -> description, from the docstring's sections."""


def _read_doc(value: Any, schema: dict[str, Any]) -> _Doc:
    if isinstance(value, type):
        # a class's own docstring only, and only where pydantic read it too (never the
        # one a dataclass writes itself, nor a base class's)
        own = value.__dict__.get("__doc__")
        text = inspect.cleandoc(own) if isinstance(own, str) else None
        if text is not None and schema.get("description") != text:
            text = None
    else:
        text = inspect.getdoc(_origin(value))
    if not text:
        return _Doc(None, None, {})
    try:
        import docstring_parser
    except ImportError:
        logs.warning(
            "the docstring of %s is the description whole: describing each parameter from it needs "
            "docstring_parser (pip install 'wireschema[pydantic]')",
            _describe(value),
        )
        return _Doc(text, text, {})
    try:
        parsed = docstring_parser.parse(text)
    except docstring_parser.ParseError as exc:
        logs.warning("the docstring of %s does not parse (%s): it is the description whole", _describe(value), exc)
        return _Doc(text, text, {})
    params = {p.arg_name: p.description.strip() for p in parsed.params if p.arg_name and p.description and p.description.strip()}
    return _Doc(text, _without_params(text, parsed.style) if params else text, params)


def _without_params(text: str, style: Any) -> str | None:
    """`text` without the sections docstring_parser reads parameters from, in the style
    it read (a Google `Args:` block, a NumPy `Parameters` section, Sphinx `:param x:`
    and `:type x:` fields); the rest as written, or None where nothing is left. A
    Google or Sphinx section ends at the first line not indented: text the parser would
    take into it stays in the description rather than be lost."""
    pattern = _param_sections().get(style.name)
    if pattern is None:
        return text
    rest = re.sub(r"\n{3,}", "\n\n", pattern.sub("", text + "\n")).strip()
    return rest or None


@functools.cache
def _param_sections() -> dict[str, re.Pattern[str]]:
    """By docstring style, what matches one parameter section: the section titles and
    fields docstring_parser itself reads parameters from."""
    from docstring_parser import google, numpydoc
    from docstring_parser.common import PARAM_KEYWORDS

    indented = r"(?:[ \t]+\S.*\n|[ \t]*\n)*"
    google_titles = "|".join(re.escape(s.title) for s in google.DEFAULT_SECTIONS if s.key in PARAM_KEYWORDS)
    numpy_titles = "|".join(re.escape(s.title) for s in numpydoc.DEFAULT_SECTIONS if isinstance(s, numpydoc.ParamSection))
    fields = "|".join(sorted(PARAM_KEYWORDS | {"type"}))
    return {
        "GOOGLE": re.compile(rf"^(?:{google_titles}):[ \t]*\n{indented}", re.M),
        # a NumPy section runs to the next title, a line over a line of dashes
        "NUMPYDOC": re.compile(rf"^(?:{numpy_titles})[ \t]*\n-+[ \t]*\n(?:(?!.*\n-+[ \t]*\n).*\n)*", re.M),
        "REST": re.compile(rf"^:(?:{fields})\b.*\n{indented}", re.M),
        "EPYDOC": re.compile(rf"^@(?:{fields})\b.*\n{indented}", re.M),
    }


def _describe(value: Any) -> str:
    if _is_type_form(value):
        return repr(value)
    origin = _origin(value)
    named = getattr(origin, "__qualname__", None) or type(origin).__name__
    return f"a partial of {named}" if origin is not value else named


def field_of(obj: Any, path: Sequence[str]) -> Any:
    """The value at `path`, through dicts and SDK objects (`model_copy`), or None."""
    for key in path:
        obj = obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None) if hasattr(obj, "model_copy") else None
    return obj


def replaced(obj: Any, path: Sequence[str], value: Any) -> dict[str, Any]:
    """A dict of `obj` (an SDK object dumped as its SDK sends it) with `value` at `path`;
    `obj` itself is not changed."""
    key = path[0]
    if isinstance(obj, dict):
        out = dict(obj)
    else:
        out = plain(obj.model_copy(update={key: None}))
    out[key] = value if len(path) == 1 else replaced(field_of(obj, (key,)), path[1:], value)
    return out
