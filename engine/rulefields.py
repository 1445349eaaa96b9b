"""The fields of a rule file: what each holds, how a file inherits it, what it means.

One table (`TOP_FIELDS`, with the sub-field tables beside it) is both what the loader
validates a rule file against and what CONSTRAINTS.md's field tables are generated
from, so the documentation cannot describe a field the loader does not read, or miss
one it does. Everything here works on the parsed file (`yamlsource` marks), so every
mistake is a `RuleFileError` at the file, line and column that made it.
"""

from __future__ import annotations

import functools
import re
from types import MappingProxyType
from typing import Any, Iterable, NoReturn

import attrs

from .errors import RuleFileError
from .positions import SUBSCHEMA, SUBSCHEMA_ARRAY, SUBSCHEMA_KEYS, SUBSCHEMA_MAP
from .yamlsource import MarkedDict, MarkedList, mark_of


def err(path: str, container: Any, key: Any, message: str, *, of_key: bool = False) -> NoReturn:
    """Raise RuleFileError at `container[key]` (at the key itself with `of_key`)."""
    line, col = mark_of(container, key, of_key=of_key)
    raise RuleFileError(path, line, col, message)


def suggest(name: Any, known: Iterable[str], cutoff: float = 0.6) -> str:
    """` — did you mean 'x'?` for the known name nearest `name`, or nothing: none is
    as near as `cutoff` (difflib's similarity ratio, 1 for the same text)."""
    if not isinstance(name, str):
        return ""
    import difflib  # for a mistake only

    close = difflib.get_close_matches(name, sorted(set(known)), n=1, cutoff=cutoff)
    return f" — did you mean {close[0]!r}?" if close else ""


def unknown(what: str, name: Any, known: Iterable[str], *, listing: bool = True) -> str:
    """The one wording of every "unknown ..." message: the name, the nearest known one,
    and (unless the list would be long noise) every known one."""
    names = list(known)
    shown = f" (known: {', '.join(names) or 'none'})" if listing else ""
    return f"unknown {what} {name!r}{suggest(name, names)}{shown}"


@attrs.frozen
class Entry:
    """Where one value of a rule file is written: `container[key]` of the file `path`."""

    path: str
    container: Any
    key: Any

    @property
    def value(self) -> Any:
        return self.container[self.key]

    def err(self, message: str, *, of_key: bool = False) -> NoReturn:
        err(self.path, self.container, self.key, message, of_key=of_key)

    def err_in(self, sub: Any, message: str, *, of_key: bool = False) -> NoReturn:
        """At item `sub` inside this value (an index of a list, a key of a mapping)."""
        value = self.value
        if isinstance(value, (MarkedDict, MarkedList)):
            err(self.path, value, sub, message, of_key=of_key)
        self.err(message)


@attrs.frozen(eq=False)
class Keyed:
    """A mapping field merged key by key along the `extends` chain: each key's own entry,
    and the field as its last writer spelt it (`at`: where a missing key is reported)."""

    at: Entry
    items: dict


@attrs.frozen
class Field:
    """One top-level field: the value it takes, how a file inherits it, what it means."""

    value: str
    inherit: str
    doc: str


@attrs.frozen
class Sub:
    """One field of a mapping-valued top-level field (`tool.name`, `output.disable`)."""

    type: Any
    value: str
    doc: str


# how each kind of field passes from a file to the files that extend it
INHERIT = {
    "never": "never inherited",
    "whole": "inherited whole; the file's own value replaces it, `null` unsets it",
    "keys": "merged key by key: a file states only the keys it changes; `key: null` removes one, the field set to `null` removes them all",
    "lists": "each list inherited by name; a file replaces one, edits it with `{add: [...], remove: [...]}` or removes it with `name: null`",
    "union": "the file's own added to the inherited ones",
    "rules": "merged by id (below)",
    "chain": "not inherited: it names the chain",
}

# how a file inherits a field naming the target it hands schemas to (`ruletable._relations_stated`)
_INHERITED = (
    " A file inherits it only where the target it names makes every change the file (and any file between"
    " them) makes; a file changing more states it, or is refused at its `extends`: a schema sent there would"
    " otherwise go without those changes, unsaid."
)
# how a file inherits its strict and output variants (`ruletable.Registry.derive`)
_DERIVED = (
    " Where the target it names lacks changes the file (or a file between them) makes, the file's is derived:"
    " that target with those files' own fields and rules laid over it, named `TARGET+FILE`. A file states"
    " its own to choose another; one whose changes do not compile there is refused at its `extends`."
)

