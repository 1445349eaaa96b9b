"""An Anthropic structured output whose root is an array: wrapped, then unwrapped.

With the anthropic SDK: `output_config={"format": {"type": "json_schema", "schema": result.schema}}`.
"""

import json

import wireschema

schema = {"type": "array", "items": {"type": "object", "properties": {"title": {"type": "string"}, "year": {"type": "integer", "minimum": 1900}}, "required": ["title"]}}
result = wireschema.normalize_output(schema, "anthropic-strict")
print(json.dumps(result.schema), result.strict, result.wrapped)

reply = {"response": [{"title": "Solaris", "year": 1972}]}  # what the model would send
print(result.unwrap(reply), result.validate(reply))
