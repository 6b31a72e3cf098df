"""The context tree: children are plain contexts, and whole-application methods called on
a plugin's instance act on the whole application, as in Fastify."""
import pytest

from framework import Context, Framework


def build():
    app = Framework()
    captured = {}

    def child(instance, opts):
        captured["instance"] = instance
        instance.get("/child", lambda request, reply: {"from": "child"})

    app.register(child, prefix="/v1")
    app.get("/root", lambda request, reply: {"from": "root"})
    return app, captured


def test_a_child_is_a_plain_context_not_an_application():
    app, captured = build()
    app.ready()
    instance = captured["instance"]
    assert type(instance) is Context
    assert not isinstance(instance, Framework)
    assert instance.prefix == "/v1" and instance.name == "child"


def test_print_routes_and_print_plugins_on_a_plugin_instance_show_the_whole_application():
    app, captured = build()
    app.ready()
    instance = captured["instance"]
    assert instance.print_routes() == app.print_routes()
    assert "/root" in instance.print_routes() and "/child" in instance.print_routes()
    assert instance.print_plugins() == app.print_plugins()


def test_inject_and_ready_on_a_plugin_instance_act_on_the_application():
    app, captured = build()
    app.ready()
    instance = captured["instance"]
    assert instance.ready() is app
    assert instance.inject(url="/root").json() == {"from": "root"}
    assert instance.inject(url="/v1/child").json() == {"from": "child"}


def test_close_on_a_plugin_instance_closes_the_application_once():
    app, captured = build()
    closed = []
    app.add_hook("on_close", lambda instance: closed.append(instance.name))
    app.ready()
    captured["instance"].close()
    app.close()
    assert closed == ["root"]


def test_ready_called_inside_a_plugin_does_not_deadlock_and_the_app_still_starts():
    app = Framework()

    def eager(instance, opts):
        assert instance.ready() is app  # already starting: returns at once
        instance.get("/x", lambda request, reply: {"ok": True})

    app.register(eager)
    assert app.inject(url="/x").json() == {"ok": True}


def test_instance_decorators_follow_the_tree_and_bind_to_the_instance_read_from():
    app = Framework()
    seen = {}

    def child(instance, opts):
        instance.decorate("who", lambda self: self.name)
        seen["child"] = instance

    def sibling(instance, opts):
        seen["sibling"] = instance

    app.register(child)
    app.register(sibling)
    app.decorate("late", property(lambda self: "late:" + self.name))  # added after the children
    app.ready()
    assert seen["child"].who() == "child"
    assert seen["child"].late == "late:child"
    assert app.late == "late:root"
    assert not seen["sibling"].has_decorator("who")
    with pytest.raises(AttributeError, match="no attribute or decorator 'who'"):
        seen["sibling"].who
