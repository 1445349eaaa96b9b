"""Python-native inputs: pydantic models, TypeAdapters, dataclasses, TypedDicts, typed
functions. They are turned into JSON Schema by pydantic's own schema generation, so
wireschema sees exactly what pydantic would publish; pydantic is optional."""

from __future__ import annotations

import inspect
from typing import Any

from .errors import SchemaInputError


def is_native(value: Any) -> bool:
    """A Python type, a callable, or a TypeAdapter: not a JSON value."""
    if isinstance(value, (dict, list, str, bytes, bytearray, memoryview, int, float, bool)) or value is None:
        return False
    return isinstance(value, type) or inspect.isfunction(value) or inspect.ismethod(value) or _is_adapter(value)


def _is_adapter(value: Any) -> bool:
    return type(value).__name__ == "TypeAdapter" and callable(getattr(value, "json_schema", None))


def to_schema(value: Any) -> dict:
    """The JSON Schema pydantic generates for a model, adapter, type or function."""
    try:
        import pydantic
    except ImportError:
        raise SchemaInputError(
            f"{_describe(value)} is a Python type; turning it into JSON Schema needs pydantic "
            "(pip install 'wireschema[pydantic]')"
        ) from None
    try:
        if _is_adapter(value):
            return value.json_schema()
        if isinstance(value, type) and issubclass(value, pydantic.BaseModel):
            return value.model_json_schema()
        if isinstance(value, type):
            return pydantic.TypeAdapter(value).json_schema()
        return _function_schema(value, pydantic)
    except pydantic.PydanticUserError as exc:  # e.g. an annotation pydantic cannot express
        raise SchemaInputError(f"pydantic cannot describe {_describe(value)}: {exc}") from None
    except pydantic.errors.PydanticSchemaGenerationError as exc:
        raise SchemaInputError(f"pydantic cannot describe {_describe(value)}: {exc}") from None


def _function_schema(fn: Any, pydantic: Any) -> dict:
    """A function's parameters as one object: each parameter a property, those without a
    default required; the docstring's first paragraph becomes the description."""
    fields: dict[str, Any] = {}
    try:
        # string annotations (`from __future__ import annotations`) resolve in the
        # function's own module
        signature = inspect.signature(fn, eval_str=True)
    except (NameError, TypeError, SyntaxError):
        signature = inspect.signature(fn)
    for name, param in signature.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD) or name in ("self", "cls"):
            continue
        annotation = Any if param.annotation is param.empty else param.annotation
        default = ... if param.default is param.empty else param.default
        fields[name] = (annotation, default)
    model = pydantic.create_model(getattr(fn, "__name__", "arguments"), **fields)
    schema = model.model_json_schema()
    doc = inspect.getdoc(fn)
    if doc:
        schema["description"] = doc.split("\n\n")[0].strip()
    return schema


def _describe(value: Any) -> str:
    return getattr(value, "__qualname__", None) or type(value).__name__
