"""Each shipped target end to end: the cases of ../shared/research that apply, one
snapshot each (input, output, report), read from tests/cases/targets/<target>.json.
Where wireschema deliberately differs from a peer, the case's note says how and why.
A new target's cases go in a file of its own there: no Python changes."""

from __future__ import annotations

import pytest

from conftest import document, load_cases


@pytest.mark.parametrize("target,case,schema,options", load_cases("targets"))
def test_target(target, case, schema, options, snap):
    assert document(schema, target, **options) == snap
