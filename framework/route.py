"""A route as declared: method, URL, handler, schema and options; the checks made at
declaration, and the shortcut forms (``get(path, handler)``, ``@get(path)``...)."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Generic, Iterable

from typing_extensions import TypeGuard, TypeVar

from .errors import (RouteBodyLimitError, RouteBodyValidationNotSupportedError, RouteDuplicatedHandlerError,
                     RouteHandlerSignatureError, RouteMethodNotSupportedError, RouteMissingHandlerError,
                     RoutePathSyntaxError, RouteUnknownOptionError, SchemaDuplicateError, SchemaUnknownKeyError)
from .lifecycle.hooks import REQUEST_HOOKS, check_hook
from .names import suggest_snake_name
from .schemas.store import is_object
from .signatures import call_mismatch

if TYPE_CHECKING:
    from .lifecycle.compiled_route import CompiledRoute

#: Every method a route may declare (``all`` declares each of them).
SUPPORTED_METHODS = ("DELETE", "GET", "HEAD", "PATCH", "POST", "PUT", "OPTIONS", "PROPFIND",
                     "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK", "TRACE", "SEARCH")


#: Every option a route accepts, and what it is for. An option not listed here is refused
#: at declaration (a misspelt ``pre_handler`` must not serve the route unprotected): a new
#: feature that reads a route option adds it here.
ROUTE_OPTIONS: dict[str, str] = {
    "method": "the HTTP method(s)",
    "url": "the path",
    "handler": "handler(request, reply)",
    "schema": "the route's schemas (see SCHEMA_KEYS)",
    "attach_validation": "put a validation failure on request.validation_error instead of answering 400",
    "validator_compiler": "the route's own validator compiler",
    "serializer_compiler": "the route's own serializer compiler",
    "schema_error_formatter": "the route's own schema error formatter",
    "error_handler": "error_handler(error, request, reply), before the contexts' error handlers",
    "expose_head_route": "False: no HEAD route is added for this GET route",
    "config": "free-form: anything, read back as request.route_options['config']",
    "body_limit": "the largest body accepted, in bytes",
    "strict_accept": "True: an Accept header matching none of the route's media types is answered 406",
    "prefix": "set by the framework: the context's prefix",
    "mount": "set by instance.mount: the body is left unread for the mounted WSGI application",
    "types": "set by the framework: the Python types the route's schemas came from (framework.typeschema), "
             "by schema part, with where each was given ('schema' or 'annotation')",
    "log_level": "the route's log level ('info', 'warn', 'silent'... or a logging level): request.log and "
                 "the request log lines below it are dropped",
    **{name: f"{name} hook(s) of this route only" for name in REQUEST_HOOKS},
}

#: Every key a route's ``schema`` accepts. The documentation keys are read only by
#: documentation generators (OpenAPI); they change nothing on the request path.
SCHEMA_KEYS: dict[str, str] = {
    "body": "the body's schema (POST, PUT, PATCH)",
    "querystring": "the query string's schema",
    "query": "alias of querystring",
    "params": "the path parameters' schema",
    "headers": "the request headers' schema",
    "response": "response schemas by status",
    **{key: "documentation only" for key in ("summary", "description", "tags", "operation_id", "deprecated",
                                             "hide", "security", "consumes", "produces", "external_docs")},
}

#: ``/x/<id>`` (Flask) and ``/x/{id}`` (FastAPI, OpenAPI).
_FOREIGN_PARAMETER = re.compile(r"<(?:[^<>/:]+:)?([^<>/]+)>|\{([^{}/]+)\}")


def _unknown_names_message(names: list[str], known: Iterable[str]) -> str:
    parts: list[str] = []
    for name in names:
        suggestion = suggest_snake_name(name, known)
        parts.append(f"'{name}' (did you mean '{suggestion}'?)" if suggestion else f"'{name}'")
    return ", ".join(parts)


def _is_list(value: Any) -> TypeGuard["list[Any] | tuple[Any, ...]"]:
    """Whether an option holds several values (a list or tuple of hooks, say)."""
    return isinstance(value, (list, tuple))


#: The class of the context that declared a route: ``framework.context.Context`` for the
#: routes a context declares (``Context.routes()`` says so). Generic rather than imported,
#: so that this module sits below the context tree; a bare ``Route`` leaves it open (``Any``).
ContextT = TypeVar("ContextT", default=Any)


class Route(Generic[ContextT]):
    """One declared route (one method, one URL). ``compiled`` is set at ``ready()`` (or at
    its first request with ``lazy=True``)."""

    __slots__ = ("method", "url", "options", "context", "compiled", "plugin")

    def __init__(self, method: str, url: str, options: dict[str, Any], context: ContextT,
                 plugin: str = "root") -> None:
        self.method = method
        self.url = url
        self.options = options
        self.context = context
        #: The name of the plugin that declared the route (``"root"``: the application's own code).
        self.plugin = plugin
        self.compiled: CompiledRoute | None = None

    @property
    def schema(self) -> dict[str, Any]:
        """The route's schemas (``{}`` for none), with Python types converted to JSON Schema."""
        schema: dict[str, Any] = self.options.get("schema") or {}
        return schema

    def own_hooks(self, name: str) -> list[Callable[..., Any]]:
        """The request hooks given as route options (``on_request=fn`` or a list)."""
        own = self.options.get(name)
        if own is None:
            return []
        return list(own) if _is_list(own) else [own]

    def __repr__(self) -> str:
        return f"<Route {self.method} {self.url}>"


