"""framework.plugins.cors: origins, preflights scoped to the registering context, bearer-auth interplay."""
import re

import pytest

from framework import Framework
from framework.plugins.bearer_auth import bearer_auth
from framework.plugins.cors import CorsOptionsError, cors

PREFLIGHT = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}


def build(**options):
    app = Framework()

    def api(instance, opts):
        instance.register(cors, **options)
        instance.get("/items", lambda request, reply: [1])
        instance.post("/items", lambda request, reply: {"ok": True})
        instance.get("/items/:id", lambda request, reply: request.params)

    app.register(api, prefix="/api")
    app.get("/other", lambda request, reply: "other")
    return app


def test_actual_request_default_origin_star():
    app = build()
    response = app.inject(url="/api/items", headers={"Origin": "https://x.example"})
    assert response.headers["access-control-allow-origin"] == "*"
    assert response.headers["vary"] == "Origin"
    assert "access-control-allow-origin" not in app.inject(url="/other", headers={"Origin": "x"}).headers


def test_preflight_answered_for_the_context_routes_only():
    app = build(max_age=600, exposed_headers=["x-total"])
    response = app.inject(method="OPTIONS", url="/api/items/7", headers={
        **PREFLIGHT, "Access-Control-Request-Headers": "content-type, x-custom"})
    assert response.status_code == 204
    assert response.headers["access-control-allow-methods"] == "GET,HEAD,PUT,PATCH,POST,DELETE"
    assert response.headers["access-control-allow-headers"] == "content-type, x-custom"  # reflected
    assert response.headers["access-control-max-age"] == "600"
    assert response.headers["vary"] == "Origin, Access-Control-Request-Headers"
    assert app.inject(method="OPTIONS", url="/other", headers=PREFLIGHT).status_code == 404
    assert app.inject(url="/api/items").headers["access-control-expose-headers"] == "x-total"


