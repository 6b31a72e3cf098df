"""Bearer-token authentication (the @fastify/bearer-auth plugin, RFC 6750).

``bearer_auth`` is wrapped with ``plugin(...)``: it guards the routes of the context that
registers it and of that context's descendants, and nothing else. Register it inside a
child plugin to keep the other routes public::

    from framework import Framework
    from framework.plugins.bearer_auth import bearer_auth

    app = Framework()

    def private(instance, opts):
        instance.register(bearer_auth, keys={"a-secret-key"})
        instance.get("/private", lambda request, reply: {"hello": "friend"})

    app.register(private)
    app.get("/public", lambda request, reply: {"hello": "world"})

    # GET /public                                     -> 200 {"hello": "world"}
    # GET /private                                    -> 401 {"error": "missing authorization header"}
    #                                                    WWW-Authenticate: Bearer
    # GET /private  Authorization: Bearer nope        -> 401 {"error": "invalid authorization header"}
    #                                                    WWW-Authenticate: Bearer error="invalid_token"
    # GET /private  Authorization: Basic a-secret-key -> 401 {"error": "invalid authorization header"}
    #                                                    WWW-Authenticate: Bearer error="invalid_request"
    # GET /private  Authorization: Bearer a-secret-key -> 200 {"hello": "friend"}

Options:

``keys``
    The accepted keys: a list, tuple, set (or other non-string iterable) of RFC 6750
    tokens (token68: ASCII letters, digits, ``-._~+/``, then optional ``=`` padding).
    Required unless ``auth`` is given.
``auth``
    ``auth(key, request) -> bool`` decides instead of ``keys`` (``keys`` is then not
    used). It may be ``async`` (awaited). A result that is not a ``bool`` is a 500
    ``{"error": "internal server error"}``; an exception it raises goes to the
    application's error handling like any hook error.
``error_response``
    ``error_response(err) -> payload`` builds the body of a refusal; ``err`` is the
    exception (``err.message``, ``err.status_code``, ``err.code``). Default:
    ``{"error": err.message}``; in an application made with
    ``Framework(errors="problem+json")``, an RFC 9457 problem document
    (:class:`framework.Problem`: ``type``, ``title``, ``status``, ``detail`` the message,
    ``instance`` the request's path, and ``code``), sent as ``application/problem+json``.
``content_type``
    The content type of a refusal (e.g. ``"application/problem+json"``); default JSON (the
    problem's own with the default ``error_response`` of ``errors="problem+json"``).
``bearer_type``
    The scheme word, ``"Bearer"``.
``spec_compliance``
    ``"rfc6750"`` (default): the scheme must be written exactly (``Bearer``);
    ``"rfc6749"``: any case (``bearer``, ``BEARER``).
``realm``
    Adds ``realm="..."`` to the ``WWW-Authenticate`` header. Default none.
``add_hook``
    ``True`` (default): an ``on_request`` hook checks every request of the guarded
    routes, before the body is read. ``False``: no hook; the registering context gets
    ``verify_bearer_auth(request, reply)`` (and ``verify_bearer_auth_factory(**options)``
    for a verifier with other options) to place as a route's ``on_request`` or
    ``pre_handler``; it answers the same 401s. The decorator exists once the plugin has
    loaded, so declare those routes in a plugin registered after it::

        def admin(instance, opts):
            instance.register(bearer_auth, keys=["admin-key"], add_hook=False)

            def routes(inner, opts):
                inner.get("/admin", handler, on_request=inner.verify_bearer_auth)
                inner.get("/status", status)           # public

            instance.register(routes)

The header must be ``Bearer``, one or more spaces, then a token68 (RFC 6750 2.1); spaces
and tabs around the whole header value are ignored (HTTP's OWS), nothing else: a key
followed by any other character, such as U+00A0 or U+0085, is refused. The key is compared
with every configured key (SHA-256 digests through :func:`hmac.compare_digest`, so
neither the key's length nor which key matched shows in the timing). Refusals:

=====================================================  ===  ==================================  ======================================
request                                                 st   body ``error``                      ``WWW-Authenticate``
=====================================================  ===  ==================================  ======================================
no ``Authorization`` header (or an empty one)          401  ``missing authorization header``    ``Bearer``
other scheme, no space or no token68 after ``Bearer``  401  ``invalid authorization header``    ``Bearer error="invalid_request"``
unknown key, or ``auth`` returned ``False``            401  ``invalid authorization header``    ``Bearer error="invalid_token"``
``auth`` returned something other than a bool          500  ``internal server error``           (none)
=====================================================  ===  ==================================  ======================================

Documentation tools learn what is guarded from the public ``bearer_auth_guard`` decorator
(a :class:`BearerAuthGuard`) of the registering context: ``framework.plugins.openapi`` marks those
routes with an HTTP bearer security scheme.

The header never echoes the key. Bad options (no ``keys`` and no ``auth``, ``keys`` a
string or not iterable, a key that is not a non-empty string, an unknown
``spec_compliance``) fail ``ready()`` with a :class:`BearerAuthOptionsError`.
"""
from __future__ import annotations

