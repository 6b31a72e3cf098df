"""The examples in README.rst and in the public docstrings run as written."""
import doctest
from pathlib import Path

import framework.app
import framework.errors
import framework.typeschema
import framework.validation

ROOT = Path(__file__).resolve().parent.parent


def test_readme_examples():
    result = doctest.testfile(str(ROOT / "README.rst"), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0


def test_docstring_examples():
    for module in (framework.app, framework.errors, framework.validation, framework.typeschema):
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
