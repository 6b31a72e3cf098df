"""framework.plugins.auth's JWT scheme, through inject: secrets, public keys and a real JWKS
server on 127.0.0.1 (tests/support/jwks_server.py) that rotates its keys and goes down;
expired, not-yet-valid, wrong issuer or audience, ``alg: none``, HS256 signed with the RS256
public key, unknown ``kid`` (one refresh, then 401), and the stale bound."""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from framework import Framework
from framework.plugins.auth import JWT, AuthOptionsError, auth
from jwks_server import jwks_server

SECRET = "s" * 32
ISSUER = "https://id.example"


class Clock:
    """The JWKS cache's clock, moved by the test (no sleeping, no timing assumption)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def claims(**overrides) -> dict:
    now = int(time.time())
    return {"sub": "alice", "iss": ISSUER, "aud": "api", "iat": now, "exp": now + 300, "scope": "read write",
            **overrides}


def app_with(scheme: JWT) -> Framework:
    app = Framework()
    app.register(auth, any_of=[scheme])
    app.get("/me", lambda request, reply: {"sub": request.auth.principal, "scopes": sorted(request.auth.scopes),
                                            "claims_iss": request.auth.claims["iss"]})
    return app


def call(app: Framework, token: str | None):
    return app.inject(url="/me", headers={"authorization": f"Bearer {token}"} if token else None)


def hs256(**options) -> Framework:
    return app_with(JWT(secret=SECRET, algorithms=["HS256"], issuer=ISSUER, audience="api", **options))


def test_a_valid_token_is_accepted_with_its_claims():
    response = call(hs256(), jwt.encode(claims(), SECRET, algorithm="HS256"))
    assert response.status_code == 200
    assert response.json() == {"sub": "alice", "scopes": ["read", "write"], "claims_iss": ISSUER}


def test_no_token_is_a_401_with_a_bearer_challenge():
    response = call(hs256(), None)
    assert (response.status_code, response.json()["code"], response.headers["www-authenticate"]) == \
        (401, "FST_AUTH_MISSING_CREDENTIALS", "Bearer")


@pytest.mark.parametrize("overrides, description", [
    ({"exp": int(time.time()) - 60}, "token expired"),
    ({"nbf": int(time.time()) + 600}, "token not yet valid"),
    ({"iat": int(time.time()) + 600}, "token not yet valid"),
    ({"iss": "https://evil.example"}, None),
    ({"aud": "another-api"}, None),
    ({"exp": None}, None),  # exp is required by default
])
def test_refused_claims(overrides, description):
    payload = {key: value for key, value in claims(**overrides).items() if value is not None}
    response = call(hs256(), jwt.encode(payload, SECRET, algorithm="HS256"))
    challenge = 'Bearer error="invalid_token"' + (f', error_description="{description}"' if description else "")
    assert (response.status_code, response.json()["code"], response.headers["www-authenticate"]) == \
        (401, "FST_AUTH_INVALID_CREDENTIALS", challenge)


def test_leeway_accepts_a_token_expired_within_it():
    token = jwt.encode(claims(exp=int(time.time()) - 30), SECRET, algorithm="HS256")
    assert call(hs256(leeway=120), token).status_code == 200
    assert call(hs256(), token).status_code == 401


def test_a_token_signed_with_another_secret_is_refused():
    assert call(hs256(), jwt.encode(claims(), "t" * 32, algorithm="HS256")).status_code == 401


@pytest.mark.parametrize("token", ["not-a-jwt", "a.b.c", "eyJhbGciOiJIUzI1NiJ9.e30.", "x" * 5000])
def test_garbage_is_a_401_never_a_500(token):
    response = call(hs256(), token)
    assert response.status_code == 401 and response.json()["code"] == "FST_AUTH_INVALID_CREDENTIALS"


def test_alg_none_is_refused():
    token = jwt.encode(claims(), None, algorithm="none")
    assert call(hs256(), token).status_code == 401
    with pytest.raises(AuthOptionsError, match="'none'"):
        JWT(secret=SECRET, algorithms=["HS256", "none"])


def rsa_pem() -> tuple[rsa.RSAPrivateKey, bytes]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return key, pem


def test_rs256_with_a_public_key():
    key, pem = rsa_pem()
    app = app_with(JWT(public_key=pem, algorithms=["RS256"], issuer=ISSUER, audience="api"))
    assert call(app, jwt.encode(claims(), key, algorithm="RS256")).status_code == 200
    other, _ = rsa_pem()
    assert call(app, jwt.encode(claims(), other, algorithm="RS256")).status_code == 401


def test_hs256_signed_with_the_rs256_public_key_is_refused():
    """The key-confusion attack: the public key's PEM bytes used as an HMAC secret."""
    _, pem = rsa_pem()
    app = app_with(JWT(public_key=pem, algorithms=["RS256"], issuer=ISSUER, audience="api"))
    header, payload = jwt.utils.base64url_encode(b'{"alg":"HS256","typ":"JWT"}'), \
        jwt.utils.base64url_encode(json.dumps(claims()).encode())
    signature = jwt.utils.base64url_encode(hmac.new(pem, header + b"." + payload, hashlib.sha256).digest())
    token = b".".join((header, payload, signature)).decode()
    response = call(app, token)
    assert (response.status_code, response.headers["www-authenticate"]) == (401, 'Bearer error="invalid_token"')


