"""The built wheel, installed on its own, must work: the editable install hides packaging
mistakes, because it imports from the source tree."""

from __future__ import annotations

import importlib.metadata
import json
import os
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


def _missing_wheel_builder() -> str | None:
    # --no-build-isolation builds with this interpreter's setuptools; bdist_wheel is
    # built into setuptools only from 70.1, before that it comes from `wheel`
    try:
        version = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        return "setuptools is not installed"
    major, minor = (int(p) if p.isdigit() else 0 for p in (version.split(".") + ["0"])[:2])
    if (major, minor) >= (70, 1):
        return None
    try:
        importlib.metadata.version("wheel")
    except importlib.metadata.PackageNotFoundError:
        return f"setuptools {version} cannot build wheels: install setuptools>=70.1 (or `wheel`)"
    return None


def _run(cmd, **kwargs):
    proc = subprocess.run(
        [str(c) for c in cmd], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300, **kwargs
    )
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def _venv_exe(venv: Path, name: str) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin") / name


def _clean_env() -> dict[str, str]:
    # nothing may lead the probe back to the source tree or change its result
    drop = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")
    return {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("WIRESCHEMA_")}


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
            ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".benchmarks"
        ),
    )
    wheels = tmp_path / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", wheels, src])
    [wheel] = wheels.glob("wireschema-*.whl")

    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"wireschema/rules/{p.name}" for p in (ROOT / "rules").glob("*.yaml")}
    expected |= {f"wireschema/passes/{p.name}" for p in (ROOT / "engine" / "passes").glob("*.py")}
    expected |= {f"wireschema/{p.name}" for p in (ROOT / "engine").glob("*.py")}
    assert "wireschema/rules/gemini.yaml" in expected
    assert expected <= names, f"missing from the wheel: {sorted(expected - names)}"
    # a package shadows the module of the same name on import: only one can ship
    shadowed = sorted(n for n in names if n.endswith(".py") and f"{n[:-3]}/__init__.py" in names)
    assert not shadowed, f"modules shadowed by a package of the same name in the wheel: {shadowed}"

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
