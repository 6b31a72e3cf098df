"""ETags and conditional requests (the @fastify/etag plugin, with RFC 9110's preconditions).

``etag`` is wrapped with ``plugin(...)``: it applies to the routes of the context that
registers it and of that context's descendants, and to no other route::

    from framework import Framework
    from framework.plugins.etag import etag

    app = Framework()
    app.register(etag)                       # every GET route of the app

    @app.get("/items/:id")
    def item(request, reply):
        return {"id": request.params["id"], "name": "lamp"}

A ``200`` answer of a ``GET`` (or ``HEAD``) route gets an ``ETag``: a strong validator,
the quoted BLAKE2b hash (16 bytes, in hex) of the body bytes, computed after
serialization. A request whose ``If-None-Match`` names it (weak comparison, as RFC 9110
says for ``If-None-Match``; ``*`` matches any) is answered ``304 Not Modified`` with the
``ETag`` and no body. A handler that sets ``ETag`` itself keeps it (nothing is hashed),
and a handler that sets ``Last-Modified`` gets ``If-Modified-Since`` answered too (when
the request has no ``If-None-Match``). Streams, files and werkzeug responses are left
alone (``reply.send_file`` has its own validators); so are other statuses.

Per route, the route's ``config["etag"]``:

``False``
    No ETag on this route.
``True``
    The route gets ETags even when the plugin was registered with ``routes="config"``.
a callable
    ``fn(request, payload) -> str``: the route's ETag, computed from the payload *before*
    serialization (a version number, an ``updated_at``...) instead of hashing the
    body. A bare value is quoted (``"v7"`` becomes ``"\\"v7\\""``); a quoted or ``W/``
    tag is sent as is.

Unsafe methods. A handler that changes a resource calls ``request.precondition(etag,
last_modified=None)`` with the resource's *current* ETag (``None`` when it does not exist)
and last modification time before changing it; it raises ``PreconditionFailedError``
(``412``) when ``If-Match`` names no current tag (strong comparison; ``*`` needs the
resource to exist), when ``If-Unmodified-Since`` is older than ``last_modified`` (only
without ``If-Match``), or when ``If-None-Match`` matches (``If-None-Match: *`` on a
``PUT`` refuses to overwrite an existing resource). On ``GET``/``HEAD`` it checks
``If-Match`` and ``If-Unmodified-Since`` only: ``If-None-Match`` is the ETag hook's. A
route declaring ``config={"precondition": True}`` gets the ``412`` documented by
``framework.plugins.openapi``; ``"required"`` also answers ``428 Precondition Required``
to a request with neither ``If-Match`` nor ``If-Unmodified-Since`` (a client has to say
which version it changes: no lost updates). Routes with ETags get their ``304``
documented.

Options:

``algorithm``
    ``"blake2b"`` (default) or ``"sha256"`` (its first 16 bytes), from ``hashlib``.
``weak``
    ``True`` sends ``W/"..."`` tags (the body may change in ways that do not matter).
``routes``
    ``"all"`` (default): every ``GET`` route in scope unless its config says ``False``;
    ``"config"``: only those whose config says ``etag``.

With ``framework.plugins.compress``, the hook runs before compression (whatever the
order of registration): the tag is the uncompressed body's, and compression turns a
strong tag weak (as nginx does), which ``If-None-Match`` still matches.
"""
from __future__ import annotations

import datetime
import hashlib
from collections.abc import Mapping
from typing import Any, Callable, cast

from werkzeug.http import parse_date, parse_etags, quote_etag, unquote_etag

from framework import Context, Reply, Request, plugin
from framework.errors import create_error

__all__ = ["etag", "ETagOptionsError", "PreconditionFailedError", "PreconditionRequiredError", "body_tag",
           "precondition"]

#: ``request.precondition(...)`` found a precondition false: 412.
PreconditionFailedError = create_error("FST_ETAG_PRECONDITION_FAILED", "precondition failed: %s", 412)
#: A route with ``config={"precondition": "required"}`` got an unconditional request: 428.
PreconditionRequiredError = create_error(
    "FST_ETAG_PRECONDITION_REQUIRED", "this request has to be conditional (send If-Match)", 428)

