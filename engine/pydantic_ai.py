"""pydantic-ai: wireschema's schemas for a model's tools and structured output.

    target = "gemini-jsonschema"
    agent = Agent(GoogleModel("gemini-2.5-flash", profile=wireschema.pydantic_ai.profile(target)),
                  capabilities=[wireschema.pydantic_ai.Restore(target)])

`profile` makes the model send wireschema's schemas, strict where the target reaches it.
`Restore` gives each tool the arguments its own schema promised (`Result.restore`).
pydantic-ai's `GoogleModel` sends `parametersJsonSchema`: its target is `gemini-jsonschema`.
Needs `pip install 'wireschema[pydantic-ai]'`.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from .plugins import client, restored_text

_pai = client("pydantic_ai", "pydantic_ai", "pydantic-ai")
_capabilities = client("pydantic_ai.capabilities", "pydantic_ai", "pydantic-ai")
_schemas = client("pydantic_ai._json_schema", "pydantic_ai", "pydantic-ai")
_profiles = client("pydantic_ai.profiles", "pydantic_ai", "pydantic-ai")
_messages = client("pydantic_ai.messages", "pydantic_ai", "pydantic-ai")

if TYPE_CHECKING:
    from .model import Options, Result
    from .tools import TargetLike

__all__ = ["transformer", "profile", "Restore"]

# a transformer with its own for output objects, where this pydantic-ai has the hook
_WithOutput = getattr(_schemas, "JsonSchemaTransformerWithOutputOverride", _profiles.JsonSchemaTransformer)


def _tool_result(schema: Any, target: TargetLike, strict: bool | None, options: Options | None) -> Result:
    from . import _normalize

    return _normalize(schema, target, strict=strict, options=options)


def _output_result(schema: Any, target: TargetLike, strict: bool | None, options: Options | None) -> Result:
    from .outputs import _normalize_output_quiet

    return _normalize_output_quiet(schema, target, strict=strict, options=options)


def _walker(base: type, made_by: Any, said: str, target: TargetLike, options: Options | None) -> type:
    """A subclass of `base` whose walk is `made_by`'s (logged once for what it lost: the
    request is where a loss is made; `Restore` reads the same results again, quietly)."""

    def walk(self: Any) -> Any:
        from . import _log_result

        result = made_by(self.schema, target, self.strict, options)
        _log_result(result, said)
        self.is_strict_compatible = result.strict
        return result.schema

    def transform(self: Any, schema: Any) -> Any:
        return schema

    return type(f"Wireschema{base.__name__}", (base,), {"walk": walk, "transform": transform, "target": target})


def transformer(target: TargetLike, *, options: Options | None = None) -> type:
    """A `JsonSchemaTransformer` class whose walk is wireschema's for `target`: a tool's
    parameters as `normalize`, an output object's schema as `normalize_output`. The
    schema's strictness (`is_strict_compatible`) is the strictness the target reached."""
    made = _walker(_WithOutput, _tool_result, "a tool's schema", target, options)
    made.output_object_transformer = _walker(_profiles.JsonSchemaTransformer, _output_result, "the output schema", target, options)
    return made


def profile(target: TargetLike, *, options: Options | None = None) -> Any:
    """A `ModelProfile` whose `json_schema_transformer` is `transformer(target)`: pass it as
    a model's `profile=`, merged over the provider's own profile."""
    return _profiles.ModelProfile(json_schema_transformer=transformer(target, options=options))


@dataclasses.dataclass(init=False)
class Restore(_capabilities.AbstractCapability[Any]):
    """A capability that restores what the model sent (`Result.restore`) before pydantic-ai
    validates it: a tool call's arguments, and a native structured output's text."""

    target: Any
    options: Any = None

    def __init__(self, target: TargetLike, *, options: Options | None = None) -> None:
        self.target = target
        self.options = options

    async def before_tool_validate(self, ctx: Any, *, call: Any, tool_def: Any, args: Any) -> Any:
        result = _tool_result(tool_def.parameters_json_schema, self.target, tool_def.strict, self.options)
        return result.restore(args)

    async def after_model_request(self, ctx: Any, *, request_context: Any, response: Any) -> Any:
        output = request_context.model_request_parameters.output_object
        if output is None:
            return response
        result = _output_result(output.json_schema, self.target, output.strict, self.options)
        parts = [dataclasses.replace(part, content=restored_text(result, part.content))
                 if isinstance(part, _messages.TextPart) else part for part in response.parts]
        return dataclasses.replace(response, parts=parts)

