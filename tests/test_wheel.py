"""The built wheel, installed on its own, must work: the editable install hides packaging
mistakes, because it imports from the source tree."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_PROBE = """
import json
from pathlib import Path
import wireschema
package = Path(wireschema.__file__).resolve().parent
result = wireschema.normalize(
    {"type": "object", "properties": {"a": {"type": ["string", "null"]}}}, "gemini")
print(json.dumps({
    "file": str(Path(wireschema.__file__).resolve()),
    "gemini_yaml": (package / "rules" / "gemini.yaml").is_file(),
    "schema": result.schema,
}))
"""


def _setuptools_floor() -> tuple[int, int]:
    # the build-system requirement in pyproject.toml is the one source
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    m = re.search(r'requires\s*=\s*\[\s*"setuptools>=(\d+)(?:\.(\d+))?', text)
    assert m, "pyproject.toml: build-system requires no setuptools>=N"
    return int(m.group(1)), int(m.group(2) or 0)


def _missing_wheel_builder() -> str | None:
    # --no-build-isolation builds with this interpreter's setuptools, which must meet the
    # project's own build requirement (bdist_wheel is built into setuptools from 70.1)
    try:
        version = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        return "setuptools is not installed"
    major, minor = (int(p) if p.isdigit() else 0 for p in (version.split(".") + ["0"])[:2])
    floor = _setuptools_floor()
    if (major, minor) < floor:
        return f"setuptools {version} is older than the build requirement: install setuptools>={floor[0]}.{floor[1]}"
    return None


def _run(cmd, **kwargs):
    proc = subprocess.run(
        [str(c) for c in cmd], capture_output=True, text=True, stdin=subprocess.DEVNULL, **kwargs
    )
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def _venv_exe(venv: Path, name: str) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin") / name


def _clean_env() -> dict[str, str]:
    # nothing may lead the probe back to the source tree or change its result
    drop = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")
    return {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("WIRESCHEMA_")}


def _assert_metadata(wheel: Path, names: set[str]) -> None:
    """What an index and an installer read: version, license, Python floor, classifiers."""
    import email.parser

    import wireschema

    [info] = {n.split("/", 1)[0] for n in names if n.split("/", 1)[0].endswith(".dist-info")}
    # the license text travels with the wheel (PEP 639 puts it under licenses/)
    assert f"{info}/licenses/LICENSE" in names
    with zipfile.ZipFile(wheel) as z:
        assert z.read(f"{info}/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()
        meta = email.parser.Parser().parsestr(z.read(f"{info}/METADATA").decode("utf-8"))
    assert meta["Version"] == wireschema.__version__ == importlib.metadata.version("wireschema")
    assert meta["License-Expression"] == "MIT" and "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert meta["Requires-Python"] == ">=3.11"
    classifiers = meta.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers
    # each Python version named as supported is one some CI job runs (today: this one)
    named = {c.rsplit(" ", 1)[-1] for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)}
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in named
    # no placeholder home page: the project has none yet, so it names none
    urls = (meta.get_all("Project-URL") or []) + [meta["Home-page"] or ""]
    assert not [u for u in urls if re.search(r"example\.(com|org)|your-?org|TODO|changeme", u, re.I)], urls


def test_built_wheel_ships_rules_and_normalizes(tmp_path):
    missing = _missing_wheel_builder()
    if missing:
        # CI installs the builder (.ci/run), so there a skip would hide a packaging bug
        if os.environ.get("CI"):
            pytest.fail(missing)
        pytest.skip(missing)

    # An in-tree build leaves build/ and *.egg-info in the checkout, and a stale build/
    # leaks deleted modules into later wheels: build from a copy instead.
    src = tmp_path / "src"
    shutil.copytree(
        ROOT,
        src,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", ".ci-py313", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".benchmarks"
        ),
    )
    # a checkout that has run keeps parsed rule files and the targets' listing in
    # rules/__pycache__ (yamlsource, listing) and compiled walks in engine/__pycache__
    # (compiler): made where the wheel is installed, they never ship in it
    (src / "rules" / "__pycache__").mkdir()
    (src / "rules" / "__pycache__" / f"gemini.yaml.{sys.implementation.cache_tag}.rules").write_bytes(b"stale")
    (src / "rules" / "__pycache__" / f"_listing.{sys.implementation.cache_tag}.listing").write_bytes(b"stale")
    (src / "engine" / "__pycache__").mkdir()
    (src / "engine" / "__pycache__" / f"walk-00.{sys.implementation.cache_tag}.walk").write_bytes(b"stale")
    wheels = tmp_path / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", wheels, src])
    [wheel] = wheels.glob("wireschema-*.whl")

    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"wireschema/rules/{p.name}" for p in (ROOT / "rules").glob("*.yaml")}
    expected |= {"wireschema/py.typed"}  # PEP 561: type checkers read the package's annotations
    expected |= {f"wireschema/passes/{p.name}" for p in (ROOT / "engine" / "passes").glob("*.py")}
    expected |= {f"wireschema/{p.name}" for p in (ROOT / "engine").glob("*.py")}
    assert "wireschema/rules/gemini.yaml" in expected
    assert expected <= names, f"missing from the wheel: {sorted(expected - names)}"
    assert not [n for n in names if "__pycache__" in n or n.endswith((".rules", ".walk", ".listing"))], sorted(names)
    # a package shadows the module of the same name on import: only one can ship
    shadowed = sorted(n for n in names if n.endswith(".py") and f"{n[:-3]}/__init__.py" in names)
    assert not shadowed, f"modules shadowed by a package of the same name in the wheel: {shadowed}"
    _assert_metadata(wheel, names)

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--system-site-packages", venv])
    # --system-site-packages only reaches the base interpreter's packages; when the tests
    # run in a virtualenv (as in CI) the dependencies live in this one, so add it after
    # the new venv's own site-packages (the editable install's finder stays behind: .pth
    # files in paths added this way are not run)
    host_site = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    venv_python = _venv_exe(venv, "python")
    venv_site = _run([venv_python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    (Path(venv_site) / "_host_site.pth").write_text("\n".join(sorted(host_site)) + "\n", encoding="utf-8")
    # --ignore-installed: the editable install of the same version is visible from here
    _run([venv_python, "-m", "pip", "install", "--no-deps", "--ignore-installed", wheel], env=_clean_env())

    work = tmp_path / "work"
    work.mkdir()
    probe = json.loads(_run([venv_python, "-c", _PROBE], cwd=work, env=_clean_env()).stdout)
    assert Path(probe["file"]).is_relative_to(venv.resolve()), probe["file"]
    assert not Path(probe["file"]).is_relative_to(ROOT), probe["file"]
    assert probe["gemini_yaml"] is True
    assert probe["schema"] == {"type": "object", "properties": {"a": {"type": "string", "nullable": True}}}

    # the console script comes from the wheel's entry points, not from the checkout
    targets = _run([_venv_exe(venv, "wireschema"), "targets"], cwd=work, env=_clean_env()).stdout
    assert "gemini" in [line.split()[0] for line in targets.splitlines()]
