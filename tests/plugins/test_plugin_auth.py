"""framework.plugins.auth, through inject: Bearer, ApiKey (header, query, cookie) and Basic,
any_of/all_of per context and per route, scopes (403 insufficient_scope), the challenges,
scoping by context, request.auth, the OpenAPI document (validated) and bad options."""
from __future__ import annotations

import base64
import hashlib
import hmac
import time

import jwt
import pytest
from openapi_spec_validator import validate

from framework import Framework
from framework.plugins.auth import (JWT, ApiKey, Authentication, AuthOptionsError, Basic, Bearer, Identity,
                                    Requirement, auth)
from framework.plugins.bearer_auth import bearer_auth
from framework.plugins.openapi import OpenAPIError, openapi

SECRET = "s" * 32
# Basic's verifier checks a hash: the password itself is kept nowhere.
SALT = b"salt"
HASHES = {"alice": hashlib.scrypt(b"wonderland", salt=SALT, n=2, r=8, p=1)}


def check_password(username: str, password: str, request) -> bool:
    expected = HASHES.get(username, b"\0" * 64)
    return hmac.compare_digest(hashlib.scrypt(password.encode(), salt=SALT, n=2, r=8, p=1), expected) \
        and username in HASHES


def basic(user: str, password: str) -> dict[str, str]:
    return {"authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def token(**claims) -> str:
    return jwt.encode({"sub": "jo", "exp": time.time() + 60, **claims}, SECRET, algorithm="HS256")


def guarded(**options) -> Framework:
    app = Framework()
    app.register(auth, **options)
    app.get("/", lambda request, reply: {"scheme": request.auth.scheme, "principal": request.auth.principal,
                                          "scopes": sorted(request.auth.scopes)})
    return app


def get(app: Framework, url: str = "/", **headers):
    return app.inject(url=url, headers=headers.pop("headers", None) or headers or None)


# Each scheme.
def test_bearer_keys():
    app = guarded(any_of=[Bearer({"k-1", "k-2"})])
    assert get(app, headers=bearer("k-2")).json() == {"scheme": "bearer", "principal": None, "scopes": []}
    for headers, status, challenge in [({}, 401, "Bearer"), (bearer("k-3"), 401, 'Bearer error="invalid_token"'),
                                       (bearer("k 1"), 401, 'Bearer error="invalid_request"'),
                                       ({"authorization": "Bearer"}, 401, 'Bearer error="invalid_request"')]:
        response = get(app, headers=headers)
        assert (response.status_code, response.headers["www-authenticate"]) == (status, challenge)


def test_a_padded_token68_key_is_accepted():
    app = guarded(any_of=[Bearer({"YWJjZA=="})])
    assert get(app, headers=bearer("YWJjZA==")).status_code == 200
    assert get(app, headers=bearer("YWJjZA=")).status_code == 401


def test_bearer_keys_mapping_to_principals_and_scopes():
    app = guarded(any_of=[Bearer({"k-1": "ci-bot", "k-2": Identity("ops", scopes={"deploy"})}, realm="api")])
    assert get(app, headers=bearer("k-1")).json() == {"scheme": "bearer", "principal": "ci-bot", "scopes": []}
    assert get(app, headers=bearer("k-2")).json() == {"scheme": "bearer", "principal": "ops", "scopes": ["deploy"]}
    assert get(app).headers["www-authenticate"] == 'Bearer realm="api"'


@pytest.mark.parametrize("verify", [
    lambda value, request: value == "good" and Identity("v", scopes=["x"]),
    lambda value, request: "v" if value == "good" else None,
])
def test_bearer_verify(verify):
    app = guarded(any_of=[Bearer(verify=verify)])
    assert get(app, headers=bearer("good")).json()["principal"] == "v"
    assert get(app, headers=bearer("bad")).status_code == 401


def test_an_async_verify_is_awaited():
    async def verify(value, request):
        return value == "good"

    app = guarded(any_of=[Bearer(verify=verify)])
    assert get(app, headers=bearer("good")).status_code == 200
    assert get(app, headers=bearer("bad")).status_code == 401


def test_a_verify_that_raises_is_a_500_without_its_text():
    def verify(value, request):
        raise RuntimeError("database password is hunter2")

    response = get(guarded(any_of=[Bearer(verify=verify)]), headers=bearer("x"))
    assert response.status_code == 500 and "hunter2" not in response.text


@pytest.mark.parametrize("where, request_options", [
    ("header", {"headers": {"x-api-key": "key-1"}}),
    ("query", {"query": {"api_key": "key-1"}}),
    ("cookie", {"headers": {"cookie": "session_key=key-1"}}),
])
def test_api_key_in_each_place(where, request_options):
    name = {"header": "X-API-Key", "query": "api_key", "cookie": "session_key"}[where]
    app = guarded(any_of=[ApiKey(**{where: name}, keys={"key-1"})])
    response = app.inject(url="/", **request_options)
    assert (response.status_code, response.json()["scheme"]) == (200, "apiKey")
    response = app.inject(url="/")
    assert (response.status_code, response.json()["code"], response.headers["www-authenticate"]) == \
        (401, "FST_AUTH_MISSING_CREDENTIALS", f'ApiKey in="{where}", name="{name}"')
    wrong = {key: {k: v.replace("key-1", "key-2") for k, v in value.items()} for key, value in request_options.items()}
    assert app.inject(url="/", **wrong).json()["code"] == "FST_AUTH_INVALID_CREDENTIALS"


def test_api_key_repeated_in_the_query_is_refused():
    app = guarded(any_of=[ApiKey(query="api_key", keys={"key-1"})])
    assert app.inject(url="/?api_key=key-1&api_key=key-2").status_code == 401


def test_basic_with_a_hashed_password():
    app = guarded(any_of=[Basic(check_password, realm="staff")])
    assert get(app, headers=basic("alice", "wonderland")).json() == \
        {"scheme": "basic", "principal": "alice", "scopes": []}
    for headers, code in [({}, "FST_AUTH_MISSING_CREDENTIALS"), (basic("alice", "nope"), "FST_AUTH_INVALID_CREDENTIALS"),
                          (basic("bob", "wonderland"), "FST_AUTH_INVALID_CREDENTIALS"),
                          ({"authorization": "Basic %%%"}, "FST_AUTH_INVALID_CREDENTIALS")]:
        response = get(app, headers=headers)
        assert (response.status_code, response.json()["code"], response.headers["www-authenticate"]) == \
            (401, code, 'Basic realm="staff", charset="UTF-8"')


def test_basic_verify_may_return_an_identity():
    app = guarded(any_of=[Basic(lambda user, password, request: Identity(user.upper(), scopes=["a"]))])
    assert get(app, headers=basic("al", "x")).json() == {"scheme": "basic", "principal": "AL", "scopes": ["a"]}


# Combinations.
def test_any_of_accepts_any_scheme_and_challenges_with_each():
    app = guarded(any_of=[JWT(secret=SECRET, algorithms=["HS256"]), ApiKey(header="X-API-Key", keys={"key-1"}),
                          Basic(check_password)])
    assert get(app, headers=bearer(token())).json()["scheme"] == "jwt"
    assert get(app, headers={"x-api-key": "key-1"}).json()["scheme"] == "apiKey"
    assert get(app, headers=basic("alice", "wonderland")).json()["scheme"] == "basic"
    response = get(app)
    assert response.headers.getlist("www-authenticate") == \
        ["Bearer", 'ApiKey in="header", name="X-API-Key"', 'Basic realm="api", charset="UTF-8"']
    response = get(app, headers=bearer("x.y.z"))
    assert response.json()["code"] == "FST_AUTH_INVALID_CREDENTIALS"
    assert response.headers.getlist("www-authenticate")[0] == 'Bearer error="invalid_token"'


def test_bearer_and_jwt_share_one_challenge():
    app = guarded(any_of=[JWT(secret=SECRET, algorithms=["HS256"]), Bearer({"static-key"})])
    assert get(app, headers=bearer("static-key")).json()["scheme"] == "bearer"
    assert get(app, headers=bearer(token())).json()["scheme"] == "jwt"
    assert get(app).headers.getlist("www-authenticate") == ["Bearer"]


def test_all_of_needs_each_scheme():
    app = Framework()
    app.register(auth, all_of=[ApiKey(header="X-API-Key", keys={"key-1": Identity("svc", scopes=["a"])}),
                               JWT(secret=SECRET, algorithms=["HS256"])], scopes=["a", "b"])

    @app.get("/")
    def who(request, reply):
        authentication: Authentication = request.auth
        return {"schemes": [i.scheme for i in authentication.identities], "principal": authentication.principal,
                "scopes": sorted(authentication.scopes)}

    both = {"x-api-key": "key-1", **bearer(token(scope="b"))}
    assert get(app, headers=both).json() == {"schemes": ["apiKey", "jwt"], "principal": "svc", "scopes": ["a", "b"]}
    assert get(app, headers={"x-api-key": "key-1"}).json()["code"] == "FST_AUTH_MISSING_CREDENTIALS"
    assert get(app, headers=bearer(token(scope="a b"))).status_code == 401
    response = get(app, headers={"x-api-key": "key-1", **bearer(token())})
    assert (response.status_code, response.headers["www-authenticate"]) == \
        (403, 'Bearer error="insufficient_scope", scope="a b"')


# Scopes, per route, and scoping by context.
def scoped_app() -> Framework:
    app = Framework()

    def api(instance, opts):
        instance.register(auth, any_of=[JWT(secret=SECRET, algorithms=["HS256"], realm="items"),
                                        ApiKey(header="X-API-Key", keys={"key-1": Identity("bot", scopes=["read"])})])

        def routes(inner, opts):
            inner.get("/items", lambda request, reply: {"who": request.auth.principal})
            inner.delete("/items/:id", lambda request, reply: {"deleted": request.params["id"]},
                         scopes=["items:write"])
            inner.get("/admin", lambda request, reply: {"admin": True}, auth={"any_of": [Basic(check_password)]})

        instance.register(routes)

    app.register(api, prefix="/api")
    app.get("/public", lambda request, reply: {"auth": request.auth if hasattr(request, "auth") else "absent"})
    return app


def test_route_scopes_403_with_insufficient_scope():
    app = scoped_app()
    ok = app.inject("DELETE", "/api/items/7", headers=bearer(token(scope="items:read items:write")))
    assert (ok.status_code, ok.json()) == (200, {"deleted": "7"})
    response = app.inject("DELETE", "/api/items/7", headers=bearer(token(scope="items:read")))
    assert (response.status_code, response.json()["code"], response.json()["error"]) == \
        (403, "FST_AUTH_INSUFFICIENT_SCOPE", "Forbidden")
    assert response.headers["www-authenticate"] == 'Bearer realm="items", error="insufficient_scope", scope="items:write"'
    by_key = app.inject("DELETE", "/api/items/7", headers={"x-api-key": "key-1"})
    assert (by_key.status_code, by_key.headers.get("www-authenticate")) == (403, None)  # no challenge for an API key
    assert app.inject("DELETE", "/api/items/7").status_code == 401
    assert app.inject(url="/api/items", headers=bearer(token())).json() == {"who": "jo"}


def test_a_route_auth_option_adds_its_own_requirement():
    app = scoped_app()
    assert get(app, "/api/admin", headers=bearer(token())).headers["www-authenticate"] == 'Basic realm="api", charset="UTF-8"'
    both = {**basic("alice", "wonderland")}
    assert get(app, "/api/admin", headers=both).status_code == 401  # the context's requirement still applies
    app = Framework()
    app.register(auth)  # no scheme: routes name their own

    def routes(inner, opts):
        inner.get("/open", lambda request, reply: {"auth": request.auth})
        inner.get("/admin", lambda request, reply: {"who": request.auth.principal}, auth=Basic(check_password),
                  scopes=[])
        inner.get("/keys", lambda request, reply: {"who": request.auth.scheme},
                  auth=[Bearer({"k-1"}), ApiKey(header="X-Key", keys={"k-2"})])

    app.register(routes)
    assert get(app, "/open").json() == {"auth": None}
    assert get(app, "/admin", headers=basic("alice", "wonderland")).json() == {"who": "alice"}
    assert get(app, "/admin").status_code == 401
    assert get(app, "/keys", headers={"x-key": "k-2"}).json() == {"who": "apiKey"}


def test_auth_guards_only_its_context_and_descendants():
    app = scoped_app()
    assert get(app, "/public").json() == {"auth": "absent"}
    assert get(app, "/api/items").status_code == 401


def test_the_refusal_goes_through_the_error_handler_and_keeps_the_challenge():
    app = guarded(any_of=[Bearer({"k-1"})])
    app.set_error_handler(lambda error, request, reply: reply.code(error.status_code).send(
        {"problem": error.code}))
    response = get(app)
    assert (response.status_code, response.json(), response.headers["www-authenticate"]) == \
        (401, {"problem": "FST_AUTH_MISSING_CREDENTIALS"}, "Bearer")


def test_bearer_auth_still_works_beside_auth():
    app = Framework()
    app.register(bearer_auth, keys={"old-key"})
    app.register(auth, any_of=[ApiKey(header="X-API-Key", keys={"key-1"})])
    app.get("/", lambda request, reply: {"ok": True})
    assert get(app, headers={"authorization": "Bearer old-key", "x-api-key": "key-1"}).json() == {"ok": True}
    assert get(app, headers={"x-api-key": "key-1"}).json() == {"error": "missing authorization header"}


# Mistakes, refused early.
@pytest.mark.parametrize("build, message", [
    (lambda: Bearer(), "give keys"),
    (lambda: Bearer({"k"}, verify=lambda v, r: True), "give keys"),
    (lambda: Bearer("k-1"), "set or list"),
    (lambda: Bearer(set()), "empty"),
    (lambda: Bearer({"has space"}), "token68"),
    (lambda: Bearer(verify="yes"), "function"),
    (lambda: ApiKey(keys={"k"}), "exactly one of"),
    (lambda: ApiKey(header="X", query="y", keys={"k"}), "exactly one of"),
    (lambda: ApiKey(header="X Key", keys={"k"}), "HTTP token"),
    (lambda: Basic("secret"), "function"),
    (lambda: Bearer({"k"}, name="has space"), "name"),
    (lambda: Bearer({"k"}, realm="a\nb"), "realm"),
    (lambda: Identity("x", scopes="read"), "list of scope names"),
    (lambda: Requirement([]), "empty"),
    (lambda: Requirement(["nope"]), "not a scheme"),
    (lambda: Requirement([Bearer({"a"}), Bearer({"b"})]), "share a name"),
    (lambda: Requirement([Bearer({"a"})], scopes=["has space"]), "scope name"),
])
def test_bad_scheme_options(build, message):
    with pytest.raises(AuthOptionsError, match=message):
        build()


@pytest.mark.parametrize("options, message", [
    ({"any_of": [Bearer({"a"})], "all_of": [Bearer({"b"})]}, "not both"),
    ({"scopes": ["a"]}, "needs any_of"),
    ({"anyOf": [Bearer({"a"})]}, "unknown option"),
    ({"any_of": Bearer({"a"})}, "list of schemes"),
])
def test_bad_plugin_options_fail_ready(options, message):
    app = Framework()
    app.register(auth, **options)
    with pytest.raises(AuthOptionsError, match=message):
        app.ready()


def test_route_options_need_the_plugin_and_scopes_need_a_requirement():
    app = Framework()
    with pytest.raises(Exception, match="scopes"):
        app.get("/", lambda request, reply: {}, scopes=["a"])  # no auth loaded: an unknown option
    app = Framework()
    app.register(auth)
    app.register(lambda inner, opts: inner.get("/", lambda request, reply: {}, scopes=["a"]))
    with pytest.raises(AuthOptionsError, match="nothing authenticates it"):
        app.ready()
    app = Framework()
    app.register(auth)
    app.register(lambda inner, opts: inner.get("/", lambda request, reply: {}, auth={"one_of": []}))
    with pytest.raises(AuthOptionsError, match="any_of"):
        app.ready()


# OpenAPI.
def test_openapi_documents_every_scheme_and_scope():
    app = scoped_app()
    app.register(openapi, route_prefix=None)

    def more(instance, opts):
        instance.register(auth, all_of=[ApiKey(cookie="sid", keys={"x"}, name="cookieKey"),
                                        ApiKey(query="key", keys={"y"}, name="queryKey")])
        instance.get("/both", lambda request, reply: {})

    app.register(more, prefix="/more")
    app.ready()
    document = app.openapi()
    validate(document)
    assert document["components"]["securitySchemes"] == {
        "jwt": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
        "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
        "basic": {"type": "http", "scheme": "basic"},
        "cookieKey": {"type": "apiKey", "in": "cookie", "name": "sid"},
        "queryKey": {"type": "apiKey", "in": "query", "name": "key"},
    }
    paths = document["paths"]
    assert paths["/api/items"]["get"]["security"] == [{"jwt": []}, {"apiKey": []}]
    assert paths["/api/items/{id}"]["delete"]["security"] == [{"jwt": ["items:write"]}, {"apiKey": ["items:write"]}]
    assert paths["/api/admin"]["get"]["security"] == [{"jwt": [], "basic": []}, {"apiKey": [], "basic": []}]
    assert paths["/more/both"]["get"]["security"] == [{"cookieKey": [], "queryKey": []}]
    assert "security" not in paths["/public"]["get"]
    assert "401" in paths["/api/items"]["get"]["responses"] and "401" not in paths["/public"]["get"]["responses"]
    # A scope is required only on DELETE /api/items/{id}: only it may answer 403 insufficient_scope.
    assert paths["/api/items/{id}"]["delete"]["responses"]["403"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/FrameworkError"}
    assert "403" not in paths["/api/items"]["get"]["responses"]


def test_openapi_open_id_connect():
    app = guarded(any_of=[JWT(secret=SECRET, algorithms=["HS256"], name="oidc",
                              openid_connect_url="https://id.example/.well-known/openid-configuration")],
                  scopes=["openid"])
    app.register(openapi, route_prefix=None)
    app.ready()
    document = app.openapi()
    validate(document)
    assert document["components"]["securitySchemes"] == {"oidc": {
        "type": "openIdConnect", "openIdConnectUrl": "https://id.example/.well-known/openid-configuration"}}
    assert document["paths"]["/"]["get"]["security"] == [{"oidc": ["openid"]}]
    with pytest.raises(AuthOptionsError, match="openid_connect_url"):
        JWT(secret=SECRET, algorithms=["HS256"], openid_connect_url="id.example")


def test_openapi_with_bearer_auth_too_and_a_name_clash():
    app = Framework()
    app.register(openapi, route_prefix=None)
    app.register(bearer_auth, keys={"k"})
    app.register(auth, any_of=[Bearer(verify=lambda v, r: True, bearer_format="opaque")])
    app.get("/", lambda request, reply: {})
    app.ready()
    document = app.openapi()
    validate(document)
    assert document["paths"]["/"]["get"]["security"] == [{"bearer": [], "bearerAuth": []}]
    clash = Framework()
    clash.register(openapi, route_prefix=None)
    clash.register(lambda i, o: (i.register(auth, any_of=[ApiKey(header="A", keys={"k"})]), i.get("/a", lambda q, r: {})))
    clash.register(lambda i, o: (i.register(auth, any_of=[ApiKey(header="B", keys={"k"})]), i.get("/b", lambda q, r: {})))
    with pytest.raises(OpenAPIError, match="'apiKey'"):
        clash.ready()


def test_the_module_docstring_example():
    import framework.plugins.auth
    from test_plugin_docstrings import first_example

    namespace = first_example(framework.plugins.auth)
    app, secret = namespace["app"], namespace["SECRET"]
    assert get(app, "/health").json() == {"ok": True}
    assert get(app, "/api/me").headers.getlist("www-authenticate") == \
        ["Bearer", 'ApiKey in="header", name="X-API-Key"']
    assert get(app, "/api/me", headers={"x-api-key": "ci-bot-key"}).json() == {"who": "ci-bot"}
    writer = jwt.encode({"sub": "jo", "iss": "https://id.example", "exp": time.time() + 60, "scope": "items:write"},
                        secret, algorithm="HS256")
    reader = jwt.encode({"sub": "jo", "iss": "https://id.example", "exp": time.time() + 60}, secret, algorithm="HS256")
    assert get(app, "/api/me", headers=bearer(writer)).json() == {"who": "jo"}
    assert app.inject("DELETE", "/api/items/1", headers=bearer(writer)).json() == {"deleted": "1"}
    response = app.inject("DELETE", "/api/items/1", headers=bearer(reader))
    assert (response.status_code, response.headers["www-authenticate"]) == \
        (403, 'Bearer error="insufficient_scope", scope="items:write"')


def test_the_example_app_account_context(tmp_path):
    """examples/app.py's /account: a JWT signed with JWT_SECRET, or one of the API keys."""
    from examples.app import JWT_ISSUER, create_app

    secret = "an-example-secret-of-32-bytes-or-more"
    app = create_app(api_keys=["key-a"], database=str(tmp_path / "items.sqlite3"), jwt_secret=secret)
    signed = jwt.encode({"sub": "jo", "iss": JWT_ISSUER, "exp": time.time() + 60}, secret, algorithm="HS256")
    assert get(app, "/account/me", headers=bearer(signed)).json() == {"scheme": "jwt", "principal": "jo"}
    assert get(app, "/account/me", headers=bearer("key-a")).json() == {"scheme": "apiKeys", "principal": None}
    response = get(app, "/account/me", headers=bearer(token()))  # signed with another secret, no issuer
    assert (response.status_code, response.headers["www-authenticate"]) == (401, 'Bearer error="invalid_token"')
    assert get(app, "/child").status_code == 200
    app.close()