TOP_FIELDS: dict[str, Field] = {
    "target": Field("name", "never", "The target's name: the file name without `.yaml` (a different name is refused, since targets are found by file name). Letters, digits, `_ . -`; a name starting with `_` is never a target."),
    "description": Field("string", "whole", "One line shown by `wireschema targets`."),
    "extends": Field("name or list of names", "chain", "Files this one builds on, by name only (`gemini`, `_base`), never a path. A name is looked up next to the file first, then in the shipped `rules/`; a user's `gemini.yaml` saying `extends: gemini` gets the shipped one. Several parents merge in order, a later one over an earlier one; cycles are an error."),
    "abstract": Field("bool", "never", "`true`: a building block (like `_base`), not a target; it cannot be normalized to and is not listed. A file whose name starts with `_` is abstract whatever it says."),
    "strict": Field("bool", "whole", "The output is meant for a strict wire (OpenAI Structured Outputs, Anthropic strict tool use): `Result.strict` says whether it was reached. Default `false`."),
    "fail_open": Field("target name", "whole", "For a `strict: true` file: the non-strict target that normalizes the input again when the strict pipeline finds it unrepresentable." + _INHERITED),
    "non_strict": Field("target name", "whole", "For a `strict: true` file: the target used when the caller asks `strict=False` (or sets `WIRESCHEMA_NO_STRICT=1`); `fail_open` if unset." + _INHERITED),
    "strict_variant": Field("target name", "whole", "For a non-strict file: the target used when the caller asks `strict=True`. A file extending one that has a strict variant says `strict_variant: null` when its wire has none." + _DERIVED),
    "mcp_ingest": Field("bool", "never", "`true`: this is the target `normalize_mcp_tool` normalizes MCP tools to (`tools/list` ingestion). One shipped file says so."),
    "tool": Field("mapping", "keys", "Where a tool of this wire keeps its name, description, schema and strict flag, and which entries of a tool list are no tools of the caller's (fields below). `normalize_tool` reads a tool in the shape of any target and writes this one; without `tool` a target normalizes schemas only."),
    "locate": Field("mapping", "keys", "Where, in a whole request body, `normalize_request` finds the tool lists (`tools`) and the output schemas (`outputs`): one JSONPath or a list of them each, every SDK spelling listed (fields below)."),
    "names": Field("mapping", "keys", "The wire's tool-name rule, applied by `normalize_tool(s)` (a rename is reported): fields below."),
    "request_limits": Field("mapping", "keys", "Limits of one request, applied by `normalize_tools` and `normalize_request` (fields below)."),
    "request": Field("mapping", "keys", "How the wire spells the tool-related parts of a request body beside its tools: `normalize_request` reads a body written for another wire by that wire's spelling and writes it in this one's (fields below)."),
    "output": Field("mapping", "keys", "How `normalize_output` treats a structured-output schema (fields below)."),
    "spill": Field("mapping", "keys", "How a spilled keyword reads in `description` (fields below). `Options(spill=False)` drops instead of spilling."),
    "risks": Field("mapping", "keys", "Where a schema the wire takes by its documents may still be refused (an undocumented depth, grammar or state limit): `wireschema check` reports a `risk` finding past each threshold; normalizing changes nothing (fields below)."),
    "probe": Field("mapping", "keys", "Where `wireschema probe` sends its battery of small schemas, with which key and request shape (fields below). A file for another wire states its own, or `probe: null`."),
    "reader": Field("mapping", "keys", "Spellings the wire's own reader takes beside the ones wireschema writes (the proto3 JSON reader of Google's Schema takes `max_items` and `OBJECT`): `check` reads a schema so before judging it, as the wire would (fields below). Normalizing writes the wire's spelling all the same."),
    "fallback": Field("JSON Schema (mapping or boolean)", "whole", "What the tool gets when its schema is unrepresentable. Default `{\"type\": \"object\", \"properties\": {}}`."),
    "lists": Field("mapping of name to list", "lists", "Named lists a rule option refers to as `list:NAME` (a `keys`, `strlist` or `typemap` option): a list of strings, or a mapping of a type to a list of strings. Declared once, a list is shared by a rule and its check (an allow-list and the check that holds the output to it), and a file that extends it states only what changes."),
    "keywords": Field("list of keywords", "union", "Keywords this wire (or an input dialect it reads) has beyond the JSON Schema vocabulary (`rules/_vocabulary.yaml`), such as Vertex's `ref` and `defs`. A `keys` option may name only vocabulary keywords, these, and extensions starting with `x-`: a typo such as `$coment` is refused."),
    "rules": Field("list of rules", "rules", "The rewrite pipeline, run in listed order (rule kinds below)."),
    "checks": Field("list of rules", "rules", "The residual checks the output must pass (check kinds below): all node checks in one top-down walk, the tree checks around it."),
}

TOOL_FIELDS: dict[str, Sub] = {
    "name": Sub(str, "path or list of paths", "Required (an abstract file may leave it to the files extending it). Where the tool's name sits, as a path of plain fields (`$.function.name`). A list is read at any of its paths (an SDK's other spelling) and written at the first."),
    "description": Sub(str, "path or list of paths", "Where its description sits (MCP lists `$.title` second: a title stands in for a missing description)."),
    "schema": Sub(str, "path or list of paths", "Required (an abstract file may leave it to the files extending it). Where its parameter schema sits (`$.input_schema`, `$.toolSpec.inputSchema.json`)."),
    "strict": Sub(str, "path", "Where its strict flag sits; the flag written is the strictness reached."),
    "strict_only_true": Sub(bool, "bool", "The strict flag is written only where strict mode was reached: a wire refusing the field by its presence gets none for a tool sent non-strict, and the caller's `false` is left out, reported (`tool/shape`)."),
    "no_empty_description": Sub(bool, "bool", "An empty description is not sent, reported (`tool/shape`): the wire refuses one shorter than one character."),
    "fixed": Sub(dict, "mapping", "Constant keys of every tool of this wire (`{type: function}`); a tool that says otherwise is not of this shape."),
    "kinds": Sub(dict, "mapping of key to list", "The values of a key (like `type`) that mark a function tool; an entry with another value (a server tool) passes through a tool list untouched."),
    "passthrough": Sub(list, "list of keys", "Keys that mark an entry of a tool list as no tool of the caller's (`cachePoint`, `custom`): it passes through untouched."),
    "schema_required": Sub(bool, "bool", "Every tool of this wire carries its schema (Anthropic's `input_schema`): an entry of a kind this shape claims but without the schema is no tool of this shape (an OpenAI Responses `custom` tool beside Anthropic's `type: custom`)."),
    "outputs": Sub(str, "path or list of paths", "Where a tool of this wire carries schemas of its own output (a Gemini declaration's `response`): each one present is normalized as this target's structured output is (`normalize_output`), but never wrapped (no one unwraps what a tool returns), where the tool keeps its shape, its changes reported as `tool/output` changes of the tool's result. A tool rebuilt from another wire's shape carries the first output schema it holds there (a `responseJsonSchema`, an MCP `outputSchema`) to this field's first path, normalized so and reported, unless it would be sent as the target's fallback; on a wire with no such field it is left behind (`tool/shape`)."),
    "returns": Sub(bool, "bool", "A Python function made a tool sends its return annotation's JSON Schema at the first of `outputs`, normalized as a tool's own output schema is (python-genai's `FunctionDeclaration.from_callable` sends it so); a function annotated to return `None`, or not annotated, sends none, and one whose return type pydantic cannot describe says so (`tool/shape`)."),
    "takes": Sub(str, "path or list of paths", "Every field this wire's tool takes (its message's, each spelling its reader takes): where a tool keeps its shape, a field of the caller's at no such path (nor on the way to one) is not sent, named in one `tool/shape` change. For a wire whose own reader refuses a field it does not know (Google's protos, botocore's Bedrock model); it must take the shape's own name, description, schema, strict and output paths. Left out, every field travels along."),
    "provided": Sub(dict, "mapping of key to regex", "Entries of a tool list that are the wire's own tools beside the caller's functions (Anthropic's dated server tools, OpenAI's hosted tools), by the value of a key; with `passthrough`'s, the only entries other than function tools this wire's tool lists take: another wire's own tool is a `ToolShapeError`, or dropped and reported on request."),
    "refuses_strict": Sub(bool, "bool", "The wire refuses a tool's strict field by its presence, whatever it says (Bedrock Converse on several Claude models: `tools.0.custom.strict: Extra inputs are not permitted`, BerriAI/litellm#31582, #35688): a caller's flag is never sent, reported (`tool/shape`). The model catalog sets it where a model does so."),
    "groups": Sub(list, "list of keys", "Keys under which one entry holds a list of this wire's tools (a Gemini `Tool`'s `functionDeclarations`): `normalize_tools` takes such an entry alone as its list of tools, and one inside a list as the tools it holds, where it stands (python-genai's `config.tools`)."),
}

