"""Whether a function the application gives (a route handler, a hook) can be called with
the arguments the framework will pass it: checked at declaration, so that a mistake is an
error naming the function, not a 500 on every request."""
from __future__ import annotations

import inspect
from typing import Any, Callable


def call_mismatch(fn: Callable[..., Any], parameters: tuple[str, ...]) -> tuple[str, str] | None:
    """Why ``fn`` cannot be called with one positional argument per name of ``parameters``:
    ``(name and signature, reason)``, e.g. ``("add_header(payload)", "too many positional
    arguments")``; ``None`` when it can, or when its signature cannot be read (a builtin:
    trusted)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind(*parameters)
    except TypeError as error:
        name = getattr(fn, "__qualname__", None) or type(fn).__name__
        return f"{name}{signature}", str(error)
    return None
