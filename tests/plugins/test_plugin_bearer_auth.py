"""framework.plugins.bearer_auth through the public API: app.register + app.inject."""
from __future__ import annotations

import asyncio

import pytest

import framework.plugins.bearer_auth as bearer_module
from framework import Framework
from framework.plugins.bearer_auth import BearerAuthOptionsError, bearer_auth

MISSING = {"error": "missing authorization header"}
INVALID = {"error": "invalid authorization header"}


def guarded_app(**options):
    """Root with a public route; child 'private' with bearer-auth; a sibling 'open'."""
    app = Framework()
    options.setdefault("keys", ["key-one", "key-two"])

    def private(instance, opts):
        instance.register(bearer_auth, **options)
        instance.get("/private", lambda request, reply: {"private": True})
        instance.post("/private", lambda request, reply: {"got": request.body})

        def grandchild(inner, opts):
            inner.get("/private/deeper", lambda request, reply: {"deeper": True})

        instance.register(grandchild)

    def open_(instance, opts):
        instance.get("/open", lambda request, reply: {"open": True})

    app.register(private)
    app.register(open_)
    app.get("/", lambda request, reply: {"root": True})
    return app


def get(app, url="/private", authorization=None, **kwargs):
    headers = dict(kwargs.pop("headers", {}) or {})
    if authorization is not None:
        headers["authorization"] = authorization
    return app.inject(method=kwargs.pop("method", "GET"), url=url, headers=headers, **kwargs)


def assert_refused(response, body, challenge):
    assert response.status_code == 401
    assert response.json() == body
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers.get("www-authenticate") == challenge


# ---------------------------------------------------------------- accepted / refused

@pytest.mark.parametrize("authorization", ["Bearer key-one", "Bearer key-two", "Bearer   key-one  ",
                                           "Bearer key-one\t"])
def test_valid_key_reaches_the_handler(authorization):
    response = get(guarded_app(), authorization=authorization)
    assert response.status_code == 200
    assert response.json() == {"private": True}
    assert "www-authenticate" not in response.headers


@pytest.mark.parametrize("authorization", [None, ""])
def test_missing_header(authorization):
    assert_refused(get(guarded_app(), authorization=authorization), MISSING, "Bearer")


@pytest.mark.parametrize("authorization", ["Bearer key-three", "Bearer key-on", "Bearer key-one2",
                                           "Bearer KEY-ONE"])
def test_wrong_key_is_invalid_token(authorization):
    response = get(guarded_app(), authorization=authorization)
    assert_refused(response, INVALID, 'Bearer error="invalid_token"')


@pytest.mark.parametrize("authorization", ["Basic key-one", "bearer key-one", "BEARER key-one",
                                           "Bearer ", "Bearer    ", "Bearerkey-one", "Bearer",
                                           "key-one", "Token key-one", "Bearer key-one key-two"])
def test_malformed_header_is_invalid_request(authorization):
    response = get(guarded_app(), authorization=authorization)
    assert_refused(response, INVALID, 'Bearer error="invalid_request"')


def test_challenge_never_echoes_the_key():
    for authorization in ("Bearer sneaky-secret", "Basic sneaky-secret", "Bearersneaky-secret"):
        response = get(guarded_app(), authorization=authorization)
        assert "sneaky" not in response.headers["www-authenticate"]
        assert b"sneaky" not in response.body


def test_hook_runs_before_the_body_is_parsed():
    response = get(guarded_app(), method="POST", body=b"{not json",
                   headers={"content-type": "application/json"})
    assert_refused(response, MISSING, "Bearer")
    ok = get(guarded_app(), method="POST", authorization="Bearer key-one", json={"a": 1})
    assert ok.status_code == 200 and ok.json() == {"got": {"a": 1}}


# ---------------------------------------------------------------- encapsulation

def test_only_the_registering_context_and_descendants_are_guarded():
    app = guarded_app()
    assert get(app, "/").json() == {"root": True}
    assert get(app, "/open").json() == {"open": True}
    assert_refused(get(app, "/private/deeper"), MISSING, "Bearer")
    deeper = get(app, "/private/deeper", authorization="Bearer key-two")
    assert deeper.status_code == 200 and deeper.json() == {"deeper": True}


