"""``python -m framework openapi module:app`` prints the document."""
from __future__ import annotations

import json
import subprocess
import sys

from framework.serving.cli import load_app, main
from conftest import SUPPORT_PATH


def test_cli_prints_the_example_document():
    result = subprocess.run([sys.executable, "-m", "framework", "openapi", "examples.app:app"],
                            capture_output=True, text=True, cwd=SUPPORT_PATH, timeout=60)
    assert result.returncode == 0, result.stderr
    from examples.app import app
    assert json.loads(result.stdout) == app.openapi()
    assert result.stdout.startswith('{\n  "openapi": "3.1.0"')


def test_cli_output_file_indent_and_factories(tmp_path, capsys):
    target = tmp_path / "openapi.json"
    assert main(["openapi", "examples.app:create_app", "--indent", "0", "--output", str(target)]) == 0
    text = target.read_text()
    assert text.count("\n") == 1 and json.loads(text)["info"]["title"] == "framework example"
    assert load_app("examples.app").has_decorator("openapi")


def test_cli_without_the_plugin(tmp_path, monkeypatch, capsys):
    (tmp_path / "bare_app.py").write_text("from framework import Framework\napp = Framework()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["openapi", "bare_app:app"]) == 1
    assert "does not register framework.plugins.openapi" in capsys.readouterr().err