import hashlib
import hmac
import inspect
import re
from collections.abc import Iterable, Mapping
from typing import Any, Callable, cast

from framework import Context, Problem, Reply, Request, plugin, run_coroutine
from framework.errors import FrameworkError, create_error
from framework.route import Route

__all__ = ["bearer_auth", "BearerAuthGuard", "BearerAuthOptionsError", "MissingAuthorizationHeaderError",
           "InvalidAuthorizationHeaderError", "InvalidAuthResultError"]

#: A guarded request without an ``Authorization`` header: 401, ``WWW-Authenticate: Bearer``.
MissingAuthorizationHeaderError = create_error(
    "FST_BEARER_AUTH_MISSING_AUTHORIZATION_HEADER", "missing authorization header", 401)
#: An ``Authorization`` header that is not a bearer token (``error="invalid_request"``) or
#: whose key is refused (``error="invalid_token"``): 401.
InvalidAuthorizationHeaderError = create_error(
    "FST_BEARER_AUTH_INVALID_AUTHORIZATION_HEADER", "invalid authorization header", 401)
#: The ``auth`` option's function returned something other than a ``bool``: 500.
InvalidAuthResultError = create_error(
    "FST_BEARER_AUTH_INVALID_AUTH_RESULT", "internal server error", 500)


