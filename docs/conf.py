"""Sphinx configuration: the API reference, built from the docstrings with autodoc.

Build it from the repository root (warnings are errors, as in CI)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

Only Sphinx's own extensions are used, and nothing is fetched from the network.
"""
from __future__ import annotations

import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Document the ``framework`` that Python imports: under tox the installed wheel (the suite's
# tests/test_api_docs.py builds these pages in its own process, where the wheel is already
# imported); from a checkout, ``python -m sphinx`` run at the repository root finds the
# source tree on sys.path by itself. Only when ``framework`` cannot be imported at all is
# the checkout added, as a fallback.
if importlib.util.find_spec("framework") is None:
    sys.path.insert(0, str(ROOT))

project = "framework"
author = "framework contributors"
copyright = "framework contributors"  # noqa: A001 (Sphinx's name)

# doctest: the guide's examples run (tests/test_api_docs.py builds with ``-b doctest``).
extensions = ["sphinx.ext.autodoc", "sphinx.ext.doctest"]

root_doc = "index"
exclude_patterns = ["_build"]


# Every page says ``:members:`` itself; base classes are shown (the error hierarchy).
autodoc_default_options = {
    "show-inheritance": True,
}
autodoc_member_order = "bysource"
# Type hints in the signatures (the docstrings describe parameters in prose).
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
autoclass_content = "both"

html_theme = "alabaster"
html_title = "framework API reference"
