"""A route as declared: method, URL, handler, schema and options, and the shortcut forms."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .errors import (RouteBodyLimitError, RouteBodyValidationNotSupportedError, RouteDuplicatedHandlerError,
                     RouteMethodNotSupportedError, RouteMissingHandlerError, SchemaDuplicateError)
from .hooks import REQUEST_HOOKS, check_hook

if TYPE_CHECKING:
    from .context import Context

#: Every method a route may declare (``all`` declares each of them).
SUPPORTED_METHODS = ("DELETE", "GET", "HEAD", "PATCH", "POST", "PUT", "OPTIONS", "PROPFIND",
                     "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK", "TRACE", "SEARCH")
#: Methods whose body is parsed whenever one is announced.
BODY_METHODS = frozenset(("POST", "PUT", "PATCH", "TRACE", "SEARCH", "PROPFIND", "PROPPATCH",
                          "LOCK", "COPY", "MOVE", "MKCOL", "REPORT", "MKCALENDAR"))
#: Methods whose body is parsed only with both a content type and a length or transfer coding.
OPTIONAL_BODY_METHODS = frozenset(("OPTIONS", "DELETE"))
#: Methods whose body a schema may validate.
BODY_SCHEMA_METHODS = frozenset(("POST", "PUT", "PATCH"))


class Route:
    """One declared route (one method, one URL). ``handle`` is its compiled pipeline, set at ``ready()``."""

    __slots__ = ("method", "url", "options", "context", "handle", "hooks")

    def __init__(self, method: str, url: str, options: dict[str, Any], context: "Context") -> None:
        self.method = method
        self.url = url
        self.options = options
        self.context = context
        self.handle: Callable[..., Any] | None = None
        self.hooks: dict[str, list[Callable[..., Any]]] = {}

    @property
    def schema(self) -> dict[str, Any]:
        return self.options.get("schema") or {}

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