LOCATE_FIELDS: dict[str, Sub] = {
    "tools": Sub(str, "JSONPath or list", "The tool lists of a request body (`$.tools`, `$.tools[*].functionDeclarations`)."),
    "outputs": Sub(str, "JSONPath or list", "The structured-output schemas of a request body; a `strict` flag beside one asks for strict mode and is rewritten to what was reached."),
    "strict_outputs": Sub(str, "JSONPath or list", "Output schemas the wire always enforces (Anthropic's `output_config.format`): read as `outputs` are, each asking for strict mode (the strict variant's form on a non-strict target)."),
    "tool_names": Sub(str, "JSONPath or list", "Strings of a request body that name one of its tools (a forced tool choice, the tool calls of earlier turns): a name the wire renamed its tool from is rewritten to the tool's wire name, reported (`request/tool-name`); any other is left as it is."),
    "gathered": Sub(str, "field path or list", "Tool lists of an SDK's request object (python-genai's `GenerateContentConfig.tools`), each a path of plain fields (`$.tools`; `$.config.tools`, through a dict or an SDK's object), that take the caller's own tools beside the wire's groups: a Python function (or a class, as `normalize_tools` takes one), or an SDK's tool object whose dump holds no group (`tool.groups`) and none of the wire's own tools (`tool.passthrough`), such as an MCP `Tool`. Where such a list holds one, it is sent as the SDK sends it: every such tool, and every tool the list's groups hold, in list order, in one group at the list's end (under the first of `tool.groups`), each group's other parts left where they stand; reported (`request/tools`). A list holding none of them is left as it is."),
    "outputs_of": Sub(str, "target name or list", "Targets whose output fields the same request may hold beside this target's own, in their dialect (Gemini's `responseJsonSchema` beside `responseSchema`): each one found where that target's `locate` says (`outputs`, `strict_outputs`; not its own `outputs_of`) is normalized as that target's output, where it stands."),
}

NAME_FIELDS: dict[str, Sub] = {
    "max_bytes": Sub(int, "int", "Longest name in UTF-8 bytes; a longer one is cut, at a character boundary, and said whole in its tool's description."),
    "allowed": Sub(str, "regex", "One allowed character; any other becomes its base letter (NFKD) where the wire takes that, else is replaced; a name whose letters are replaced is said in its tool's description."),
    "first": Sub(str, "regex", "An allowed first character; a name whose first character it refuses gets the replacement (or `x`) in front."),
    "replacement": Sub(str, "string", "What stands for each refused character (default `_`); refused characters are dropped where the wire refuses the replacement too."),
    "rename": Sub(bool, "bool", "`false`: the wire only advises the rule (MCP's SHOULD), so a name it refuses is sent as it is, reported (`tool/name`, `kept`). Default `true`."),
}

LIMIT_FIELDS: dict[str, Sub] = {
    "max_tools": Sub(int, "int", "Tools in one request; more is a `RequestLimitError`."),
    "max_strict_tools": Sub(int, "int", "Strict tools in one request: past it, the tools holding the most optional parameters are sent non-strict first, then the last ones (reported as `request/strict-budget`)."),
    "max_optional_params": Sub(int, "int", "Optional parameters over the strict tools of one request (nested objects counted); past it, the tools holding the most are sent non-strict first."),
    "max_union_params": Sub(int, "int", "Parameters using a union (`anyOf`, a type list) over the strict tools of one request; as above."),
    "max_total_properties": Sub(int, "int", "Properties over the strict tools of one request; as above."),
}

