"""The public surface: what `import wireschema` offers, and that it is complete."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import wireschema
from wireschema.errors import WireschemaError


def _error_classes() -> set[type]:
    found: set[type] = set()
    for info in pkgutil.walk_packages(wireschema.__path__, "wireschema."):
        if info.name.endswith((".bench", ".__main__")):
            continue
        module = importlib.import_module(info.name)
        found.update(v for v in vars(module).values() if isinstance(v, type) and issubclass(v, WireschemaError))
    return found


def test_every_error_class_is_importable_from_the_package_and_listed_in_all():
    classes = _error_classes()
    assert {c.__name__ for c in classes} >= {"ToolShapeError", "RequestLimitError", "ToolNameError", "UnknownToolNameError"}
    for cls in classes:
        assert cls.__name__ in wireschema.__all__
        assert getattr(wireschema, cls.__name__) is cls


def test_every_name_in_all_resolves():
    for name in wireschema.__all__:
        assert getattr(wireschema, name) is not None


def test_a_request_limit_is_caught_by_its_public_name():
    body = {"tools": [{"functionDeclarations": [{"name": f"f{i}", "parameters": {"type": "object"}} for i in range(129)]}]}
    with pytest.raises(wireschema.RequestLimitError):
        wireschema.normalize_request(body, "vertex")
    with pytest.raises(wireschema.WireschemaError):
        wireschema.normalize_request(body, "vertex")


def test_the_library_configures_no_log_output_of_its_own():
    import logging

    logger = logging.getLogger("wireschema")
    assert wireschema.logger is logger
    assert any(isinstance(h, logging.NullHandler) for h in logger.handlers)