_ALGORITHMS: Mapping[str, Callable[[bytes], str]] = {
    "blake2b": lambda body: hashlib.blake2b(body, digest_size=16).hexdigest(),
    "sha256": lambda body: hashlib.sha256(body).hexdigest()[:32],
}
_OPTIONS = ("algorithm", "weak", "routes")
_SAFE = frozenset(("GET", "HEAD"))
_NOT_MODIFIED = {"description": "Not Modified (the representation named by If-None-Match is current)"}
# The framework's error body, as framework.plugins.openapi names it (a problem document under errors="problem+json").
_ERROR_CONTENT = {"application/json": {"schema": {"$ref": "#/components/schemas/FrameworkError"}}}
_FAILED = {"description": "Precondition Failed (If-Match, If-None-Match or If-Unmodified-Since is false)",
           "content": _ERROR_CONTENT}
_REQUIRED = {"description": "Precondition Required (send If-Match)", "content": _ERROR_CONTENT}


class ETagOptionsError(ValueError):
    """Options or a route config the etag plugin cannot work with; raised at ``ready()``."""


def body_tag(body: bytes, algorithm: str = "blake2b", weak: bool = False) -> str:
    """The ETag the plugin sends for ``body``: the quoted hash (``W/`` prefixed when weak)."""
    return quote_etag(_ALGORITHMS[algorithm](body), weak)


def _quoted(tag: str) -> str:
    return tag if tag.startswith(('"', 'W/"')) else quote_etag(tag)


class ETagCheck:
    """A route's ``on_send`` hook: tag a ``200`` body, answer ``304`` when ``If-None-Match``
    (or ``If-Modified-Since``) says the client has it."""

    __slots__ = ("hash", "weak", "compute")
    #: What ``framework.plugins.openapi`` documents for the routes carrying it.
    openapi_responses: Mapping[str, Any] = {"304": _NOT_MODIFIED}

    def __init__(self, algorithm: str, weak: bool, compute: Callable[[Request, Any], str] | None) -> None:
        self.hash = _ALGORITHMS[algorithm]
        self.weak = weak
        self.compute = compute

    def tag_payload(self, request: Request, reply: Reply, payload: Any) -> Any:
        """The ``pre_serialization`` hook of a route with a callable ``config["etag"]``."""
        compute = self.compute
        if compute is not None and reply.status_code == 200 and not reply.has_header("etag"):
            reply.header("etag", _quoted(str(compute(request, payload))))
        return payload

    def __call__(self, request: Request, reply: Reply, payload: Any) -> Any:
        if reply.status_code != 200:
            return payload
        kind = type(cast(object, payload))
        if kind is not str and kind is not bytes:
            return payload  # a stream, a file, a werkzeug response: not ours to tag
        tag = reply.get_header("etag")
        if tag is None:
            digest = self.hash(payload.encode() if kind is str else payload)  # hex: a valid tag as is
            tag = f'W/"{digest}"' if self.weak else f'"{digest}"'
            reply.header("etag", tag)
        environ = request.environ
        if_none_match = environ.get("HTTP_IF_NONE_MATCH")
        if if_none_match is not None:
            if type(tag) is str and parse_etags(if_none_match).contains_weak(unquote_etag(tag)[0]):
                reply.code(304)
                return b""
            return payload
        if_modified_since = environ.get("HTTP_IF_MODIFIED_SINCE")
        if if_modified_since is not None:
            last_modified = reply.get_header("last-modified")
            since = parse_date(if_modified_since)
            modified = parse_date(last_modified) if type(last_modified) is str else None
            if since is not None and modified is not None and modified <= since:
                reply.code(304)
                return b""
        return payload


class PreconditionRequired:
    """The ``pre_handler`` hook of a route with ``config={"precondition": ...}``: it documents
    the route's ``412`` (and ``428``), and when required refuses an unconditional request."""

    __slots__ = ("required", "openapi_responses")

    def __init__(self, required: bool) -> None:
        self.required = required
        self.openapi_responses: Mapping[str, Any] = {"412": _FAILED, **({"428": _REQUIRED} if required else {})}

    def __call__(self, request: Request, reply: Reply) -> None:
        if self.required:
            environ = request.environ
            if "HTTP_IF_MATCH" not in environ and "HTTP_IF_UNMODIFIED_SINCE" not in environ:
                raise PreconditionRequiredError()


def _utc_seconds(moment: datetime.datetime) -> datetime.datetime:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.replace(microsecond=0)


