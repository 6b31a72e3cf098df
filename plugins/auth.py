"""Authentication schemes, combined per context or per route, with scopes (@fastify/auth,
@fastify/jwt and @fastify/basic-auth in one plugin; FastAPI's ``HTTPBearer``, ``APIKey*``,
``HTTPBasic`` and ``Security`` scopes).

A scheme is a value: :class:`Bearer`, :class:`ApiKey`, :class:`Basic` and :class:`JWT`
(on PyJWT). ``auth`` is wrapped with ``plugin(...)``, like ``bearer_auth``: registered with
``any_of=[...]`` (one scheme must accept) or ``all_of=[...]`` (each must), it guards the
routes of the registering context and of its descendants, and nothing else::

    from framework import Framework
    from framework.plugins.auth import JWT, ApiKey, auth

    SECRET = "a-secret-of-at-least-32-bytes-for-hs256"
    app = Framework()

    def api(instance, opts):
        instance.register(auth, any_of=[JWT(secret=SECRET, algorithms=["HS256"], issuer="https://id.example"),
                                        ApiKey(header="X-API-Key", keys={"ci-bot-key": "ci-bot"})])

        def routes(inner, opts):
            inner.get("/me", lambda request, reply: {"who": request.auth.principal})
            inner.delete("/items/:id", lambda request, reply: {"deleted": request.params["id"]},
                         scopes=["items:write"])

        instance.register(routes)

    app.register(api, prefix="/api")
    app.get("/health", lambda request, reply: {"ok": True})      # not guarded

    # GET /api/me                                 -> 401 WWW-Authenticate: Bearer
    #                                                    WWW-Authenticate: ApiKey in="header", name="X-API-Key"
    # GET /api/me  X-API-Key: ci-bot-key          -> 200 {"who": "ci-bot"}
    # GET /api/me  Authorization: Bearer <JWT>    -> 200 {"who": <its sub>}
    # DELETE /api/items/1 with a JWT whose scope lacks items:write
    #                                             -> 403 WWW-Authenticate: Bearer error="insufficient_scope",
    #                                                    scope="items:write"

Route options (read by the plugin when the route is declared, so declare those routes in a
plugin registered after ``auth``, as above; in a context where ``auth`` is not loaded they
are unknown options, refused at declaration):

``scopes=[...]``
    The scopes the accepted credentials must hold, on top of the context's requirement:
    a request whose credentials are valid but lack one is answered ``403`` with
    ``WWW-Authenticate: Bearer error="insufficient_scope", scope="..."`` (RFC 6750 3.1).
    ``ready()`` fails if no requirement guards such a route.
``auth=``
    The route's own requirement, on top of its contexts' (both must accept; ``request.auth``
    is then the route's): a scheme, a list of schemes (any of them), or
    ``{"any_of": [...]}`` / ``{"all_of": [...]}``. ``register(auth)`` without schemes
    guards nothing and lets the routes of that context name their own.

``request.auth`` is an :class:`Authentication` (``None`` on a route no requirement guards):
``scheme`` (the name of the scheme that accepted), ``principal``, ``claims`` (a JWT's),
``scopes``, and ``identities`` (one :class:`Identity` per scheme that accepted: several
under ``all_of``).

Refusals (bodies in the framework's error shape; an error handler may reshape them):

===================================================  ===  ==========================================
request                                              st   ``code``
===================================================  ===  ==========================================
no credentials for any scheme                        401  ``FST_AUTH_MISSING_CREDENTIALS``
credentials that no scheme accepts                   401  ``FST_AUTH_INVALID_CREDENTIALS``
valid credentials without a required scope           403  ``FST_AUTH_INSUFFICIENT_SCOPE``
a JWT whose key set cannot be fetched (see JWT)      503  ``FST_AUTH_KEYS_UNAVAILABLE``
===================================================  ===  ==========================================

A 401 carries one ``WWW-Authenticate`` challenge per scheme of the requirement:
``Bearer`` (with ``error="invalid_token"`` or ``"invalid_request"`` when a bearer token was
refused, and ``error_description="token expired"`` for an expired JWT), ``Basic
realm="...", charset="UTF-8"``, ``ApiKey in="header", name="X-API-Key"``.

Comparisons of static keys are constant-time (SHA-256 digests through
:func:`hmac.compare_digest`, every key compared), and :class:`Basic` never sees a password
list: its ``verify`` callback checks a hash. ``framework.plugins.openapi`` documents every
scheme (``components.securitySchemes``) and each operation's ``security`` with its scopes,
through the public ``auth_guard`` decorator (an :class:`AuthGuard`). Bad options fail when
the scheme is built or the plugin loads, with an :class:`AuthOptionsError`.
"""
from __future__ import annotations

import dataclasses
import hashlib
import hmac
import inspect
import json
import logging
import re
import threading
import time
import urllib.request
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Callable, NoReturn, Sequence, Union, cast

try:
    import jwt
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
    from jwt.algorithms import get_default_algorithms
except ImportError as missing:  # the 'auth' extra is not installed
    raise ImportError(f"framework.plugins.auth needs PyJWT and cryptography: pip install 'framework[auth]' "
                      f"({missing})") from missing
from werkzeug.datastructures import Authorization
from werkzeug.datastructures import ResponseCacheControl
from werkzeug.http import parse_cache_control_header

from framework import Context, Reply, Request, plugin, run_coroutine
from framework.errors import create_error
from framework.route import Route

__all__ = ["auth", "Scheme", "Bearer", "ApiKey", "Basic", "JWT", "Identity", "Authentication", "Requirement",
           "AuthGuard", "AuthOptionsError", "MissingCredentialsError", "InvalidCredentialsError",
           "InsufficientScopeError", "KeysUnavailableError"]

#: No credentials for any scheme of the requirement: 401.
MissingCredentialsError = create_error("FST_AUTH_MISSING_CREDENTIALS", "authentication required", 401)
#: Credentials were given and no scheme accepted them: 401.
InvalidCredentialsError = create_error("FST_AUTH_INVALID_CREDENTIALS", "invalid credentials", 401)
#: Valid credentials that lack a scope the route requires: 403.
InsufficientScopeError = create_error("FST_AUTH_INSUFFICIENT_SCOPE", "insufficient scope", 403)
#: A JWT's signing keys (JWKS) could not be fetched and the cached ones are too old: 503.
KeysUnavailableError = create_error("FST_AUTH_KEYS_UNAVAILABLE",
                                    "the token's signing keys are unavailable, try again later", 503)

