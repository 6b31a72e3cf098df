"""CSRF protection (@fastify/csrf-protection): unsafe requests must carry a token that a
page of this site was given, so another site's form cannot act with the user's cookies.

``csrf`` is wrapped with ``plugin(...)``: it guards the routes of the registering context
and its descendants. Register it where the routes that cookies authenticate live (a
session, a cookie the browser sends by itself); an API authenticated by a header a browser
never adds on its own (``Authorization``) needs none, so keep it in another context::

    from framework import Framework
    from framework.plugins.csrf import csrf
    from framework.plugins.session import session

    app = Framework()
    app.register(session, secret="a-long-random-secret")
    app.register(csrf)                                   # store="session": the synchronizer token

    @app.get("/form")
    def form(request, reply):
        return {"csrf_token": reply.generate_csrf()}     # put it in the page, or in a header

    @app.post("/transfer")
    def transfer(request, reply):                        # reached only with the right token
        return {"ok": True}

Every ``POST``, ``PUT``, ``PATCH`` and ``DELETE`` request of the guarded routes (option
``methods``) has to send the token in the ``X-CSRF-Token`` header (option ``header``) or,
for an HTML form, in the ``_csrf`` field of its body (option ``field``: a form or JSON body
parsed into a dict). It is compared in constant time (:func:`hmac.compare_digest`) with
the one the server holds:

``store="session"`` (default): the synchronizer token
    ``reply.generate_csrf()`` keeps a random token in ``request.session`` (under
    ``"_csrf"``; ``framework.plugins.session`` has to be registered first, in this context
    or an ancestor) and returns it; the same token for the whole session.
``store="cookie"``: the double-submit token
    ``reply.generate_csrf()`` sends a random token in a signed cookie (``cookie_name``,
    ``"_csrf"`` by default; HttpOnly, ``SameSite=Lax``; ``framework.plugins.cookie_signing``
    has to be registered first) and returns it (``reply.csrf_token`` keeps it for the rest
    of the request); the request has to send it back in the header or field. Signing stops
    a cookie written by a sibling subdomain from carrying a token made up there, not one
    carrying a genuine pair fetched from your site: where sibling subdomains are not
    trusted, prefer the session store, or ``cookie_name="__Host-csrf"`` with
    ``secure=True`` (browsers let no other host set a ``__Host-`` cookie).

Refusals are 403 with the framework's JSON error (so an ``on_error`` hook and the error
handlers of the context see them): ``FST_CSRF_MISSING_TOKEN`` (no token in the request),
``FST_CSRF_MISSING_SECRET`` (the server holds none: no session or cookie token yet) and
``FST_CSRF_INVALID_TOKEN`` (they differ). The check runs in a ``pre_validation`` hook
(after the body is parsed, before it is validated), so it comes before a 400 for the body.

Exempt routes: declare them with ``config={"csrf": False}``, or give ``exempt``, a function
``exempt(request) -> bool`` (a webhook called by another server, say; it may be ``async``).
Safe methods (``GET``, ``HEAD``, ``OPTIONS``) are never checked: they must change nothing.

Options: ``store``, ``header``, ``field`` (``None``: the header only), ``methods``,
``exempt``, ``cookie_name``, and the cookie's ``path``, ``secure`` and ``samesite``
(``store="cookie"``). Bad options, or the plugin a store needs not registered first, fail
``ready()`` with a :class:`CsrfOptionsError`.
"""
from __future__ import annotations

import hmac
import inspect
import secrets
from collections.abc import Mapping
from typing import Any, Callable, cast

from framework import Context, Reply, Request, plugin, run_coroutine
from framework.errors import InvalidCookieError, create_error
from framework.http.cookies import cookie_line

__all__ = ["csrf", "CsrfOptionsError", "MissingCsrfTokenError", "MissingCsrfSecretError", "InvalidCsrfTokenError"]

#: An unsafe request without a token (no header, no form field): 403.
MissingCsrfTokenError = create_error("FST_CSRF_MISSING_TOKEN", "missing csrf token", 403)
#: The server holds no token for this client (no session token, no valid cookie): 403.
MissingCsrfSecretError = create_error("FST_CSRF_MISSING_SECRET", "missing csrf secret", 403)
#: The request's token is not the one the server holds: 403.
InvalidCsrfTokenError = create_error("FST_CSRF_INVALID_TOKEN", "invalid csrf token", 403)

_OPTIONS = ("store", "header", "field", "methods", "exempt", "cookie_name", "path", "secure", "samesite")
_IGNORED = ("prefix",)
_SESSION_KEY = "_csrf"


class CsrfOptionsError(ValueError):
    """Options the CSRF plugin cannot work with; raised when it loads (``ready()``)."""


def _refuse(message: str) -> CsrfOptionsError:
    return CsrfOptionsError(f"csrf: {message}")


def _session_of(request: Request) -> dict[str, Any]:
    """``request.session`` (a request decorator of framework.plugins.session)."""
    return cast("dict[str, Any]", getattr(request, "session"))


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass"))