@pytest.mark.parametrize("options, message", [
    ({"public_key": "PEM", "algorithms": ["HS256", "RS256"]}, "needs a shared secret"),
    ({"public_key": "PEM", "algorithms": ["ES256"]}, "cannot verify ES256"),
    ({"secret": "PEM", "algorithms": ["HS256"]}, "looks like a public key"),
    ({"secret": SECRET, "algorithms": ["RS256"]}, "verifies HS256/HS384/HS512 only"),
    ({"secret": "short", "algorithms": ["HS256"]}, "needs at least 32"),
    ({"secret": SECRET, "algorithms": ["HS512"]}, "needs at least 64"),
    ({"jwks_url": "https://id.example/jwks", "algorithms": ["HS256"]}, "needs a shared secret"),
    ({"jwks_url": "file:///etc/passwd", "algorithms": ["RS256"]}, "http\\(s\\) URL"),
    ({"algorithms": ["RS256"]}, "exactly one of"),
    ({"secret": SECRET, "public_key": "PEM", "algorithms": ["HS256"]}, "exactly one of"),
    ({"secret": SECRET, "algorithms": "HS256"}, "allow-list"),
    ({"secret": SECRET, "algorithms": []}, "empty"),
    ({"secret": SECRET, "algorithms": ["HS257"]}, "unknown algorithm"),
    ({"public_key": b"not a key", "algorithms": ["RS256"]}, "not a PEM public key"),
    ({"secret": SECRET, "algorithms": ["HS256"], "leeway": -1}, "leeway"),
])
def test_a_key_and_algorithms_that_allow_confusion_are_refused_at_registration(options, message):
    _, pem = rsa_pem()
    options = {key: (pem if value == "PEM" else value) for key, value in options.items()}
    with pytest.raises(AuthOptionsError, match=message):
        JWT(**options)


def test_a_private_key_is_refused_and_key_objects_are_checked_by_kind():
    key = ec.generate_private_key(ec.SECP256R1())
    with pytest.raises(AuthOptionsError, match="private key"):
        JWT(public_key=key, algorithms=["ES256"])
    with pytest.raises(AuthOptionsError, match="ES384"):
        JWT(public_key=key.public_key(), algorithms=["ES384"])
    app = app_with(JWT(public_key=key.public_key(), algorithms=["ES256"], issuer=ISSUER, audience="api"))
    assert call(app, jwt.encode(claims(), key, algorithm="ES256")).status_code == 200
    edkey = ed25519.Ed25519PrivateKey.generate()
    app = app_with(JWT(public_key=edkey.public_key(), algorithms=["EdDSA"], issuer=ISSUER, audience="api"))
    assert call(app, jwt.encode(claims(), edkey, algorithm="EdDSA")).status_code == 200


def test_scopes_from_a_list_claim():
    app = Framework()
    app.register(auth, any_of=[JWT(secret=SECRET, algorithms=["HS256"], scopes_claim="scp",
                                   principal_claim="email")], scopes=["admin"])
    app.get("/", lambda request, reply: {"who": request.auth.principal})
    token = jwt.encode({"email": "a@example", "scp": ["admin", "read"], "exp": time.time() + 60}, SECRET,
                       algorithm="HS256")
    assert app.inject(url="/", headers={"authorization": f"Bearer {token}"}).json() == {"who": "a@example"}
    token = jwt.encode({"scp": ["read"], "exp": time.time() + 60}, SECRET, algorithm="HS256")
    response = app.inject(url="/", headers={"authorization": f"Bearer {token}"})
    assert (response.status_code, response.headers["www-authenticate"]) == \
        (403, 'Bearer error="insufficient_scope", scope="admin"')


