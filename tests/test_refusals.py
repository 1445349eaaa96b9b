"""Wires whose validator ships in no registry package: their documented refusals, as a test set.

Each refusal is a plain function that finds, in a schema, what the wire's own validator
refuses (its error text quoted). Each case's input shows the refusal, which keeps the
set honest; its output on the target shows none, without falling back.

- moonshot: MoonshotAI/walle (Go, with a prebuilt library in its repository only),
  documented in docs/mfjs-spec.md and docs/walle.md.
- llamacpp: llama.cpp's JSON-Schema-to-GBNF converter (common/json-schema-to-grammar.cpp)
  and grammar parser (src/llama-grammar.cpp); llama-cpp-python, which wraps it, builds
  from source.
- groq (and groq-strict): Groq's request check, quoted in usestrix/strix#1088 and
  livekit/agents#5082.
- fireworks: its grammar compiler's refusals, quoted in BerriAI/litellm#27821, #28149,
  PR#37453 and earendil-works/pi#5352.
- cohere-strict: strict_tools' rules (docs.cohere.com/v2/docs/parameter-types-in-tool-use).
- cerebras: the structured-outputs subset (inference-docs.cerebras.ai/capabilities/
  structured-outputs) and pydantic-ai's profiles/cerebras.py; a schema sent strict.
"""

from __future__ import annotations

import pytest

import wireschema
from wireschema.positions import child_slots

# -- moonshot: MFJS and walle ------------------------------------------------------------

# mfjs-spec.md's Field Definitions, and its $defs/$ref
MFJS_KEYS = {"type", "properties", "additionalProperties", "items", "anyOf", "enum", "required", "description", "default", "$ref", "$defs"}
MFJS_TYPES = {"null", "boolean", "object", "array", "number", "integer", "string"}


def _subschemas(schema):
    """(pointer, node, is the root, under additionalProperties) of every object subschema."""
    stack = [("", schema, True, False)]
    while stack:
        at, node, root, extra = stack.pop()
        if not isinstance(node, dict):
            continue
        yield at, node, root, extra
        for name, sub in (node.get("properties") or {}).items() if isinstance(node.get("properties"), dict) else ():
            stack.append((f"{at}/properties/{name}", sub, False, False))
        for i, sub in enumerate(node.get("anyOf") or []) if isinstance(node.get("anyOf"), list) else ():
            stack.append((f"{at}/anyOf/{i}", sub, False, False))
        if root and isinstance(node.get("$defs"), dict):
            stack.extend((f"/$defs/{n}", sub, False, False) for n, sub in node["$defs"].items())
        for kw in ("items", "additionalProperties"):
            stack.append((f"{at}/{kw}", node.get(kw), False, kw == "additionalProperties"))


def _enum_kind(value):
    if isinstance(value, str):
        return "string"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "number"
    return None


def mfjs_refusals(schema):
    """What walle refuses in `schema`, one line each ("pointer: its error")."""
    out = []
    for at, node, root, extra in _subschemas(schema):
        t = node.get("type")
        types = [t] if isinstance(t, str) else t if isinstance(t, list) else []
        if set(node) - MFJS_KEYS:
            out.append(f"{at}: unsupported keywords: {', '.join(sorted(set(node) - MFJS_KEYS))}")
        if "$defs" in node and not root:
            out.append(f"{at}: keyword $defs must be at root level")
        if "type" in node and "anyOf" in node:
            out.append(f"{at}: when using anyOf, type should be defined in anyOf items instead of the parent schema")
        if "$ref" in node:
            if set(node) - {"$ref", "description"}:
                out.append(f"{at}: conflicting keywords found after $ref expansion")
            if not (node["$ref"] == "#" or str(node["$ref"]).startswith("#/$defs/")):
                out.append(f"{at}: references must start with #/$defs/")
        if not types and "anyOf" not in node and "$ref" not in node and not (node == {} and (root or extra)):
            out.append(f"{at}: type is not defined")
        if any(x not in MFJS_TYPES for x in types):
            out.append(f"{at}: invalid type")
        if len(types) > 1:
            scalar_enum = "enum" in node and len(types) == 2 and "null" in types and not {"object", "array"} & set(types)
            beside = set(node) - {"type", "description"} - ({"$defs"} if root else set())
            if beside and not scalar_enum:
                out.append(f"{at}: keyword {sorted(beside)[0]} is not allowed in combination with multiple types")
        if "enum" in node:
            kinds = {_enum_kind(v) for v in node["enum"]}
            if None in kinds or len(kinds) != 1:
                out.append(f"{at}: enum values are float, int or str, of one type")
            if not types:
                out.append(f"{at}: type is not defined (beside enum)")
        if "items" in node and (not isinstance(node["items"], dict) or not node["items"]):
            out.append(f"{at}: items must be an object, not empty")
        if any(isinstance(b, bool) for b in node.get("anyOf") or [] if isinstance(node.get("anyOf"), list)):
            out.append(f"{at}: schema in anyOf must be an object")
        if any(isinstance(p, bool) for p in (node.get("properties") or {}).values() if isinstance(node.get("properties"), dict)):
            out.append(f"{at}: property schema must be an object")
    return out


