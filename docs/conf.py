"""Sphinx configuration: the tutorial, the guide, the plugins' pages, the internals, and the
API reference built from the docstrings with autodoc.

Build it from the repository root (warnings are errors and every internal reference must
resolve, as in CI)::

    python -m sphinx -W -n --keep-going -b html docs docs/_build/html

Only Sphinx's own extensions are used, and nothing is fetched from the network.
"""
from __future__ import annotations

import importlib.util
import pathlib
import sys

from docutils import nodes

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

# doctest: every page's examples run (tests/test_api_docs.py builds with ``-b doctest``).
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
html_title = "framework"

# Nitpicky (``-n``): a :doc:, :ref:, :class: or other role that does not resolve is an
# error. Two kinds of target are let through, because they are not links anyone wrote and
# nothing is fetched from the network (no intersphinx for the standard library):
# - the type annotations autodoc turns into links in the reference's signatures
#   (``collections.abc.Mapping``, type variables, internal classes): they stay plain text
#   when they do not resolve (``type_annotation_as_text`` below);
# - these names written in docstrings, which are outside the documented modules:
nitpick_ignore = [
    ("py:func", "repr"),
    ("py:func", "hmac.compare_digest"),
    ("py:mod", "typing"),
    ("py:mod", "framework.schemas.codegen"),
    ("py:func", "framework.serving.cli.load_app"),
    ("py:func", "framework.schemas.store.normalize_input_schema"),
    ("py:class", "framework.schemas.store.RefIndex"),
    ("py:class", "framework.schemas.store.UnresolvableRefError"),
    ("py:class", "framework.schemas.codegen.Emitter"),
    ("py:mod", "keywords"),
    # the bases ``show-inheritance`` prints (a Mapping, a Generic's type variables)
    ("py:class", "collections.abc.Mapping"),
    ("py:class", "itsdangerous.signer.Signer"),
    ("py:class", "logging.Filter"),  # framework.plugins.otel.TraceContextFilter's base
    ("py:obj", "framework.request.BodyT"),
    ("py:obj", "framework.lifecycle.request.BodyT"),
    ("py:obj", "framework.lifecycle.request.QueryT"),
    ("py:obj", "framework.lifecycle.request.ParamsT"),
    ("py:obj", "framework.lifecycle.request.HeadersT"),
    ("py:obj", "framework.request.QueryT"),
    ("py:obj", "framework.request.ParamsT"),
    ("py:obj", "framework.request.HeadersT"),
]


def type_annotation_as_text(app, env, node, contnode):
    """A signature's type annotation that names nothing documented stays text. An
    annotation's cross-reference is made by autodoc without ``refexplicit``, which every
    role written in a page or a docstring has; those still fail the build."""
    if node.get("refdomain") == "py" and "refexplicit" not in node.attributes:
        return contnode
    return None


def run_reference_examples_in_their_module(app, doctree):
    """The doctest builder runs the docstrings' examples on a reference page in the
    namespace of the page's module (as ``doctest.testmod`` would), through a hidden
    ``testsetup`` added to the page. A reference page is named after its module."""
    docname = app.env.docname
    if not docname.startswith("reference/"):
        return
    module = docname.removeprefix("reference/")
    code = f"import importlib\nglobals().update(vars(importlib.import_module({module!r})))"
    doctree.insert(0, nodes.comment(code, code, testnodetype="testsetup", groups=["default"]))


def setup(app):
    app.connect("missing-reference", type_annotation_as_text)
    app.connect("doctree-read", run_reference_examples_in_their_module)
