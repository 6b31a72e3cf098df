"""Signed cookies: reply.set_cookie(..., signed=True) and request.signed_cookie(name) through
framework.plugins.cookie_signing (itsdangerous): round trip, tampering, key rotation,
scoping by context, and the error without a signer."""
from __future__ import annotations

import pytest

from framework import Framework
from framework.plugins.cookie_signing import CookieSigningOptionsError, RotatingSigner, cookie_signing

FIXED_500 = {"statusCode": 500, "error": "Internal Server Error", "message": "Internal Server Error"}


def routes(instance) -> None:
    @instance.post("/set")
    def set_(request, reply):
        reply.set_cookie("pref", request.body["value"], signed=True, httponly=True, samesite="Lax")
        return {"ok": True}

    @instance.get("/get")
    def get(request, reply):
        return {"pref": request.signed_cookie("pref"), "raw": request.cookies.get("pref")}


def app_with(secret) -> Framework:
    app = Framework()
    app.register(cookie_signing, secret=secret)
    routes(app)
    return app


def cookie_from(response) -> str:
    """The ``name=value`` part of the answer's one Set-Cookie line."""
    return response.headers["set-cookie"].split("; ")[0]


def signed(app: Framework, value: str) -> str:
    response = app.inject(method="POST", url="/set", json={"value": value})
    assert response.status_code == 200
    return cookie_from(response)


def read(app: Framework, cookie: str | None) -> str | None:
    headers = {"cookie": cookie} if cookie else {}
    return app.inject(url="/get", headers=headers).json()["pref"]


@pytest.mark.parametrize("value", ["dark", "", "déjà vu; \"quoted\", \\ and =", "a.b.c", "x" * 1000])
def test_a_signed_value_reads_back(value):
    app = app_with("secret-one")
    assert read(app, signed(app, value)) == value


def test_the_cookie_carries_the_value_and_its_signature_and_the_other_attributes():
    app = app_with("secret-one")
    response = app.inject(method="POST", url="/set", json={"value": "dark"})
    line = response.headers["set-cookie"]
    assert line.startswith("pref=dark.") and "; HttpOnly" in line and "; SameSite=Lax" in line
    assert app.inject(url="/get", headers={"cookie": cookie_from(response)}).json()["raw"].startswith("dark.")


@pytest.mark.parametrize("cookie", [
    "pref=dark",                     # no signature
    "pref=light.{sig}",              # another value under dark's signature
    "pref=dark.{sig}x",              # signature changed
    "pref=dark.",                    # empty signature
    "pref=.{sig}",
    "pref=%ff%fe.{sig}",
    "pref=\"\\303\\251.abc\"",       # non-ASCII, quoted
])
def test_a_tampered_or_unsigned_cookie_reads_as_none(cookie):
    app = app_with("secret-one")
    signature = signed(app, "dark").rpartition(".")[2]
    response = app.inject(url="/get", headers={"cookie": cookie.format(sig=signature)})
    assert response.status_code == 200 and response.json()["pref"] is None


def test_a_missing_cookie_reads_as_none():
    assert read(app_with("s"), None) is None


def test_another_secret_does_not_verify():
    assert read(app_with("secret-two"), signed(app_with("secret-one"), "dark")) is None


def test_key_rotation_the_first_secret_signs_and_every_one_verifies():
    old = app_with("old-secret")
    rotated = app_with(["new-secret", "old-secret"])
    new_only = app_with("new-secret")
    from_old = signed(old, "kept")
    assert read(rotated, from_old) == "kept"           # still accepted during the rotation
    from_rotated = signed(rotated, "fresh")
    assert read(new_only, from_rotated) == "fresh"      # signed with the new (first) secret
    assert read(old, from_rotated) is None
    assert read(new_only, from_old) is None             # the old secret dropped: no longer valid


def test_the_salt_sets_signatures_apart():
    app = Framework()
    app.register(cookie_signing, secret="s", salt="other")
    routes(app)
    assert read(app, signed(app_with("s"), "dark")) is None
    assert read(app, signed(app, "dark")) == "dark"


def test_bytes_secrets_work():
    app = app_with([b"\x00binary-secret", "text"])
    assert read(app, signed(app, "v")) == "v"


