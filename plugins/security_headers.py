"""Security headers (the @fastify/helmet plugin): helmet's default response headers.

``security_headers`` is wrapped with ``plugin(...)``, like ``cors``: it applies to the
routes of the context that registers it and of that context's descendants, and to no
other route::

    from framework import Framework
    from framework.plugins.security_headers import security_headers

    app = Framework()
    app.register(security_headers, x_frame_options="DENY",          # on the root: every route
                 content_security_policy={"directives": {"img-src": ["'self'", "https://cdn.example"]}})

Every answer of those routes (errors, streams and files included) gets helmet's default
headers::

    Content-Security-Policy: default-src 'self';base-uri 'self';font-src 'self' https: data:;
        form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';
        script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';
        upgrade-insecure-requests
    Cross-Origin-Opener-Policy: same-origin
    Cross-Origin-Resource-Policy: same-origin
    Origin-Agent-Cluster: ?1
    Referrer-Policy: no-referrer
    Strict-Transport-Security: max-age=31536000; includeSubDomains   (over HTTPS only)
    X-Content-Type-Options: nosniff
    X-DNS-Prefetch-Control: off
    X-Download-Options: noopen
    X-Frame-Options: SAMEORIGIN
    X-Permitted-Cross-Domain-Policies: none
    X-XSS-Protection: 0

``Strict-Transport-Security`` goes only on answers to HTTPS requests, as
``request.protocol`` sees them: the WSGI URL scheme, or ``X-Forwarded-Proto`` when
``Framework(trust_proxy=...)`` trusts the proxy that sent it (browsers ignore the header
over plain HTTP, and a proxy's answer over HTTP should not carry it).

The headers are set by an ``on_request`` hook that goes *before* the hooks its context
added earlier (an authentication refusal of that context carries them too), so a handler
or a later hook that sets one of these headers itself wins: the Swagger UI page of
``framework.plugins.openapi`` sends its own ``Content-Security-Policy`` (the policy that
page works under), and keeps it. Every value is checked and written out when the plugin
loads; a request only sets them on its reply (and asks for ``request.protocol`` when HSTS is on).

A not-found answer is the not-found handler's, with the hooks of the context that set
it: register ``security_headers`` on the root (its 404s carry the headers), or call
``set_not_found_handler`` in the context that registers it to give the 404s under its
prefix its headers too.

**Overriding in a descendant.** A context may register ``security_headers`` again: that
registration decides, alone, the headers of its routes and its descendants' (the
headers it sets replace its ancestors', and those it turns off are removed). Options are
not inherited from the ancestor's registration: ``register(security_headers,
x_frame_options="DENY")`` in a child gives the child helmet's defaults with ``DENY``,
whatever the parent turned off.

Options (helmet's, in snake_case). Each takes ``True`` (helmet's default value; the same
as leaving it out), ``False`` (no such header), or a value:

``content_security_policy``
    ``{"directives": {...}, "use_defaults": True, "report_only": False}``. ``directives``
    maps a directive name (``"img-src"`` or ``"img_src"``) to a list of sources (or one
    string); they are merged with the defaults above (a directive given replaces the
    default one; ``None`` removes a default one). ``use_defaults=False`` starts from no
    directive. ``default-src`` is required (it cannot be removed). ``report_only=True``
    sends ``Content-Security-Policy-Report-Only`` instead. Keywords have to be quoted
    (``"'self'"``, not ``"self"``); a source may not hold ``;``, ``,``, spaces or control
    characters (they would inject directives).
``cross_origin_embedder_policy``
    Off by default (as in helmet). ``True`` sends ``require-corp``; or
    ``"require-corp"``, ``"credentialless"``, ``"unsafe-none"``.
``cross_origin_opener_policy``
    ``"same-origin"`` (default), ``"same-origin-allow-popups"``, ``"noopener-allow-popups"``,
    ``"unsafe-none"``.
``cross_origin_resource_policy``
    ``"same-origin"`` (default), ``"same-site"``, ``"cross-origin"``.
``origin_agent_cluster``
    ``True``/``False``.
``referrer_policy``
    A policy token (``"no-referrer"``, default) or a list of them (fallbacks first).
``strict_transport_security``
    ``{"max_age": 31536000, "include_subdomains": True, "preload": False}`` (any subset).
``x_content_type_options``, ``x_download_options``, ``x_xss_protection``
    ``True``/``False``.
``x_dns_prefetch_control``
    ``"off"`` (default) or ``"on"``.
``x_frame_options``
    ``"SAMEORIGIN"`` (default) or ``"DENY"`` (any case).
``x_permitted_cross_domain_policies``
    ``"none"`` (default), ``"master-only"``, ``"by-content-type"``, ``"all"``.

A mistake is refused when the plugin loads (``ready()`` fails) with a
``SecurityHeadersOptionsError`` naming it: an unknown option or directive (with the
closest known name), a value outside the header's choices, an unquoted keyword, a
separator or control character in a source. helmet's ``X-Powered-By`` removal has no
counterpart: the framework sends no such header.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from typing import Any, cast

from framework import Context, Reply, Request, plugin

__all__ = ["security_headers", "SecurityHeadersOptionsError", "DEFAULT_DIRECTIVES"]

#: helmet's default Content-Security-Policy directives, in the order they are sent.
DEFAULT_DIRECTIVES: Mapping[str, tuple[str, ...]] = {
    "default-src": ("'self'",),
    "base-uri": ("'self'",),
    "font-src": ("'self'", "https:", "data:"),
    "form-action": ("'self'",),
    "frame-ancestors": ("'self'",),
    "img-src": ("'self'", "data:"),
    "object-src": ("'none'",),
    "script-src": ("'self'",),
    "script-src-attr": ("'none'",),
    "style-src": ("'self'", "https:", "'unsafe-inline'"),
    "upgrade-insecure-requests": (),
}

# The directives of CSP Level 3 and those browsers still honour: a name outside this
# list is far more likely a typo than a directive.
_DIRECTIVES = frozenset((
    *DEFAULT_DIRECTIVES, "child-src", "connect-src", "fenced-frame-src", "frame-src", "manifest-src",
    "media-src", "prefetch-src", "script-src-elem", "style-src-attr", "style-src-elem", "worker-src",
    "sandbox", "report-uri", "report-to", "require-trusted-types-for", "trusted-types",
    "block-all-mixed-content", "webrtc"))
# Keywords a source list has to quote ('self'): unquoted, they name a host.
_KEYWORDS = frozenset(("none", "self", "strict-dynamic", "report-sample", "inline-speculation-rules",
                       "unsafe-inline", "unsafe-eval", "unsafe-hashes", "wasm-unsafe-eval"))
_HASH_OR_NONCE = re.compile(r"(nonce|sha256|sha384|sha512)-")
# A source: visible ASCII without the directive (;) and policy (,) separators.
_SOURCE = re.compile(r"[!-+\--:<-~]+\Z")

_CHOICES: Mapping[str, tuple[str, tuple[str, ...]]] = {
    # option: (header, (default value, other values...))
    "cross_origin_embedder_policy": ("cross-origin-embedder-policy",
                                     ("require-corp", "credentialless", "unsafe-none")),
    "cross_origin_opener_policy": ("cross-origin-opener-policy",
                                   ("same-origin", "same-origin-allow-popups", "noopener-allow-popups",
                                    "unsafe-none")),
    "cross_origin_resource_policy": ("cross-origin-resource-policy", ("same-origin", "same-site", "cross-origin")),
    "x_dns_prefetch_control": ("x-dns-prefetch-control", ("off", "on")),
    "x_frame_options": ("x-frame-options", ("SAMEORIGIN", "DENY")),
    "x_permitted_cross_domain_policies": ("x-permitted-cross-domain-policies",
                                          ("none", "master-only", "by-content-type", "all")),
}
_SWITCHES: Mapping[str, tuple[str, str]] = {
    # option: (header, its one value)
    "origin_agent_cluster": ("origin-agent-cluster", "?1"),
    "x_content_type_options": ("x-content-type-options", "nosniff"),
    "x_download_options": ("x-download-options", "noopen"),
    "x_xss_protection": ("x-xss-protection", "0"),
}
_REFERRER_TOKENS = ("no-referrer", "no-referrer-when-downgrade", "same-origin", "origin", "strict-origin",
                    "origin-when-cross-origin", "strict-origin-when-cross-origin", "unsafe-url", "")
_OPTIONS = tuple(sorted(("content_security_policy", "referrer_policy", "strict_transport_security",
                         *_CHOICES, *_SWITCHES)))
_OFF_BY_DEFAULT = frozenset(("cross_origin_embedder_policy",))
_IGNORED = ("prefix",)
_HSTS_KEYS = ("max_age", "include_subdomains", "preload")
_CSP_KEYS = ("directives", "use_defaults", "report_only")
_HSTS = "strict-transport-security"
#: Every header a registration may set: a descendant's registration removes those it does not.
_ALL_HEADERS = ("content-security-policy", "content-security-policy-report-only", "referrer-policy",
                *(header for header, _ in _CHOICES.values()), *(header for header, _ in _SWITCHES.values()))


class SecurityHeadersOptionsError(ValueError):
    """Options the security headers plugin cannot work with; raised when it loads (``ready()``)."""


def _refuse(message: str) -> SecurityHeadersOptionsError:
    return SecurityHeadersOptionsError(f"security_headers: {message}")


def _check_keys(given: Iterable[str], known: Iterable[str], what: str) -> None:
    known = tuple(known)
    for key in given:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise _refuse(f"unknown {what} {key!r}{hint}; known: {', '.join(known)}")


def _is_switch(value: object) -> bool:
    return value is True or value is False


def _choice(option: str, value: object) -> str | None:
    header, choices = _CHOICES[option]
    if value is False:
        return None
    if value is True:
        return choices[0]
    if isinstance(value, str):
        wanted = value.upper() if option == "x_frame_options" else value
        if option == "x_frame_options" and wanted == "SAME-ORIGIN":  # helmet takes both spellings
            wanted = "SAMEORIGIN"
        if wanted in choices:
            return wanted
    raise _refuse(f"{option} has to be True, False or one of {', '.join(map(repr, choices))}, not {value!r}")


def _referrer_policy(value: object) -> str | None:
    if value is False:
        return None
    if value is True:
        return "no-referrer"
    tokens = [value] if isinstance(value, str) else value
    if not isinstance(tokens, (list, tuple)) or not tokens:
        raise _refuse(f"referrer_policy has to be a policy token or a non-empty list of them, not {value!r}")
    seen: set[object] = set()
    for token in cast("list[object]", tokens):
        if token not in _REFERRER_TOKENS:
            raise _refuse(f"referrer_policy: unknown policy {token!r}; known: "
                          f"{', '.join(map(repr, _REFERRER_TOKENS))}")
        if token in seen:
            raise _refuse(f"referrer_policy: {token!r} is listed twice")
        seen.add(token)
    return ",".join(cast("list[str]", tokens))


def _strict_transport_security(value: object) -> str | None:
    if value is False:
        return None
    options: Mapping[str, object] = {} if value is True else _mapping("strict_transport_security", value)
    _check_keys(options, _HSTS_KEYS, "strict_transport_security key")
    max_age = options.get("max_age", 365 * 24 * 60 * 60)
    if type(max_age) is not int or max_age < 0:
        raise _refuse(f"strict_transport_security max_age has to be a number of seconds (an int >= 0), "
                      f"not {max_age!r}")
    line = f"max-age={max_age}"
    for key, directive, default in (("include_subdomains", "includeSubDomains", True), ("preload", "preload", False)):
        flag = options.get(key, default)
        if not _is_switch(flag):
            raise _refuse(f"strict_transport_security {key} has to be True or False, not {flag!r}")
        if flag:
            line += f"; {directive}"
    return line


def _mapping(option: str, value: object) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise _refuse(f"{option} has to be True, False or a dict of settings, not {value!r}")
    return cast("Mapping[str, object]", value)


def _content_security_policy(value: object) -> tuple[str, str] | None:
    """``(header name, policy)``, or ``None`` when turned off."""
    if value is False:
        return None
    options: Mapping[str, object] = {} if value is True else _mapping("content_security_policy", value)
    _check_keys(options, _CSP_KEYS, "content_security_policy key")
    use_defaults, report_only = options.get("use_defaults", True), options.get("report_only", False)
    for key, flag in (("use_defaults", use_defaults), ("report_only", report_only)):
        if not _is_switch(flag):
            raise _refuse(f"content_security_policy {key} has to be True or False, not {flag!r}")
    directives: dict[str, tuple[str, ...]] = dict(DEFAULT_DIRECTIVES) if use_defaults else {}
    given = _mapping("content_security_policy directives", options.get("directives", {}))
    seen: set[str] = set()
    for raw_name, sources in given.items():
        name = _directive_name(raw_name)
        if name in seen:
            raise _refuse(f"content_security_policy directive {name!r} is given twice")
        seen.add(name)
        if sources is None:
            if name == "default-src":
                raise _refuse("content_security_policy needs default-src: it cannot be removed "
                              "(give it other sources, or turn the header off)")
            directives.pop(name, None)
        else:
            directives[name] = _sources(name, sources)
    if "default-src" not in directives:
        raise _refuse("content_security_policy needs a default-src directive")
    policy = ";".join(" ".join((name, *sources)) for name, sources in directives.items())
    return ("content-security-policy-report-only" if report_only else "content-security-policy", policy)


def _directive_name(raw: object) -> str:
    name = raw.replace("_", "-").lower() if isinstance(raw, str) else raw
    if not isinstance(name, str) or name not in _DIRECTIVES:
        close = difflib.get_close_matches(name, sorted(_DIRECTIVES), n=1, cutoff=0.6) if isinstance(name, str) else []
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise _refuse(f"content_security_policy: unknown directive {raw!r}{hint}")
    return name


def _sources(name: str, value: object) -> tuple[str, ...]:
    sources = (value,) if isinstance(value, str) else value
    if not isinstance(sources, (list, tuple)):
        raise _refuse(f"content_security_policy directive {name!r} takes a list of sources, not {value!r}")
    for source in cast("tuple[object, ...]", sources):
        if not isinstance(source, str) or not _SOURCE.match(source):
            raise _refuse(f"content_security_policy directive {name!r}: {source!r} is not a source (a source "
                          "is printable ASCII without spaces, ';' or ',')")
        if source in _KEYWORDS or _HASH_OR_NONCE.match(source):
            raise _refuse(f"content_security_policy directive {name!r}: {source!r} has to be quoted "
                          f"(\"'{source}'\")")
    return tuple(cast("tuple[str, ...]", sources))


class SecurityHeaders:
    """One registration's headers, written out from its options; its ``on_request`` hook sets them."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        _check_keys((key for key in options if key not in _IGNORED), _OPTIONS, "option")
        headers: dict[str, str] = {}
        policy = _content_security_policy(options.get("content_security_policy", True))
        if policy is not None:
            headers[policy[0]] = policy[1]
        for option, (header, _) in _CHOICES.items():
            value = _choice(option, options.get(option, option not in _OFF_BY_DEFAULT))
            if value is not None:
                headers[header] = value
        referrer = _referrer_policy(options.get("referrer_policy", True))
        if referrer is not None:
            headers["referrer-policy"] = referrer
        for option, (header, value) in _SWITCHES.items():
            switch = options.get(option, True)
            if not _is_switch(switch):
                raise _refuse(f"{option} has to be True or False, not {switch!r}")
            if switch:
                headers[header] = value
        #: The headers every answer gets, by lower-cased name.
        self.headers: Mapping[str, str] = headers
        #: ``Strict-Transport-Security``'s value (HTTPS answers only), or ``None``.
        self.hsts = _strict_transport_security(options.get("strict_transport_security", True))
        # Those an ancestor's registration may have set and this one does not want.
        absent = [header for header in _ALL_HEADERS if header not in headers]
        if self.hsts is None:
            absent.append(_HSTS)
        self.absent = tuple(absent)

    def on_request(self, request: Request, reply: Reply) -> None:
        """The hook: this registration's headers on the reply (a handler may still replace them)."""
        reply.headers(self.headers)
        for header in self.absent:
            reply.remove_header(header)
        if self.hsts is not None and request.protocol == "https":
            reply.header(_HSTS, self.hsts)


def _security_headers(instance: Context, opts: Mapping[str, Any]) -> None:
    instance.add_hook("on_request", SecurityHeaders(dict(opts or {})).on_request, first=True)


_security_headers.__doc__ = __doc__
#: The plugin: ``register(security_headers, x_frame_options="DENY")``. Runs in the registering context.
security_headers = plugin(_security_headers, name="security_headers")