OUTPUT_FIELDS: dict[str, Sub] = {
    "wrap_non_object": Sub(bool, "bool", "A root that is no object is wrapped as `{\"response\": ...}` (`Result.unwrap` undoes it), reported as the first change (`output/wrap`); `false` for wires whose output schema takes any root."),
    "wrap_maps": Sub(bool, "bool", "With `wrap_non_object`, a root that is a map (an object naming no properties, each member taking one schema) is wrapped too, so that a `map-to-pairs` rule, which leaves the root an object, sends it as pairs; read from the target the outputs run as (`variant`)."),
    "disable": Sub(list, "list of ids", "Rules and checks left out of output schemas (those that hold for tool parameters only); each must name a rule or check of the target."),
    "variant": Sub(str, "target name", "The target whose rules normalize this target's output schemas, where the wire reads them otherwise than tool parameters (Anthropic's `output_config.format`, which always enforces strict mode, so an output cannot fail open to a non-strict form as a tool can); its own `output.disable` applies. One hop: the variant's own `output.variant` is not followed. A file extending one that names a variant inherits it." + _DERIVED),
}

SPILL_FIELDS: dict[str, Sub] = {
    "template": Sub(str, "string", "Appended to the description per spilled keyword; only `{key}` and `{value}`. Default `\" ({key}: {value})\"`."),
    "skip_if": Sub(str, "string", "When the description already contains this (only `{key}`), the keyword is dropped instead of stated twice. Default `\"({key}:\"`."),
}

READER_FIELDS: dict[str, Sub] = {
    "keys": Sub(dict, "mapping of key to key", "A keyword's other name -> the name the checks know (`max_items: maxItems`), in schema objects; where both are written, neither is renamed."),
    "types": Sub(dict, "mapping of name to type", "A `type` value's other name -> the JSON Schema type (`OBJECT: object`), alone or in a type list."),
}

RISK_FIELDS: dict[str, Sub] = {
    "max_depth": Sub(int, "int", "Nesting of JSON objects and arrays in one sent schema, the root at 1, past which `check` reports `risk/depth`."),
    "max_items": Sub(int, "int", "A `maxItems` or `minItems` above which `check` reports `risk/items` (a grammar unrolls each item)."),
    "grammar": Sub(int, "int", "Grammar units (see the `check` guide) over the strict schemas of one request, past which `check` reports `risk/grammar`; the real ceiling depends on the model."),
}

PROBE_FIELDS: dict[str, Sub] = {
    "base": Sub(str, "URL", "Required. The API's base URL, as its SDK's `base_url` (`https://api.openai.com/v1`); `--base-url` replaces it."),
    "path": Sub(str, "string", "Required. The endpoint below `base`; `{model}` stands for the model."),
    "key_env": Sub(list, "list of names", "Required. Environment variables that may hold the caller's key, the first one set used."),
    "headers": Sub(dict, "mapping", "Headers of every request; `{key}` stands for the key. A header holding the key is never recorded."),
    "model": Sub(str, "string", "The model probed unless `--model` names another."),
    "body": Sub(dict, "mapping", "Required. The request body: the string `{tools}` stands for the tool list, `{prompt}` and `{model}` inside strings for the prompt and model."),
    "calls": Sub(list, "JSONPath or list", "Required. Where a response holds the arguments of a tool call (an object, or JSON text)."),
    "error": Sub(list, "JSONPath or list", "Required. Where a refusal holds the server's error message."),
}

REQUEST_FIELDS: dict[str, Sub] = {
    "tools": Sub((str, list), "path or list of paths", "Where the body's tool list sits (`$.tools`, `$.toolConfig.tools`; a list: read at any, written at the first); on a wire whose tools come in groups (`tool.groups`) each entry is a group."),
    "tool_choice": Sub(dict, "mapping", "Where the tool choice sits (`at`), the value of each mode the wire has (`auto`, `none`, `required`: a mode left out is one the wire has no form for), and a forced tool (`tool`: its constant keys `fixed`, and where its `name` sits, or the list of `names` allowed)."),
    "output": Sub(dict, "mapping", "The structured-output field: its holder (`at`), the holder's constant keys (`fixed`, or a list of such alternatives, read at any and written the first), where the holder keeps `schema`, `name`, `description` and `strict`; `text: true` where the schema is JSON text, `enforced: true` where the wire always enforces it, `shared: true` where the holder keeps other settings too (Gemini's `generationConfig`), `none`: the holder's values that ask for no structured output."),
    "messages": Sub(dict, "mapping", "The turns of earlier conversation (`at`; `text_input: true` where a string stands for one user turn), each turn's constant keys (`fixed`), `role` (`roles` maps system, user, assistant and, where results are turns of their own, tool to the wire's values) and `content` (`text_content: true` where a string stands for one text part), the system text held apart (`system`: `at`, where its `parts` sit, `text_only: true` where it takes one string), the spelling of a `text` part (`assistant_text`: an assistant turn's, where it differs), a tool `call` (`id`, `name`, `input`; `input_text: true` where the arguments are JSON text; `calls`: where a turn holds its calls apart from its parts; `apart: true` where calls and results are items of the list of their own) and a tool `result` (`id`, `name`, `output`, `error` with `error_value`), how a result's `result_output` is spelled (`text`, `object` or `parts`), the rule call ids follow (`ids`, as `names`), and the fields of a turn or part only this wire reads (`unsent`: an item's `id` or `status`), not sent, reported."),
}

SUB_FIELDS: dict[str, dict[str, Sub]] = {
    "tool": TOOL_FIELDS,
    "locate": LOCATE_FIELDS,
    "names": NAME_FIELDS,
    "request_limits": LIMIT_FIELDS,
    "request": REQUEST_FIELDS,
    "output": OUTPUT_FIELDS,
    "spill": SPILL_FIELDS,
    "reader": READER_FIELDS,
    "risks": RISK_FIELDS,
    "probe": PROBE_FIELDS,
}