def test_registered_at_root_guards_every_route_and_unknown_urls():
    app = Framework()
    app.register(bearer_auth, keys=["k"])
    app.get("/a", lambda request, reply: {"a": 1})

    def child(instance, opts):
        instance.get("/b", lambda request, reply: {"b": 1})

    app.register(child)
    assert_refused(get(app, "/a"), MISSING, "Bearer")
    assert_refused(get(app, "/b"), MISSING, "Bearer")
    assert get(app, "/b", authorization="Bearer k").json() == {"b": 1}
    # As in Fastify: a root on_request hook also runs for the 404 handler.
    assert_refused(get(app, "/nope"), MISSING, "Bearer")
    assert get(app, "/nope", authorization="Bearer k").status_code == 404


def test_plugin_name_is_recorded_for_dependencies():
    from framework import plugin

    app = Framework()
    seen = []

    def needs_auth(instance, opts):
        seen.append("loaded")

    app.register(bearer_auth, keys=["k"])
    app.register(plugin(needs_auth, name="needs-auth", dependencies=["bearer-auth"]))
    app.ready()
    assert seen == ["loaded"]


# ---------------------------------------------------------------- constant time

def test_every_key_is_compared_even_after_a_match(monkeypatch):
    calls = []
    real = bearer_module.hmac.compare_digest

    def counting(a, b):
        calls.append((len(a), len(b)))
        return real(a, b)

    monkeypatch.setattr(bearer_module.hmac, "compare_digest", counting)
    app = guarded_app(keys=["first", "second-key", "third-longer-key"])
    app.ready()
    calls.clear()
    assert get(app, authorization="Bearer first").status_code == 200
    assert len(calls) == 3
    calls.clear()
    assert get(app, authorization="Bearer x").status_code == 401
    assert len(calls) == 3
    # Digests are compared, so every comparison has the same length whatever the key.
    assert {pair for pair in calls} == {(32, 32)}


# ---------------------------------------------------------------- options

@pytest.mark.parametrize("keys", [("a", "b"), {"a", "b"}, frozenset({"a", "b"}), ["a", "b"]])
def test_key_collections(keys):
    app = guarded_app(keys=keys)
    assert get(app, authorization="Bearer b").status_code == 200
    assert get(app, authorization="Bearer c").status_code == 401


def test_keys_from_a_generator_are_read_once():
    app = guarded_app(keys=(k for k in ["g1", "g2"]))
    assert get(app, authorization="Bearer g1").status_code == 200
    assert get(app, authorization="Bearer g2").status_code == 200


def test_non_ascii_key_is_not_a_token68():
    # RFC 6750 keys are token68 (ASCII): such a key could never be sent, so it is refused
    # when the plugin loads, and a non-ASCII credential is a malformed header.
    app = Framework()
    app.register(bearer_auth, keys=["clé-secrète"])
    with pytest.raises(BearerAuthOptionsError) as info:
        app.ready()
    assert info.value.code == "FST_BEARER_AUTH_KEYS_OPTION_INVALID_KEY"
    raw = "Bearer clé-secrète".encode("utf-8").decode("latin-1")  # what WSGI hands over
    assert_refused(get(guarded_app(), authorization=raw), INVALID, 'Bearer error="invalid_request"')


@pytest.mark.parametrize("suffix", ["\u00a0", "\u0085", "\u2003", "\u3000", "\x0b", "\x0c", "\x1c"])
def test_key_followed_by_unicode_whitespace_is_refused(suffix):
    # str.strip() treats these as whitespace; RFC 6750's grammar (1*SP token68) does not.
    app = guarded_app()
    assert get(app, authorization="Bearer key-one").status_code == 200
    assert_refused(get(app, authorization="Bearer key-one" + suffix), INVALID, 'Bearer error="invalid_request"')
    assert_refused(get(app, authorization="Bearer" + suffix + "key-one"), INVALID, 'Bearer error="invalid_request"')


@pytest.mark.parametrize("token", ["a", "A-Z._~+/09", "YWJj==", "key="])
def test_token68_keys(token):
    app = guarded_app(keys=[token])
    assert get(app, authorization="Bearer " + token).status_code == 200
    assert get(app, authorization="Bearer  " + token + " ").status_code == 200