class _Csrf:
    """One registration: ``generate(reply)`` hands out the token, ``check`` is the hook."""

    def __init__(self, instance: Context, options: Mapping[str, Any]) -> None:
        unknown = sorted(set(options) - set(_OPTIONS) - set(_IGNORED))
        if unknown:
            raise _refuse(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(_OPTIONS)}")
        self.store = options.get("store", "session")
        if self.store == "session":
            if not instance.has_request_decorator("session"):
                raise _refuse("store='session' keeps the token in request.session: register "
                              "framework.plugins.session before csrf, in this context or an ancestor "
                              "(or use store='cookie' with framework.plugins.cookie_signing)")
        elif self.store == "cookie":
            if not instance.has_decorator("cookie_signer"):
                raise _refuse("store='cookie' sends the token in a signed cookie: register "
                              "framework.plugins.cookie_signing (secret=...) before csrf, in this context or an ancestor")
        else:
            raise _refuse(f"store has to be 'session' or 'cookie', not {self.store!r}")
        self.header = options.get("header", "x-csrf-token")
        if not isinstance(self.header, str) or not self.header:
            raise _refuse(f"header has to be a header name, not {self.header!r}")
        self.header = self.header.lower()
        self.field = options.get("field", "_csrf")
        if self.field is not None and (not isinstance(self.field, str) or not self.field):
            raise _refuse(f"field has to be a body field name or None, not {self.field!r}")
        methods = options.get("methods", ("POST", "PUT", "PATCH", "DELETE"))
        if isinstance(methods, str) or not isinstance(methods, (list, tuple, set, frozenset)) or \
                not all(isinstance(method, str) for method in methods):
            raise _refuse(f"methods has to be a list of method names, not {methods!r}")
        self.methods = frozenset(method.upper() for method in methods)
        self.exempt: Callable[[Request], bool] | None = options.get("exempt")
        if self.exempt is not None and not callable(self.exempt):
            raise _refuse("exempt has to be a function exempt(request) -> bool")
        self.cookie_name = options.get("cookie_name", "_csrf")
        if not isinstance(self.cookie_name, str) or not self.cookie_name:
            raise _refuse(f"cookie_name has to be a non-empty string, not {self.cookie_name!r}")
        secure = options.get("secure", False)
        if secure is not True and secure is not False:
            raise _refuse(f"secure has to be True or False, not {secure!r}")
        samesite = options.get("samesite", "Lax")
        if samesite not in ("Strict", "Lax", "None"):
            raise _refuse(f"samesite has to be 'Strict', 'Lax' or 'None', not {samesite!r}")
        if samesite == "None" and not secure:
            raise _refuse("samesite='None' needs secure=True (browsers refuse it otherwise)")
        path = options.get("path", "/")
        if not isinstance(path, str) or not path.startswith("/"):
            raise _refuse(f"path has to start with '/', not {path!r}")
        self.cookie_options: dict[str, Any] = {"path": path, "secure": secure, "samesite": samesite,
                                               "httponly": True}
        if self.store == "cookie":
            # reply.set_cookie would refuse a bad name or path at every generate_csrf(): refuse it once, now.
            try:
                cookie_line(self.cookie_name, "", max_age=None, expires=None, domain=None, **self.cookie_options)
            except InvalidCookieError as error:
                raise _refuse(str(error)) from None

    def generate(self, reply: Reply) -> str:
        """The token for this client: the one it holds, or a new one (kept in the session,
        or sent in the signed cookie)."""
        request = reply.request
        if self.store == "session":
            token = _session_of(request).get(_SESSION_KEY)
            if not isinstance(token, str):
                token = _session_of(request)[_SESSION_KEY] = secrets.token_urlsafe(32)
            return token
        handed_out: str | None = getattr(reply, "csrf_token")
        if handed_out is not None:  # already handed out (and sent) in this request
            return handed_out
        token = request.signed_cookie(self.cookie_name)
        if token is None:
            token = secrets.token_urlsafe(32)
            reply.set_cookie(self.cookie_name, token, signed=True, **self.cookie_options)
        setattr(reply, "csrf_token", token)
        return token

    def check(self, request: Request, reply: Reply) -> None:
        """The ``pre_validation`` hook: raises the 403 for an unsafe request without the right token."""
        if request.method not in self.methods:
            return
        config = request.route_options.get("config")
        if config and config.get("csrf") is False:
            return
        if self.exempt is not None:
            exempted = self.exempt(request)
            if inspect.isawaitable(exempted):  # an async exempt: its coroutine object alone is truthy
                exempted = run_coroutine(exempted)
            if exempted:
                return
        given = request.headers.get(self.header)
        if not given and self.field is not None:
            body = request.body
            if isinstance(body, dict):
                value = body.get(self.field)
                given = value if isinstance(value, str) else None
        if not given:
            raise MissingCsrfTokenError()
        if self.store == "session":
            expected = _session_of(request).get(_SESSION_KEY)
            expected = expected if isinstance(expected, str) else None
        else:
            expected = request.signed_cookie(self.cookie_name)
        if not expected:
            raise MissingCsrfSecretError()
        if not _same(given, expected):
            raise InvalidCsrfTokenError()


def _csrf(instance: Context, opts: Mapping[str, Any]) -> None:
    guard = _Csrf(instance, dict(opts or {}))
    instance.decorate_reply("generate_csrf", lambda reply: guard.generate(reply))
    instance.decorate_reply("csrf_token", None)
    instance.add_hook("pre_validation", guard.check)


_csrf.__doc__ = __doc__
#: The plugin: ``register(csrf)`` (after ``session``) or ``register(csrf, store="cookie")``
#: (after ``cookie_signing``). Runs in the registering context.
csrf = plugin(_csrf, name="csrf")