def _props(**props):
    return {"type": "object", "properties": props}


MOONSHOT = [
    ("title-format-comment", _props(q={"type": "string", "title": "Q", "format": "date", "$comment": "c"})),
    ("bounds", _props(n={"type": "integer", "minimum": 0, "exclusiveMaximum": 9}, xs={"type": "array", "items": {"type": "string"}, "maxItems": 3})),
    ("pattern-and-lengths", _props(s={"type": "string", "pattern": "^a", "minLength": 1})),
    ("tuple", _props(p={"type": "array", "prefixItems": [{"type": "number"}, {"type": "string"}]})),
    ("type-beside-any-of", _props(a={"type": "string", "anyOf": [{"type": "string", "description": "x"}, {"type": "string"}]})),
    ("type-list-with-keywords", _props(o={"type": ["object", "null"], "properties": {"a": {"type": "string"}}})),
    ("untyped-property", _props(a={}, b={"description": "anything"})),
    ("enum-without-type", _props(e={"enum": ["a", "b"]})),
    ("mixed-enum", _props(e={"type": ["string", "integer"], "enum": ["a", 1]})),
    ("boolean-enum", _props(e={"type": "boolean", "enum": [True]})),
    ("ref-with-siblings", {**_props(a={"$ref": "#/$defs/A", "title": "the a"}), "$defs": {"A": {"type": "string"}}}),
    ("nested-defs", _props(a={"type": "object", "$defs": {"X": {"type": "string"}}, "properties": {"x": {"$ref": "#/properties/a/$defs/X"}}})),
    ("ref-to-a-property", _props(a={"type": "string"}, b={"$ref": "#/properties/a"})),
    ("one-of-all-of-not", _props(o={"oneOf": [{"type": "string"}, {"type": "integer"}]}, n={"type": "string", "not": {"enum": ["x"]}})),
    ("const", _props(c={"const": "x"})),
    ("empty-items", _props(xs={"type": "array", "items": {}})),
    ("boolean-subschemas", _props(xs={"type": "array", "items": False}, u={"anyOf": [True, {"type": "string"}]})),
]


def test_moonshot_keeps_the_specs_own_examples():
    search = {"type": "object", "properties": {
        "qs": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}], "description": "place your query or queries here"},
        "lang": {"type": "string", "enum": ["Chinese", "English"]}}, "additionalProperties": False, "required": ["qs"]}
    linked = {"type": "object", "properties": {"linked_list": {"$ref": "#/$defs/node"}}, "$defs": {"node": {
        "type": "object", "properties": {"value": {"type": "number"}, "next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]}},
        "additionalProperties": False, "required": ["next", "value"]}}, "additionalProperties": False, "required": ["linked_list"]}
    for schema in (search, linked):
        assert mfjs_refusals(schema) == []
        result = wireschema.normalize(schema, "moonshot")
        assert result.schema == schema and not result.changes


def test_moonshot_unrolls_recursion_with_no_way_out():
    # walle: "detected infinite recursion without termination condition"
    schema = {**_props(r={"$ref": "#/$defs/N"}), "$defs": {"N": {**_props(c={"$ref": "#/$defs/N"}), "required": ["c"]}}}
    assert wireschema.check(schema, "moonshot")
    result = wireschema.normalize(schema, "moonshot")
    assert "moonshot/required-recursion" in {c.rule for c in result.changes}
    assert mfjs_refusals(result.schema) == [] and not wireschema.check(result.schema, "moonshot")


# -- llamacpp: the GBNF converter and grammar parser -------------------------------------

_REPETITIONS = ("minLength", "maxLength", "minItems", "maxItems")


def _walk(schema):
    """(pointer, subschema) of `schema` and of every subschema in it, booleans included."""
    stack = [("", schema)]
    while stack:
        at, node = stack.pop()
        yield at, node
        if isinstance(node, dict):
            stack.extend((f"{at}/{kw}/{key}", cont[key]) for kw, _slot, cont, key in child_slots(node))


def gbnf_refusals(schema):
    """What llama.cpp refuses in `schema` (every subschema it reads), one line each."""
    out = []
    for at, node in _walk(schema):
        if not isinstance(node, dict):
            continue
        p = node.get("pattern")
        if isinstance(p, str) and not (len(p) > 1 and p[0] == "^" and p[-1] == "$" and not p.endswith("\\$")):
            out.append(f"{at}: Pattern must start with '^' and end with '$'")
        if isinstance(p, str) and any(look in p for look in ("(?=", "(?!", "(?<=", "(?<!")):
            out.append(f"{at}: lookarounds are not supported")
        for k in _REPETITIONS:
            if isinstance(node.get(k), int) and node[k] >= 2000:
                out.append(f"{at}/{k}: number of repetitions exceeds sane defaults")
    return out


LLAMACPP = [
    ("unanchored-pattern", _props(a={"type": "string", "pattern": "[a-z]+"})),
    ("half-anchored-pattern", _props(a={"type": "string", "pattern": "^v\\d+"}, b={"type": "string", "pattern": "\\.json$"})),
    ("escaped-dollar", _props(a={"type": "string", "pattern": "^price\\$"})),
    ("lookahead", _props(a={"type": "string", "pattern": "^(?!admin)[a-z]+$"})),
    ("long-string", _props(a={"type": "string", "maxLength": 65536})),
    ("many-items", _props(a={"type": "array", "items": {"type": "string"}, "minItems": 2000, "maxItems": 5000})),
    ("in-a-definition", {**_props(a={"$ref": "#/$defs/D"}), "$defs": {"D": {"type": "string", "pattern": "x", "minLength": 4096}}}),
]


# -- groq: its request check ---------------------------------------------------------------


def groq_refusals(schema):
    """What Groq's request check refuses in `schema` (every subschema), one line each."""
    out = []
    for at, node in _walk(schema):
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("required"), list) and not node.get("properties"):
            out.append(f"{at}: 'required' present but 'properties' is missing")
    return out