_log = logging.getLogger(__name__)

#: RFC 6750 2.1 b64token (RFC 7235 token68); two disjoint runs, so matching is linear.
_TOKEN68 = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
#: RFC 6749 3.3 scope-token.
_SCOPE = re.compile(r"[\x21\x23-\x5b\x5d-\x7e]+")
#: A static key: visible ASCII (a client sends nothing else in a header).
_KEY = re.compile(r"[\x21-\x7e]+")
_HMAC_ALGORITHMS = {"HS256": 32, "HS384": 48, "HS512": 64}  # RFC 7518 3.2: a key at least the hash's size
_RSA_ALGORITHMS = frozenset(("RS256", "RS384", "RS512", "PS256", "PS384", "PS512"))
_EC_ALGORITHMS = {"ES256": "secp256r1", "ES384": "secp384r1", "ES512": "secp521r1", "ES256K": "secp256k1"}
_MAX_JWKS_BYTES = 1 << 20


class AuthOptionsError(ValueError):
    """Options a scheme or the plugin cannot work with: raised when the scheme is built,
    when the plugin loads or when a route declares them (``ready()`` fails)."""


def _refuse(message: str) -> AuthOptionsError:
    return AuthOptionsError(f"auth: {message}")


# --------------------------------------------------------------------------- results

@dataclass(frozen=True, slots=True)
class Identity:
    """What one scheme accepted: who (``principal``), the ``scopes`` held, a JWT's
    ``claims``, and the ``scheme``'s name. A ``verify`` callback may return one to give
    scopes (``Identity("alice", scopes={"items:write"})``); the scheme fills ``scheme``."""

    principal: Any = None
    #: A set (kept as a ``frozenset``).
    scopes: AbstractSet[str] = frozenset()
    claims: Mapping[str, Any] = field(default_factory=dict[str, Any])
    scheme: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.scopes, frozenset):
            object.__setattr__(self, "scopes", frozenset(_check_scopes(self.scopes, "Identity scopes")))


@dataclass(frozen=True, slots=True)
class Authentication:
    """``request.auth``: the identities the requirement accepted (one under ``any_of``,
    one per scheme under ``all_of``) and every scope they hold."""

    identities: tuple[Identity, ...]
    #: Every scope the identities hold (a ``frozenset``).
    scopes: AbstractSet[str]
    #: The scheme objects that accepted, in the order of ``identities``.
    schemes: tuple[Scheme, ...] = field(default=(), repr=False, compare=False)

    @property
    def scheme(self) -> str:
        """The name of the (first) scheme that accepted."""
        return self.identities[0].scheme

    @property
    def principal(self) -> Any:
        """The (first) accepted identity's principal: a JWT's ``sub``, Basic's user name,
        what a ``verify`` callback returned, the value a ``keys`` mapping gives."""
        return self.identities[0].principal

    @property
    def claims(self) -> Mapping[str, Any]:
        """The (first) accepted identity's claims (a JWT's payload; ``{}`` for other schemes)."""
        return self.identities[0].claims


@dataclass(frozen=True, slots=True)
class _Refusal:
    """A scheme saw its credentials and refused them (RFC 6750 ``error`` and description)."""

    error: str
    description: str | None = None
    unavailable: bool = False


_INVALID_TOKEN = _Refusal("invalid_token")
_INVALID_REQUEST = _Refusal("invalid_request")
_EXPIRED = _Refusal("invalid_token", "token expired")
_NOT_YET_VALID = _Refusal("invalid_token", "token not yet valid")
_UNAVAILABLE = _Refusal("invalid_token", unavailable=True)
#: What ``Scheme.authenticate`` returns: an identity, a refusal, or ``None`` (no credentials of its kind).
Outcome = Union[Identity, _Refusal, None]


def _check_scopes(scopes: object, what: str) -> tuple[str, ...]:
    kind = type(scopes).__name__
    if isinstance(scopes, (str, bytes, Mapping)) or not isinstance(scopes, Iterable):
        raise _refuse(f"{what} has to be a list of scope names, not {kind}")
    checked = tuple(cast("Iterable[object]", scopes))
    for scope in checked:
        if not isinstance(scope, str) or _SCOPE.fullmatch(scope) is None:
            raise _refuse(f"{what}: {scope!r} is not a scope name (RFC 6749: visible ASCII, no space, '\"' or '\\\\')")
    return cast("tuple[str, ...]", checked)


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _check_name(name: object, default: str) -> str:
    if name is None:
        return default
    if not isinstance(name, str) or re.fullmatch(r"[A-Za-z0-9._-]+", name) is None:
        raise _refuse(f"a scheme's name has to be letters, digits, '.', '_' or '-' (an OpenAPI component name), "
                      f"got {name!r}")
    return name


def _check_realm(realm: object) -> str | None:
    if realm is not None and (not isinstance(realm, str) or any(c < " " or c == "\x7f" for c in realm)):
        raise _refuse(f"realm has to be a string without control characters, got {realm!r}")
    return realm


# --------------------------------------------------------------------------- schemes

