"""The tests mirror the package: a test module sits in the folder of the part it tests
(``tests/lifecycle/`` for ``framework/lifecycle/``...), and stays short enough to read.

Only the flat core (the modules at the top of ``framework/``) and the checks of the
whole project are tested from the top of ``tests/``: ``TOP_LEVEL`` names them.
"""
import collections
import pathlib

import framework

TESTS = pathlib.Path(__file__).resolve().parent
PACKAGE = pathlib.Path(framework.__file__).resolve().parent

MAX_LINES = 600

#: Test modules allowed at the top of tests/: the flat core, then the whole project.
TOP_LEVEL = {
    "test_context.py", "test_decorators.py", "test_encapsulation.py", "test_errors.py",
    "test_loader.py", "test_misconfiguration.py", "test_mount.py", "test_settings.py",
    "test_api_docs.py", "test_architecture.py", "test_benchmarks_smoke.py", "test_docs.py",
    "test_packaging.py", "test_test_layout.py", "test_typing.py",
}

#: Test folders that mirror no subpackage of framework/: the example applications
#: (examples/) and the recorded cases of the JavaScript libraries we follow.
OTHER_FOLDERS = {"examples", "conformance"}


def modules():
    return sorted(TESTS.rglob("test_*.py"))


def test_no_test_module_is_longer_than_the_limit():
    long = {str(path.relative_to(TESTS)): count for path in modules()
            if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, f"split these by topic (at most {MAX_LINES} lines each)"


def test_only_the_core_and_the_whole_project_are_tested_from_the_top():
    top = {path.name for path in TESTS.glob("*.py")} - {"conftest.py"}
    assert top - TOP_LEVEL == set(), "move these into the folder of what they test (helpers: tests/support/)"


def test_every_test_folder_mirrors_a_subpackage_or_is_named():
    subpackages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    folders = {path.relative_to(TESTS).parts[0] for path in modules() if path.parent != TESTS}
    assert folders - subpackages - OTHER_FOLDERS == set()


def test_test_module_names_are_unique():
    """pytest imports test modules by their name (no ``__init__.py`` files): two of the
    same name in different folders cannot both be collected."""
    counts = collections.Counter(path.name for path in modules())
    assert {name for name, count in counts.items() if count > 1} == set()
