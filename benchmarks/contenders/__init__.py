"""The contenders: one module per framework, each serving S1-S4 idiomatically.

Every module defines ``NAME`` (short key), ``LABEL``, ``KIND`` (``"wsgi"`` or
``"asgi"``), ``REQUIRES`` (importable distributions it needs) and
``create_app()`` returning the application.  ``create_app`` is also the factory
the HTTP runner hands to gunicorn (``module:create_app()``), granian and
uvicorn (``--factory``).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util

# Order matters only for display: ours first, then the twin, then the peers.
ORDER = ("ours", "ours_logged", "ours_typed", "ours_dataclass", "handwritten", "falcon", "flask", "bottle", "fastapi", "litestar")
#: Run only when named (``--contenders``): S2's floor measures the API, not a framework.
NAMED_ONLY = ("floor",)
KNOWN = ORDER + NAMED_ONLY

_MODULES = {
    "ours": "benchmarks.contenders.ours",
    "ours_logged": "benchmarks.contenders.ours_logged",
    "ours_typed": "benchmarks.contenders.ours_typed",
    "ours_dataclass": "benchmarks.contenders.ours_dataclass",
    "handwritten": "benchmarks.contenders.handwritten",
    "floor": "benchmarks.contenders.floor",
    "falcon": "benchmarks.contenders.falcon_app",
    "flask": "benchmarks.contenders.flask_app",
    "bottle": "benchmarks.contenders.bottle_app",
    "fastapi": "benchmarks.contenders.fastapi_app",
    "litestar": "benchmarks.contenders.litestar_app",
}


def module_path(name: str) -> str:
    return _MODULES[name]


def load(name: str):
    return importlib.import_module(_MODULES[name])


def missing(name: str) -> list[str]:
    """Import names this contender needs that are not installed."""
    mod = load(name)
    return [req for req in mod.REQUIRES if importlib.util.find_spec(req) is None]


def version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def describe(name: str) -> str:
    mod = load(name)
    dist = getattr(mod, "DIST", None)
    ver = version(dist) if dist else "-"
    return mod.LABEL if ver == "-" else f"{mod.LABEL} {ver}"