DEFAULT_SPILL = {"template": " ({key}: {value})", "skip_if": "({key}:"}
RULE_FIELDS = ("id", "kind", "why", "where", "before", "after", "disabled")
_LIST_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_EDITS = frozenset({"add", "remove"})
_FIELD_PATH = re.compile(r"^\$(\.[A-Za-z_][A-Za-z0-9_]*)+$")


# ---------------------------------------------------------------------------
# merging: one file's value of a field over what it inherits


def layer(merged: dict[str, Any], field: str, entry: Entry) -> None:
    """Put the file's own `field` (at `entry`) over the inherited one in `merged`."""
    how = TOP_FIELDS[field].inherit
    value = entry.value
    if value is None:
        # unset: the field's default applies, as if no file in the chain had said it
        merged.pop(field, None)
        return
    if how == "keys":
        base = merged.get(field)
        if not isinstance(value, dict):
            merged[field] = entry  # its checker names the mistake
            return
        items = dict(base.items) if isinstance(base, Keyed) else {}
        for key in value:
            if value[key] is None:
                items.pop(key, None)
            else:
                items[key] = Entry(entry.path, value, key)
        merged[field] = Keyed(entry, items)
    elif how == "union":
        merged[field] = [*merged.get(field, ()), entry]
    elif how == "lists":
        if not isinstance(value, dict):
            entry.err("lists must map a name to a list, a type map, or an edit {add: [...], remove: [...]}")
        lists = dict(merged.get(field, {}))
        for name, sub in value.items():
            if not isinstance(name, str) or not _LIST_NAME.match(name):
                err(entry.path, value, name, f"a list name is lower case letters, digits, _ and -, got {name!r}", of_key=True)
            if sub is None:
                lists.pop(name, None)
            elif _is_edit(sub):
                lists[name] = [*lists.get(name, ()), Entry(entry.path, value, name)]
            else:
                lists[name] = [Entry(entry.path, value, name)]
        merged[field] = lists
    else:
        merged[field] = entry


def layer_parent(out: dict[str, Any], field: str, value: Any, known: set[str]) -> None:
    """A later parent's merged `field` over an earlier parent's (`out`). What the later
    one has only from a file the earlier one extends too (a shared ancestor) does not
    undo the earlier one's own word, as for rules."""
    how = TOP_FIELDS[field].inherit
    if how == "keys" and isinstance(value, Keyed) and isinstance(out.get(field), Keyed):
        items = dict(out[field].items)
        for key, entry in value.items.items():
            if entry.path not in known:
                items[key] = entry
        out[field] = Keyed(value.at if value.at.path not in known else out[field].at, items)
    elif how == "union":
        seen = {(e.path, id(e.container)) for e in out.get(field, ())}
        out[field] = [*out.get(field, ()), *(e for e in value if (e.path, id(e.container)) not in seen)]
    elif how == "lists":
        lists = dict(out.get(field, {}))
        for name, layers in value.items():
            if layers[-1].path not in known or name not in lists:
                lists[name] = layers
        out[field] = lists
    else:
        origin = value.at.path if isinstance(value, Keyed) else value.path
        if origin not in known or field not in out:
            out[field] = value


