"""Request hooks in lifecycle order, scoping, route-level hooks, application hooks."""
from framework import Framework


def test_lifecycle_order_scoping_and_route_hooks():
    app = Framework()
    calls = []

    def record(label):
        def hook(request, reply, *payload):
            calls.append(label)
            return payload[0] if payload else None
        return hook

    for name in ("on_request", "pre_parsing", "pre_validation", "pre_handler", "pre_serialization",
                 "on_send", "on_response"):
        app.add_hook(name, record(f"root:{name}"))

    def child(instance, opts):
        instance.add_hook("pre_handler", record("child:pre_handler"))
        instance.post("/c", {"pre_handler": record("route:pre_handler")},
                      lambda request, reply: calls.append("handler") or {"ok": True})

    def sibling(instance, opts):
        instance.add_hook("on_request", record("sibling:on_request"))

    app.register(child)
    app.register(sibling)
    response = app.inject(method="POST", url="/c", json={"a": 1})
    assert response.json() == {"ok": True}
    assert calls == ["root:on_request", "root:pre_parsing", "root:pre_validation", "root:pre_handler",
                     "child:pre_handler", "route:pre_handler", "handler", "root:pre_serialization",
                     "root:on_send", "root:on_response"]


def test_hook_that_sends_ends_the_chain():
    app = Framework()
    calls = []
    app.add_hook("on_request", lambda request, reply: reply.code(403).send({"denied": True}))
    app.add_hook("pre_handler", lambda request, reply: calls.append("pre_handler"))
    app.get("/x", lambda request, reply: calls.append("handler"))
    response = app.inject(url="/x")
    assert response.status_code == 403 and response.json() == {"denied": True}
    assert calls == []


def test_on_error_sees_handler_exception_before_error_handler():
    app = Framework()
    seen = []
    app.add_hook("on_error", lambda request, reply, error: seen.append(("on_error", str(error))))

    def handler(error, request, reply):
        seen.append(("handler", str(error)))
        reply.code(503).send({"handled": str(error)})

    app.set_error_handler(handler)
    app.get("/boom", lambda request, reply: 1 / 0)
    response = app.inject(url="/boom")
    assert response.status_code == 503 and response.json() == {"handled": "division by zero"}
    assert seen == [("on_error", "division by zero"), ("handler", "division by zero")]


def test_pre_serialization_and_on_send_replace_payload():
    app = Framework()
    app.add_hook("pre_serialization", lambda request, reply, payload: {**payload, "wrapped": True})
    app.add_hook("on_send", lambda request, reply, payload: payload.replace('"wrapped":true', '"sent":1'))
    app.get("/p", lambda request, reply: {"a": 1})
    assert app.inject(url="/p").json() == {"a": 1, "sent": 1}


def test_pre_serialization_not_called_for_strings():
    app = Framework()
    app.add_hook("pre_serialization", lambda request, reply, payload: {"changed": True})
    app.get("/s", lambda request, reply: "text")
    assert app.inject(url="/s").text == "text"


def test_application_hooks_fire_once_each():
    app = Framework()
    events = []
    app.add_hook("on_route", lambda options: events.append(("route", options["method"], options["url"])))
    app.add_hook("on_register", lambda instance, opts: events.append(("register", opts.get("name"))))
    app.add_hook("on_ready", lambda: events.append(("ready",)))
    app.add_hook("on_close", lambda instance: events.append(("close",)))

    def child(instance, opts):
        instance.get("/in-child", lambda request, reply: None)

    app.register(child, name="c")
    app.get("/root", lambda request, reply: None)
    app.ready()
    app.ready()
    app.close()
    app.close()
    assert events == [("route", "GET", "/root"), ("register", "c"), ("route", "GET", "/in-child"),
                      ("ready",), ("close",)]


def test_on_route_may_change_the_route():
    app = Framework()

    def prefix_everything(options):
        options["url"] = "/changed" + options["url"]
    app.add_hook("on_route", prefix_everything)
    app.get("/x", lambda request, reply: "moved")
    assert app.inject(url="/changed/x").text == "moved"


def test_async_hooks_and_handlers():
    app = Framework()

    async def auth(request, reply):
        request.user = "ada"

    async def handler(request, reply):
        return {"user": request.user}

    app.decorate_request("user", None)
    app.add_hook("pre_handler", auth)
    app.get("/me", handler)
    assert app.inject(url="/me").json() == {"user": "ada"}
