"""Python-native inputs go through pydantic's own schema generation."""

from __future__ import annotations

import dataclasses
import inspect
import sys
from typing import Annotated, Callable, Literal, Optional

import pytest
from typing_extensions import Doc, NotRequired, TypedDict

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

    Extra detail the description keeps."""
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
    assert wireschema.normalize(Filters, "mcp").schema["properties"] == {"tag": {"type": "string"}}


def test_a_typed_function_becomes_an_object_of_its_parameters():
    r = wireschema.normalize(get_weather, "gemini")
    assert r.schema["description"] == "Daily forecast for a city.\n\nExtra detail the description keeps."
    assert r.schema["required"] == ["city"]
    assert r.schema["properties"]["units"]["enum"] == ["metric", "imperial"]


def test_keyword_arguments_are_the_schema_of_any_other_property_and_varargs_are_left_out():
    """A call passes its arguments by name: **kwargs takes the names the function does not
    list (so they are additionalProperties, of its annotation), *args none (so it has no
    place). Before, **kwargs was left out too, and the tool refused every extra argument."""
    def search(q: str, *terms: str, **filters: int) -> list[str]: ...

    def anything(q: str, **rest): ...

    assert wireschema.normalize(search, "anthropic").schema == {
        "additionalProperties": {"type": "integer"}, "properties": {"q": {"type": "string"}}, "required": ["q"], "type": "object"}
    assert wireschema.normalize(anything, "anthropic").schema["additionalProperties"] is True
    strict = wireschema.normalize(search, "openai-strict")  # an open object has no strict form: said, not hidden
    assert not strict.strict and strict.strict_reason.startswith("openai-strict/open-objects")


def test_a_tool_made_of_a_function_with_varargs_says_they_are_left_out():
    """*args was left out with no word: the caller's dispatch never learned the model
    cannot pass them."""
    def search(q: str, *terms: str) -> list[str]: ...

    def plain(q: str): ...

    out = wireschema.normalize_tool(search, "anthropic")
    assert "terms" not in out.tool["input_schema"]["properties"]
    (said,) = [c for c in out.result.changes if c.rule == "tool/shape"]
    assert said.action == "dropped" and said.detail.startswith("the function's *terms: str is no parameter of the tool")
    assert not [c for c in wireschema.normalize_tool(plain, "anthropic").result.changes if c.rule == "tool/shape"]


def test_a_tool_made_of_a_function_says_which_parameters_have_no_type():
    """Issue 54: `def f(a, b: int)` sent `a` as `{"title": "A"}`, any value, with no word."""
    def f(a, b: int, _c=1): ...

    out = wireschema.normalize_tool(f, "anthropic")
    assert out.tool["input_schema"]["properties"] == {"a": {}, "b": {"type": "integer"}, "_c": {"default": 1}}
    told = [(c.pointer, c.action, c.detail) for c in out.result.changes if c.rule == "tool/shape"]
    assert told == [
        ("/properties/a", "kept", "the function's parameter a has no type annotation: it takes any value"),
        ("/properties/_c", "kept", "the function's parameter _c has no type annotation: it takes any value"),
    ]
    assert [c.pointer for c in out.result.changes if c.rule == "prepare/name-titles"] == [
        "/properties/a/title", "/properties/b/title", "/properties/_c/title"]


def test_every_argument_a_call_passes_is_a_property_whatever_its_name():
    """Every parameter named `self` or `cls`, and every one pydantic keeps for itself
    (`_x` is a private attribute to it, `model_config` and `copy` its own names), was
    left out of the schema, or failed inside pydantic, with no word: a tool whose
    required arguments the model never sends. Only an unbound method's receiver, its
    first parameter and unannotated, is none a call passes."""
    from pydantic import Field

    def classify(text: str, cls: str, _id: int, model_config: int = 2, copy: str = Field("c", description="kept")): ...

    schema = wireschema.normalize(classify, "anthropic").schema
    assert list(schema["properties"]) == ["text", "cls", "_id", "model_config", "copy"]
    assert schema["required"] == ["text", "cls", "_id"]
    assert schema["properties"]["model_config"]["default"] == 2
    assert schema["properties"]["copy"] == {"default": "c", "description": "kept", "type": "string"}

    class Weather:
        def today(self, city: str): ...

        @classmethod
        def tomorrow(cls, city: str): ...

    for method in (Weather.today, Weather.tomorrow, Weather().today):
        assert list(wireschema.normalize(method, "anthropic").schema["properties"]) == ["city"]


def test_two_parameters_named_alike_in_the_schema_are_a_clear_error():
    """pydantic kept the last of the two, and the other argument was lost with no word."""
    from pydantic import Field

    def aliased_twice(a: int = Field(1, alias="b"), b: int = 2): ...

    with pytest.raises(SchemaInputError, match="'a' and 'b' are both named 'b' in the schema"):
        wireschema.normalize(aliased_twice, "anthropic")


def test_the_parameter_pydantic_cannot_describe_is_named_in_the_error():
    """pydantic's error names the type it refused (a `Callable`, a class of no schema, a
    name not defined), not which of the function's arguments has it."""

    def later(city: str, then: Optional[Callable[[str], None]] = None): ...

    def spread(city: str, **extra: Opaque): ...

    def unresolved(city: str, when: NotDefinedAnywhere): ...  # noqa: F821

    with pytest.raises(SchemaInputError, match=r"parameters of .*later.* \(parameter 'then'\): Cannot generate a JsonSchema for core_schema.CallableSchema"):
        wireschema.normalize(later, "gemini")
    with pytest.raises(SchemaInputError, match=r"parameters of .*spread.* \(parameter '\*\*extra'\): Unable to generate pydantic-core schema"):
        wireschema.normalize(spread, "gemini")
    with pytest.raises(SchemaInputError, match=r"parameters of .*unresolved.* \(parameter 'when'\): .*define `NotDefinedAnywhere`"):
        wireschema.normalize_tool(unresolved, "openai-strict")


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


