"""The documentation site (docs/) builds with warnings as errors and every internal
reference resolved, every example on its pages runs, and its API reference (Sphinx
autodoc) covers every public name.

The pages are built in this process, so autodoc documents the very ``framework`` and
``plugins`` the suite imports (under tox, the installed wheel: see conftest.py); then the
generated ``objects.inv`` is read and every public name must be in it. autodoc leaves out a
function or method without a docstring, so that also catches a missing docstring; a class
would show its base's, so public classes are checked for their own.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import zlib
from pathlib import Path
from types import ModuleType

import pytest
from sphinx.cmd.build import build_main  # Sphinx is in the test extra: no skipping without it

import framework.plugins
from conftest import ROOT  # the checkout: docs/ is not part of the wheel

DOCS = ROOT / "docs"

#: The modules whose public names the reference must cover (each plugin is found below).
MODULES = ["framework", "framework.errors", "framework.testing", "framework.validation",
           "framework.typeschema", "framework.typegen", "framework.settings", "framework.devtools.contract"]


def plugin_modules() -> list[str]:
    return sorted(f"framework.plugins.{info.name}" for info in pkgutil.iter_modules(framework.plugins.__path__)
                  if not info.name.startswith("_"))


def documented_modules() -> list[str]:
    return MODULES + plugin_modules()


def public_names(module: ModuleType) -> list[str]:
    """``__all__``, or else the public classes and functions the module defines itself."""
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return [name for name, value in vars(module).items()
            if not name.startswith("_") and (inspect.isclass(value) or inspect.isfunction(value))
            and getattr(value, "__module__", None) == module.__name__]


def read_inventory(path: Path) -> dict[str, set[str]]:
    """``objects.inv`` (format version 2) as ``{name: {"domain:role", ...}}``."""
    with path.open("rb") as stream:
        header = [stream.readline() for _ in range(4)]
        assert header[0].rstrip() == b"# Sphinx inventory version 2", header[0]
        body = zlib.decompress(stream.read()).decode("utf-8")
    entries = {}
    for line in body.splitlines():
        match = re.match(r"(.+?)\s+(\S+?:\S+)\s+(-?\d+)\s+(\S*)\s+(.*)$", line)
        assert match, line
        entries.setdefault(match.group(1), set()).add(match.group(2))
    return entries


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, set[str]]]:
    out = tmp_path_factory.mktemp("api-docs")
    warnings = out / "warnings.txt"
    # -n (nitpicky): a :doc:, :ref: or :class: that does not resolve is a warning, so an error.
    status = build_main(["-W", "-n", "--keep-going", "-q", "-b", "html", "-d", str(out / "doctrees"),
                         "-w", str(warnings), str(DOCS), str(out / "html")])
    text = warnings.read_text(encoding="utf-8") if warnings.exists() else ""
    assert status == 0 and not text.strip(), f"the documentation does not build cleanly:\n{text}"
    return out / "html", read_inventory(out / "html" / "objects.inv")


def test_the_reference_documents_the_imported_package(built):
    html, _ = built
    page = (html / "reference" / "framework.html").read_text(encoding="utf-8")
    assert "framework.Framework" in page
    assert (html / "index.html").is_file()


@pytest.mark.parametrize("module_name", documented_modules())
def test_every_public_name_is_in_the_reference(built, module_name):
    _, inventory = built
    module = importlib.import_module(module_name)
    assert "py:module" in inventory.get(module_name, set()), (
        f"{module_name} has no page: add docs/reference/{module_name}.rst (automodule, :members:) "
        "and list it in docs/index.rst")
    missing = [name for name in public_names(module) if f"{module_name}.{name}" not in inventory]
    assert missing == [], f"not in the API reference (a docstring missing?): {module_name}: {missing}"


@pytest.mark.parametrize("module_name", documented_modules())
def test_public_classes_have_their_own_docstring(module_name):
    module = importlib.import_module(module_name)
    undocumented = [name for name in public_names(module)
                    if inspect.isclass(getattr(module, name)) and getattr(module, name).__name__ == name
                    and not (vars(getattr(module, name)).get("__doc__") or "").strip()]
    assert undocumented == [], f"{module_name}: public classes without a docstring: {undocumented}"


@pytest.mark.parametrize("module_name", documented_modules())
def test_public_methods_of_public_classes_are_in_the_reference(built, module_name):
    _, inventory = built
    module = importlib.import_module(module_name)
    missing = []
    for name in public_names(module):
        cls = getattr(module, name)
        if not inspect.isclass(cls) or f"{module_name}.{name}" not in inventory:
            continue
        if not inventory[f"{module_name}.{name}"] & {"py:class", "py:exception"}:
            continue  # an alias (create_error's classes): documented as a name, not a class
        for member, value in vars(cls).items():
            if member.startswith("_") or not (inspect.isfunction(value) or isinstance(value, property)):
                continue
            if f"{module_name}.{name}.{member}" not in inventory:
                missing.append(f"{name}.{member}")
    assert missing == [], f"not in the API reference (a docstring missing?): {module_name}: {missing}"


def test_the_readme_links_the_documentation_and_says_how_to_build_it():
    readme = (ROOT / "README.rst").read_text(encoding="utf-8")
    assert "Documentation\n-------------\n" in readme
    assert "python -m sphinx -W -n --keep-going -b html docs docs/_build/html" in readme
    assert "docs/index.rst" in readme


def pages() -> list[Path]:
    return sorted(path for path in DOCS.rglob("*.rst") if "_build" not in path.relative_to(DOCS).parts)


def test_every_page_is_in_a_toctree(built):
    """Reachable from index.rst through the toctrees (Sphinx's "document isn't included in
    any toctree" warning already fails the build: this names the page)."""
    html, _ = built
    built_pages = {path.relative_to(html).with_suffix("").as_posix() for path in html.rglob("*.html")}
    sources = {path.relative_to(DOCS).with_suffix("").as_posix() for path in pages()}
    assert sources <= built_pages
    index = (DOCS / "index.rst").read_text(encoding="utf-8")
    listed = set(re.findall(r"^   (\S+)$", index, re.MULTILINE))
    assert sources - {"index"} <= listed, f"pages missing from docs/index.rst: {sorted(sources - {'index'} - listed)}"


def test_no_page_has_untested_python():
    """Python on a page is ``>>>`` examples or ``.. testcode::``, which the doctest builder
    runs: a ``code-block:: python`` is not run, so it is refused."""
    untested = [f"{path.relative_to(ROOT)}:{text[:match.start()].count(chr(10)) + 1}"
                for path in pages() for text in [path.read_text(encoding="utf-8")]
                for match in re.finditer(r"^\s*\.\. (code-block|code|sourcecode|highlight)::\s*(python3?|py|pycon)\s*$",
                                         text, re.MULTILINE)]
    assert untested == [], f"untested Python (use >>> or .. testcode::): {untested}"


def test_every_example_of_every_page_runs(tmp_path):
    """Sphinx's doctest builder runs every ``>>>`` example and ``testcode`` block of every
    page (the reference's docstring examples in their module's namespace: see conf.py)."""
    status = build_main(["-W", "--keep-going", "-q", "-b", "doctest", "-d", str(tmp_path / "doctrees"),
                         str(DOCS), str(tmp_path / "doctest")])
    report = (tmp_path / "doctest" / "output.txt").read_text(encoding="utf-8")
    assert status == 0, report
    tried = re.search(r"^Doctest summary\n=+\n\s*(\d+) tests$", report, re.MULTILINE)
    assert tried and int(tried.group(1)) >= 130, report
    for phase in ("tests", "setup code", "cleanup code"):
        assert f" 0 failures in {phase}" in report, report
    documents = set(re.findall(r"^Document: (\S+)$", report, re.MULTILINE))
    for page in ("tutorial", "guide/streaming-files", "plugins/cors", "reference/framework.typegen"):
        assert page in documents, f"{page}'s examples did not run:\n{report}"
