"""Python-native inputs go through pydantic's own schema generation."""

from __future__ import annotations

import dataclasses
import sys
from typing import Literal, Optional

import pytest
from typing_extensions import TypedDict

import wireschema
from wireschema.errors import SchemaInputError

pydantic = pytest.importorskip("pydantic")


class Forecast(pydantic.BaseModel):
    city: str
    days: int = 3


@dataclasses.dataclass
class Point:
    x: int
    label: Optional[str] = None


class Filters(TypedDict):
    tag: str


def get_weather(city: str, units: Literal["metric", "imperial"] = "metric") -> str:
    """Daily forecast for a city.

    Extra detail the description leaves out."""
    return city


def test_a_pydantic_model_class():
    r = wireschema.normalize(Forecast, "gemini")
    assert r.schema["properties"]["city"]["type"] == "string"
    assert r.schema["required"] == ["city"]


def test_a_type_adapter_and_a_dataclass():
    r = wireschema.normalize(pydantic.TypeAdapter(Point), "openai-strict")
    assert r.strict and r.schema["required"] == ["x", "label"]
    assert wireschema.normalize(Point, "openai-strict").schema == r.schema


def test_a_typed_dict():
    assert wireschema.normalize(Filters, "mcp").schema["properties"] == {"tag": {"title": "Tag", "type": "string"}}


def test_a_typed_function_becomes_an_object_of_its_parameters():
    r = wireschema.normalize(get_weather, "gemini")
    assert r.schema["description"] == "Daily forecast for a city."
    assert r.schema["required"] == ["city"]
    assert r.schema["properties"]["units"]["enum"] == ["metric", "imperial"]


def test_tools_accept_native_schemas_too():
    out = wireschema.normalize_tool({"name": "get_weather", "inputSchema": get_weather}, "openai-strict")
    assert out.tool["function"]["parameters"]["additionalProperties"] is False


def test_without_pydantic_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pydantic", None)  # import pydantic now raises ImportError
    with pytest.raises(SchemaInputError, match="needs pydantic"):
        wireschema.normalize(Point, "gemini")


class Opaque:
    """A plain class: pydantic has no schema for it."""


def test_a_type_pydantic_cannot_describe_is_a_clear_error():
    with pytest.raises(SchemaInputError, match="pydantic cannot describe"):
        wireschema.normalize(Opaque, "gemini")