@pytest.mark.parametrize("authorization", ["Bearer key-one=x", "Bearer =key-one", "Bearer key one", "Bearer key,one"])
def test_text_outside_token68_is_invalid_request(authorization):
    assert_refused(get(guarded_app(keys=["key-one", "key"]), authorization=authorization), INVALID,
                   'Bearer error="invalid_request"')


def test_auth_function_decides():
    seen = []

    def auth(key, request):
        seen.append((key, request.url))
        return key == "letmein"

    app = guarded_app(keys=None, auth=auth)
    assert get(app, authorization="Bearer   letmein ").json() == {"private": True}
    assert_refused(get(app, authorization="Bearer nope"), INVALID, 'Bearer error="invalid_token"')
    assert_refused(get(app), MISSING, "Bearer")
    assert seen == [("letmein", "/private"), ("nope", "/private")]


def test_auth_replaces_keys_when_both_are_given():
    app = guarded_app(keys=["k"], auth=lambda key, request: key == "other")
    assert get(app, authorization="Bearer other").status_code == 200
    assert get(app, authorization="Bearer k").status_code == 401


def test_async_auth_is_awaited():
    async def auth(key, request):
        await asyncio.sleep(0)
        return key == "async-key"

    app = guarded_app(keys=None, auth=auth)
    assert get(app, authorization="Bearer async-key").status_code == 200
    assert get(app, authorization="Bearer other").status_code == 401


@pytest.mark.parametrize("result", [1, 0, None, "yes", [True]])
def test_auth_non_bool_result_is_500(result):
    app = guarded_app(keys=None, auth=lambda key, request: result)
    response = get(app, authorization="Bearer anything")
    assert response.status_code == 500
    assert response.json() == {"error": "internal server error"}
    assert "www-authenticate" not in response.headers


def test_auth_exception_goes_to_the_error_handler():
    def auth(key, request):
        raise RuntimeError("db down")

    app = guarded_app(keys=None, auth=auth)
    response = get(app, authorization="Bearer anything")
    assert response.status_code == 500
    assert response.json()["statusCode"] == 500

    seen = []
    app = guarded_app(keys=None, auth=auth)
    app.set_error_handler(lambda error, request, reply: (seen.append(str(error)),
                                                          reply.code(503).send({"down": True}))[1])
    response = get(app, authorization="Bearer anything")
    assert (response.status_code, response.json(), seen) == (503, {"down": True}, ["db down"])


def test_error_response_and_content_type():
    errors = []

    def error_response(err):
        errors.append((err.message, err.status_code, err.code))
        return {"type": "about:blank", "title": err.message, "status": err.status_code}

    app = guarded_app(error_response=error_response, content_type="application/problem+json")
    response = get(app)
    assert response.status_code == 401
    assert response.json() == {"type": "about:blank", "title": "missing authorization header", "status": 401}
    assert response.headers["content-type"].startswith("application/problem+json")
    get(app, authorization="Bearer wrong")
    assert errors == [("missing authorization header", 401, "FST_BEARER_AUTH_MISSING_AUTHORIZATION_HEADER"),
                      ("invalid authorization header", 401, "FST_BEARER_AUTH_INVALID_AUTHORIZATION_HEADER")]


def test_rfc6749_scheme_is_case_insensitive():
    app = guarded_app(spec_compliance="rfc6749")
    for authorization in ("bearer key-one", "BEARER key-one", "BeArEr key-one", "Bearer key-one"):
        assert get(app, authorization=authorization).status_code == 200, authorization
    assert get(app, authorization="Basic key-one").status_code == 401
    # rfc6750 (the default) is exact.
    assert get(guarded_app(spec_compliance="rfc6750"), authorization="bearer key-one").status_code == 401


def test_bearer_type_and_realm():
    app = guarded_app(bearer_type="Token", realm="example api")
    assert get(app, authorization="Token key-one").status_code == 200
    assert_refused(get(app, authorization="Bearer key-one"), INVALID,
                   'Token realm="example api", error="invalid_request"')
    assert_refused(get(app), MISSING, 'Token realm="example api"')
    assert_refused(get(app, authorization="Token bad"), INVALID,
                   'Token realm="example api", error="invalid_token"')