# --------------------------------------------------------------------------- JWKS

def jwks_app(issuer, clock: Clock, **options) -> Framework:
    options = {"jwks_cooldown": 30, "jwks_max_stale": 600, "jwks_clock": clock, **options}
    app = app_with(JWT(jwks_url=issuer.url, algorithms=[issuer.algorithm], issuer=ISSUER, audience="api",
                       **options))
    app.ready()
    return app


@pytest.mark.parametrize("kind", ["RSA", "EC"])
def test_jwks_keys_are_fetched_at_ready_and_cached_for_max_age(kind):
    clock = Clock()
    with jwks_server(max_age=120, kind=kind) as issuer:
        app = jwks_app(issuer, clock)
        assert issuer.hits == 1
        for _ in range(3):
            assert call(app, issuer.sign(claims())).status_code == 200
        clock.advance(119)
        assert call(app, issuer.sign(claims())).status_code == 200
        assert issuer.hits == 1
        clock.advance(2)  # past max-age=120: fetched again, once
        assert call(app, issuer.sign(claims())).status_code == 200
        assert call(app, issuer.sign(claims())).status_code == 200
        assert issuer.hits == 2


def test_an_unknown_kid_refreshes_once_then_401():
    clock = Clock()
    with jwks_server(max_age=3600) as issuer:
        app = jwks_app(issuer, clock)
        clock.advance(31)  # the start-up fetch's cooldown is over
        kid, stranger = issuer.new_key()
        forged = issuer.sign(claims(), kid=kid, key=stranger)
        response = call(app, forged)
        assert (response.status_code, response.headers["www-authenticate"]) == (401, 'Bearer error="invalid_token"')
        assert issuer.hits == 2
        for _ in range(5):  # within the cooldown: no more fetches, however many unknown kids
            assert call(app, forged).status_code == 401
            assert call(app, issuer.sign(claims(), kid=f"other-{_}", key=stranger)).status_code == 401
        assert issuer.hits == 2
        clock.advance(31)
        assert call(app, forged).status_code == 401
        assert issuer.hits == 3


def test_rotated_keys_are_picked_up_by_the_unknown_kid_refresh():
    clock = Clock()
    with jwks_server(max_age=3600) as issuer:
        app = jwks_app(issuer, clock)
        old = issuer.sign(claims())
        assert call(app, old).status_code == 200
        clock.advance(31)
        issuer.rotate()  # the old key is withdrawn, a new one published
        assert call(app, issuer.sign(claims())).status_code == 200
        assert issuer.hits == 2
        assert call(app, old).status_code == 401  # its kid is gone; the cooldown keeps it from fetching
        assert issuer.hits == 2


def test_both_keys_during_a_rotation_overlap():
    clock = Clock()
    with jwks_server(max_age=60) as issuer:
        app = jwks_app(issuer, clock)
        old = issuer.sign(claims())
        issuer.rotate(keep_old=True)
        clock.advance(61)
        assert call(app, issuer.sign(claims())).status_code == 200
        assert call(app, old).status_code == 200
        assert issuer.hits == 2


def test_a_down_issuer_is_served_stale_within_the_bound_then_refused(caplog):
    clock = Clock()
    with jwks_server(max_age=60) as issuer:
        app = jwks_app(issuer, clock, jwks_max_stale=600)
        token = issuer.sign(claims())
        issuer.available = False
        clock.advance(61)  # expired: one fetch (503), the cached keys are kept
        with caplog.at_level(logging.WARNING, logger="framework.plugins.auth"):
            assert call(app, token).status_code == 200
        assert issuer.hits == 2
        assert "could not be fetched" in caplog.text and "keeping the cached keys" in caplog.text
        assert call(app, token).status_code == 200  # within the cooldown: no fetch
        assert issuer.hits == 2
        clock.advance(31)
        assert call(app, token).status_code == 200
        assert issuer.hits == 3
        clock.advance(61 + 600 - 92)  # past expiry + max_stale
        issuer.stop()  # now refused at the socket
        response = call(app, token)
        assert (response.status_code, response.json()["code"]) == (503, "FST_AUTH_KEYS_UNAVAILABLE")
        assert "Traceback" not in response.text and "127.0.0.1" not in response.text