GROQ = [
    ("no-parameters", {"type": "object", "properties": {}, "required": []}),
    ("required-without-properties", {"type": "object", "required": ["a"]}),
    ("bare-required-branch", _props(f={"anyOf": [{"required": ["id"]}, {"type": "string"}]})),
    ("nested-empty-object", _props(o={"type": "object", "required": []})),
]
# strict: what stays strict (an open object or an unlisted name fails open to groq)
GROQ_STRICT = [
    ("no-parameters", {"type": "object", "properties": {}, "required": []}),
    ("nested-closed-empty-object", _props(o={"type": "object", "properties": {}, "additionalProperties": False, "required": []})),
]


# -- fireworks: its grammar compiler ---------------------------------------------------------

_CONDITIONALS = ("if", "then", "else", "dependentRequired", "dependentSchemas")


def fireworks_refusals(schema):
    """What Fireworks' compiler refuses in `schema` (every subschema), one line each."""
    out = []
    for at, node in _walk(schema):
        if not isinstance(node, dict):
            continue
        if "title" in node or ("default" in node and node["default"] is None):
            out.append(f"{at}: could not understand the instance (title, default None)")
        if any(k in node for k in _CONDITIONALS) or ("required" in node and set(node) <= {"required", "description"}):
            out.append(f"{at}: could not understand the instance (a conditional, or required alone)")
        branches = node.get("allOf") if isinstance(node.get("allOf"), list) else []
        seen = {}
        for b in (node, *branches):
            for k, v in b.items() if isinstance(b, dict) else ():
                if k != "allOf" and seen.setdefault(k, v) != v:
                    out.append(f"{at}: Conflict in schema definitions for key '{k}'")
    return out


FIREWORKS = [
    ("title-and-null-default", _props(page_size={"type": "integer", "title": "Page Size", "default": None})),
    ("bare-required-branches", _props(t={"type": "object", "properties": {"id": {"type": "string"}}, "anyOf": [{"required": ["id"]}, {"required": ["name"]}]})),
    ("if-then", {**_props(mode={"type": "string"}, c={"type": "string"}), "if": {"properties": {"mode": {"const": "a"}}}, "then": {"required": ["c"]}}),
    ("two-patterns", _props(line={"allOf": [{"type": "string", "pattern": "^a"}, {"pattern": "^[\\s\\S]{0,300}$"}]})),
]


# -- cohere: strict_tools --------------------------------------------------------------------


def _fields(schema):
    """The properties of `schema`, nested ones counted."""
    return sum(len(node["properties"]) for _at, node in _walk(schema) if isinstance(node, dict) and isinstance(node.get("properties"), dict))


def cohere_strict_refusals(schemas):
    """What strict_tools refuses in a request's tool schemas, one line each."""
    out = [f"tool {i}: each tool must have at least one required parameter" for i, s in enumerate(schemas) if not s.get("required")]
    if sum(map(_fields, schemas)) > 200:
        out.append("the total number of fields across all tools must not exceed 200")
    return out


