"""framework.plugins.csrf through inject: the synchronizer token (in request.session) and the
double-submit token (in a signed cookie); missing, wrong and right tokens in the header or a
form field, safe methods, exempt routes, scoping, the error handler seeing the 403s, options."""
from __future__ import annotations

import pytest

from framework import Framework
from framework.plugins.cookie_signing import cookie_signing
from framework.plugins.csrf import CsrfOptionsError, csrf
from framework.plugins.session import session

MISSING_TOKEN = {"statusCode": 403, "code": "FST_CSRF_MISSING_TOKEN", "error": "Forbidden",
                 "message": "missing csrf token"}
MISSING_SECRET = {"statusCode": 403, "code": "FST_CSRF_MISSING_SECRET", "error": "Forbidden",
                  "message": "missing csrf secret"}
INVALID = {"statusCode": 403, "code": "FST_CSRF_INVALID_TOKEN", "error": "Forbidden", "message": "invalid csrf token"}
OK = {"ok": True}
FORM = "application/x-www-form-urlencoded"


def routes(instance) -> None:
    instance.get("/form", lambda request, reply: {"token": reply.generate_csrf(), "again": reply.generate_csrf()})
    for method in ("POST", "PUT", "PATCH", "DELETE", "GET", "OPTIONS"):
        instance.route(method, "/act", lambda request, reply: OK)
    instance.post("/webhook", {"config": {"csrf": False}}, lambda request, reply: OK)
    instance.post("/validated", {"schema": {"body": {"type": "object", "required": ["name"]}}},
                  lambda request, reply: OK)


def app_with(store: str, **options) -> Framework:
    app = Framework()
    if store == "session":
        app.register(session, secret="session-secret")
    else:
        app.register(cookie_signing, secret="cookie-secret")
    app.register(csrf, store=store, **options)
    routes(app)
    return app


def cookies_of(response) -> str:
    return "; ".join(line.split("; ")[0] for line in response.headers.getlist("set-cookie"))


def token_and_cookies(app: Framework) -> tuple[str, str]:
    response = app.inject(url="/form")
    body = response.json()
    assert body["token"] == body["again"]
    return body["token"], cookies_of(response)


STORES = ["session", "cookie"]


@pytest.mark.parametrize("store", STORES)
def test_missing_wrong_and_right_token_in_the_header(store):
    app = app_with(store)
    token, cookies = token_and_cookies(app)
    post = lambda **headers: app.inject(method="POST", url="/act", headers={"cookie": cookies, **headers})  # noqa: E731
    assert post().json() == MISSING_TOKEN
    assert post(**{"x-csrf-token": ""}).json() == MISSING_TOKEN
    assert post(**{"x-csrf-token": token[:-1]}).json() == INVALID
    assert post(**{"x-csrf-token": token + "x"}).json() == INVALID
    assert post(**{"x-csrf-token": "é" + token[1:]}).json() == INVALID
    assert post(**{"X-CSRF-Token": token}).json() == OK


@pytest.mark.parametrize("store", STORES)
def test_the_token_in_a_form_field(store):
    app = app_with(store)
    token, cookies = token_and_cookies(app)
    post = lambda body: app.inject(method="POST", url="/act", body=body,  # noqa: E731
                                   headers={"cookie": cookies, "content-type": FORM})
    assert post(f"_csrf={token}&name=x").json() == OK
    assert post("_csrf=wrong").json() == INVALID
    assert post(f"_csrf={token}&_csrf={token}").json() == MISSING_TOKEN   # a list is no token
    assert post("name=x").json() == MISSING_TOKEN
    json_body = app.inject(method="POST", url="/act", json={"_csrf": token}, headers={"cookie": cookies})
    assert json_body.json() == OK


@pytest.mark.parametrize("store", STORES)
def test_a_token_without_the_cookie_it_belongs_to(store):
    app = app_with(store)
    token, _ = token_and_cookies(app)
    assert app.inject(method="POST", url="/act", headers={"x-csrf-token": token}).json() == MISSING_SECRET


@pytest.mark.parametrize("store", STORES)
def test_another_clients_token_is_refused(store):
    app = app_with(store)
    token, _ = token_and_cookies(app)
    _, other_cookies = token_and_cookies(app)
    response = app.inject(method="POST", url="/act", headers={"cookie": other_cookies, "x-csrf-token": token})
    assert response.json() == INVALID


def test_a_forged_unsigned_double_submit_cookie_is_no_secret():
    app = app_with("cookie")
    response = app.inject(method="POST", url="/act", headers={"cookie": "_csrf=mine", "x-csrf-token": "mine"})
    assert response.json() == MISSING_SECRET


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("method", ["PUT", "PATCH", "DELETE"])
def test_every_unsafe_method_is_checked(store, method):
    app = app_with(store)
    token, cookies = token_and_cookies(app)
    assert app.inject(method=method, url="/act", headers={"cookie": cookies}).json() == MISSING_TOKEN
    assert app.inject(method=method, url="/act", headers={"cookie": cookies, "x-csrf-token": token}).json() == OK


@pytest.mark.parametrize("method", ["GET", "HEAD", "OPTIONS"])
def test_safe_methods_are_not_checked(method):
    response = app_with("session").inject(method=method, url="/act")
    assert response.status_code == 200


def test_the_token_stays_the_same_for_the_session_and_the_cookie():
    for store in STORES:
        app = app_with(store)
        token, cookies = token_and_cookies(app)
        again = app.inject(url="/form", headers={"cookie": cookies})
        assert again.json()["token"] == token
        assert again.headers.get("set-cookie") is None   # nothing new to save


