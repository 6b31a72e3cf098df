"""Where the tests import the project from.

Run from a checkout (``PYTHONPATH=. pytest``), the repository root is put on ``sys.path``
and ``framework`` (with ``framework.plugins``) comes from the source tree.

Under tox (``FRAMEWORK_TEST_INSTALLED=1``, set in tox.ini) they must come from the
installed wheel instead, so that a packaging slip (a module or ``py.typed`` missing from
the wheel) fails CI: the root is kept off ``sys.path`` and an assertion below checks
``framework.__file__``. The example app and the benchmarks, which are not part of the
wheel, are then reached through ``SUPPORT_PATH``: a temporary directory holding only
symlinks to ``examples/`` and ``benchmarks/``, used on ``sys.path`` and as the
``PYTHONPATH``/working directory of the servers the tests start.
"""
from __future__ import annotations

import os
import pathlib
import sys
import sysconfig
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
INSTALLED = os.environ.get("FRAMEWORK_TEST_INSTALLED") == "1"


def _support_path() -> pathlib.Path:
    if not INSTALLED:
        return ROOT
    support = pathlib.Path(tempfile.mkdtemp(prefix="framework-test-support-"))
    for name in ("examples", "benchmarks"):
        (support / name).symlink_to(ROOT / name, target_is_directory=True)
    return support


def _under_root(entry: str) -> bool:
    path = pathlib.Path(entry or os.getcwd()).resolve()
    return path == ROOT


SUPPORT_PATH = _support_path()
# The example app (examples.app) is imported by some tests, and readies its SQLite store at
# import: keep its file out of the checkout (tests that serve it set their own ITEMS_DB).
os.environ.setdefault("ITEMS_DB", str(pathlib.Path(tempfile.mkdtemp(prefix="framework-test-items-")) / "items.sqlite3"))

if INSTALLED:
    # The root may arrive as '' (python -m pytest from the root) or through PYTHONPATH.
    sys.path[:] = [entry for entry in sys.path if not _under_root(entry)]
if str(SUPPORT_PATH) not in sys.path:
    sys.path.insert(0, str(SUPPORT_PATH))
# The helpers and server apps that test modules in several folders import by name
# (``from servers import start``, ``import mount_app``); pytest puts only each test
# module's own folder on sys.path.
SUPPORT_MODULES = pathlib.Path(__file__).resolve().parent / "support"
if str(SUPPORT_MODULES) not in sys.path:
    sys.path.insert(0, str(SUPPORT_MODULES))

import framework  # noqa: E402  (after the sys.path set-up above, on purpose)
import framework.plugins  # noqa: E402

if INSTALLED:
    _site = pathlib.Path(sysconfig.get_paths()["purelib"]).resolve()
    for _package in (framework, framework.plugins):
        _file = pathlib.Path(_package.__file__).resolve()
        assert _file.is_relative_to(_site), (
            f"{_package.__name__} imported from {_file}, not from the installed package in {_site}")
    assert (pathlib.Path(framework.__file__).parent / "py.typed").is_file(), "py.typed missing from the wheel"
