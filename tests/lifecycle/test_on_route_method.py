"""Issue 11: ``on_route`` gets ``route_options["method"]`` as the user gave it (Fastify 4)."""
from __future__ import annotations

from framework import Framework


def handler(request, reply):
    return {"method": request.method}


def test_method_as_given():
    app = Framework()
    seen = []
    app.add_hook("on_route", lambda options: seen.append(options["method"]))
    app.post("/a", handler)
    app.route(method="POST", url="/b", handler=handler)
    app.route(method="put", url="/c", handler=handler)
    app.route(method=["GET", "post"], url="/d", handler=handler)
    app.route(method=["DELETE"], url="/e", handler=handler)
    app.all("/f", handler)
    assert seen[:5] == ["POST", "POST", "PUT", ["GET", "POST"], ["DELETE"]]
    assert isinstance(seen[5], list) and "GET" in seen[5]
    assert app.inject(method="POST", url="/d").json() == {"method": "POST"}
    assert app.inject(method="PUT", url="/c").json() == {"method": "PUT"}


def test_a_hook_may_set_a_string_or_a_list():
    app = Framework()

    def widen(options):
        if options["url"] == "/w":
            options["method"] = ["get", "post"]
        else:
            options["method"] = "patch"
    app.add_hook("on_route", widen)
    app.get("/w", handler)
    app.get("/p", handler)
    assert app.inject(method="POST", url="/w").status_code == 200
    assert app.inject(method="PATCH", url="/p").status_code == 200
    assert app.inject(method="GET", url="/p").status_code == 404
