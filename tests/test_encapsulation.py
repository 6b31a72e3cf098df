"""Seed 2.1: the encapsulation scenario and visibility rules 1-6, through app.inject."""
import pytest

from framework import UNDEFINED, Framework, plugin

NAMES = ("root_decorator", "child_decorator", "grandchild_decorator")


def decorators_of(request):
    return {name: getattr(request, name, UNDEFINED) for name in NAMES}


def stand_in_bearer_auth(instance, opts):
    def check(request, reply):
        if request.headers.get("authorization") != "Bearer " + opts["keys"][0]:
            reply.code(401).send({"error": "unauthorized"})
    instance.add_hook("on_request", check)


def build(wrap_grandchild):
    app = Framework()
    app.decorate_request("root_decorator", "root")

    def first_child(instance, opts):
        instance.register(plugin(stand_in_bearer_auth), keys=["secret"])
        instance.get("/path_1", lambda request, reply: decorators_of(request))

    def grandchild(instance, opts):
        instance.decorate_request("grandchild_decorator", "grandchild")
        instance.get("/path_3", lambda request, reply: decorators_of(request))

    def second_child(instance, opts):
        instance.decorate_request("child_decorator", "child")
        instance.get("/path_2", lambda request, reply: decorators_of(request))
        instance.register(plugin(grandchild) if wrap_grandchild else grandchild)

    app.register(first_child)
    app.register(second_child)
    return app


@pytest.mark.parametrize("wrap", [False, True])
def test_seed_scenario_table(wrap):
    app = build(wrap)
    path_1 = app.inject(url="/path_1", headers={"Authorization": "Bearer secret"})
    assert path_1.status_code == 200
    assert path_1.json() == {"root_decorator": "root"}
    path_2 = app.inject(url="/path_2").json()
    if wrap:
        assert path_2 == {"root_decorator": "root", "child_decorator": "child", "grandchild_decorator": "grandchild"}
    else:
        assert path_2 == {"root_decorator": "root", "child_decorator": "child"}
    assert app.inject(url="/path_3").json() == {
        "root_decorator": "root", "child_decorator": "child", "grandchild_decorator": "grandchild"}


def test_rule_5_auth_guards_only_its_context():
    app = build(False)
    assert app.inject(url="/path_1").status_code == 401
    assert app.inject(url="/path_1", headers={"Authorization": "Bearer wrong"}).json() == {"error": "unauthorized"}
    assert app.inject(url="/path_2").status_code == 200
    assert app.inject(url="/path_3").status_code == 200


def test_rule_1_context_sees_ancestors_including_later_additions():
    app = Framework()
    seen = {}

    def child(instance, opts):
        def grandchild(inner, opts):
            seen["root_util"] = inner.has_decorator("util") and inner.util()
            seen["child_value"] = inner.child_value
        instance.decorate("child_value", 42)
        instance.register(grandchild)

    app.register(child)
    app.decorate("util", lambda self: "from root")  # added after register: still seen (loads at ready)
    app.ready()
    assert seen == {"root_util": "from root", "child_value": 42}


def test_rule_2_context_does_not_see_descendants():
    app = Framework()

    def child(instance, opts):
        instance.decorate("child_only", 1)
        instance.decorate_request("child_request", "x")

    app.register(child)
    app.get("/root", lambda request, reply: {"child_request": getattr(request, "child_request", UNDEFINED)})
    app.ready()
    assert not app.has_decorator("child_only")
    assert getattr(app, "child_only", UNDEFINED) is UNDEFINED
    assert not app.has_request_decorator("child_request")
    assert app.inject(url="/root").json() == {}


def test_rule_3_siblings_do_not_see_each_other():
    app = Framework()
    seen = {}

    def first(instance, opts):
        instance.decorate("first_value", 1)
        instance.decorate_request("first_request", "first")
        instance.get("/first", lambda request, reply: {"second": getattr(request, "second_request", UNDEFINED),
                                                       "first": request.first_request})

    def second(instance, opts):
        seen["has_first"] = instance.has_decorator("first_value")
        instance.decorate_request("second_request", "second")
        instance.get("/second", lambda request, reply: {"first": getattr(request, "first_request", UNDEFINED),
                                                        "second": request.second_request})

    app.register(first)
    app.register(second)
    assert app.inject(url="/first").json() == {"first": "first"}
    assert app.inject(url="/second").json() == {"second": "second"}
    assert seen == {"has_first": False}


def test_rule_4_request_decorator_undefined_elsewhere():
    app = Framework()

    def child(instance, opts):
        instance.decorate_request("user", None)

        def set_user(request, reply):
            request.user = "ada"
        instance.add_hook("on_request", set_user)
        instance.get("/inside", lambda request, reply: {"user": request.user})

    app.register(child)
    app.get("/outside", lambda request, reply: {"user": getattr(request, "user", UNDEFINED)})
    assert app.inject(url="/inside").json() == {"user": "ada"}
    assert app.inject(url="/outside").json() == {}


def test_rule_6_wrapped_plugin_registers_into_parent():
    app = Framework()

    @plugin
    def shared(instance, opts):
        instance.decorate("db", "connection")
        instance.decorate_request("tenant", "acme")
        instance.add_hook("on_send", lambda request, reply, payload: payload)

    def sibling(instance, opts):
        instance.get("/sibling", lambda request, reply: {"tenant": request.tenant, "db": instance.db})

    app.register(shared)
    app.register(sibling)
    app.get("/root", lambda request, reply: {"tenant": request.tenant})
    assert app.inject(url="/root").json() == {"tenant": "acme"}
    assert app.inject(url="/sibling").json() == {"tenant": "acme", "db": "connection"}
    assert app.db == "connection"