def _is_edit(value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and set(value) <= _EDITS


# ---------------------------------------------------------------------------
# named lists


@attrs.frozen(eq=False)
class NamedList:
    """A resolved named list: its items (a tuple, or a type -> tuple mapping) and where
    each item was written, so that a bad item is reported where it stands."""

    name: str
    items: Any
    typemap: bool
    marks: dict

    def mark(self, item: Any) -> Entry | None:
        return self.marks.get(item)


def resolve_lists(lists: dict[str, list[Entry]]) -> dict[str, NamedList]:
    """Every named list of a merged file, its edits applied in order. A flat list may
    include another (`list:NAME` as an item), read as that one stands in this file."""
    out: dict[str, NamedList] = {}
    for name in lists:
        _resolve(name, lists, out, ())
    return out


# how deep lists may include lists: far beyond any real file, and far from the
# interpreter's recursion limit however a hostile file chains them
_MAX_INCLUDES = 32


def _resolve(name: str, lists: dict[str, list[Entry]], out: dict[str, NamedList], stack: tuple[str, ...]) -> NamedList:
    if name in out:
        return out[name]
    layers = lists[name]
    first = layers[0]
    if len(stack) > _MAX_INCLUDES:
        first.err(f"list {name!r}: lists include lists more than {_MAX_INCLUDES} deep")
    if _is_edit(first.value):
        others = [n for n in lists if n != name]
        first.err(f"list {name!r}: an edit (add/remove), but no file this one extends declares the list{suggest(name, others)}")
    typemap, items, marks = _plain_list(name, first)
    if not typemap:
        items, marks = _included(name, first, items, marks, lists, out, (*stack, name))
    for entry in layers[1:]:
        items = _edit_list(name, entry, typemap, items, marks)
    out[name] = NamedList(name, items if typemap else tuple(items), typemap, marks)
    return out[name]


def _included(name: str, entry: Entry, items: list, marks: dict, lists: dict, out: dict, stack: tuple) -> tuple[list, dict]:
    """`items` with each `list:OTHER` item replaced by OTHER's items, in place."""
    if not any(w.startswith("list:") for w in items):
        return items, marks
    expanded: list[str] = []
    new_marks: dict = {}
    for i, w in enumerate(items):
        at = Entry(entry.path, entry.value, i)
        if not w.startswith("list:"):
            if w in new_marks:
                at.err(f"list {name!r}: {w!r} is listed twice")
            expanded.append(w)
            new_marks[w] = marks.get(w, at)
            continue
        other = w[5:]
        if other not in lists:
            at.err(f"list {name!r}: " + unknown("list", other, sorted(lists)))
        if other in stack:
            at.err(f"list {name!r}: lists include each other: {' -> '.join((*stack[stack.index(other):], other))}")
        found = _resolve(other, lists, out, stack)
        if found.typemap:
            at.err(f"list {name!r}: {other!r} is a type map and cannot stand inside a flat list")
        for x in found.items:
            if x in new_marks:
                at.err(f"list {name!r}: {x!r} (from {other!r}) is listed twice")
            expanded.append(x)
            new_marks[x] = found.mark(x) or at
    return expanded, new_marks


def _plain_list(name: str, entry: Entry) -> tuple[bool, Any, dict]:
    value = entry.value
    marks: dict = {}
    if isinstance(value, list):
        for i, item in enumerate(value):
            if not isinstance(item, str):
                entry.err_in(i, f"list {name!r}: items are strings, got {item!r}")
            if item in marks:
                entry.err_in(i, f"list {name!r}: {item!r} is listed twice")
            marks[item] = Entry(entry.path, value, i)
        return False, list(value), marks
    if isinstance(value, dict):
        items: dict[str, list[str]] = {}
        for t, words in value.items():
            sub = Entry(entry.path, value, t)
            if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
                sub.err(f"list {name!r}: {t} must be a list of strings")
            items[t] = list(words)
            for i, w in enumerate(words):
                marks[(t, w)] = Entry(entry.path, words, i)
        return True, items, marks
    entry.err(f"list {name!r} must be a list of strings, or a mapping of a type to a list of strings")


def _edit_list(name: str, entry: Entry, typemap: bool, items: Any, marks: dict) -> Any:
    # each list is edited as a dict of its words (insertion-ordered): a membership test
    # is one lookup, so an edit of n words costs n, never n times the list
    edit = entry.value
    if not typemap:
        items = {"": dict.fromkeys(items)}
    for op in ("remove", "add"):
        if op not in edit:
            continue
        at = Entry(entry.path, edit, op)
        change = edit[op]
        if typemap:
            if not isinstance(change, dict):
                at.err(f"list {name!r} maps types to lists: {op} takes a mapping of a type to a list of strings")
            for t, words in change.items():
                sub = Entry(entry.path, change, t)
                if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
                    sub.err(f"list {name!r}: {op}.{t} must be a list of strings")
                have = dict.fromkeys(items.get(t, ()))
                for i, w in enumerate(words):
                    _apply(name, op, have, w, Entry(entry.path, words, i), marks, (t, w), f"{t}: ")
                if have:
                    items[t] = list(have)
                else:
                    items.pop(t, None)
        else:
            if not isinstance(change, list):
                at.err(f"list {name!r} is a list: {op} takes a list of strings")
            for i, w in enumerate(change):
                if not isinstance(w, str):
                    at.err_in(i, f"list {name!r}: items are strings, got {w!r}")
                _apply(name, op, items[""], w, Entry(entry.path, change, i), marks, w, "")
    return items if typemap else list(items[""])


def _apply(name: str, op: str, have: dict, word: str, at: Entry, marks: dict, key: Any, prefix: str) -> None:
    if op == "remove":
        if word not in have:
            at.err(f"list {name!r}: cannot remove {prefix}{word!r}, it is not in the list{suggest(word, list(have))}")
        del have[word]
        marks.pop(key, None)
    else:
        if word in have:
            at.err(f"list {name!r}: {prefix}{word!r} is in the list already")
        have[word] = None
        marks[key] = at


# ---------------------------------------------------------------------------
# checking each top-level field


def _mapping(value: Any, field: str, message: str) -> tuple[Entry, list[tuple[str, Entry]]]:
    if isinstance(value, Keyed):
        return value.at, list(value.items.items())
    value.err(message)


def _typed(field: str, key: str, entry: Entry, table: dict[str, Sub]) -> Any:
    if key not in table:
        entry.err(unknown(f"{field} field", key, table), of_key=True)
    v = entry.value
    t = table[key].type
    if not isinstance(v, t) or isinstance(v, bool) and t is int:
        entry.err(f"{field}.{key} must be {t.__name__}")
    return v


def check_fields(value: Any, field: str) -> dict:
    _, items = _mapping(value, field, f"{field} must be a mapping")
    return {k: _typed(field, k, e, SUB_FIELDS[field]) for k, e in items}


def check_spill(value: Any) -> dict:
    out = check_fields(value, "spill")
    # the templates are filled per spilled keyword: a stray {name} would fail mid-request
    for field, names in (("template", ("key", "value")), ("skip_if", ("key",))):
        if field in out:
            try:
                out[field].format(**{n: n for n in names})
            except (KeyError, IndexError, ValueError, AttributeError) as exc:
                known = ", ".join("{" + n + "}" for n in names)
                value.items[field].err(f"spill.{field} is not a valid template ({known} only): {exc!r}")
    return out


def check_names(value: Any) -> dict:
    out = check_fields(value, "names")
    for key in ("allowed", "first"):
        if key in out:
            regex(out[key], value.items[key])
    return out


def check_output(value: Any) -> dict:
    out = check_fields(value, "output")
    disable = out.get("disable")
    if disable is not None:
        for j, rid in enumerate(disable):
            if not isinstance(rid, str):
                value.items["disable"].err_in(j, f"output.disable names rule ids, got {rid!r}")
        out["disable"] = tuple(disable)
    return out


_JSON_TYPE_NAMES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})


def check_reader(value: Any) -> dict:
    out = check_fields(value, "reader")
    for field, to in (("keys", None), ("types", _JSON_TYPE_NAMES)):
        for k, v in out.get(field, {}).items():
            if not isinstance(k, str) or not isinstance(v, str) or (to is not None and v not in to):
                what = "a JSON Schema type" if to else "a keyword"
                value.items[field].err(f"reader.{field} maps a name to {what}, got {k!r}: {v!r}")
        out[field] = MappingProxyType(dict(out.get(field, {})))
    return out


