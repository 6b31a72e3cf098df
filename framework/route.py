"""A route as declared: method, URL, handler, schema and options; the checks made at
declaration, and the shortcut forms (``get(path, handler)``, ``@get(path)``...)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .errors import (RouteBodyLimitError, RouteBodyValidationNotSupportedError, RouteDuplicatedHandlerError,
                     RouteMethodNotSupportedError, RouteMissingHandlerError, SchemaDuplicateError)
from .hooks import REQUEST_HOOKS, check_hook

if TYPE_CHECKING:
    from .compiled_route import CompiledRoute
    from .context import Context

#: Every method a route may declare (``all`` declares each of them).
SUPPORTED_METHODS = ("DELETE", "GET", "HEAD", "PATCH", "POST", "PUT", "OPTIONS", "PROPFIND",
                     "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK", "TRACE", "SEARCH")


class Route:
    """One declared route (one method, one URL). ``compiled`` is set at ``ready()`` (or at
    its first request with ``lazy=True``)."""

    __slots__ = ("method", "url", "options", "context", "compiled")

    def __init__(self, method: str, url: str, options: dict[str, Any], context: "Context") -> None:
        self.method = method
        self.url = url
        self.options = options
        self.context = context
        self.compiled: CompiledRoute | None = None

    @property
    def schema(self) -> dict[str, Any]:
        return self.options.get("schema") or {}

    def own_hooks(self, name: str) -> list[Callable[..., Any]]:
        """The request hooks given as route options (``on_request=fn`` or a list)."""
        own = self.options.get(name)
        if own is None:
            return []
        return list(own) if isinstance(own, (list, tuple)) else [own]

    def __repr__(self) -> str:
        return f"<Route {self.method} {self.url}>"


def check_route_options(options: dict[str, Any]) -> None:
    """Refuse a route that cannot work, at declaration (Fastify's FST_ERR_ROUTE_* checks)."""
    methods = options["method"]
    url = options["url"]
    if not callable(options.get("handler")):
        raise RouteMissingHandlerError(",".join(methods), url)
    for method in methods:
        if method not in SUPPORTED_METHODS:
            raise RouteMethodNotSupportedError(method)
    schema = options.get("schema")
    if schema is not None and not isinstance(schema, dict):
        raise TypeError(f"The schema of route {','.join(methods)}:{url} must be a dict")
    if schema:
        if "query" in schema and "querystring" in schema:
            raise SchemaDuplicateError("querystring")
        if "query" in schema:
            schema["querystring"] = schema.pop("query")
        if schema.get("body") is not None:
            for method in methods:
                if method in ("GET", "HEAD"):
                    raise RouteBodyValidationNotSupportedError(method, url)
    body_limit = options.get("body_limit")
    if body_limit is not None and (type(body_limit) is not int or body_limit <= 0):
        raise RouteBodyLimitError(body_limit)
    for name in REQUEST_HOOKS:
        hooks = options.get(name)
        if hooks is None:
            continue
        for hook in hooks if isinstance(hooks, (list, tuple)) else [hooks]:
            check_hook(name, hook)


def shortcut_options(method: str | list[str], path: str, options: Any, handler: Any,
                     extra: dict[str, Any]) -> dict[str, Any]:
    """Merge the ``(path, handler)``, ``(path, options, handler)`` and keyword forms."""
    if callable(options) and handler is None:
        handler, options = options, None
    if options is not None and not isinstance(options, dict):
        raise TypeError("Options for a route must be a dict")
    merged = dict(options or {})
    merged.update(extra)
    if handler is not None:
        if merged.get("handler") is not None:
            raise RouteDuplicatedHandlerError(method if isinstance(method, str) else ",".join(method), path)
        merged["handler"] = handler
    merged["method"] = method
    merged["url"] = path
    return merged


def normalize_methods(method: Any) -> list[str]:
    methods = [method] if isinstance(method, str) else list(method)
    return [m.upper() for m in methods]
