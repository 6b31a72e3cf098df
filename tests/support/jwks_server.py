"""A real JSON Web Key Set server on 127.0.0.1 for framework.plugins.auth's tests.

``with jwks_server() as issuer:`` serves ``issuer.url`` (``{"keys": [...]}`` with a
``Cache-Control: max-age=...`` header) from an ``http.server`` thread; ``issuer.hits``
counts the fetches; ``issuer.sign(claims)`` makes a token with the current key (generated
with ``cryptography``, written as JWKs and signed by PyJWT); ``issuer.rotate()`` replaces
the key; ``issuer.available = False`` answers 503 (an issuer that is down), and
``issuer.stop()`` closes the socket (connection refused).
"""
from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa


class JWKSIssuer:
    """The server's keys and counters (see the module docstring)."""

    def __init__(self, max_age: int | None = 300, kind: str = "RSA") -> None:
        self.max_age = max_age
        self.kind = kind
        self.available = True
        self.hits = 0
        self._lock = threading.Lock()
        self._serial = 0
        self.keys: list[tuple[str, Any]] = []
        self.rotate()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/.well-known/jwks.json"

    @property
    def algorithm(self) -> str:
        return "RS256" if self.kind == "RSA" else "ES256"

    def new_key(self) -> tuple[str, Any]:
        """A fresh private key and its ``kid`` (not yet published)."""
        self._serial += 1
        key = (rsa.generate_private_key(public_exponent=65537, key_size=2048) if self.kind == "RSA"
               else ec.generate_private_key(ec.SECP256R1()))
        return f"key-{self._serial}", key

    def rotate(self, keep_old: bool = False) -> str:
        """Publish a new key (dropping the others unless ``keep_old``); its ``kid``."""
        kid, key = self.new_key()
        self.keys = [*(self.keys if keep_old else []), (kid, key)]
        return kid

    def sign(self, claims: dict[str, Any], kid: str | None = None, key: Any = None) -> str:
        """A token signed with the newest published key (or ``kid``'s, or ``key`` under ``kid``)."""
        if key is None:
            kid, key = next(((k, v) for k, v in self.keys if k == kid), self.keys[-1]) if kid else self.keys[-1]
        return jwt.encode(claims, key, algorithm=self.algorithm, headers={"kid": kid})

    def document(self) -> dict[str, Any]:
        algorithm = jwt.algorithms.RSAAlgorithm if self.kind == "RSA" else jwt.algorithms.ECAlgorithm
        jwks = []
        for kid, key in self.keys:
            jwk = algorithm.to_jwk(key.public_key(), as_dict=True)
            jwks.append({**jwk, "kid": kid, "alg": self.algorithm, "use": "sig"})
        return {"keys": jwks}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                with issuer._lock:
                    issuer.hits += 1
                if not issuer.available:
                    self.send_response(503)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = json.dumps(issuer.document()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if issuer.max_age is not None:
                    self.send_header("Cache-Control", f"public, max-age={issuer.max_age}")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
                pass

        return Handler

    def stop(self) -> None:
        """Stop serving and close the socket: fetches are refused from now on."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


@contextmanager
def jwks_server(max_age: int | None = 300, kind: str = "RSA") -> Iterator[JWKSIssuer]:
    """A :class:`JWKSIssuer` serving on a free loopback port, stopped afterwards."""
    issuer = JWKSIssuer(max_age, kind)
    try:
        yield issuer
    finally:
        if issuer._thread.is_alive():
            issuer.stop()
