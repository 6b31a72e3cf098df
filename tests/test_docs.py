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


def typed_example_excerpts() -> list[tuple[str, str]]:
    """The literal (``::``) blocks of Python lines in the README and the docs that quote
    ``examples/typed_app.py``, as ``(file, block)`` dedented."""
    excerpts = []
    for path in [ROOT / "README.rst", *sorted((ROOT / "docs").rglob("*.rst"))]:
        text = path.read_text()
        for block in re.findall(r"(?<!code-block:: python)::\n\n((?:(?:    .*)?\n)+)", text):
            if "from framework.request import" in block:
                excerpts.append((str(path.relative_to(ROOT)), textwrap.dedent(block)))
    return excerpts


def test_literal_python_blocks_are_excerpts_of_the_typed_example():
    """A literal block of Python lines is an excerpt of ``examples/typed_app.py`` (which CI
    type-checks): line for line, in order."""
    excerpts = typed_example_excerpts()
    if not excerpts:
        pytest.skip("no page quotes examples/typed_app.py")
    example = (ROOT / "examples" / "typed_app.py").read_text().splitlines()
    for page, excerpt in excerpts:
        position = 0
        for line in (line.strip() for line in excerpt.splitlines() if line.strip()):
            found = [n for n, text in enumerate(example) if text.strip() == line and n >= position]
            assert found, (page, line)
            position = found[0]
