"""The examples in README.rst and in the public docstrings run as written (the pages under\ndocs/ are run by Sphinx's doctest builder: tests/test_api_docs.py), and the README stays a\nlanding page whose links into docs/ hold."""
import doctest
import re
import textwrap
from pathlib import Path

import pytest

import framework.app
import framework.errors
import framework.schemas.typeschema
import framework.validation

ROOT = Path(__file__).resolve().parent.parent


def test_readme_examples():
    result = doctest.testfile(str(ROOT / "README.rst"), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 7
    assert result.failed == 0


def test_docstring_examples():
    for module in (framework.app, framework.errors, framework.validation, framework.schemas.typeschema):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, module.__name__


def test_readme_is_valid_restructuredtext():
    """README.rst is also the package's long description: docutils must read it cleanly."""
    import io

    import docutils.core

    warnings = io.StringIO()
    docutils.core.publish_doctree((ROOT / "README.rst").read_text(),
                                  settings_overrides={"warning_stream": warnings, "report_level": 2})
    assert warnings.getvalue() == ""


def test_the_readme_is_a_landing_page_under_300_lines():
    """The guide lives in docs/; the README says what the project is and points there."""
    lines = (ROOT / "README.rst").read_text().count("\n")
    assert lines < 300, f"README.rst has {lines} lines: move the text into a page under docs/"


def test_the_readme_has_no_untested_python():
    """Its Python is ``>>>`` examples, which run above: no ``code-block:: python``."""
    readme = (ROOT / "README.rst").read_text()
    assert not re.search(r"^\.\. (code-block|code|sourcecode):: *(python|py|python3)\s*$", readme, re.MULTILINE)


def test_the_readme_links_into_docs_name_files_that_exist():
    """The site is not hosted: the README links the pages' sources in the repository."""
    readme = (ROOT / "README.rst").read_text()
    links = set(re.findall(r"^\.\. _[^:]+: (\S+)$", readme, re.MULTILINE)) | set(
        re.findall(r"`[^`<]*<([^`>]+)>`_", readme))
    into_docs = sorted(link for link in links if link.startswith("docs/"))
    assert len(into_docs) >= 20, into_docs
    missing = [link for link in into_docs if not (ROOT / link).is_file()]
    assert missing == [], f"README.rst links to files that do not exist: {missing}"
    images = re.findall(r"^\.\. image:: (\S+)$", readme, re.MULTILINE)
    assert images and all((ROOT / image).is_file() for image in images), images


def test_the_typed_handlers_page_quotes_the_type_checked_example():
    """The typed-handlers page shows ``examples/typed_app.py`` (which CI type-checks) through
    ``literalinclude``, so what it shows cannot drift from the checked file (a marker that no
    longer matches fails the ``-W`` build)."""
    page = (ROOT / "docs" / "guide" / "typed-handlers.rst").read_text()
    assert page.count(".. literalinclude:: ../../examples/typed_app.py") >= 3