def test_a_host_prefixed_double_submit_cookie():
    app = app_with("cookie", cookie_name="__Host-csrf", secure=True)
    token, cookies = token_and_cookies(app)
    assert cookies.startswith("__Host-csrf=")
    assert app.inject(method="POST", url="/act", headers={"cookie": cookies, "x-csrf-token": token}).json() == OK


def test_the_double_submit_cookie_is_signed_httponly_and_lax():
    response = app_with("cookie", secure=True).inject(url="/form")
    line = response.headers["set-cookie"]
    token = response.json()["token"]
    assert line.startswith(f"_csrf={token}.")
    assert {"HttpOnly", "SameSite=Lax", "Path=/", "Secure"} <= set(line.split("; ")[1:])


def test_exempt_by_route_config_and_by_function():
    app = app_with("session", exempt=lambda request: request.headers.get("x-signature") == "from-the-bank")
    assert app.inject(method="POST", url="/webhook").json() == OK
    assert app.inject(method="POST", url="/act", headers={"x-signature": "from-the-bank"}).json() == OK
    assert app.inject(method="POST", url="/act", headers={"x-signature": "forged"}).json() == MISSING_TOKEN


def test_an_async_exempt_function_is_awaited():
    async def exempt(request):
        return request.headers.get("x-signature") == "from-the-bank"

    app = app_with("session", exempt=exempt)
    assert app.inject(method="POST", url="/act", headers={"x-signature": "from-the-bank"}).json() == OK
    assert app.inject(method="POST", url="/act", headers={"x-signature": "forged"}).json() == MISSING_TOKEN


def test_the_check_comes_before_body_validation():
    app = app_with("session")
    token, cookies = token_and_cookies(app)
    assert app.inject(method="POST", url="/validated", json={}).json() == MISSING_TOKEN
    response = app.inject(method="POST", url="/validated", json={}, headers={"cookie": cookies, "x-csrf-token": token})
    assert response.status_code == 400


def test_other_header_field_and_methods_options():
    app = app_with("session", header="X-XSRF-Token", field=None, methods=["POST"])
    token, cookies = token_and_cookies(app)
    assert app.inject(method="POST", url="/act", headers={"cookie": cookies, "x-xsrf-token": token}).json() == OK
    assert app.inject(method="POST", url="/act", headers={"cookie": cookies, "x-csrf-token": token}).json() \
        == MISSING_TOKEN
    form = app.inject(method="POST", url="/act", body=f"_csrf={token}", headers={"cookie": cookies, "content-type": FORM})
    assert form.json() == MISSING_TOKEN
    assert app.inject(method="DELETE", url="/act").json() == OK


def test_the_contexts_error_handler_sees_the_403():
    app = app_with("session")
    app.set_error_handler(lambda error, request, reply: reply.code(error.status_code).send(
        {"refused": error.code}))
    assert app.inject(method="POST", url="/act").json() == {"refused": "FST_CSRF_MISSING_TOKEN"}


def test_scoped_a_sibling_context_is_not_checked():
    app = Framework()
    app.register(session, secret="s")

    def browser(instance, opts):
        instance.register(csrf)
        instance.post("/act", lambda request, reply: OK)

    def api(instance, opts):
        instance.post("/act", lambda request, reply: OK)

    app.register(browser, prefix="/web")
    app.register(api, prefix="/api")
    assert app.inject(method="POST", url="/web/act").json() == MISSING_TOKEN
    assert app.inject(method="POST", url="/api/act").json() == OK


@pytest.mark.parametrize("setup, options, message", [
    (None, {}, "store='session' keeps the token in request.session: register framework.plugins.session"),
    (None, {"store": "cookie"}, "register framework.plugins.cookie_signing"),
    ("session", {"store": "redis"}, "store has to be 'session' or 'cookie'"),
    ("session", {"header": ""}, "header has to be a header name"),
    ("session", {"field": 3}, "field has to be a body field name or None"),
    ("session", {"methods": "POST"}, "methods has to be a list of method names"),
    ("session", {"exempt": ["/webhook"]}, "exempt has to be a function"),
    ("cookie", {"store": "cookie", "samesite": "lax"}, "samesite has to be"),
    ("cookie", {"store": "cookie", "secure": 1}, "secure has to be True or False"),
    ("cookie", {"store": "cookie", "samesite": "None"}, "samesite='None' needs secure=True"),
    ("cookie", {"store": "cookie", "path": "x"}, "path has to start with '/'"),
    ("cookie", {"store": "cookie", "cookie_name": ""}, "cookie_name has to be a non-empty string"),
    ("cookie", {"store": "cookie", "cookie_name": "a;b"}, "a cookie name is a token"),
    ("cookie", {"store": "cookie", "path": "/a; Secure"}, "path '/a; Secure' is refused"),
    ("session", {"token_header": "x"}, "unknown option(s) token_header"),
])
def test_bad_options_fail_ready(setup, options, message):
    app = Framework()
    if setup == "session":
        app.register(session, secret="s")
    elif setup == "cookie":
        app.register(cookie_signing, secret="s")
    app.register(csrf, **options)
    with pytest.raises(CsrfOptionsError) as refused:
        app.ready()
    assert message in str(refused.value) and str(refused.value).startswith("csrf: ")


def test_the_docstring_example():
    import framework.plugins.csrf as module
    from test_plugin_docstrings import first_example

    app = first_example(module)["app"]
    page = app.inject(url="/form")
    token, cookies = page.json()["csrf_token"], cookies_of(page)
    assert app.inject(method="POST", url="/transfer", headers={"cookie": cookies}).json() == MISSING_TOKEN
    assert app.inject(method="POST", url="/transfer", headers={"cookie": cookies, "x-csrf-token": token}).json() == OK
