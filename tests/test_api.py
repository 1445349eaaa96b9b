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
        try:
            module = importlib.import_module(info.name)
        except wireschema.ClientNotInstalledError:
            continue  # a plug-in whose client this environment lacks: it says so, as it must
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


def test_a_loss_makes_no_log_record_where_only_null_handlers_would_get_it(monkeypatch):
    import logging

    class _Kept(logging.Handler):
        def emit(self, record):
            pass

    made = []
    real = logging.Logger.makeRecord
    monkeypatch.setattr(logging.Logger, "makeRecord", lambda self, *a, **k: made.append(1) or real(self, *a, **k))
    lost = {"type": "object", "properties": {"d": {"type": "object", "additionalProperties": True}}}
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])  # pytest's own capture handler, for this test
    wireschema.normalize(lost, "openai-strict")
    assert made == []
    # a handler anywhere up the chain, a filter on the way, or no handler at all (logging's
    # last resort then prints it) each gets the record
    monkeypatch.setattr(root, "handlers", [_Kept()])
    wireschema.normalize(lost, "openai-strict")
    assert made == [1]
    monkeypatch.setattr(root, "handlers", [])
    monkeypatch.setattr(wireschema.logger, "filters", [lambda record: False])
    wireschema.normalize(lost, "openai-strict")
    assert made == [1, 1]
    monkeypatch.setattr(wireschema.logger, "filters", [])
    monkeypatch.setattr(wireschema.logger, "handlers", [])
    wireschema.normalize(lost, "openai-strict")
    assert made == [1, 1, 1]