class BearerAuthOptionsError(ValueError):
    """Options that bearer-auth cannot work with; raised when the plugin loads (``ready()``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"bearer-auth: {message}")
        self.code = code


_OPTIONS = ("keys", "auth", "error_response", "content_type", "bearer_type", "spec_compliance",
            "realm", "add_hook")
_IGNORED = ("prefix",)  # register() options that concern the framework, not this plugin
_SPECS = ("rfc6750", "rfc6749")
#: RFC 6750 2.1 b64token (RFC 7235 token68); two disjoint runs, so matching is linear.
_TOKEN68 = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


def _default_error_response(err: FrameworkError) -> dict[str, str]:
    return {"error": err.message}


def _problem_response(err: FrameworkError) -> Problem:
    """The refusal of an application made with ``errors="problem+json"`` (the reply fills ``instance``)."""
    return Problem(err.status_code, err.message, code=err.code)


def _digest(key: str) -> bytes:
    try:
        raw = key.encode("latin-1")  # a header value as WSGI gives it: bytes seen as latin-1
    except UnicodeEncodeError:
        raw = key.encode("utf-8")
    return hashlib.sha256(raw).digest()


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _check_keys(keys: object) -> tuple[bytes, ...]:
    kind = type(keys).__name__
    if isinstance(keys, (str, bytes, bytearray, Mapping)) or not isinstance(keys, Iterable):
        raise BearerAuthOptionsError(
            "FST_BEARER_AUTH_INVALID_KEYS_OPTION_TYPE",
            f"keys has to be a list, tuple or set of strings, not {kind}")
    checked: list[str] = []
    for key in list(cast("Iterable[object]", keys)):
        if not isinstance(key, str):
            raise BearerAuthOptionsError(
                "FST_BEARER_AUTH_KEYS_OPTION_INVALID_KEY_TYPE",
                f"keys has to contain only string entries, found a {type(key).__name__}")
        if _TOKEN68.fullmatch(key) is None:
            raise BearerAuthOptionsError(
                "FST_BEARER_AUTH_KEYS_OPTION_INVALID_KEY",
                "keys has to contain non-empty RFC 6750 tokens (token68: letters, digits, "
                "'-._~+/', then '=' padding), without surrounding spaces or other characters "
                "(a client can only send such a token, so another key could never match)")
        checked.append(key)
    # Stored as UTF-8 digests: a client's key arrives as raw header bytes.
    return tuple(hashlib.sha256(key.encode("utf-8")).digest() for key in checked)


class BearerVerifier:
    """Checks one request; ``verifier(request, reply)`` is an ``on_request``-style hook.

    It returns ``None`` for an accepted request and sends the refusal otherwise (a hook
    that sends ends the request's hook chain).
    """

    __slots__ = ("_digests", "_auth", "_error_response", "_content_type", "_prefix", "_fold",
                 "_challenge", "_options", "_problems")

    def __init__(self, options: Mapping[str, Any], problems: bool = False) -> None:
        unknown = sorted(set(options) - set(_OPTIONS) - set(_IGNORED))
        if unknown:
            raise BearerAuthOptionsError(
                "FST_BEARER_AUTH_UNKNOWN_OPTION",
                f"unknown option(s) {', '.join(unknown)}; known: {', '.join(_OPTIONS)}")
        self._options: dict[str, Any] = {k: v for k, v in options.items() if k in _OPTIONS}
        self._problems = problems
        keys = options.get("keys")
        auth = options.get("auth")
        if auth is not None and not callable(auth):
            raise BearerAuthOptionsError("FST_BEARER_AUTH_INVALID_AUTH_OPTION",
                                         "auth has to be a function (key, request) -> bool")
        if auth is None and keys is None:
            raise BearerAuthOptionsError("FST_BEARER_AUTH_MISSING_KEYS",
                                         "give keys (the accepted keys) or auth (a function)")
        self._digests = _check_keys(keys) if keys is not None else ()
        if auth is None and not self._digests:
            raise BearerAuthOptionsError(
                "FST_BEARER_AUTH_EMPTY_KEYS",
                "keys is empty and no auth function is given: every request would be refused")
        #: ``auth(key, request)``: a bool, or an awaitable of one.
        self._auth: Callable[[str, Request], Any] | None = auth
        error_response = options.get("error_response") or (_problem_response if problems else _default_error_response)
        if not callable(error_response):
            raise BearerAuthOptionsError("FST_BEARER_AUTH_INVALID_ERROR_RESPONSE",
                                         "error_response has to be a function err -> payload")
        self._error_response: Callable[[FrameworkError], Any] = error_response
        self._content_type: str | None = options.get("content_type")
        bearer_type = options.get("bearer_type", "Bearer")
        if not isinstance(bearer_type, str) or not bearer_type or any(c.isspace() for c in bearer_type):
            raise BearerAuthOptionsError("FST_BEARER_AUTH_INVALID_BEARER_TYPE",
                                         f"bearer_type has to be one word such as 'Bearer', got {bearer_type!r}")
        spec = options.get("spec_compliance", "rfc6750")
        if spec not in _SPECS:
            raise BearerAuthOptionsError(
                "FST_BEARER_AUTH_INVALID_SPEC",
                f"spec_compliance has to be 'rfc6750' (exact scheme) or 'rfc6749' (any case), got {spec!r}")
        self._fold = spec == "rfc6749"
        self._prefix = (bearer_type.lower() if self._fold else bearer_type) + " "
        realm = options.get("realm")
        if realm is not None and not isinstance(realm, str):
            raise BearerAuthOptionsError("FST_BEARER_AUTH_INVALID_REALM", "realm has to be a string")
        self._challenge = bearer_type + (f" realm={_quote(realm)}" if realm else "")

    def with_options(self, **options: Any) -> "BearerVerifier":
        """A verifier with these options replacing this one's."""
        return BearerVerifier({**self._options, **options}, self._problems)

    def _key(self, header: str) -> str | None:
        # RFC 6750 2.1: credentials = "Bearer" 1*SP token68, compared exactly. Only the
        # field value's own OWS (SP, HTAB) is dropped: str.strip()/split() would also drop
        # U+00A0, U+0085 and other Unicode spaces, accepting "Bearer <key>\u00a0".
        header = header.strip(" \t")
        head = header[:len(self._prefix)]
        if (head.lower() if self._fold else head) != self._prefix:
            return None
        token = header[len(self._prefix):].lstrip(" ")
        return token if _TOKEN68.fullmatch(token) is not None else None

    def _matches(self, key: str) -> bool:
        presented = _digest(key)
        matched = False
        for digest in self._digests:  # every key, no early exit
            matched |= hmac.compare_digest(digest, presented)
        return matched

    def _refuse(self, reply: Reply, error: FrameworkError, rfc6750_error: str | None) -> Reply:
        reply.code(error.status_code)
        if error.status_code == 401:
            challenge = self._challenge
            if rfc6750_error:
                challenge += ("," if "realm=" in challenge else "") + f' error="{rfc6750_error}"'
            reply.header("WWW-Authenticate", challenge)
        if self._content_type:
            reply.type(self._content_type)
        return reply.send(self._error_response(error))

    def __call__(self, request: Request, reply: Reply) -> Reply | None:
        """``None`` for an accepted request; otherwise the refusal, sent on ``reply``."""
        header = request.headers.get("authorization")
        if not header:
            return self._refuse(reply, MissingAuthorizationHeaderError(), None)
        key = self._key(header)
        if key is None:
            return self._refuse(reply, InvalidAuthorizationHeaderError(), "invalid_request")
        if self._auth is not None:
            result = self._auth(key, request)
            if inspect.isawaitable(result):
                result = run_coroutine(result)
            if not isinstance(result, bool):
                return self._refuse(reply, InvalidAuthResultError(), None)
            accepted = result
        else:
            accepted = self._matches(key)
        if not accepted:
            return self._refuse(reply, InvalidAuthorizationHeaderError(), "invalid_token")
        return None

    def __repr__(self) -> str:
        return f"<bearer-auth verifier, {len(self._digests)} key(s){', auth' if self._auth else ''}>"


def _bearer_auth(instance: Context, opts: Mapping[str, Any]) -> None:
    options = dict(opts or {})
    add_hook = options.get("add_hook", True)
    if not isinstance(add_hook, bool):
        raise BearerAuthOptionsError("FST_BEARER_AUTH_INVALID_ADD_HOOK", "add_hook has to be True or False")
    verifier = BearerVerifier(options, problems=instance.error_format == "problem+json")
    if add_hook:
        instance.add_hook("on_request", verifier)
    else:
        instance.decorate("verify_bearer_auth", verifier)
        instance.decorate("verify_bearer_auth_factory", _Factory(verifier))
    _mark_guarded(instance, add_hook)


class BearerAuthGuard:
    """``instance.bearer_auth_guard``: what the plugin guards, for documentation tools
    (``framework.plugins.openapi`` asks ``route.context.has_decorator("bearer_auth_guard")``, then
    ``guards(route)``). Visible in the registering context and its descendants.
    """

    __slots__ = ("context", "hooked", "parent")

    def __init__(self, context: Context, parent: "BearerAuthGuard | None") -> None:
        self.context = context
        self.hooked = False  # an on_request hook guards every route here and below
        self.parent = parent

    def guards(self, route: Route) -> bool:
        """Whether a request of ``route`` must carry an accepted key."""
        guard: BearerAuthGuard | None = self
        while guard is not None:
            if guard.hooked:
                return True
            guard = guard.parent
        return any(isinstance(hook, BearerVerifier)
                   for name in ("on_request", "pre_parsing", "pre_validation", "pre_handler")
                   for hook in route.own_hooks(name))


def _mark_guarded(instance: Context, add_hook: bool) -> None:
    guard: BearerAuthGuard | None = instance.bearer_auth_guard if instance.has_decorator("bearer_auth_guard") else None
    if guard is None or guard.context is not instance:
        guard = BearerAuthGuard(instance, guard)
        instance.decorate("bearer_auth_guard", guard)
    guard.hooked = guard.hooked or add_hook


class _Factory:
    """``instance.verify_bearer_auth_factory(**options)``: a verifier with other options."""

    __slots__ = ("_base",)

    def __init__(self, base: BearerVerifier) -> None:
        self._base = base

    def __call__(self, **options: Any) -> BearerVerifier:
        return self._base.with_options(**options)


_bearer_auth.__doc__ = __doc__
#: The plugin: ``register(bearer_auth, keys=[...])``. Runs in the registering context.
bearer_auth = plugin(_bearer_auth, name="bearer-auth")
