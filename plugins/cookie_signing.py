"""Signed cookies (the signing part of @fastify/cookie): the secrets that sign and check them.

``reply.set_cookie(name, value, signed=True)`` and ``request.signed_cookie(name)`` are the
framework's own; they sign with the ``cookie_signer`` decorator visible from the route's
context, and this plugin is what registers one. It is wrapped with ``plugin(...)``: the
signer belongs to the registering context and its descendants (a descendant may register
its own, with other secrets)::

    from framework import Framework
    from framework.plugins.cookie_signing import cookie_signing

    app = Framework()
    app.register(cookie_signing, secret=["the-new-secret", "the-old-secret"])

    @app.get("/remember")
    def remember(request, reply):
        reply.set_cookie("theme", "dark", signed=True, httponly=True)
        return {"ok": True}

    @app.get("/theme")
    def theme(request, reply):
        return {"theme": request.signed_cookie("theme")}   # None when absent or tampered

The value goes out as ``value.signature`` (itsdangerous's ``Signer``: HMAC-SHA256 over a
key derived from the secret and ``salt``); it is signed, not encrypted, so the client can
read it. ``request.signed_cookie(name)`` is ``None`` for a missing cookie, a value
without a signature, a tampered one, or one signed with a secret that is no longer
listed: never an error.

Options:

``secret``
    A string (or bytes), or a list of them for key rotation: the first signs, every one
    verifies. To rotate, put the new secret first and keep the old one until the cookies
    it signed have expired, then drop it. Required.
``salt``
    Sets signatures of this registration apart from other uses of the same secret;
    default ``"framework.cookie_signing"``.

The signer is also the ``cookie_signer`` decorator of the context (``app.cookie_signer``),
a :class:`RotatingSigner` with ``sign(value)`` and ``unsign(signed)``: what @fastify/cookie
calls ``fastify.signCookie`` and ``fastify.unsignCookie``. Bad options fail ``ready()``
with a :class:`CookieSigningOptionsError`.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, cast

from itsdangerous import BadSignature, Signer, want_bytes

from framework import Context, plugin

__all__ = ["cookie_signing", "RotatingSigner", "PrecomputedSigner", "CookieSigningOptionsError", "secret_keys"]

_OPTIONS = ("secret", "salt")
_IGNORED = ("prefix",)


class CookieSigningOptionsError(ValueError):
    """Options that cookie signing cannot work with; raised when the plugin loads (``ready()``)."""


def secret_keys(secret: object, who: str) -> list[bytes]:
    """``secret`` (one secret, or a list with the signing one first) as a list of bytes
    (text as UTF-8), checked: ``CookieSigningOptionsError`` (its message starting with
    ``who``) for anything else. The session plugin reads its ``secret`` option the same way."""
    secrets = [secret] if isinstance(secret, (str, bytes)) else secret
    if not isinstance(secrets, (list, tuple)) or not secrets:
        raise CookieSigningOptionsError(
            f"{who}: secret has to be a string or a non-empty list of strings (the first signs, all verify), "
            f"not {type(secret).__name__}")
    keys: list[bytes] = []
    for key in cast("list[object]", secrets):
        if not isinstance(key, (str, bytes)) or not key:
            raise CookieSigningOptionsError(f"{who}: every secret has to be a non-empty string, not {key!r}")
        keys.append(key.encode("utf-8") if isinstance(key, str) else key)
    return keys


class PrecomputedSigner(Signer):
    """itsdangerous's ``Signer`` with each secret's derived key computed once, when it is
    made: itsdangerous derives it again at every ``sign`` and ``unsign`` (a hash of the
    salt and the secret), a cost a request need not pay. The signatures are the same."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.derived_keys: dict[bytes, bytes] = {}
        for key in self.secret_keys:
            self.derived_keys[key] = super().derive_key(key)

    def derive_key(self, secret_key: str | bytes | None = None) -> bytes:
        """The derived key of ``secret_key`` (the signing key when ``None``), as itsdangerous derives it."""
        key = self.secret_keys[-1] if secret_key is None else want_bytes(secret_key)
        derived = self.derived_keys.get(key)
        return derived if derived is not None else super().derive_key(key)


class RotatingSigner:
    """Signs with the first secret and accepts a signature by any of them (itsdangerous)."""

    __slots__ = ("signer",)

    def __init__(self, secrets: list[bytes], salt: str) -> None:
        # itsdangerous signs with the last key of its list and verifies with any.
        self.signer = PrecomputedSigner(list(reversed(secrets)), salt=salt, digest_method=hashlib.sha256)

    def sign(self, value: str) -> str:
        """``value.signature``."""
        return self.signer.sign(value.encode("utf-8")).decode("utf-8")

    def unsign(self, signed: str) -> str | None:
        """The value ``signed`` was made from, or ``None`` when its signature does not hold."""
        try:
            return self.signer.unsign(signed.encode("utf-8", "surrogateescape")).decode("utf-8")
        except (BadSignature, UnicodeError):
            return None

    def __repr__(self) -> str:
        return f"<RotatingSigner, {len(self.signer.secret_keys)} secret(s)>"


def _cookie_signing(instance: Context, opts: Mapping[str, Any]) -> None:
    options = dict(opts or {})
    unknown = sorted(set(options) - set(_OPTIONS) - set(_IGNORED))
    if unknown:
        raise CookieSigningOptionsError(
            f"cookie_signing: unknown option(s) {', '.join(unknown)}; known: {', '.join(_OPTIONS)}")
    if "secret" not in options:
        raise CookieSigningOptionsError("cookie_signing: give secret (a string, or a list: the first signs)")
    salt = options.get("salt", "framework.cookie_signing")
    if not isinstance(salt, str) or not salt:
        raise CookieSigningOptionsError(f"cookie_signing: salt has to be a non-empty string, not {salt!r}")
    instance.decorate("cookie_signer", RotatingSigner(secret_keys(options["secret"], "cookie_signing"), salt))


_cookie_signing.__doc__ = __doc__
#: The plugin: ``register(cookie_signing, secret=[...])``. Runs in the registering context.
cookie_signing = plugin(_cookie_signing, name="cookie_signing")