def test_an_issuer_back_after_an_outage_is_used_again():
    clock = Clock()
    with jwks_server(max_age=60) as issuer:
        app = jwks_app(issuer, clock, jwks_max_stale=0)
        token = issuer.sign(claims())
        issuer.available = False
        clock.advance(61)
        assert call(app, token).status_code == 503
        issuer.available = True
        assert call(app, token).status_code == 503  # the cooldown bounds the fetches
        clock.advance(31)
        assert call(app, token).status_code == 200
        assert issuer.hits == 3


def test_an_issuer_down_at_start_does_not_fail_ready_and_answers_503():
    clock = Clock()
    with jwks_server() as issuer:
        issuer.available = False
        app = jwks_app(issuer, clock)
        response = call(app, issuer.sign(claims()))
        assert response.status_code == 503
        issuer.available = True
        clock.advance(31)
        assert call(app, issuer.sign(claims())).status_code == 200


def test_without_cache_control_the_default_max_age_applies():
    clock = Clock()
    with jwks_server(max_age=None) as issuer:
        app = jwks_app(issuer, clock, jwks_default_max_age=100)
        clock.advance(99)
        assert call(app, issuer.sign(claims())).status_code == 200
        assert issuer.hits == 1
        clock.advance(2)
        assert call(app, issuer.sign(claims())).status_code == 200
        assert issuer.hits == 2


def test_a_jwks_token_with_hs256_and_the_public_key_is_refused():
    clock = Clock()
    with jwks_server() as issuer:
        app = jwks_app(issuer, clock)
        kid, key = issuer.keys[-1]
        pem = key.public_key().public_bytes(serialization.Encoding.PEM,
                                            serialization.PublicFormat.SubjectPublicKeyInfo)
        header = jwt.utils.base64url_encode(('{"alg":"HS256","kid":"%s"}' % kid).encode())
        payload = jwt.utils.base64url_encode(json.dumps(claims()).encode())
        signature = jwt.utils.base64url_encode(hmac.new(pem, header + b"." + payload, hashlib.sha256).digest())
        assert call(app, b".".join((header, payload, signature)).decode()).status_code == 401


def test_a_remembered_token_is_refused_once_expired():
    """Verified tokens are remembered until exp + leeway; past it the token is refused again."""
    app = hs256(leeway=30)
    deadline = time.monotonic() + 60
    while True:  # a token 27 s past exp (3 s left within the leeway), accepted and remembered
        token = jwt.encode(claims(exp=int(time.time()) - 27), SECRET, algorithm="HS256")
        if call(app, token).status_code == 200 or time.monotonic() > deadline:
            break
    assert call(app, token).status_code == 200
    while time.time() <= int(jwt.decode(token, options={"verify_signature": False})["exp"]) + 30:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    response = call(app, token)
    assert (response.status_code, response.headers["www-authenticate"]) == \
        (401, 'Bearer error="invalid_token", error_description="token expired"')


def test_cache_size_is_checked():
    with pytest.raises(AuthOptionsError, match="cache_size"):
        JWT(secret=SECRET, algorithms=["HS256"], cache_size=-1)
    app = hs256(cache_size=0)
    token = jwt.encode(claims(), SECRET, algorithm="HS256")
    assert call(app, token).status_code == 200 and call(app, token).status_code == 200


def test_a_key_set_named_only_by_a_route_is_fetched_at_ready():
    clock = Clock()
    with jwks_server() as issuer:
        app = Framework()
        app.register(auth)
        scheme = JWT(jwks_url=issuer.url, algorithms=["RS256"], jwks_clock=clock)
        app.register(lambda inner, opts: inner.get("/", lambda request, reply: {"sub": request.auth.principal},
                                                   auth=scheme))
        app.ready()
        assert issuer.hits == 1
        assert call_root(app, issuer.sign({"sub": "al", "exp": time.time() + 60})).json() == {"sub": "al"}
        assert issuer.hits == 1


def call_root(app: Framework, token: str):
    return app.inject(url="/", headers={"authorization": f"Bearer {token}"})