def test_add_hook_false_decorates_a_verifier_for_routes():
    app = Framework()

    def admin(instance, opts):
        instance.register(bearer_auth, keys=["admin-key"], add_hook=False)

        # bearer_auth loads when admin's body returns; a plugin registered after it sees
        # its decorators (plugins load in order).
        def routes(inner, opts):
            inner.get("/admin/open", lambda request, reply: {"open": True})
            inner.get("/admin", lambda request, reply: {"admin": True},
                      on_request=inner.verify_bearer_auth)
            inner.get("/admin/late", lambda request, reply: {"late": True},
                      pre_handler=inner.verify_bearer_auth)
            other = inner.verify_bearer_auth_factory(keys=["other-key"])
            inner.get("/admin/other", lambda request, reply: {"other": True}, on_request=other)

        instance.register(routes)

    app.register(admin)
    assert get(app, "/admin/open").json() == {"open": True}
    assert_refused(get(app, "/admin"), MISSING, "Bearer")
    assert_refused(get(app, "/admin", authorization="Bearer nope"), INVALID, 'Bearer error="invalid_token"')
    assert get(app, "/admin", authorization="Bearer admin-key").json() == {"admin": True}
    assert_refused(get(app, "/admin/late", authorization="Basic x"), INVALID, 'Bearer error="invalid_request"')
    assert get(app, "/admin/late", authorization="Bearer admin-key").json() == {"late": True}
    assert get(app, "/admin/other", authorization="Bearer other-key").json() == {"other": True}
    assert get(app, "/admin/other", authorization="Bearer admin-key").status_code == 401
    assert not hasattr(app, "verify_bearer_auth")  # decorated in admin's context only


@pytest.mark.parametrize("options,code,match", [
    ({}, "FST_BEARER_AUTH_MISSING_KEYS", "give keys"),
    ({"keys": "abc"}, "FST_BEARER_AUTH_INVALID_KEYS_OPTION_TYPE", "keys has to be a list, tuple or set"),
    ({"keys": 5}, "FST_BEARER_AUTH_INVALID_KEYS_OPTION_TYPE", "not int"),
    ({"keys": {"a": "b"}}, "FST_BEARER_AUTH_INVALID_KEYS_OPTION_TYPE", "not dict"),
    ({"keys": ["ok", 1]}, "FST_BEARER_AUTH_KEYS_OPTION_INVALID_KEY_TYPE", "only string entries"),
    ({"keys": [b"bytes"]}, "FST_BEARER_AUTH_KEYS_OPTION_INVALID_KEY_TYPE", "only string entries"),
    ({"keys": [""]}, "FST_BEARER_AUTH_KEYS_OPTION_INVALID_KEY", "non-empty"),
    ({"keys": [" padded"]}, "FST_BEARER_AUTH_KEYS_OPTION_INVALID_KEY", "surrounding spaces"),
    ({"keys": ["with space"]}, "FST_BEARER_AUTH_KEYS_OPTION_INVALID_KEY", "token68"),
    ({"keys": ["nbsp\u00a0"]}, "FST_BEARER_AUTH_KEYS_OPTION_INVALID_KEY", "token68"),
    ({"keys": []}, "FST_BEARER_AUTH_EMPTY_KEYS", "every request would be refused"),
    ({"keys": ["k"], "spec_compliance": "rfc1234"}, "FST_BEARER_AUTH_INVALID_SPEC", "rfc6750"),
    ({"keys": ["k"], "auth": "yes"}, "FST_BEARER_AUTH_INVALID_AUTH_OPTION", "auth has to be a function"),
    ({"keys": ["k"], "kyes": ["k"]}, "FST_BEARER_AUTH_UNKNOWN_OPTION", "unknown option.*kyes"),
    ({"keys": ["k"], "add_hook": "no"}, "FST_BEARER_AUTH_INVALID_ADD_HOOK", "add_hook"),
    ({"keys": ["k"], "bearer_type": "Be arer"}, "FST_BEARER_AUTH_INVALID_BEARER_TYPE", "one word"),
    ({"keys": ["k"], "error_response": "x"}, "FST_BEARER_AUTH_INVALID_ERROR_RESPONSE", "error_response"),
])
def test_bad_options_fail_ready(options, code, match):
    app = Framework()
    app.register(bearer_auth, **options)
    with pytest.raises(BearerAuthOptionsError, match=match) as info:
        app.ready()
    assert info.value.code == code
    assert str(info.value).startswith("bearer-auth: ")