def test_the_signer_is_the_contexts_cookie_signer_decorator():
    app = app_with("s")
    app.ready()
    signer = app.cookie_signer
    assert isinstance(signer, RotatingSigner)
    assert read(app, "pref=" + signer.sign("by-hand")) == "by-hand"
    assert signer.unsign("nope") is None and repr(signer) == "<RotatingSigner, 1 secret(s)>"


def test_scoped_a_child_may_use_its_own_secrets_and_a_sibling_has_none():
    app = Framework()

    def signed_context(instance, opts):
        instance.register(cookie_signing, secret="parent")
        routes(instance)

        def child(inner, opts):
            inner.register(cookie_signing, secret="child")
            routes(inner)
        instance.register(child, prefix="/child")

    def sibling(instance, opts):
        routes(instance)

    app.register(signed_context, prefix="/a")
    app.register(sibling, prefix="/b")
    parent_cookie = cookie_from(app.inject(method="POST", url="/a/set", json={"value": "p"}))
    child_cookie = cookie_from(app.inject(method="POST", url="/a/child/set", json={"value": "c"}))
    assert app.inject(url="/a/get", headers={"cookie": parent_cookie}).json()["pref"] == "p"
    assert app.inject(url="/a/child/get", headers={"cookie": child_cookie}).json()["pref"] == "c"
    assert app.inject(url="/a/child/get", headers={"cookie": parent_cookie}).json()["pref"] is None
    assert app.inject(method="POST", url="/b/set", json={"value": "x"}).json() == FIXED_500


def test_without_a_signer_signing_and_reading_are_a_500_whose_text_is_only_logged(caplog):
    app = Framework()
    routes(app)
    with caplog.at_level("ERROR"):
        assert app.inject(method="POST", url="/set", json={"value": "x"}).json() == FIXED_500
        assert app.inject(url="/get", headers={"cookie": "pref=x"}).json() == FIXED_500
    assert "no cookie signer is visible" in caplog.text and "framework.plugins.cookie_signing" in caplog.text


def test_unsigned_cookies_need_no_signer():
    app = Framework()
    app.get("/", lambda request, reply: reply.set_cookie("plain", "v").send({"ok": True}))
    assert app.inject(url="/").headers["set-cookie"] == "plain=v; Path=/"


@pytest.mark.parametrize("options, message", [
    ({}, "give secret"),
    ({"secret": ""}, "every secret has to be a non-empty string"),
    ({"secret": []}, "secret has to be a string or a non-empty list"),
    ({"secret": 42}, "secret has to be a string or a non-empty list"),
    ({"secret": ["ok", None]}, "every secret has to be a non-empty string, not None"),
    ({"secret": "s", "salt": ""}, "salt has to be a non-empty string"),
    ({"secret": "s", "secrets": ["s"]}, "unknown option(s) secrets"),
])
def test_bad_options_fail_ready(options, message):
    app = Framework()
    app.register(cookie_signing, **options)
    with pytest.raises(CookieSigningOptionsError) as refused:
        app.ready()
    assert message in str(refused.value) and str(refused.value).startswith("cookie_signing: ")


def test_the_docstring_example():
    import framework.plugins.cookie_signing as module
    from test_plugin_docstrings import first_example

    app = first_example(module)["app"]
    cookie = cookie_from(app.inject(url="/remember"))
    assert app.inject(url="/theme", headers={"cookie": cookie}).json() == {"theme": "dark"}
    assert app.inject(url="/theme", headers={"cookie": cookie.replace("dark", "light")}).json() == {"theme": None}


def test_precomputed_keys_sign_as_itsdangerous_itself_does():
    import hashlib

    from itsdangerous import Signer

    from framework.plugins.cookie_signing import PrecomputedSigner
    keys = [b"old", b"new"]
    ours, theirs = (cls(keys, salt="s", digest_method=hashlib.sha256) for cls in (PrecomputedSigner, Signer))
    assert ours.sign(b"value") == theirs.sign(b"value")
    assert ours.unsign(Signer(b"old", salt="s", digest_method=hashlib.sha256).sign(b"v")) == b"v"
    assert ours.derive_key(b"unlisted") == theirs.derive_key(b"unlisted")
