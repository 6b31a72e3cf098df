"""``Set-Cookie`` lines for ``reply.set_cookie``: werkzeug's ``dump_cookie``, after the
checks it leaves out.

werkzeug quotes a cookie's *value*, but writes its name and ``Domain`` as given, so
``domain="shop.example; SameSite=None"`` (``request.hostname`` under a crafted ``Host``
header, say) would add an attribute of its own. Here a name must be an RFC 6265 token, a
domain a host name (an optional leading dot, then dot-separated labels of letters, digits
and inner hyphens, or an IPv4 address) and a path ``/`` followed by visible ASCII without
``;`` or ``,``. Anything else is an ``InvalidCookieError`` at the call.

Signed cookies (``reply.set_cookie(..., signed=True)``, ``request.signed_cookie(name)``)
are signed by the ``cookie_signer`` instance decorator visible from the route's context:
``framework.plugins.cookie_signing`` registers one (itsdangerous, with key rotation); any
object with the :class:`CookieSigner` methods will do. A route that never signs never
looks for it.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import InvalidCookieError, InvalidHeaderNameError
from .headers import check_header

if TYPE_CHECKING:
    import datetime

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_DOMAIN = re.compile(rf"\.?(?:{_LABEL}\.)*{_LABEL}\Z")
#: RFC 6265's path-value (any CHAR but CTLs and ";"), without "," or spaces either.
_PATH = re.compile(r"/[!-+\--:<-~]*\Z")


class CookieSigner(Protocol):
    """What signs and checks cookie values: the ``cookie_signer`` decorator of a context."""

    def sign(self, value: str) -> str:
        """``value`` with its signature."""
        ...

    def unsign(self, signed: str) -> str | None:
        """The value ``sign`` gave ``signed`` from, or ``None`` for a bad or tampered signature."""
        ...


def cookie_signer(server: Any, name: str) -> CookieSigner:
    """The ``cookie_signer`` decorator visible from ``server`` (the route's context);
    ``InvalidCookieError`` naming the cookie when there is none."""
    signer: CookieSigner | None = getattr(server, "cookie_signer", None)
    if signer is None:
        raise InvalidCookieError(
            f"cookie {name!r} is signed, and no cookie signer is visible from this route's context: register "
            "framework.plugins.cookie_signing (secret=...) in that context or an ancestor")
    return signer


def _refuse(name: str, attribute: str, value: object, rule: str) -> InvalidCookieError:
    return InvalidCookieError(f"set_cookie({name!r}): {attribute} {value!r} is refused: {rule}")


def cookie_line(name: str, value: str, *, max_age: "datetime.timedelta | int | None",
                expires: "str | datetime.datetime | int | float | None", path: str | None, domain: str | None,
                secure: bool, httponly: bool, samesite: str | None) -> str:
    """The ``Set-Cookie`` value for these arguments; ``InvalidCookieError`` for a name,
    domain or path that is not what its attribute allows."""
    from werkzeug.http import dump_cookie

    try:
        check_header(name)  # a cookie-name is an RFC 9110 token, as a header name is
    except InvalidHeaderNameError:
        raise _refuse(name, "the name", name, "a cookie name is a token (letters, digits and "
                                              "!#$%&'*+-.^_`|~)") from None
    if domain is not None and (type(domain) is not str or len(domain) > 253 or not _DOMAIN.match(domain)):
        raise _refuse(name, "domain", domain, "a domain is a host name (letters, digits, hyphens and dots)")
    if path is not None and (type(path) is not str or not _PATH.match(path)):
        raise _refuse(name, "path", path, "a path starts with '/' and holds no ';', ',', space or "
                                          "control character")
    return dump_cookie(name, value, max_age=max_age, expires=expires, path=path, domain=domain,
                       secure=secure, httponly=httponly, samesite=samesite)
