"""The OpenAI Responses, 2024 strict, Anthropic, Anthropic strict, Bedrock and generic
OpenAI-compatible targets end to end: the research cases that apply (oh-my-pi §5 cases
25, 26, 30, 31; rust-anchors L2, L3, L6, L7, L8, A10), one snapshot each. Where
wireschema deliberately differs from a peer, the case's note says how and why.
The cases are data: tests/cases/targets_openai_anthropic/<target>.json."""

from __future__ import annotations

import pytest

from conftest import document, load_cases


@pytest.mark.parametrize("target,case,schema,options", load_cases("targets_openai_anthropic"))
def test_target(target, case, schema, options, snap):
    assert document(schema, target, **options) == snap
