"""What the distribution installs: one top-level package, ``framework``.

Fastify users keep their own plugins in a ``plugins/`` package (fastify-cli's layout); ours
are ``framework.plugins``, so an application's ``plugins`` never shadows them.
"""
from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap
import zipfile
from importlib import metadata

import framework
from conftest import INSTALLED, ROOT


def _wheel_modules(tmp_path) -> set[str]:
    """The .py files of the wheel built from the checkout (or, under tox, the one installed)."""
    if INSTALLED:
        # The RECORD beside the installed package (a framework.egg-info that a build left in
        # the checkout would list the sources, tests included).
        (dist_info,) = pathlib.Path(framework.__file__).resolve().parent.parent.glob("framework-*.dist-info")
        files = metadata.Distribution.at(dist_info).files or []
        return {str(file) for file in files if file.suffix == ".py"}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = tmp_path.glob("framework-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return {name for name in archive.namelist() if name.endswith(".py")}


def test_the_distribution_installs_no_top_level_plugins_package(tmp_path):
    modules = _wheel_modules(tmp_path)
    assert {name.split("/")[0] for name in modules} == {"framework"}
    assert {"framework/plugins/__init__.py", "framework/plugins/cors.py", "framework/plugins/openapi.py"} <= modules


def test_an_application_with_its_own_plugins_package_imports_ours(tmp_path):
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "__init__.py").write_text("")
    (tmp_path / "plugins" / "support.py").write_text("NAME = 'mine'\n")
    (tmp_path / "app.py").write_text(textwrap.dedent("""
        from framework import Framework
        from framework.plugins.cors import cors
        from plugins.support import NAME

        app = Framework()
        app.register(cors, origin="https://example.com")

        @app.get("/")
        def home(request, reply):
            return {"name": NAME}

        response = app.inject(url="/", headers={"Origin": "https://example.com"})
        print(response.status_code, response.text, response.headers["access-control-allow-origin"])
    """))
    result = subprocess.run([sys.executable, "app.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '200 {"name":"mine"} https://example.com'
