"""reply.set_cookie / clear_cookie refuse names and attributes that would add attributes
of their own (``Domain=x; SameSite=None``), from the application or from request data."""
import pytest

from framework import Framework
from framework.errors import InvalidCookieError

FIXED_500 = {"statusCode": 500, "error": "Internal Server Error", "message": "Internal Server Error"}


def refusals(call):
    """Run ``call(reply, value)`` in a handler for each bad value: the errors it raised, by value."""
    def handler(request, reply):
        seen = {}
        for value in request.body:
            try:
                call(reply, value)
            except InvalidCookieError as error:
                assert isinstance(error, ValueError)
                seen[value] = str(error)
            else:
                seen[value] = None
        return {"seen": seen, "set": reply.get_header("set-cookie")}
    return handler


@pytest.mark.parametrize("call, bad", [
    (lambda reply, name: reply.set_cookie(name, "v"),
     ["a;b", "a=b", "a b", "", "a,b", "sess\x00", "a\tb", "k\u00e9y", "a(b)", 'a"b']),
    (lambda reply, name: reply.clear_cookie(name), ["a;b", "a=b", "a b", ""]),
    (lambda reply, domain: reply.set_cookie("s", "v", domain=domain),
     ["x.example; SameSite=None", "x.example,y", "x .example", "x.example\r\nx-forged: 1", "x..example",
      "-x.example", "x.example/", "x.example:8080", "", "\u00e9.example", "x.example;"]),
    (lambda reply, domain: reply.clear_cookie("s", domain=domain), ["x.example; Secure"]),
    (lambda reply, path: reply.set_cookie("s", "v", path=path),
     ["/; Secure", "/a,b", "/a b", "/a\x7f", "/a\nb", "a"]),
    (lambda reply, path: reply.clear_cookie("s", path=path), ["/x; Domain=evil.example"]),
])
def test_bad_names_domains_and_paths_raise_at_the_call(call, bad):
    app = Framework()
    app.post("/", refusals(call))
    response = app.inject(method="POST", url="/", json=bad)
    assert response.status_code == 200
    body = response.json()
    assert body["set"] is None  # nothing was added
    assert all(body["seen"][value] for value in bad), body["seen"]


def test_the_error_names_the_cookie_and_the_attribute():
    app = Framework()
    app.post("/", refusals(lambda reply, domain: reply.set_cookie("session", "v", domain=domain)))
    message = app.inject(method="POST", url="/", json=["a.example; Secure"]).json()["seen"]["a.example; Secure"]
    assert "session" in message and "domain" in message


def test_good_names_domains_and_paths_still_work():
    app = Framework()

    def handler(request, reply):
        reply.set_cookie("__Host-id_1.x~", "v", path="/app/x-y_z.~!$&'()*+=:@%20", domain=".Example.COM")
        reply.set_cookie("b", "v", domain="localhost", path=None)
        reply.set_cookie("c", "v", domain="127.0.0.1")
        reply.clear_cookie("old", domain="xn--bcher-kva.example")
        return "ok"

    app.get("/", handler)
    response = app.inject(url="/")
    assert response.status_code == 200
    first, second, third, old = response.headers.getlist("set-cookie")
    assert first == "__Host-id_1.x~=v; Domain=Example.COM; Path=/app/x-y_z.~!$&'()*+=:@%20"
    assert second == "b=v; Domain=localhost"
    assert third == "c=v; Domain=127.0.0.1; Path=/"
    assert old.startswith("old=; Domain=xn--bcher-kva.example;")


def test_a_crafted_host_header_cannot_add_cookie_attributes():
    app = Framework()

    def login(request, reply):
        reply.set_cookie("session", "abc", domain=request.hostname, httponly=True)
        return {"ok": True}

    app.get("/login", login)
    assert app.inject(url="/login", headers={"Host": "shop.example"}).headers["set-cookie"] == (
        "session=abc; Domain=shop.example; HttpOnly; Path=/")
    for host in ("shop.example; Domain=attacker.example", "shop.example;SameSite=None",
                 "shop.example, x", "shop example"):
        response = app.inject(url="/login", headers={"Host": host})
        assert response.status_code == 500, host
        assert response.json() == FIXED_500
        assert "set-cookie" not in response.headers


class Reversing:
    """A cookie signer of the test's own: any object with ``sign`` and ``unsign`` will do."""

    def sign(self, value):
        return value + "." + value[::-1]

    def unsign(self, signed):
        value, _, signature = signed.rpartition(".")
        return value if signature == value[::-1] else None


def test_signed_cookies_use_the_cookie_signer_visible_from_the_routes_context():
    app = Framework()

    def signed(instance, opts):
        instance.decorate("cookie_signer", Reversing())
        instance.get("/set", lambda request, reply: reply.set_cookie("c", "abc", signed=True).send({"ok": True}))
        instance.get("/get", lambda request, reply: {"c": request.signed_cookie("c")})

    app.register(signed, prefix="/signed")
    app.get("/set", lambda request, reply: reply.set_cookie("c", "abc", signed=True).send({"ok": True}))
    assert app.inject(url="/signed/set").headers["set-cookie"] == "c=abc.cba; Path=/"
    assert app.inject(url="/signed/get", headers={"cookie": "c=abc.cba"}).json() == {"c": "abc"}
    assert app.inject(url="/signed/get", headers={"cookie": "c=abd.cba"}).json() == {"c": None}
    assert app.inject(url="/signed/get").json() == {"c": None}
    refused = app.inject(url="/set")  # no signer visible from the root: the plain 500
    assert refused.json() == FIXED_500 and "set-cookie" not in refused.headers
