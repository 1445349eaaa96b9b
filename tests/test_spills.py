"""Spilled text costs tokens on every call: it goes only where a model could act on it.

A keyword that tells the model nothing is dropped, reported with its reason; a
constraint the model can follow (a bound, a multiple) is still spilled.
"""

from __future__ import annotations

import openai
from pydantic import BaseModel, ConfigDict, Field

import wireschema
from wireschema.spillcost import measure_spills


class Flight(BaseModel):
    """Find a flight."""

    model_config = ConfigDict(extra="forbid")
    origin: str
    seats: int = Field(multiple_of=2)


def _dropped(result, key):
    return [c.detail for c in result.changes if c.action == "dropped" and c.pointer.endswith("/" + key)]


def test_a_closed_object_listing_its_properties_spills_nothing_on_gemini():
    result = wireschema.normalize(Flight.model_json_schema(), "gemini")
    assert "additionalProperties" not in result.schema.get("description", "")
    assert _dropped(result, "additionalProperties") == ["additionalProperties false removed: the properties listed are the names to send"]
    # a constraint the model can follow is still spilled
    assert "(multipleOf: 2)" in result.schema["properties"]["seats"]["description"]


def test_a_closed_object_without_properties_still_says_so():
    # false there means "send nothing": an instruction
    result = wireschema.normalize({"type": "object", "properties": {"a": {"type": "object", "additionalProperties": False}}}, "gemini")
    assert result.schema["properties"]["a"]["description"] == "(additionalProperties: false)"


def test_a_keyword_at_its_default_or_a_default_that_is_the_only_value_is_not_spilled():
    schema = {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": False},
        "kind": {"const": "cat", "default": "cat"},
    }}
    result = wireschema.normalize(schema, "openai-strict")
    assert "description" not in result.schema["properties"]["tags"]
    assert "description" not in result.schema["properties"]["kind"]
    assert _dropped(result, "uniqueItems") == ["uniqueItems false removed: it is JSON Schema's default"]
    assert _dropped(result, "default") == ["default cat removed: it is the only value the schema takes"]


def test_a_root_description_repeating_the_tools_is_sent_once():
    made = wireschema.normalize_tool(openai.pydantic_function_tool(Flight), "gemini")
    assert made.tool["description"] == "Find a flight."
    assert "description" not in made.tool["parameters"]
    assert _dropped(made.result, "description") == ["the schema's description repeats the tool's: sent once, as the tool's"]
    listed = wireschema.normalize_tools([openai.pydantic_function_tool(Flight)], "gemini")
    assert listed.tools[0] == made.tool


def test_the_benchmark_counts_the_characters_spills_add():
    bounded = {"name": "count", "description": "Count.", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 3}}}}
    closed = {"name": "fly", "description": "Fly.", "inputSchema": Flight.model_json_schema() | {"properties": {"origin": {"type": "string"}}}}
    [row] = measure_spills([bounded, closed], ["gemini"])
    assert (row.tools, row.spilled, row.chars) == (2, 1, len(',"description":"(multipleOf: 3)"'))