def test_origin_list_regex_and_callable():
    app = build(origin=["https://a.example", re.compile(r"^https://.*\.trusted\.example$")],
                credentials=True, methods=["GET", "POST"], allowed_headers="content-type")
    ok = app.inject(url="/api/items", headers={"Origin": "https://b.trusted.example"})
    assert ok.headers["access-control-allow-origin"] == "https://b.trusted.example"
    assert ok.headers["access-control-allow-credentials"] == "true"
    refused = app.inject(url="/api/items", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in refused.headers and refused.headers["vary"] == "Origin"
    preflight = app.inject(method="OPTIONS", url="/api/items", headers={**PREFLIGHT, "Origin": "https://a.example"})
    assert preflight.headers["access-control-allow-methods"] == "GET, POST"
    assert preflight.headers["access-control-allow-headers"] == "content-type"

    calls = []

    def decide(origin, request):
        calls.append((origin, request.path))
        return origin == "https://dyn.example"

    dynamic = build(origin=decide)
    assert dynamic.inject(url="/api/items", headers={"Origin": "https://dyn.example"}).headers[
        "access-control-allow-origin"] == "https://dyn.example"
    assert "access-control-allow-origin" not in dynamic.inject(
        url="/api/items", headers={"Origin": "https://no.example"}).headers
    assert calls[0] == ("https://dyn.example", "/api/items")


def test_strict_preflight():
    app = build()
    response = app.inject(method="OPTIONS", url="/api/items", headers={"Origin": "https://a.example"})
    assert response.status_code == 400 and response.text == "Invalid Preflight Request"
    lax = build(strict_preflight=False)
    assert lax.inject(method="OPTIONS", url="/api/items").status_code == 204


def test_credentials_with_star_fails_ready():
    app = build(credentials=True)
    with pytest.raises(CorsOptionsError, match="credentials"):
        app.ready()


def test_bad_options_fail_ready():
    for options in ({"origin": 3}, {"max_age": "x"}, {"unknown": 1}, {"methods": 5}):
        with pytest.raises(CorsOptionsError):
            build(**options).ready()


def test_preflight_to_bearer_protected_context_needs_no_key():
    app = Framework()

    def private(instance, opts):
        instance.register(bearer_auth, keys={"secret"})
        instance.register(cors, origin="https://app.example")
        instance.get("/private", lambda request, reply: {"hello": "friend"})

    app.register(private)
    preflight = app.inject(method="OPTIONS", url="/private", headers=PREFLIGHT)
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == "https://app.example"
    refused = app.inject(url="/private", headers={"Origin": "https://app.example"})
    assert refused.status_code == 401  # the actual request still needs the key...
    assert refused.headers["access-control-allow-origin"] == "https://app.example"  # ...and the page can read why
    ok = app.inject(url="/private", headers={"Origin": "https://app.example", "Authorization": "Bearer secret"})
    assert ok.status_code == 200


def test_user_options_route_kept_and_preflight_false():
    app = Framework()

    def api(instance, opts):
        instance.register(cors, preflight=False)
        instance.get("/x", lambda request, reply: "x")
        instance.options("/y", lambda request, reply: reply.code(200).send("mine"))
        instance.get("/y", lambda request, reply: "y")

    app.register(api)
    assert app.inject(method="OPTIONS", url="/y", headers=PREFLIGHT).text == "mine"
    assert app.inject(method="OPTIONS", url="/x", headers=PREFLIGHT).status_code == 404


def test_reflecting_every_origin_with_credentials_is_refused_at_ready():
    # origin=True reflects any origin; with credentials any site could read a logged-in user's data.
    with pytest.raises(CorsOptionsError, match="credentials=True with origin=True") as refused:
        build(origin=True, credentials=True).ready()
    assert "list of allowed origins, a compiled regex or a function" in str(refused.value)


def test_star_with_credentials_message_points_at_an_explicit_list():
    with pytest.raises(CorsOptionsError) as refused:
        build(credentials=True).ready()
    message = str(refused.value)
    assert "origin=True" not in message
    assert "list of allowed origins" in message


def test_null_origin_is_not_reflected_unless_listed():
    reflecting = build(origin=True)
    ok = reflecting.inject(url="/api/items", headers={"Origin": "https://any.example"})
    assert ok.status_code == 200 and ok.headers["access-control-allow-origin"] == "https://any.example"
    for app in (reflecting, build(origin=[re.compile(r".*")], credentials=True)):
        response = app.inject(url="/api/items", headers={"Origin": "null"})
        assert response.status_code == 200 and response.json() == [1]
        assert "access-control-allow-origin" not in response.headers
        preflight = app.inject(method="OPTIONS", url="/api/items", headers={**PREFLIGHT, "Origin": "null"})
        assert "access-control-allow-origin" not in preflight.headers
    listed = build(origin=["https://a.example", "null"], credentials=True)
    response = listed.inject(url="/api/items", headers={"Origin": "null"})
    assert response.headers["access-control-allow-origin"] == "null"
    assert response.headers["access-control-allow-credentials"] == "true"


def test_origin_regex_matches_the_whole_origin():
    app = build(origin=re.compile(r"https://.*\.example\.com"), credentials=True)
    ok = app.inject(url="/api/items", headers={"Origin": "https://app.example.com"})
    assert ok.headers["access-control-allow-origin"] == "https://app.example.com"
    for origin in ("https://evil.example.com.attacker.net", "xhttps://a.example.com"):
        response = app.inject(url="/api/items", headers={"Origin": origin})
        assert response.status_code == 200
        assert "access-control-allow-origin" not in response.headers
    in_a_list = build(origin=["https://x.example", re.compile(r"https://.*\.example\.com")])
    response = in_a_list.inject(url="/api/items", headers={"Origin": "https://evil.example.com.attacker.net"})
    assert "access-control-allow-origin" not in response.headers