def _v1():
    """pydantic's v1 API, as pydantic 2 ships it (its import warns on newer Pythons)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pytest.importorskip("pydantic.v1")


def test_a_model_of_pydantic_v1s_api_is_described_as_v1_describes_it():
    v1 = _v1()

    class Place(v1.BaseModel):
        x: int

    class Trip(v1.BaseModel):
        """A trip."""

        city: str
        days: int = v1.Field(1, ge=1)
        stop: Place = None

    # this module's annotations are strings (postponed), which v1 resolves on request
    Place.update_forward_refs()
    Trip.update_forward_refs(Place=Place)
    r = wireschema.normalize(Trip, "gemini")
    # v1's draft-07 `definitions`, upgraded and inlined as any other input's
    assert r.schema["properties"]["stop"]["properties"] == {"x": {"type": "integer"}}
    assert r.schema["properties"]["days"]["minimum"] == 1 and r.schema["required"] == ["city"]
    assert [c.rule for c in r.changes if c.rule != "prepare/name-titles"][:2] == ["draft/definitions", "prepare/resolve-refs"]
    tool = wireschema.normalize_tool(Trip, "anthropic").tool
    assert (tool["name"], tool["description"]) == ("Trip", "A trip.")


def test_a_v1_model_v1_cannot_describe_is_a_clear_error():
    v1 = _v1()

    class Odd(v1.BaseModel):
        when: Opaque

        class Config:
            arbitrary_types_allowed = True

    Odd.update_forward_refs(Opaque=Opaque)
    with pytest.raises(SchemaInputError, match=r'pydantic cannot describe .*Odd: Value not declarable with JSON Schema, field: name=.when.'):
        wireschema.normalize(Odd, "gemini")


# --- whole tools from Python (issue 12.4) -------------------------------------------


def forecast_google(city: str, days: int = 3) -> str:
    """Daily forecast for a city.

    A longer explanation the tool's description keeps.

    Args:
        city: The city name, e.g. "Lyon".
        days: How many days,
            at most 14.
    """
    return city


def forecast_numpy(city: str, days: int = 3) -> str:
    """Daily forecast for a city.

    Parameters
    ----------
    city : str
        The city name, e.g. "Lyon".
    days : int
        How many days,
        at most 14.
    """
    return city


def forecast_sphinx(city: str, days: int = 3) -> str:
    """Daily forecast for a city.

    :param city: The city name, e.g. "Lyon".
    :param days: How many days,
        at most 14.
    """
    return city


DESCRIBED = {
    "forecast_google": "Daily forecast for a city.\n\nA longer explanation the tool's description keeps.",
    "forecast_numpy": "Daily forecast for a city.",
    "forecast_sphinx": "Daily forecast for a city.",
}


@pytest.mark.parametrize("fn", [forecast_google, forecast_numpy, forecast_sphinx], ids=["google", "numpy", "sphinx"])
def test_a_function_is_a_whole_tool_whatever_its_docstring_style(fn):
    out = wireschema.normalize_tool(fn, "anthropic")
    assert out.tool["name"] == fn.__name__ and out.original_name == fn.__name__
    # the docstring but its parameter sections, which describe the parameters
    assert out.tool["description"] == DESCRIBED[fn.__name__]
    schema = out.tool["input_schema"]
    assert "title" not in schema and "description" not in schema  # the docstring is the tool's, not the schema's
    assert schema["properties"]["city"]["description"] == 'The city name, e.g. "Lyon".'
    assert schema["properties"]["days"]["description"] == "How many days,\nat most 14."
    assert schema["required"] == ["city"]


def test_a_docstring_is_the_description_but_its_parameter_sections():
    """Issue 54: the tool's description was the docstring's summary, the rest of it
    dropped without a word."""
    def book(origin: str, seats: int = 1) -> str:
        """Book a flight.

        Only economy seats; prices in EUR.

        Args:
            origin: Where from.
            seats: How many.

        Note:
            One booking a call.

        Returns:
            The booking id.
        """
        return origin

    out = wireschema.normalize_tool(book, "anthropic")
    assert out.tool["description"] == (
        "Book a flight.\n\nOnly economy seats; prices in EUR.\n\nNote:\n    One booking a call.\n\nReturns:\n    The booking id.")
    assert [p["description"] for p in out.tool["input_schema"]["properties"].values()] == ["Where from.", "How many."]


def test_a_models_attributes_section_describes_its_fields_and_is_not_said_again():
    class Trip(pydantic.BaseModel):
        """A trip.

        Booked one way.

        Attributes:
            origin: Where from.
        """

        origin: str

    schema = wireschema.normalize(Trip, "mcp").schema
    assert schema["description"] == "A trip.\n\nBooked one way."
    assert schema["properties"]["origin"]["description"] == "Where from."
    assert wireschema.normalize_tool(Trip, "mcp").tool["description"] == "A trip.\n\nBooked one way."


def test_a_description_the_code_gives_wins_over_the_docstrings():
    def search(query: Annotated[str, pydantic.Field(description="What to look for")], limit: int = 10) -> list:
        """Search the index.

        Args:
            query: ignored, the annotation says it
            limit: Most results.
        """
        return []

    props = wireschema.normalize_tool(search, "gemini").tool["parameters"]["properties"]
    assert props["query"]["description"] == "What to look for"
    assert props["limit"]["description"] == "Most results."


def test_an_annotated_text_describes_its_parameter_as_the_agent_frameworks_read_it():
    """`Annotated[str, "The city"]` is how LangChain's, AutoGen's and Semantic Kernel's
    tools describe an argument; pydantic reads the text as nothing, and it was lost."""
    def weather(
        city: Annotated[str, "The city"],
        days: Annotated[int, "ignored", pydantic.Field(ge=1, description="Forecast length")] = 3,
        units: Annotated[str, Doc("metric or imperial")] = "metric",
        note: Annotated[Optional[str], "", pydantic.Field(max_length=9), "Free text"] = None,
    ) -> str:
        """The weather.

        Args:
            city: ignored, the annotation says it
        """
        return city

    props = wireschema.normalize_tool(weather, "gemini").tool["parameters"]["properties"]
    assert props["city"]["description"] == "The city"
    assert props["days"]["description"] == "Forecast length" and props["days"]["minimum"] == 1  # a Field's wins
    assert props["units"]["description"] == "metric or imperial"
    assert props["note"]["description"] == "Free text" and props["note"]["maxLength"] == 9



class Joke(TypedDict):
    """A joke to tell."""

    setup: Annotated[str, ..., "The setup of the joke"]
    rating: NotRequired[Annotated[int, "From 1 to 10"]]
    again: list[Joke]  # recursive: described where its own schema is made


@dataclasses.dataclass
class Pair:
    joke: Joke
    why: Annotated[str, "Why it is funny", pydantic.Field(description="Field's own")]


def test_a_typed_dicts_and_a_dataclasss_annotated_texts_describe_their_fields():
    """LangChain's structured outputs describe a TypedDict's fields so
    (`Annotated[str, ..., "The setup"]`); pydantic reads the texts as nothing."""
    out = wireschema.normalize_output(Pair, "openai-strict").schema
    joke = out["$defs"]["Joke"]["properties"]
    assert joke["setup"]["description"] == "The setup of the joke"
    assert joke["rating"]["description"] == "From 1 to 10"
    assert "description" not in joke["again"]
    assert out["properties"]["why"]["description"] == "Field's own"
    assert wireschema.normalize(Joke, "gemini").schema["properties"]["setup"]["description"] == "The setup of the joke"


class WeatherQuery(pydantic.BaseModel):
    """Ask for the weather.

    Attributes:
        city: The city name.
    """

    city: str
    days: int = pydantic.Field(3, description="Forecast length")


@dataclasses.dataclass
class Lookup:
    """Look a record up.

    Args:
        key: Its key.
    """

    key: str


def test_model_and_dataclass_classes_are_tools_named_by_their_title():
    out = wireschema.normalize_tools([forecast_google, WeatherQuery, Lookup, Filters], "openai-strict")
    names = [t["function"]["name"] for t in out.tools]
    assert names == ["forecast_google", "WeatherQuery", "Lookup", "Filters"]
    query = out.tools[1]["function"]
    assert query["description"] == "Ask for the weather."
    assert "title" not in query["parameters"] and "description" not in query["parameters"]
    assert query["parameters"]["properties"]["city"]["description"] == "The city name."
    assert query["parameters"]["properties"]["days"]["description"].startswith("Forecast length")
    assert out.tools[2]["function"]["parameters"]["properties"]["key"]["description"] == "Its key."
    assert "description" not in out.tools[3]["function"]  # a TypedDict without a docstring has none
    assert all(t["function"]["strict"] for t in out.tools)


def test_a_model_title_names_the_tool():
    class Internal(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(title="create_ticket")
        subject: str

    assert wireschema.normalize_tool(Internal, "gemini").tool["name"] == "create_ticket"


def test_a_function_name_the_wire_refuses_is_renamed_and_reported():
    def ünïcode(x: int) -> int:
        """Twice x."""
        return 2 * x

    out = wireschema.normalize_tool(ünïcode, "openai-chat")
    assert out.tool["function"]["name"] == "unicode" and out.original_name == "ünïcode"
    assert out.result.changes[0].action == "renamed"


def test_a_partial_is_a_tool_of_the_arguments_it_leaves_to_the_call():
    """A function with its context bound (`partial(search, db)`) was refused as no tool."""
    import functools

    def search(db: dict, query: str, limit: int = 10) -> list:
        """Search the catalogue.

        Args:
            db: the connection
            query: words to look for
            limit: most hits
        """
        return []

    out = wireschema.normalize_tool(functools.partial(functools.partial(search, {}), limit=5), "anthropic")
    assert out.tool["name"] == "search" and out.tool["description"] == "Search the catalogue."
    props = out.tool["input_schema"]["properties"]
    assert list(props) == ["query", "limit"] and out.tool["input_schema"]["required"] == ["query"]
    assert props["query"]["description"] == "words to look for" and props["limit"]["default"] == 5  # a keyword it binds stays overridable
    with pytest.raises(SchemaInputError, match="a partial of .*<lambda> has no name"):
        wireschema.normalize_tool(functools.partial(lambda a, b: a, 1), "gemini")


def test_a_lambda_has_no_name_for_a_tool():
    with pytest.raises(SchemaInputError, match="no name"):
        wireschema.normalize_tool(lambda x: x, "gemini")


def test_without_docstring_parser_the_whole_docstring_and_a_warning(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "docstring_parser", None)
    out = wireschema.normalize_tool(forecast_google, "gemini")
    assert out.tool["description"] == inspect.cleandoc(forecast_google.__doc__) and "city: The city name" in out.tool["description"]
    assert "description" not in out.tool["parameters"]["properties"]["city"]
    assert "docstring_parser" in caplog.text


def test_normalize_of_a_function_keeps_its_docstring_and_parameter_descriptions_no_title():
    schema = wireschema.normalize(forecast_google, "mcp").schema
    assert schema["description"] == DESCRIBED["forecast_google"]
    assert "title" not in schema
    assert schema["properties"]["city"]["description"] == 'The city name, e.g. "Lyon".'


def test_a_parameter_pydantic_keeps_for_itself_is_described_in_a_fresh_process():
    """`pydantic.fields` is a submodule `import pydantic` leaves unloaded: read as an
    attribute in a fresh process, it failed where a suite that had loaded it passed."""
    import subprocess

    code = "import wireschema\ndef f(_id: int): ...\nprint(list(wireschema.normalize(f, 'anthropic').schema['properties']))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['_id']"