def check_route_options(options: dict[str, Any]) -> None:
    """Refuse a route that cannot work, at declaration (Fastify's FST_ERR_ROUTE_* checks).
    A schema's ``query`` alias becomes ``querystring`` in a new ``options["schema"]``."""
    methods = options["method"]
    url = options["url"]
    route = f"{','.join(methods)}:{url}"
    unknown = [name for name in options if name not in ROUTE_OPTIONS]
    if unknown:
        raise RouteUnknownOptionError(route, _unknown_names_message(unknown, ROUTE_OPTIONS),
                                      ", ".join(sorted(ROUTE_OPTIONS)))
    handler = options.get("handler")
    if not callable(handler):
        raise RouteMissingHandlerError(",".join(methods), url)
    check_handler_signature(handler, route)
    check_path_syntax(url)
    for method in methods:
        if method not in SUPPORTED_METHODS:
            raise RouteMethodNotSupportedError(method)
    schema: dict[str, Any] | None = options.get("schema")
    if schema is not None and not isinstance(schema, dict):
        raise TypeError(f"The schema of route {','.join(methods)}:{url} must be a dict")
    if schema:
        unknown = [key for key in schema if key not in SCHEMA_KEYS]
        if unknown:
            raise SchemaUnknownKeyError(route, _unknown_names_message(unknown, SCHEMA_KEYS),
                                        ", ".join(SCHEMA_KEYS))
        if "query" in schema and "querystring" in schema:
            raise SchemaDuplicateError("querystring")
        if "query" in schema:  # a new dict: the caller's schema is read, never written
            schema = options["schema"] = {("querystring" if key == "query" else key): value
                                          for key, value in schema.items()}
        if schema.get("body") is not None:
            for method in methods:
                if method in ("GET", "HEAD"):
                    raise RouteBodyValidationNotSupportedError(method, url)
    body_limit = options.get("body_limit")
    if body_limit is not None and (type(body_limit) is not int or body_limit <= 0):
        raise RouteBodyLimitError(body_limit)
    if options.get("log_level") is not None:
        from .lifecycle.request_log import parse_level
        parse_level(options["log_level"])  # a ValueError names the accepted levels
    for name in REQUEST_HOOKS:
        hooks = options.get(name)
        if hooks is None:
            continue
        for hook in hooks if _is_list(hooks) else [hooks]:
            check_hook(name, hook)
    error_handler = options.get("error_handler")
    if error_handler is not None and not callable(error_handler):
        raise TypeError(f"The error_handler of route {route} must be a function (error, request, reply), "
                        f"got {type(error_handler).__name__}")
    strict_accept = options.get("strict_accept")
    if strict_accept is not None and not isinstance(strict_accept, bool):
        raise TypeError(f"The strict_accept option of route {route} must be True or False")
    expose_head_route = options.get("expose_head_route")
    if expose_head_route is not None and not isinstance(expose_head_route, bool):
        raise TypeError(f"The expose_head_route option of route {route} must be True or False")


def check_handler_signature(handler: Callable[..., Any], route: str) -> None:
    """Refuse a handler that cannot be called as ``handler(request, reply)``."""
    mismatch = call_mismatch(handler, ("request", "reply"))
    if mismatch is not None:
        raise RouteHandlerSignatureError(route, *mismatch)


def check_path_syntax(url: str) -> None:
    """Refuse Flask's ``/x/<id>`` and FastAPI's ``/x/{id}`` (they would be static paths
    here), and parameter names no parameter can have (``routing.check_parameter_names``)."""
    if not isinstance(url, str):
        raise TypeError(f"A route's url must be a string, got {type(url).__name__}")
    from .routing.router import check_parameter_names, strip_regexes
    if _FOREIGN_PARAMETER.search(strip_regexes(url)):  # ":id(\\d{3})": a regex's braces are not FastAPI's
        fixed = _FOREIGN_PARAMETER.sub(lambda m: ":" + (m.group(1) or m.group(2)).strip(), url)
        raise RoutePathSyntaxError(url, fixed)
    check_parameter_names(url)


def shortcut_options(method: str | list[str], path: str, options: dict[str, Any] | Callable[..., Any] | None,
                     handler: Callable[..., Any] | None, extra: dict[str, Any]) -> dict[str, Any]:
    """Merge the ``(path, handler)``, ``(path, options, handler)`` and keyword forms."""
    if callable(options) and handler is None:
        handler, options = options, None
    if options is None:
        merged: dict[str, Any] = {}
    elif is_object(options):
        merged = dict(options)
    else:
        raise TypeError("Options for a route must be a dict")
    merged.update(extra)
    if handler is not None:
        if merged.get("handler") is not None:
            raise RouteDuplicatedHandlerError(method if isinstance(method, str) else ",".join(method), path)
        merged["handler"] = handler
    merged["method"] = method
    merged["url"] = path
    return merged


def normalize_methods(method: str | Iterable[str]) -> list[str]:
    """``"get"`` or ``["get", "post"]`` -> ``["GET"]`` or ``["GET", "POST"]``."""
    methods = [method] if isinstance(method, str) else list(method)
    return [m.upper() for m in methods]