def test_cohere_strict_sends_non_strict_what_strict_tools_refuses():
    wide = {"type": "object", "properties": {f"p{j}": {"type": "string"} for j in range(60)}, "required": ["p0"]}
    schemas = [wide, wide, wide, wide, {"type": "object", "properties": {"q": {"type": "string"}}}]
    assert cohere_strict_refusals(schemas)
    tools = [{"type": "function", "function": {"name": f"t{i}", "strict": True, "parameters": s}} for i, s in enumerate(schemas)]
    result = wireschema.normalize_tools(tools, "cohere")
    sent = [r.schema for r in result.results if r.strict]
    assert sent and cohere_strict_refusals(sent) == []
    assert all("strict" not in t["function"] for t in result.tools)


# -- cerebras: its strict subset -----------------------------------------------------------


def cerebras_refusals(schema):
    """What Cerebras refuses in a strict `schema` (every subschema), one line each."""
    out = []
    for at, node in _walk(schema):
        if isinstance(node, bool) and at.rsplit("/", 1)[0].rsplit("/", 1)[-1] != "additionalProperties":
            out.append(f"{at}: boolean schemas are not supported")
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("type"), list):
            out.append(f"{at}: type arrays are not supported, use anyOf")
        if isinstance(node.get("anyOf"), list) and len(node["anyOf"]) > 5:
            out.append(f"{at}: anyOf takes at most 5 branches")
        if "$ref" in node:
            out.append(f"{at}: $ref (recursive schemas are not supported)")
        props = node.get("properties")
        if isinstance(props, dict) and set(props) - set(node.get("required") or []):
            out.append(f"{at}: every property must be required")
        if (node.get("type") == "object" or isinstance(props, dict)) and node.get("additionalProperties") is not False:
            out.append(f"{at}: additionalProperties must be false")
    return out


CEREBRAS = [
    ("type-list", _props(a={"type": ["string", "null"]})),
    ("optional-and-open", _props(a={"type": "string"}, o={"type": "object", "properties": {"x": {"type": "integer"}}})),
    ("definition", {**_props(a={"$ref": "#/$defs/A"}), "$defs": {"A": {"type": "string"}}}),
]


def test_cerebras_sends_non_strict_what_its_subset_lacks():
    six = _props(u={"anyOf": [{"type": t} for t in ("string", "integer", "boolean", "number", "null")] + [{"type": "array", "items": True}]})
    for schema, rule in ((six, "cerebras/check-any-of-branches"), (_props(xs={"type": "array", "items": True}), "openai-strict/check-booleans")):
        assert cerebras_refusals(schema)
        result = wireschema.normalize(schema, "cerebras")
        assert not result.strict and result.strict_reason.startswith(rule)


# -- every wire: each case shows its refusal, and the output none ------------------------

CASES = (
    [("moonshot", mfjs_refusals, *c) for c in MOONSHOT]
    + [("llamacpp", gbnf_refusals, *c) for c in LLAMACPP]
    + [("groq", groq_refusals, *c) for c in GROQ]
    + [("groq-strict", groq_refusals, *c) for c in GROQ_STRICT]
    + [("cerebras", cerebras_refusals, *c) for c in CEREBRAS]
    + [("fireworks", fireworks_refusals, *c) for c in FIREWORKS]
)


@pytest.mark.parametrize("target,refusals,case,schema", CASES, ids=[f"{t}:{c}" for t, _, c, _ in CASES])
def test_the_output_shows_none_of_the_refusals_its_input_shows(target, refusals, case, schema):
    assert refusals(schema), "the case shows no documented refusal"
    result = wireschema.normalize(schema, target)
    assert not result.used_fallback, result.fallback_reason
    assert refusals(result.schema) == []
    assert not wireschema.check(result.schema, target)


def test_llamacpp_keeps_anchored_patterns_and_small_bounds():
    schema = _props(a={"type": "string", "pattern": "^[a-z]+(-[a-z]+)*$", "minLength": 1, "maxLength": 1999},
                    b={"type": "array", "items": {"type": "integer"}, "maxItems": 1999})
    assert gbnf_refusals(schema) == []
    assert wireschema.normalize(schema, "llamacpp").schema == schema


# (target, its refusals, whether they judge only outputs sent strict: cerebras's are of its
# strict subset, and what fails open is generic's)
_WIRES = [("moonshot", mfjs_refusals, False), ("llamacpp", gbnf_refusals, False), ("groq", groq_refusals, False),
          ("groq-strict", groq_refusals, False), ("cerebras", cerebras_refusals, True), ("fireworks", fireworks_refusals, False)]


@pytest.mark.corpus
@pytest.mark.parametrize("target,refusals,strict_only", _WIRES, ids=[t for t, _, _ in _WIRES])
def test_no_output_of_the_corpus_shows_a_refusal(target, refusals, strict_only):
    from test_wire import _outputs

    refused = [(i, r) for i, _role, schema, strict in _outputs(target) if strict or not strict_only for r in refusals(schema)]
    assert not refused, refused[:10]
