"""The package and the typed example under ``mypy --strict`` and ``pyright --strict``.

The checkers run as a user runs them: on the package's sources with the project's
configuration (pyproject.toml), on ``examples/typed_app.py`` as an application importing
the installed package, and on a copy of it with deliberate mistakes, which both must
refuse. An editable install must leave the package resolvable by both.
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
import venv

import pytest

from conftest import ROOT

pytest.importorskip("mypy", reason="mypy is in the test extra")
pytest.importorskip("pyright", reason="pyright is in the test extra")

STRICT_PYRIGHT = {"typeCheckingMode": "strict", "pythonVersion": "3.10"}


def run(*command: str, cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH="", MYPY_CACHE_DIR=str(cwd / ".mypy_cache"))
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600, env=env)


def mypy(*args: str, cwd: pathlib.Path, python: str = sys.executable) -> subprocess.CompletedProcess[str]:
    return run(sys.executable, "-m", "mypy", "--python-executable", python, "--no-incremental", *args, cwd=cwd)


def pyright(*args: str, cwd: pathlib.Path, python: str = sys.executable) -> subprocess.CompletedProcess[str]:
    return run(sys.executable, "-m", "pyright", "--pythonpath", python, *args, cwd=cwd)


@pytest.fixture
def app_dir(tmp_path: pathlib.Path) -> pathlib.Path:
    """A directory outside the checkout holding a strict pyright configuration: what the
    checkers see there comes from the installed package."""
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(STRICT_PYRIGHT))
    return tmp_path


def test_the_package_passes_mypy_strict() -> None:
    result = mypy("--strict", "--config-file", str(ROOT / "pyproject.toml"), cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_the_package_passes_pyright_strict() -> None:
    result = pyright("--project", str(ROOT / "pyproject.toml"), cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 errors" in result.stdout


def test_the_typed_example_passes_both_checkers(app_dir: pathlib.Path) -> None:
    shutil.copy(ROOT / "examples" / "typed_app.py", app_dir / "typed_app.py")
    checked = mypy("--strict", "typed_app.py", cwd=app_dir)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    checked = pyright("typed_app.py", cwd=app_dir)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "0 errors" in checked.stdout


def test_a_copy_with_mistakes_fails_both_checkers(app_dir: pathlib.Path) -> None:
    source = (ROOT / "examples" / "typed_app.py").read_text()
    broken = source.replace('name=body["name"]', 'name=body["nmae"]')  # a key ItemIn does not have
    broken = broken.replace('    return items[:query.get("limit", 20)]', '    return {"items": items}')  # not list[ItemOut]
    broken = broken.replace("owner=request.user.name", "owner=request.user.nickname")  # User has no nickname
    assert broken.count("nmae") == 1 and '{"items": items}' in broken and "nickname" in broken
    (app_dir / "typed_app.py").write_text(broken)

    checked = mypy("--strict", "typed_app.py", cwd=app_dir)
    assert checked.returncode == 1
    assert 'TypedDict "ItemIn" has no key "nmae"' in checked.stdout
    assert 'Incompatible return value type (got "dict[str, list[ItemOut]]", expected "list[ItemOut]")' in checked.stdout
    assert '"User" has no attribute "nickname"' in checked.stdout

    checked = pyright("typed_app.py", cwd=app_dir)
    assert checked.returncode == 1
    assert '"nmae" is not a defined key in "ItemIn"' in checked.stdout
    assert 'Type "dict[str, list[ItemOut]]" is not assignable to return type "list[ItemOut]"' in checked.stdout
    assert 'Cannot access attribute "nickname" for class "User"' in checked.stdout


DECORATED = '''
from framework import Framework, Reply, Request

app = Framework()


@app.get("/x")
def handler(request: Request, reply: Reply) -> dict[str, int]:
    return {"a": 1}


reveal_type(handler)
'''


def test_route_decorators_keep_the_handler_type(app_dir: pathlib.Path) -> None:
    (app_dir / "decorated.py").write_text(DECORATED)
    checked = mypy("--strict", "decorated.py", cwd=app_dir)
    assert checked.returncode == 0, checked.stdout
    assert "-> dict[str, int]" in checked.stdout and "Untyped decorator" not in checked.stdout
    checked = pyright("decorated.py", cwd=app_dir)
    assert checked.returncode == 0, checked.stdout
    assert "reply: Reply) -> dict[str, int]" in checked.stdout


def test_an_editable_install_stays_resolvable_by_both_checkers(tmp_path: pathlib.Path) -> None:
    """``pip install -e .`` (the README's command) must add the checkout as a plain path
    in a ``.pth`` file: setuptools' default import hook is invisible to both checkers."""
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True, system_site_packages=True)
    python = str(environment / ("Scripts" if os.name == "nt" else "bin") / "python")
    installed = run(python, "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(ROOT), cwd=tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    site = pathlib.Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                       capture_output=True, text=True, check=True).stdout.strip())
    lines = [line.strip() for pth in site.glob("__editable__*framework*.pth") for line in pth.read_text().splitlines()
             if line.strip()]
    assert lines == [str(ROOT)], lines  # a path, not "import __editable__..._finder"

    user = tmp_path / "user"
    user.mkdir()
    (user / "pyrightconfig.json").write_text(json.dumps(STRICT_PYRIGHT))
    (user / "app.py").write_text(textwrap.dedent(DECORATED))
    checked = mypy("--strict", "app.py", cwd=user, python=python)
    assert checked.returncode == 0, checked.stdout
    assert "framework/request.py" not in checked.stdout
    checked = pyright("--verbose", "app.py", cwd=user, python=python)
    assert checked.returncode == 0, checked.stdout
    assert "reply: Reply) -> dict[str, int]" in checked.stdout
    search_paths = checked.stdout.partition("Search paths")[2].partition("\n\n")[0]
    assert str(ROOT) in search_paths, checked.stdout