def check_locate(value: Any) -> dict[str, tuple[str, ...]]:
    _, items = _mapping(value, "locate", "locate must map tools/outputs to JSONPaths")
    out = {}
    for place, entry in items:
        if place not in LOCATE_FIELDS:
            entry.err(unknown("locate field", place, LOCATE_FIELDS), of_key=True)
        paths = entry.value
        if place == "outputs_of":
            names = paths if isinstance(paths, list) else [paths]
            if not all(isinstance(n, str) for n in names):
                entry.err("locate.outputs_of must name targets (a name or a list of names)")
            out[place] = tuple(names)
        elif place == "gathered":
            out[place] = field_paths(entry, "locate.gathered must be paths of plain fields ($.tools, $.config.tools)")
        elif isinstance(paths, list):
            for j, p in enumerate(paths):
                parse_jsonpath(p, Entry(entry.path, paths, j), f"locate.{place}", lazy=True)
            out[place] = tuple(paths)
        else:
            parse_jsonpath(paths, entry, f"locate.{place}", lazy=True)
            out[place] = (paths,)
    return out


def field_paths(entry: Any, must: str, *, itself: bool = False) -> tuple[tuple[str, ...], ...]:
    """A path of plain fields (`$.function.name`; with `itself`, `$` too: the value
    itself), or a list of them, as key tuples; a path of any other form is refused at its
    place (`must`, and what it got)."""
    v = entry.value
    paths = v if isinstance(v, list) and v else [v]
    for j, p in enumerate(paths):
        if not isinstance(p, str) or not (_FIELD_PATH.match(p) or (itself and p == "$")):
            message = f"{must}, got {p!r}"
            if paths is v:
                entry.err_in(j, message)
            entry.err(message)
    return tuple(tuple(p.split(".")[1:]) for p in paths)


def check_tool(value: Any, *, partial: bool = False) -> dict:
    """`tool:` says where a tool's name, description, schema and strict flag sit (all
    but name and schema may be left out; with `partial`, for an abstract file, those too).

    A field given as a list of paths is read at any of them (an SDK's other spelling,
    such as `parameters_json_schema`) and written at the first; `aliases` keeps the
    others. `kinds` names the values of a key (`type`) that mark a function tool, and
    `passthrough` the keys of list entries that are no tool of the caller's (cache
    points): entries of another kind pass through a tool list untouched. `groups`
    names the keys under which one entry holds a list of tools (a Gemini `Tool`).
    """
    at, items = _mapping(value, "tool", "tool must be a mapping of name/description/schema/strict paths and fixed keys")
    out: dict[str, Any] = {}
    aliases: dict[str, tuple] = {}
    for k, entry in items:
        v = entry.value
        if k == "fixed":
            if not isinstance(v, dict):
                entry.err("tool.fixed must be a mapping of constant keys")
            out[k] = freeze_json(v)
        elif k in ("name", "description", "schema", "strict"):
            paths = field_paths(entry, f"tool.{k} must be a path of plain fields like $.function.name")
            out[k] = paths[0]
            if len(paths) > 1:
                aliases[k] = paths[1:]
        elif k in ("outputs", "takes"):
            out[k] = field_paths(entry, f"tool.{k} must be paths of plain fields like $.response")
        elif k == "kinds":
            if not isinstance(v, dict) or not all(isinstance(x, list) and all(isinstance(s, str) for s in x) for x in v.values()):
                entry.err("tool.kinds must map a key (like type) to the list of its values a function tool has")
            out[k] = freeze_json(v)
        elif k == "provided":
            if not isinstance(v, dict) or not all(isinstance(x, str) for x in v.values()):
                entry.err("tool.provided must map a key (like type) to a regex of the values the wire's own tools have")
            for key in v:
                regex(v[key], Entry(entry.path, v, key))
            out[k] = freeze_json(v)
        elif k in ("schema_required", "returns", "strict_only_true", "no_empty_description", "refuses_strict"):
            if not isinstance(v, bool):
                entry.err(f"tool.{k} must be true or false")
            out[k] = v
        elif k in ("passthrough", "groups"):
            if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
                held = "entries holding one are not tools" if k == "passthrough" else "an entry holding one is a list of tools"
                entry.err(f"tool.{k} must be a list of keys ({held})")
            out[k] = tuple(v)
        else:
            entry.err(unknown("tool field", k, TOOL_FIELDS), of_key=True)
    if aliases:
        out["aliases"] = freeze_json(aliases)
    for required in () if partial else ("name", "schema"):
        if required not in out:
            at.err(f"tool.{required} is required")
    if "takes" in out and not partial:
        _own_fields_taken(out, value.items["takes"])
    return out


def _own_fields_taken(tool: dict, entry: Entry) -> None:
    """A wire's `takes` holds every path where its own shape reads or writes a part:
    one left out would be dropped from every tool of that shape."""
    taken = tool["takes"]
    own = [("fixed", (k,)) for k in tool.get("fixed", {})]
    own += [(f, tool[f]) for f in ("name", "description", "schema", "strict") if f in tool]
    own += [(f, p) for f, paths in tool.get("aliases", {}).items() for p in paths]
    own += [("outputs", p) for p in tool.get("outputs", ())]
    for field, path in own:
        if tuple(path) not in taken:
            entry.err(f"tool.takes must take the tool's own {field}, {_dollar(path)} (it takes {', '.join(map(_dollar, taken))})")


def _dollar(path: Any) -> str:
    return ".".join(("$", *path))


