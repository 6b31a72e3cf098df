"""Static files (the @fastify/static plugin): serve a directory under a prefix.

::

    from framework import Framework
    from framework.plugins.static import static

    app = Framework()
    app.register(static, root="public", prefix="/assets")
    # GET /assets/css/site.css -> public/css/site.css (ETag, Last-Modified, Range, 304)
    # GET /assets/             -> public/index.html

The plugin is encapsulated (not ``plugin(...)``-wrapped): ``prefix`` is the ordinary
``register`` prefix, and its ``GET``/``HEAD`` routes ``{prefix}/*`` and ``{prefix}/``
are its own. Every file goes out through ``reply.send_file``.

A request can never leave ``root``: the path is joined with
``werkzeug.security.safe_join`` (``..``, absolute paths, and, since the router decodes
the path first, their percent-encoded forms are refused), the result's real path must
lie inside the root's real path (a symlink pointing out is refused), and any path
component starting with a dot (``.env``, ``.git/config``) is refused unless
``dotfiles=True``. A refused or missing path is the context's not-found answer (404),
never a 403 that would tell what exists.

Options: ``root`` (required: a directory), ``index`` (the file served for a directory;
default ``"index.html"``; ``None`` for none), ``max_age`` (``Cache-Control: max-age``
seconds; default none), ``dotfiles`` (default ``False``).
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from framework import Context, Reply, Request
from framework.lifecycle.files import resolve_under

__all__ = ["static", "StaticOptionsError"]

_OPTIONS = ("root", "index", "max_age", "dotfiles")


class StaticOptionsError(ValueError):
    """Options the static plugin cannot work with; raised when it loads (``ready()``)."""


def static(instance: Context, opts: Mapping[str, Any]) -> None:
    """The plugin: register it with ``root`` (and ``prefix``, ``index``, ``max_age``,
    ``dotfiles``) to serve that directory; see the module's description."""
    options = {key: value for key, value in dict(opts or {}).items() if key != "prefix"}
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise StaticOptionsError(f"static: unknown option(s) {', '.join(unknown)}; known: {', '.join(_OPTIONS)}")
    directory: str | os.PathLike[str] | None = options.get("root")
    if not isinstance(directory, (str, os.PathLike)) or not os.path.isdir(directory):
        raise StaticOptionsError(f"static: root has to be an existing directory, got {directory!r}")
    root = os.path.realpath(directory)
    index: str | None = options.get("index", "index.html")
    max_age: int | None = options.get("max_age")
    dotfiles = bool(options.get("dotfiles", False))

    def serve(request: Request, reply: Reply) -> Reply:
        relative = request.params.get("*", "")
        path = resolve_under(root, relative, dotfiles=dotfiles)
        if path is not None and os.path.isdir(path):
            path = resolve_under(path, index, dotfiles=dotfiles) if index else None
        if path is None or not os.path.isfile(path):
            return reply.call_not_found()
        return reply.send_file(path, max_age=max_age)

    instance.get("/*", serve)
    instance.get("/", serve)
