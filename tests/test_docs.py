"""The examples in README.rst and in the public docstrings run as written."""
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
    assert result.attempted > 10
    assert result.failed == 0


def test_docstring_examples():
    for module in (framework.app, framework.errors, framework.validation, framework.schemas.typeschema):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, module.__name__


def test_readme_shows_the_example_commands_and_outputs_the_server_test_checks():
    from test_example_app import README_EXAMPLES, README_WRAPPED_EXAMPLES
    readme = (ROOT / "README.rst").read_text()
    for example in README_EXAMPLES + README_WRAPPED_EXAMPLES:
        shown = "$ " + example["curl"] + "\n" + "".join(
            "    " + line + "\n" if line else "\n" for line in example["output"].rstrip("\n").split("\n"))
        assert "    " + shown in readme, example["curl"]


def test_readme_is_valid_restructuredtext():
    """README.rst is also the package's long description: docutils must read it cleanly."""
    import io

    import docutils.core

    warnings = io.StringIO()
    docutils.core.publish_doctree((ROOT / "README.rst").read_text(),
                                  settings_overrides={"warning_stream": warnings, "report_level": 2})
    assert warnings.getvalue() == ""


def readme_blocks(kind: str) -> list[str]:
    """The README's ``.. code-block:: python`` blocks (``kind="python"``), or its literal
    ``::`` blocks (``kind="literal"``), dedented."""
    readme = (ROOT / "README.rst").read_text()
    opening = r"^\.\. code-block:: python\n\n" if kind == "python" else r"(?<!code-block:: python)::\n\n"
    return [textwrap.dedent(block) for block in re.findall(opening + r"((?:(?:    .*)?\n)+)", readme, re.MULTILINE)]


PYTHON_BLOCKS = readme_blocks("python")


def test_every_python_block_of_the_readme_is_run_below():
    assert len(PYTHON_BLOCKS) == (ROOT / "README.rst").read_text().count(".. code-block:: python") == 5


@pytest.mark.parametrize("source", PYTHON_BLOCKS, ids=lambda source: source.split("import ")[1].split()[0])
def test_readme_python_block_runs_as_written(source):
    """Each block runs on its own (imports included) and its application readies: the
    doctests above cover the README's other examples."""
    namespace: dict = {}
    if "app = Framework(" not in source:  # a block continuing the application above it
        from framework import Framework
        namespace["app"] = Framework()
    exec(compile(source, "README.rst", "exec"), namespace)
    app = namespace["app"]
    app.ready()
    app.close()


def test_readme_literal_python_blocks_are_excerpts_of_the_typed_example():
    """A literal block of Python lines is an excerpt of ``examples/typed_app.py`` (which CI
    type-checks): line for line, in order."""
    example = (ROOT / "examples" / "typed_app.py").read_text()
    excerpts = [block for block in readme_blocks("literal") if "from framework.request import" in block]
    assert len(excerpts) == 1
    lines = [line.strip() for line in excerpts[0].splitlines() if line.strip()]
    position = 0
    for line in lines:
        found = [n for n, text in enumerate(example.splitlines()) if text.strip() == line and n >= position]
        assert found, line
        position = found[0]
