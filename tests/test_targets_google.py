"""The Google targets end to end: gemini-jsonschema (parametersJsonSchema), vertex (Vertex
AI parameters) and cca-claude (Claude through Cloud Code Assist). The cases of
../shared/research that apply, one snapshot each (input, output, report). Where
wireschema deliberately differs from a peer, the case's note says how and why.
The cases are data: tests/cases/targets_google/<target>.json."""

from __future__ import annotations

import pytest

from conftest import document, load_cases


@pytest.mark.parametrize("target,case,schema,options", load_cases("targets_google"))
def test_target(target, case, schema, options, snap):
    assert document(schema, target, **options) == snap