class Scheme:
    """A way to authenticate a request. ``name`` names it in ``request.auth.scheme`` and in
    the OpenAPI document's ``securitySchemes``."""

    name: str
    realm: str | None
    #: The ``WWW-Authenticate`` scheme word (``None``: no challenge).
    challenge_scheme: str = ""

    def authenticate(self, request: Request) -> Outcome:
        """An :class:`Identity` when the request's credentials are accepted, a refusal when
        they are not, ``None`` when the request carries none of this scheme's kind."""
        raise NotImplementedError

    def challenge(self, error: str | None = None, description: str | None = None,
                  scope: str | None = None) -> str:
        """This scheme's ``WWW-Authenticate`` challenge (RFC 6750 parameters for bearer schemes)."""
        params = [f"realm={_quote(self.realm)}"] if self.realm else []
        params.extend(self._challenge_params())
        for key, value in (("error", error), ("error_description", description), ("scope", scope)):
            if value and self.challenge_scheme == "Bearer":
                params.append(f"{key}={_quote(value)}")
        return self.challenge_scheme + (" " + ", ".join(params) if params else "")

    def _challenge_params(self) -> list[str]:
        return []

    def security_scheme(self) -> dict[str, Any]:
        """This scheme as an OpenAPI ``securityScheme`` object."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def _identity_from(result: Any, scheme: str) -> Identity | None:
    """A ``verify`` callback's answer: falsy refuses, ``True`` accepts, an :class:`Identity`
    is taken as it is, anything else is the principal."""
    if inspect.isawaitable(result):
        result = run_coroutine(result)
    if result is None or result is False:
        return None
    if result is True:
        return Identity(scheme=scheme)
    if isinstance(result, Identity):
        return dataclasses.replace(result, scheme=scheme) if result.scheme != scheme else result
    return Identity(result, scheme=scheme)


class _Keys:
    """``keys=`` or ``verify=``, as :class:`Bearer` and :class:`ApiKey` take them."""

    __slots__ = ("_digests", "_identities", "_verify", "_scheme")

    def __init__(self, owner: str, scheme: str, keys: object, verify: object, key_pattern: re.Pattern[str]) -> None:
        if (keys is None) == (verify is None):
            raise _refuse(f"{owner}: give keys (the accepted keys) or verify (a function), one of them")
        self._scheme = scheme
        self._verify = cast("Callable[[str, Request], Any] | None", verify)
        if verify is not None and not callable(verify):
            raise _refuse(f"{owner}: verify has to be a function (value, request) -> identity or None")
        digests: list[bytes] = []
        identities: list[Identity] = []
        if keys is not None:
            if isinstance(keys, (str, bytes)) or not isinstance(keys, Iterable):
                raise _refuse(f"{owner}: keys has to be a set or list of keys, or a mapping key -> principal, "
                              f"not {type(keys).__name__}")
            given = cast("Mapping[object, object]", keys) if isinstance(keys, Mapping) else \
                dict.fromkeys(cast("Iterable[object]", keys))
            for key, principal in given.items():
                if not isinstance(key, str) or key_pattern.fullmatch(key) is None:
                    raise _refuse(f"{owner}: every key has to be a non-empty string a client can send "
                                  f"({'an RFC 6750 token68' if key_pattern is _TOKEN68 else 'visible ASCII'})")
                digests.append(hashlib.sha256(key.encode("ascii")).digest())
                identity = _identity_from(True if principal is None else principal, scheme)
                assert identity is not None
                identities.append(identity)
            if not digests:
                raise _refuse(f"{owner}: keys is empty: every request would be refused")
        self._digests = tuple(digests)
        self._identities = tuple(identities)

    def check(self, value: str, request: Request) -> Identity | None:
        if self._verify is not None:
            return _identity_from(self._verify(value, request), self._scheme)
        presented = hashlib.sha256(value.encode("utf-8", "surrogateescape")).digest()
        found: Identity | None = None
        for digest, identity in zip(self._digests, self._identities):  # every key, no early exit
            if hmac.compare_digest(digest, presented):
                found = identity
        return found


def _bearer_token(environ: Mapping[str, Any]) -> str | _Refusal | None:
    """The token of an ``Authorization: Bearer`` header (werkzeug parses it); a refusal for
    a malformed one; ``None`` without one (or with another scheme's)."""
    header = environ.get("HTTP_AUTHORIZATION")
    if not header:
        return None
    parsed = Authorization.from_header(header)
    if parsed is None or parsed.type != "bearer":
        return None
    token = parsed.token
    if not token or _TOKEN68.fullmatch(token) is None:
        return _INVALID_REQUEST
    return token


class Bearer(Scheme):
    """``Authorization: Bearer <token>`` (RFC 6750) checked against static ``keys`` (a set,
    or a mapping key -> principal or :class:`Identity`) or by ``verify(token, request)``
    (falsy refuses; ``True``, a principal or an :class:`Identity` accepts; may be ``async``).
    ``bearer_format`` is documented in OpenAPI."""

    challenge_scheme = "Bearer"

    def __init__(self, keys: Iterable[str] | Mapping[str, Any] | None = None, *,
                 verify: Callable[[str, Request], Any] | None = None, name: str | None = None,
                 realm: str | None = None, bearer_format: str | None = None) -> None:
        self.name = _check_name(name, "bearer")
        self.realm = _check_realm(realm)
        self._keys = _Keys("Bearer", self.name, keys, verify, _TOKEN68)
        self.bearer_format = bearer_format

    def authenticate(self, request: Request) -> Outcome:
        """See :meth:`Scheme.authenticate`."""
        token = _bearer_token(request.environ)
        if token is None or isinstance(token, _Refusal):
            return token
        return self._keys.check(token, request) or _INVALID_TOKEN

    def security_scheme(self) -> dict[str, Any]:
        """``{"type": "http", "scheme": "bearer"}`` (with ``bearerFormat`` when given)."""
        scheme: dict[str, Any] = {"type": "http", "scheme": "bearer"}
        if self.bearer_format:
            scheme["bearerFormat"] = self.bearer_format
        return scheme


class ApiKey(Scheme):
    """A key in a header, a query parameter or a cookie (exactly one of ``header=``,
    ``query=``, ``cookie=``: its name), checked against ``keys`` or by ``verify(key,
    request)`` as :class:`Bearer` does."""

    challenge_scheme = "ApiKey"

    def __init__(self, *, header: str | None = None, query: str | None = None, cookie: str | None = None,
                 keys: Iterable[str] | Mapping[str, Any] | None = None,
                 verify: Callable[[str, Request], Any] | None = None, name: str | None = None,
                 realm: str | None = None) -> None:
        places = {where: value for where, value in (("header", header), ("query", query), ("cookie", cookie))
                  if value is not None}
        if len(places) != 1:
            raise _refuse("ApiKey: give exactly one of header=, query= or cookie= (where the key is sent)")
        (self.location, self.parameter), = places.items()
        if not isinstance(self.parameter, str) or re.fullmatch(r"[!#-'*+.0-9A-Z^-z|~-]+", self.parameter) is None:
            raise _refuse(f"ApiKey: {self.location}= has to be a name (an HTTP token), got {self.parameter!r}")
        self.name = _check_name(name, "apiKey")
        self.realm = _check_realm(realm)
        self._keys = _Keys("ApiKey", self.name, keys, verify, _KEY)
        self._environ_key = "HTTP_" + self.parameter.upper().replace("-", "_")

    def authenticate(self, request: Request) -> Outcome:
        """See :meth:`Scheme.authenticate`."""
        if self.location == "header":
            value: object = request.environ.get(self._environ_key)
        elif self.location == "query":
            value = request.query.get(self.parameter)
        else:
            value = request.cookies.get(self.parameter)
        if not value:
            return None
        if not isinstance(value, str):  # a repeated query parameter
            return _INVALID_REQUEST
        return self._keys.check(value, request) or _INVALID_TOKEN

    def _challenge_params(self) -> list[str]:
        return [f'in="{self.location}"', f"name={_quote(self.parameter)}"]

    def security_scheme(self) -> dict[str, Any]:
        """``{"type": "apiKey", "in": ..., "name": ...}``."""
        return {"type": "apiKey", "in": self.location, "name": self.parameter}


class Basic(Scheme):
    """``Authorization: Basic`` (RFC 7617), decoded by werkzeug; ``verify(username,
    password, request)`` decides (so passwords stay hashed where they are kept: compare a
    hash with :func:`hmac.compare_digest`); it returns as :class:`Bearer`'s ``verify`` does,
    and an accepted identity's principal defaults to the user name."""

    challenge_scheme = "Basic"

    def __init__(self, verify: Callable[[str, str, Request], Any], *, name: str | None = None,
                 realm: str = "api") -> None:
        if not callable(verify):
            raise _refuse("Basic: verify has to be a function (username, password, request) -> identity or None")
        self._verify = verify
        self.name = _check_name(name, "basic")
        self.realm = _check_realm(realm) or "api"

    def authenticate(self, request: Request) -> Outcome:
        """See :meth:`Scheme.authenticate`."""
        header = request.environ.get("HTTP_AUTHORIZATION")
        if not header:
            return None
        if header.lstrip(" \t")[:6].lower() != "basic ":
            return None
        parsed = Authorization.from_header(header)
        if parsed is None or parsed.username is None or parsed.password is None:
            return _INVALID_REQUEST
        result = self._verify(parsed.username, parsed.password, request)
        if inspect.isawaitable(result):
            result = run_coroutine(result)
        if result is True:
            return Identity(parsed.username, scheme=self.name)
        return _identity_from(result, self.name) or _INVALID_TOKEN

    def _challenge_params(self) -> list[str]:
        return ['charset="UTF-8"']

    def security_scheme(self) -> dict[str, Any]:
        """``{"type": "http", "scheme": "basic"}``."""
        return {"type": "http", "scheme": "basic"}


# --------------------------------------------------------------------------- JWT

class _Unavailable(Exception):
    """The key set cannot be fetched and what is cached is past its stale bound."""


class _KeySet:
    """A JWKS fetched from ``url``: kept for its ``Cache-Control`` max-age (``default_max_age``
    without one, at most a day), fetched again at most once per ``cooldown`` seconds (on
    expiry, or for a ``kid`` it does not hold), served stale for ``max_stale`` seconds past
    its expiry while fetching fails."""

    def __init__(self, url: str, *, timeout: float, cooldown: float, default_max_age: float, max_stale: float,
                 clock: Callable[[], float]) -> None:
        self.url = url
        self._timeout = timeout
        self._cooldown = cooldown
        self._default_max_age = default_max_age
        self._max_stale = max_stale
        self._clock = clock
        self._lock = threading.Lock()
        self._keys: dict[str | None, jwt.PyJWK] | None = None
        self._expires = float("-inf")
        self._stale_until = float("-inf")
        self._last_attempt = float("-inf")

    def key(self, kid: str | None) -> jwt.PyJWK | None:
        """The signing key ``kid`` names (``None``: the set's only key), or ``None``."""
        now = self._clock()
        if now >= self._expires and now - self._last_attempt >= self._cooldown:
            self.refresh(wait=self._keys is None)
        keys = self._keys
        if keys is None or now >= self._stale_until:
            raise _Unavailable
        found = keys.get(kid) if kid is not None or len(keys) != 1 else next(iter(keys.values()))
        if found is None and kid is not None and now - self._last_attempt >= self._cooldown:
            self.refresh(wait=True)  # a rotated key: one fetch, then no more until the cooldown ends
            found = (self._keys or {}).get(kid)
        return found

    def refresh(self, wait: bool = True) -> bool:
        """Fetch the set now (unless another thread is, or did within the cooldown); whether it was fetched."""
        # A request that needs the keys waits for a fetch under way (bounded); one that has
        # usable keys goes on with them.
        acquired = self._lock.acquire(timeout=self._timeout * 2) if wait else self._lock.acquire(blocking=False)
        if not acquired:
            return False
        try:
            now = self._clock()
            if now - self._last_attempt < self._cooldown:
                return False
            self._last_attempt = now
            try:
                keys, max_age = self._fetch()
            except (OSError, ValueError, jwt.PyJWTError) as error:
                _log.warning("auth: the JWKS at %s could not be fetched (%s: %s); %s", self.url,
                             type(error).__name__, error,
                             "keeping the cached keys" if self._keys is not None else "no keys yet")
                return False
            self._keys = keys
            self._expires = now + max_age
            self._stale_until = self._expires + self._max_stale
            return True
        finally:
            self._lock.release()

    def _fetch(self) -> tuple[dict[str | None, jwt.PyJWK], float]:
        request = urllib.request.Request(self.url, headers={"Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=self._timeout) as response:  # noqa: S310 - http(s) only, checked
            body = response.read(_MAX_JWKS_BYTES + 1)
            cache_control = response.headers.get("Cache-Control")
        if len(body) > _MAX_JWKS_BYTES:
            raise ValueError(f"the key set is larger than {_MAX_JWKS_BYTES} bytes")
        data = json.loads(body)
        if not isinstance(data, dict):
            raise ValueError("the key set is not a JSON object")
        key_set = jwt.PyJWKSet.from_dict(cast("dict[str, Any]", data))
        keys = {key.key_id: key for key in key_set.keys
                if key.key_type != "oct" and key.public_key_use in (None, "sig")}
        if not keys:
            raise ValueError("the key set has no public signing key")
        max_age: float = self._default_max_age
        if cache_control:
            parsed = parse_cache_control_header(cache_control, cls=ResponseCacheControl)
            if parsed.no_store or parsed.no_cache:
                max_age = 0
            elif parsed.max_age is not None:
                max_age = parsed.max_age
        return keys, min(max(float(max_age), 0.0), 86400.0)


def _public_key(value: object) -> Any:
    if isinstance(value, (rsa.RSAPublicKey, ec.EllipticCurvePublicKey, ed25519.Ed25519PublicKey,
                          ed448.Ed448PublicKey)):
        return value
    if isinstance(value, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey, ed25519.Ed25519PrivateKey,
                          ed448.Ed448PrivateKey)):
        raise _refuse("JWT: public_key is a private key: give its public key")
    if isinstance(value, str):
        value = value.encode("ascii", "replace")
    if not isinstance(value, bytes):
        raise _refuse(f"JWT: public_key has to be a PEM string or a cryptography public key, not {type(value).__name__}")
    try:
        return serialization.load_pem_public_key(value)
    except (ValueError, TypeError) as error:
        raise _refuse(f"JWT: public_key is not a PEM public key ({error})") from None


def _check_algorithms(algorithms: object) -> tuple[str, ...]:
    if isinstance(algorithms, str) or not isinstance(algorithms, Iterable):
        raise _refuse("JWT: algorithms has to be a list of algorithm names (an allow-list, e.g. ['RS256'])")
    checked = tuple(cast("Iterable[object]", algorithms))
    known: set[str] = set(get_default_algorithms()) - {"none"}
    if not checked:
        raise _refuse("JWT: algorithms is empty")
    for name in checked:
        if name == "none" or (isinstance(name, str) and name.lower() == "none"):
            raise _refuse("JWT: 'none' is not an algorithm a token may use (it is unsigned)")
        if name not in known:
            raise _refuse(f"JWT: unknown algorithm {name!r}; known: {', '.join(sorted(known))}")
    return cast("tuple[str, ...]", checked)


def _check_key_algorithms(key: Any, algorithms: tuple[str, ...]) -> None:
    """Refuse a key and algorithms that would let one kind of key be read as another
    (HS256 verified with an RSA public key's bytes as the HMAC secret)."""
    if isinstance(key, rsa.RSAPublicKey):
        allowed: set[str] = set(_RSA_ALGORITHMS)
    elif isinstance(key, ec.EllipticCurvePublicKey):
        allowed = {name for name, curve in _EC_ALGORITHMS.items() if curve == key.curve.name}
    else:
        allowed = {"EdDSA"}
    wrong = [name for name in algorithms if name not in allowed]
    if wrong:
        raise _refuse(f"JWT: public_key is a {type(key).__name__.replace('_', '')} key, which cannot verify "
                      f"{', '.join(wrong)} (allowed with this key: {', '.join(sorted(allowed))}); mixing "
                      "algorithms of different key kinds opens key-confusion attacks")


class JWT(Scheme):
    """``Authorization: Bearer <JSON Web Token>``, verified by PyJWT.

    The key: exactly one of ``secret=`` (HS256/384/512; at least as many bytes as the hash,
    RFC 7518 3.2), ``public_key=`` (a PEM string or a ``cryptography`` public key: RSA for
    RS*/PS*, EC for ES* of its curve, Ed25519/Ed448 for EdDSA) or ``jwks_url=`` (the issuer's
    JSON Web Key Set; asymmetric algorithms only). ``algorithms`` is the allow-list (required;
    ``none`` is refused, and so is any algorithm the key is not of: no HS/RS confusion).

    ``issuer`` and ``audience`` (a string or a list) are checked when given (a token with an
    ``aud`` claim is refused when no ``audience`` is configured, as PyJWT does);
    ``exp``/``nbf``/``iat`` with ``leeway`` seconds; ``required_claims`` must be present
    (default ``("exp",)``). The principal is the ``principal_claim`` (``sub``); the scopes,
    the ``scopes_claim`` (``scope``: a space-separated string, or a list as ``scp`` is).

    The key set (``jwks_url``) is fetched when the application starts (``ready()``; a
    failure is logged, not fatal) and kept for its ``Cache-Control`` max-age
    (``jwks_default_max_age`` seconds without one; at most a day). A token whose ``kid`` it
    does not hold makes it fetch the set again, once: at most one fetch per
    ``jwks_cooldown`` seconds, whatever the requests ask. While the issuer cannot be
    reached the cached keys are served for ``jwks_max_stale`` seconds past their expiry;
    then tokens are answered ``503`` until a fetch succeeds. ``jwks_timeout`` bounds a
    fetch; ``jwks_clock`` (``time.monotonic``) is what the cache reads the time from.

    ``openid_connect_url`` (the issuer's ``/.well-known/openid-configuration``) makes the
    OpenAPI document describe the scheme as ``openIdConnect`` instead of an HTTP bearer.

    A token PyJWT has verified is remembered (the ``cache_size`` most recent ones; ``0``:
    none) until its ``exp`` (plus ``leeway``) passes: a client that sends the same token
    again is not verified again, unless the key set no longer holds its key. Tokens without
    ``exp`` are not remembered.
    """

    challenge_scheme = "Bearer"

    def __init__(self, *, algorithms: Sequence[str], secret: str | bytes | None = None,
                 public_key: Any = None, jwks_url: str | None = None, issuer: str | Sequence[str] | None = None,
                 audience: str | Sequence[str] | None = None, leeway: float = 0,
                 required_claims: Sequence[str] = ("exp",), principal_claim: str = "sub",
                 scopes_claim: str = "scope", name: str | None = None, realm: str | None = None,
                 jwks_timeout: float = 5.0, jwks_cooldown: float = 30.0, jwks_default_max_age: float = 600.0,
                 jwks_max_stale: float = 900.0, jwks_clock: Callable[[], float] = time.monotonic,
                 cache_size: int = 1024, openid_connect_url: str | None = None) -> None:
        self.name = _check_name(name, "jwt")
        self.realm = _check_realm(realm)
        self.algorithms = _check_algorithms(algorithms)
        if sum(given is not None for given in (secret, public_key, jwks_url)) != 1:
            raise _refuse("JWT: give exactly one of secret=, public_key= or jwks_url=")
        self._key: Any = None
        self.key_set: _KeySet | None = None
        hmac_wanted = [name for name in self.algorithms if name in _HMAC_ALGORITHMS]
        if secret is not None:
            if isinstance(secret, str):
                secret = secret.encode("utf-8")
            if not isinstance(secret, bytes):
                raise _refuse("JWT: secret has to be a string or bytes")
            if len(hmac_wanted) != len(self.algorithms):
                raise _refuse("JWT: a secret verifies HS256/HS384/HS512 only; algorithms lists "
                              f"{', '.join(n for n in self.algorithms if n not in _HMAC_ALGORITHMS)}")
            if b"-----BEGIN" in secret or secret.startswith((b"ssh-", b"ecdsa-")):
                raise _refuse("JWT: secret looks like a public key: give it as public_key= (with its algorithms)")
            needed = max(_HMAC_ALGORITHMS[name] for name in self.algorithms)
            if len(secret) < needed:
                raise _refuse(f"JWT: the secret has {len(secret)} bytes; {', '.join(self.algorithms)} needs at "
                              f"least {needed} (RFC 7518 3.2)")
            self._key = secret
        elif hmac_wanted:
            raise _refuse(f"JWT: {', '.join(hmac_wanted)} needs a shared secret=; with a public key or a key "
                          "set it would let a token signed with the public key as an HMAC secret through")
        elif public_key is not None:
            self._key = _public_key(public_key)
            _check_key_algorithms(self._key, self.algorithms)
        else:
            if not isinstance(jwks_url, str) or not jwks_url.startswith(("https://", "http://")):
                raise _refuse(f"JWT: jwks_url has to be an http(s) URL, got {jwks_url!r}")
            for option, value in (("jwks_timeout", jwks_timeout), ("jwks_cooldown", jwks_cooldown),
                                  ("jwks_default_max_age", jwks_default_max_age), ("jwks_max_stale", jwks_max_stale)):
                if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                    raise _refuse(f"JWT: {option} has to be a number of seconds >= 0, got {value!r}")
            if not callable(jwks_clock):
                raise _refuse("JWT: jwks_clock has to be a function returning seconds")
            self.key_set = _KeySet(jwks_url, timeout=jwks_timeout, cooldown=jwks_cooldown,
                                   default_max_age=jwks_default_max_age, max_stale=jwks_max_stale, clock=jwks_clock)
        if isinstance(leeway, bool) or not isinstance(leeway, (int, float)) or leeway < 0:
            raise _refuse(f"JWT: leeway has to be a number of seconds >= 0, got {leeway!r}")
        for option, claim in (("issuer", issuer), ("audience", audience)):
            if claim is not None and not isinstance(claim, str) and not (
                    isinstance(claim, (list, tuple)) and claim and all(isinstance(v, str) for v in claim)):
                raise _refuse(f"JWT: {option} has to be a string or a list of strings")
        if isinstance(required_claims, str) or not all(isinstance(c, str) for c in required_claims):
            raise _refuse("JWT: required_claims has to be a list of claim names")
        self._issuer = issuer if isinstance(issuer, str) or issuer is None else list(issuer)
        self._audience = audience if isinstance(audience, str) or audience is None else list(audience)
        self._leeway = leeway
        self._principal_claim = principal_claim
        self._scopes_claim = scopes_claim
        self._decoder = jwt.PyJWT({"require": list(required_claims)})
        if openid_connect_url is not None and (not isinstance(openid_connect_url, str) or
                                               not openid_connect_url.startswith(("https://", "http://"))):
            raise _refuse(f"JWT: openid_connect_url has to be an http(s) URL, got {openid_connect_url!r}")
        self.openid_connect_url = openid_connect_url
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise _refuse(f"JWT: cache_size has to be a number of tokens >= 0, got {cache_size!r}")
        self._cache_size = cache_size
        #: token -> (identity, valid until (exp + leeway, wall clock), kid, key): tokens already verified.
        self._verified: dict[str, tuple[Identity, float, str | None, Any]] = {}
        self._cache_lock = threading.Lock()

    def authenticate(self, request: Request) -> Outcome:
        """See :meth:`Scheme.authenticate`."""
        token = _bearer_token(request.environ)
        if token is None or isinstance(token, _Refusal):
            return token
        try:
            verified = self._verified.get(token)
            if verified is not None:
                identity, valid_until, kid, key = verified
                # Still before exp (+ leeway), and still signed by a key the set holds under that kid.
                if time.time() < valid_until and (self.key_set is None or self.key_set.key(kid) is key):
                    return identity
                self._verified.pop(token, None)
            kid = None
            key = self._key
            if self.key_set is not None:
                header_kid = jwt.get_unverified_header(token).get("kid")
                kid = header_kid if isinstance(header_kid, str) else None
                key = self.key_set.key(kid)
                if key is None:
                    return _INVALID_TOKEN
            claims = self._decoder.decode(token, key, algorithms=self.algorithms, issuer=self._issuer,
                                          audience=self._audience, leeway=self._leeway)
        except jwt.ExpiredSignatureError:
            return _EXPIRED
        except jwt.ImmatureSignatureError:
            return _NOT_YET_VALID
        except jwt.PyJWTError:
            return _INVALID_TOKEN
        except _Unavailable:
            return _UNAVAILABLE
        scopes = claims.get(self._scopes_claim)
        if isinstance(scopes, str):
            held = frozenset(scopes.split())
        elif isinstance(scopes, list):
            held = frozenset(scope for scope in cast("list[object]", scopes) if isinstance(scope, str))
        else:
            held = frozenset[str]()
        identity = Identity(claims.get(self._principal_claim), held, claims, self.name)
        expires = claims.get("exp")
        if self._cache_size and isinstance(expires, (int, float)) and not isinstance(expires, bool):
            self._remember(token, (identity, expires + self._leeway, kid, key))
        return identity

    def _remember(self, token: str, verified: tuple[Identity, float, str | None, Any]) -> None:
        # Only tokens PyJWT verified get here, so requests cannot fill it with their own data;
        # the oldest entry makes room (insertion order).
        with self._cache_lock:
            while len(self._verified) >= self._cache_size:
                self._verified.pop(next(iter(self._verified)), None)
            self._verified[token] = verified

    def security_scheme(self) -> dict[str, Any]:
        """``{"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}``, or
        ``{"type": "openIdConnect", "openIdConnectUrl": ...}`` with ``openid_connect_url``."""
        if self.openid_connect_url:
            return {"type": "openIdConnect", "openIdConnectUrl": self.openid_connect_url}
        return {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}


# --------------------------------------------------------------------------- requirements

class Requirement:
    """Schemes of which one (``any_of``) or each (``all_of``) must accept, and the scopes
    the accepted identities must hold together. Called as an ``on_request`` hook: sets
    ``request.auth`` or raises the refusal."""

    __slots__ = ("schemes", "all_of", "scopes")

    def __init__(self, schemes: Sequence[Scheme], all_of: bool = False, scopes: Iterable[str] = ()) -> None:
        if isinstance(schemes, (str, Mapping)) or not isinstance(schemes, Iterable):
            raise _refuse(f"{'all_of' if all_of else 'any_of'} has to be a list of schemes")
        self.schemes = tuple(schemes)
        if not self.schemes:
            raise _refuse(f"{'all_of' if all_of else 'any_of'} is empty: name at least one scheme")
        for scheme in self.schemes:
            if not isinstance(scheme, Scheme):
                raise _refuse(f"{scheme!r} is not a scheme (Bearer, ApiKey, Basic, JWT)")
        names = [scheme.name for scheme in self.schemes]
        if len(set(names)) != len(names):
            raise _refuse(f"two schemes share a name in {names}: give one of them name=")
        self.all_of = all_of
        self.scopes = frozenset(_check_scopes(scopes, "scopes"))

    def __call__(self, request: Request, reply: Reply) -> None:
        if self.all_of:
            identities: list[Identity] = []
            for scheme in self.schemes:
                outcome = scheme.authenticate(request)
                if not isinstance(outcome, Identity):
                    self._unauthorized(reply, [outcome if scheme is each else None for each in self.schemes])
                identities.append(outcome)
            held = frozenset[str]().union(*(identity.scopes for identity in identities))
            authentication = Authentication(tuple(identities), held, self.schemes)
        else:
            outcomes: list[Outcome] = []
            for scheme in self.schemes:
                outcome = scheme.authenticate(request)
                if isinstance(outcome, Identity):
                    authentication = Authentication((outcome,), outcome.scopes, (scheme,))
                    break
                outcomes.append(outcome)
            else:
                self._unauthorized(reply, outcomes)
        if self.scopes and not self.scopes <= authentication.scopes:
            _insufficient_scope(reply, authentication, self.scopes)
        request.auth = authentication  # type: ignore[attr-defined]  # the plugin's request decorator

    def _unauthorized(self, reply: Reply, outcomes: Sequence[Outcome]) -> NoReturn:
        if any(isinstance(outcome, _Refusal) and outcome.unavailable for outcome in outcomes):
            raise KeysUnavailableError()
        challenges: list[str] = []
        for scheme, outcome in zip(self.schemes, outcomes):
            challenge = scheme.challenge(outcome.error, outcome.description) if isinstance(outcome, _Refusal) \
                else scheme.challenge()
            if challenge not in challenges:
                challenges.append(challenge)
        reply.header("WWW-Authenticate", challenges if len(challenges) > 1 else challenges[0])
        if any(isinstance(outcome, _Refusal) for outcome in outcomes):
            raise InvalidCredentialsError()
        raise MissingCredentialsError()

    def security(self, scopes: Iterable[str] = ()) -> list[dict[str, list[str]]]:
        """This requirement as OpenAPI security requirement objects (alternatives), with
        ``scopes`` added to its own."""
        needed = sorted(self.scopes | set(scopes))
        if self.all_of:
            return [{scheme.name: list(needed) for scheme in self.schemes}]
        return [{scheme.name: list(needed)} for scheme in self.schemes]

    def __repr__(self) -> str:
        return (f"<auth {'all_of' if self.all_of else 'any_of'} {', '.join(s.name for s in self.schemes)}"
                f"{' scopes ' + ' '.join(sorted(self.scopes)) if self.scopes else ''}>")


def _insufficient_scope(reply: Reply, authentication: Authentication, needed: frozenset[str]) -> NoReturn:
    """Raise the 403 for credentials without every scope in ``needed`` (RFC 6750 3.1:
    ``error="insufficient_scope"`` and the ``scope`` needed, on the challenge of each bearer
    scheme that accepted)."""
    scope = " ".join(sorted(needed))
    challenges = [scheme.challenge("insufficient_scope", None, scope) for scheme in authentication.schemes
                  if scheme.challenge_scheme == "Bearer"]
    if challenges:
        reply.header("WWW-Authenticate", challenges if len(challenges) > 1 else challenges[0])
    raise InsufficientScopeError()


class _ScopeCheck:
    """A route's ``scopes=`` under its contexts' requirement: an ``on_request`` hook that
    runs after theirs and reads ``request.auth``."""

    __slots__ = ("scopes",)

    def __init__(self, scopes: frozenset[str]) -> None:
        self.scopes = scopes

    def __call__(self, request: Request, reply: Reply) -> None:
        authentication: Authentication | None = getattr(request, "auth", None)
        if authentication is None:  # ready() refuses a route no requirement guards; kept closed regardless
            raise MissingCredentialsError()
        if not self.scopes <= authentication.scopes:
            _insufficient_scope(reply, authentication, self.scopes)

    def __repr__(self) -> str:
        return f"<auth scopes {' '.join(sorted(self.scopes))}>"


def _requirement(value: object, scopes: Iterable[str], where: str) -> Requirement:
    """A route's ``auth=``: a scheme, a list of schemes (any of them), or ``{"any_of": [...]}``
    / ``{"all_of": [...]}``."""
    if isinstance(value, Scheme):
        return Requirement([value], scopes=scopes)
    if isinstance(value, Mapping):
        given = cast("Mapping[str, object]", value)
        if len(given) != 1 or next(iter(given)) not in ("any_of", "all_of"):
            raise _refuse(f"{where}: auth= takes {{'any_of': [...]}} or {{'all_of': [...]}}, got keys {sorted(given)}")
        (key, schemes), = given.items()
        return Requirement(cast("Sequence[Scheme]", schemes), all_of=key == "all_of", scopes=scopes)
    return Requirement(cast("Sequence[Scheme]", value), scopes=scopes)


class _RouteOptions:
    """The ``on_route`` hook: a route's ``auth=`` and ``scopes=`` become an ``on_request``
    hook of that route, first among its own."""

    def __call__(self, options: dict[str, Any]) -> None:
        if "auth" not in options and "scopes" not in options:
            return
        where = f"route {options.get('method')} {options.get('url')}"
        value, scopes = options.pop("auth", None), options.pop("scopes", None)
        checked = frozenset(_check_scopes(scopes, f"{where}: scopes")) if scopes is not None else frozenset[str]()
        if value is not None:
            hook: Requirement | _ScopeCheck = _requirement(value, checked, where)
        elif checked:
            hook = _ScopeCheck(checked)
        else:
            return
        own = options.get("on_request")
        options["on_request"] = [hook, *(own if isinstance(own, (list, tuple)) else [own] if own else [])]


class AuthGuard:
    """``instance.auth_guard``: the requirements the plugin put on a context and its routes,
    for documentation tools (``framework.plugins.openapi`` asks
    ``route.context.has_decorator("auth_guard")``, then :meth:`security` and
    :meth:`security_schemes`). Visible in the registering context and its descendants."""

    __slots__ = ("context", "requirements", "parent")

    def __init__(self, context: Context, parent: "AuthGuard | None") -> None:
        self.context = context
        #: The requirements registered on this context (``register(auth, any_of=...)``).
        self.requirements: list[Requirement] = []
        self.parent = parent

    def route_requirements(self, route: Route) -> tuple[list[Requirement], frozenset[str]]:
        """Every requirement a request of ``route`` meets, outermost first (its contexts',
        then its own ``auth=``), and its own ``scopes=`` checked against them."""
        found: list[Requirement] = []
        guard: AuthGuard | None = self
        while guard is not None:
            found[:0] = guard.requirements
            guard = guard.parent
        scopes: frozenset[str] = frozenset()
        for hook in route.own_hooks("on_request"):
            if isinstance(hook, Requirement):
                found.append(hook)
            elif isinstance(hook, _ScopeCheck):
                scopes |= hook.scopes
        return found, scopes

    def security(self, route: Route) -> list[dict[str, list[str]]]:
        """The route's OpenAPI ``security`` (empty when nothing guards it): the alternatives
        of every requirement it meets, combined (each must be met), with the scopes."""
        requirements, scopes = self.route_requirements(route)
        combined: list[dict[str, list[str]]] = [{}]
        for requirement in requirements:
            combined = [{**left, **{name: sorted(set(left.get(name, [])) | set(needed))
                                    for name, needed in right.items()}}
                        for left in combined for right in requirement.security(scopes)]
        return combined if requirements else []

    def security_schemes(self, route: Route) -> dict[str, dict[str, Any]]:
        """The OpenAPI ``securitySchemes`` the route's ``security`` names."""
        requirements, _ = self.route_requirements(route)
        return {scheme.name: scheme.security_scheme() for requirement in requirements for scheme in requirement.schemes}

    def on_ready(self) -> None:
        """At ``ready()``: refuse a route with ``scopes=`` that no requirement guards, and
        fetch the key set of every JWT scheme (a failure is logged: the issuer may come up later)."""
        key_sets: dict[int, _KeySet] = {}
        for route in self.context.routes():
            requirements, scopes = route.context.auth_guard.route_requirements(route)
            if scopes and not requirements:
                raise _refuse(f"route {route.method} {route.url} requires scopes {sorted(scopes)} but nothing "
                              "authenticates it: register auth with any_of/all_of on its context, or give it auth=")
            for requirement in requirements:
                for scheme in requirement.schemes:
                    if isinstance(scheme, JWT) and scheme.key_set is not None:
                        key_sets[id(scheme.key_set)] = scheme.key_set
        for context in self.context.walk():  # contexts without routes of their own
            if context.has_decorator("auth_guard"):
                for requirement in context.auth_guard.requirements:
                    for scheme in requirement.schemes:
                        if isinstance(scheme, JWT) and scheme.key_set is not None:
                            key_sets[id(scheme.key_set)] = scheme.key_set
        for key_set in key_sets.values():
            key_set.refresh()


_OPTIONS = ("any_of", "all_of", "scopes")
_IGNORED = ("prefix",)


def _auth(instance: Context, opts: Mapping[str, Any]) -> None:
    options = dict(opts or {})
    unknown = sorted(set(options) - set(_OPTIONS) - set(_IGNORED))
    if unknown:
        raise _refuse(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(_OPTIONS)}")
    any_of, all_of, scopes = options.get("any_of"), options.get("all_of"), options.get("scopes")
    if any_of is not None and all_of is not None:
        raise _refuse("give any_of or all_of, not both (nest a second registration in a child context for both)")
    requirement = None
    if any_of is not None or all_of is not None:
        requirement = Requirement(cast("Sequence[Scheme]", any_of if any_of is not None else all_of),
                                  all_of=all_of is not None, scopes=scopes if scopes is not None else ())
    elif scopes is not None:
        raise _refuse("scopes= needs any_of= or all_of= (the schemes whose credentials hold the scopes)")
    parent: AuthGuard | None = instance.auth_guard if instance.has_decorator("auth_guard") else None
    guard = parent
    if guard is None or guard.context is not instance:
        guard = AuthGuard(instance, parent)
        instance.decorate("auth_guard", guard)
    if parent is None:  # the outermost registration reads the route options of its whole subtree
        instance.add_hook("on_route", _RouteOptions())
        instance.add_hook("on_ready", guard.on_ready)
    if not instance.has_request_decorator("auth"):
        instance.decorate_request("auth", None)
    if requirement is not None:
        guard.requirements.append(requirement)
        instance.add_hook("on_request", requirement)


_auth.__doc__ = __doc__
#: The plugin: ``register(auth, any_of=[...])`` or ``all_of=[...]`` (and ``scopes=[...]``).
#: Runs in the registering context.
auth = plugin(_auth, name="auth")