def check_keywords(entries: list[Entry]) -> tuple[str, ...]:
    out: dict[str, None] = {}
    for entry in entries:
        words = entry.value
        if not isinstance(words, list):
            entry.err("keywords must be a list of keyword names")
        for i, w in enumerate(words):
            if not isinstance(w, str) or not w:
                entry.err_in(i, f"a keyword is a non-empty string, got {w!r}")
            out.setdefault(w, None)
    return tuple(out)


def regex(text: Any, entry: Entry) -> re.Pattern:
    if not isinstance(text, str):
        entry.err("must be a regular expression string")
    try:
        return re.compile(text)
    except re.error as exc:
        entry.err(f"bad regex {text!r}: {exc}")


def freeze_json(value: Any) -> Any:
    # YAML gives MarkedDict/MarkedList: hand plain JSON to the kinds
    if isinstance(value, dict):
        return {k: freeze_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [freeze_json(v) for v in value]
    return value


# ---------------------------------------------------------------------------
# JSONPath


@functools.lru_cache(maxsize=256)
def jsonpath(text: str) -> Any:
    """A parsed JSONPath (rule files validated it at load time), parsed once per process."""
    from jsonpath_ng import parse

    return parse(text)


# a path of plain fields and [*] (every `locate` path of the shipped files): valid on sight,
# so compiling a target needs neither jsonpath-ng's import nor its parser until a body is read
_PLAIN_PATH = re.compile(r"\$(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\*\])+")


def parse_jsonpath(text: Any, entry: Entry, field: str, *, lazy: bool = False) -> Any:
    """The parsed JSONPath (or, with `lazy`, a plain path's text, parsed when first used)."""
    if not isinstance(text, str) or not text.startswith("$"):
        entry.err(f"{field} must be a JSONPath starting with '$', got {text!r}")
    if lazy and _PLAIN_PATH.fullmatch(text):
        return text
    try:
        return jsonpath(text)
    except Exception as exc:  # jsonpath-ng raises its own errors, and bare Exception too
        entry.err(f"bad JSONPath {text!r} in {field}: {exc}")


# where a selector can stand: at a schema (and whether the last step was a keyword), at
# the value of a keyword holding a map or an array of schemas, or nowhere a schema is
_SCHEMA, _NAMED, _LISTED, _DEAD = "schema", "map", "array", "dead"


def never_selects(expr: Any, recursive: bool) -> str | None:
    """Why a `where:` selector can select no schema in any document (the reason, with the
    nearest keyword for a misspelt one), or None when it can, or when its form is one
    this reading does not follow (filters, unions: those are never refused)."""
    bad: list[str] = []
    try:
        states = _follow(expr, frozenset({(_SCHEMA, True)}), bad)
    except RecursionError:
        return None  # a selector nested deeper than this reading follows is never refused
    
    if states is None:
        return None
    if any(s[0] == _SCHEMA and (s[1] or not recursive) for s in states):
        return None
    if bad:
        word = bad[0]
        return f"{word!r} holds no subschemas{suggest(word, SUBSCHEMA_KEYS)}"
    if recursive:
        return "with '..' its last step must be a keyword holding a schema (like $..items)"
    return "it ends inside a keyword's map or list, not at a schema (add the name or index)"


# jsonpath-ng's node classes, taken once: an import inside the recursion below runs the
# import machinery at every level, which near the recursion limit fails with an error of
# its own (a TypeError on 3.10), not the RecursionError `never_selects` takes
_NODES: tuple = ()


def _follow(expr: Any, states: frozenset, bad: list[str]) -> frozenset | None:
    global _NODES
    if not _NODES:
        from jsonpath_ng.jsonpath import Child, Descendants, Fields, Index, Root, Slice, This, Wildcard

        _NODES = (Child, Descendants, Fields, Index, Root, Slice, This, Wildcard)
    Child, Descendants, Fields, Index, Root, Slice, This, Wildcard = _NODES
    if isinstance(expr, Root):
        return frozenset({(_SCHEMA, True)})
    if isinstance(expr, This):
        return states
    if isinstance(expr, Child):
        left = _follow(expr.left, states, bad)
        return None if left is None else _follow(expr.right, left, bad)
    if isinstance(expr, Descendants):
        left = _follow(expr.left, states, bad)
        if left is None:
            return None
        below = set(left)
        if any(s[0] != _DEAD for s in left):
            # any number of steps down from a live position: every kind of position
            below |= {(_SCHEMA, True), (_SCHEMA, False), (_NAMED,), (_LISTED,)}
        return _follow(expr.right, frozenset(below), bad)
    if isinstance(expr, Fields):
        out: set = set()
        for name in expr.fields:
            for s in states:
                out |= _field_step(s, name, bad)
        return frozenset(out)
    if isinstance(expr, Wildcard):
        return frozenset(x for s in states for x in _field_step(s, "*", bad))
    if isinstance(expr, (Index, Slice)):
        return frozenset((_SCHEMA, True) if s[0] == _LISTED else (_DEAD,) for s in states)
    return None


def _field_step(state: tuple, name: str, bad: list[str]) -> set:
    kind = state[0]
    if kind == _NAMED:
        return {(_SCHEMA, False)}  # a property name (or a definition's)
    if kind == _LISTED:
        return {(_SCHEMA, True)} if name == "*" else {(_DEAD,)}
    if kind == _DEAD:
        return {(_DEAD,)}
    if name == "*":
        return {(_SCHEMA, True), (_NAMED,), (_LISTED,)}
    if name in SUBSCHEMA:
        return {(_SCHEMA, True), (_LISTED,)} if name == "items" else {(_SCHEMA, True)}
    if name in SUBSCHEMA_MAP or name == "dependencies":
        return {(_NAMED,)}
    if name in SUBSCHEMA_ARRAY:
        return {(_LISTED,)}
    bad.append(name)
    return {(_DEAD,)}