def precondition(request: Request, etag: str | None, last_modified: datetime.datetime | None = None) -> None:
    """``request.precondition(etag, last_modified=None)``: raise ``PreconditionFailedError``
    (412) when the request's preconditions are false for the resource as it is now (``etag``
    its current ETag, quoted or bare, ``None`` when it does not exist), in RFC 9110's order
    (section 13.2.2)."""
    environ = request.environ
    current = unquote_etag(_quoted(etag))[0] if etag is not None else None
    weak_current = etag is not None and etag.startswith("W/")
    if_match = environ.get("HTTP_IF_MATCH")
    if if_match is not None:
        tags = parse_etags(if_match)
        # Strong comparison: a weak current tag matches nothing but "*".
        if current is None or not (tags.star_tag or (not weak_current and tags.contains(current))):
            raise PreconditionFailedError("If-Match names no current representation")
    elif last_modified is not None and "HTTP_IF_UNMODIFIED_SINCE" in environ:
        since = parse_date(environ["HTTP_IF_UNMODIFIED_SINCE"])
        if since is not None and _utc_seconds(last_modified) > since:
            raise PreconditionFailedError("modified since If-Unmodified-Since")
    if environ["REQUEST_METHOD"] in _SAFE:
        return  # If-None-Match and If-Modified-Since on GET: the ETag hook's 304
    if_none_match = environ.get("HTTP_IF_NONE_MATCH")
    if if_none_match is not None and current is not None:
        tags = parse_etags(if_none_match)
        if tags.star_tag or tags.contains_weak(current):
            raise PreconditionFailedError("If-None-Match names a current representation")


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        items: list[Any] = list(value)  # pyright: ignore[reportUnknownArgumentType]
        return items
    return [value]


class ETags:
    """One registration: its options, and how it equips a route (an ``on_route`` hook)."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        for key in options:
            if key not in _OPTIONS and key != "prefix":
                raise ETagOptionsError(f"etag: unknown option {key!r}; known: {', '.join(_OPTIONS)}")
        self.algorithm = options.get("algorithm", "blake2b")
        if self.algorithm not in _ALGORITHMS:
            raise ETagOptionsError(f"etag: algorithm has to be one of {', '.join(map(repr, _ALGORITHMS))}, "
                                   f"not {self.algorithm!r}")
        self.weak = options.get("weak", False)
        if not isinstance(self.weak, bool):
            raise ETagOptionsError(f"etag: weak has to be True or False, not {self.weak!r}")
        self.routes = options.get("routes", "all")
        if self.routes not in ("all", "config"):
            raise ETagOptionsError(f"etag: routes has to be 'all' or 'config', not {self.routes!r}")
        self.check = ETagCheck(self.algorithm, self.weak, None)

    def install(self, options: dict[str, Any]) -> None:
        """Put this registration's hooks into a route's options (replacing an ancestor's)."""
        for name in ("on_send", "pre_serialization", "pre_handler"):
            listed = _listed(options.get(name))
            kept = [hook for hook in listed if not isinstance(getattr(hook, "__self__", hook),
                                                                    (ETagCheck, PreconditionRequired))]
            if len(kept) != len(listed):
                options[name] = kept or None
        config = cast("Mapping[str, Any]", options.get("config") or {})
        methods = {str(method).upper() for method in _listed(options.get("method"))}
        wanted = config.get("etag", self.routes == "all")
        if wanted is not False and methods & _SAFE:
            if callable(wanted):
                check = ETagCheck(self.algorithm, self.weak, cast("Callable[[Request, Any], str]", wanted))
                options["pre_serialization"] = [*_listed(options.get("pre_serialization")), check.tag_payload]
            elif wanted is True:
                check = self.check
            else:
                raise ETagOptionsError(f"etag: config['etag'] of {options.get('url')!r} has to be True, False or "
                                       f"a function (request, payload) -> str, not {wanted!r}")
            # Before an encoding hook (framework.plugins.compress): the tag is the plain body's.
            hooks = _listed(options.get("on_send"))
            at = next((i for i, hook in enumerate(hooks) if getattr(hook, "encodes_body", False)), len(hooks))
            hooks.insert(at, check)
            options["on_send"] = hooks
        required = config.get("precondition")
        if required is not None and required is not False:
            if required not in (True, "required"):
                raise ETagOptionsError(f"etag: config['precondition'] of {options.get('url')!r} has to be True "
                                       f"or 'required', not {required!r}")
            options["pre_handler"] = [*_listed(options.get("pre_handler")), PreconditionRequired(required == "required")]


def _etag(instance: Context, opts: Mapping[str, Any]) -> None:
    registration = ETags(dict(opts or {}))
    if not instance.has_request_decorator("precondition"):
        instance.decorate_request("precondition", precondition)
    for route in instance.routes():  # routes declared before the plugin loaded
        registration.install(route.options)
    instance.add_hook("on_route", registration.install)


_etag.__doc__ = __doc__
#: The plugin: ``register(etag)`` or ``register(etag, routes="config")``. Runs in the registering context.
etag = plugin(_etag, name="etag")
