"""plugin() wrapper and avvio loading order."""
import asyncio
import gc

import pytest

from framework import Framework, plugin
from framework.errors import InstanceAlreadyStartedError


def test_loading_order_three_levels_and_siblings():
    app = Framework()
    order = []

    def leaf(name):
        def body(instance, opts):
            order.append(name)
        body.__name__ = name
        return body

    def a(instance, opts):
        order.append("a")
        instance.register(a1)
        order.append("a after register")
        instance.register(leaf("a2"))

    def a1(instance, opts):
        order.append("a1")
        instance.register(leaf("a1x"))

    def b(instance, opts):
        order.append("b")
        instance.register(leaf("b1"))

    app.register(a)
    order.append("after register call")
    app.register(b)
    app.ready()
    assert order == ["after register call", "a", "a after register", "a1", "a1x", "a2", "b", "b1"]


def test_callback_style_done_and_done_error():
    app = Framework()
    loaded = []

    def good(instance, opts, done):
        loaded.append(opts["x"])
        done()

    app.register(good, {"x": 1})
    app.ready()
    assert loaded == [1]

    failing = Framework()
    boom = ValueError("plugin said no")

    def bad(instance, opts, done):
        done(boom)

    failing.register(bad)
    with pytest.raises(ValueError) as info:
        failing.ready()
    assert info.value is boom
    assert info.value.plugin == "bad"


def test_async_plugin_is_awaited():
    app = Framework()

    async def slow(instance, opts):
        await asyncio.sleep(0)
        instance.decorate("loaded", True)
        instance.get("/a", lambda request, reply: {"loaded": instance.loaded})

    app.register(slow)
    assert app.inject(url="/a").json() == {"loaded": True}


def test_exception_in_plugin_fails_ready_naming_it():
    app = Framework()
    error = RuntimeError("cannot connect")

    def database(instance, opts):
        raise error

    app.register(database)
    with pytest.raises(RuntimeError) as info:
        app.ready()
    assert info.value is error
    assert "while loading plugin 'database'" in getattr(info.value, "__notes__", [])


def test_register_after_ready_is_an_error():
    app = Framework()
    app.ready()
    with pytest.raises(InstanceAlreadyStartedError, match="Cannot register a plugin"):
        app.register(lambda instance, opts: None)
    with pytest.raises(InstanceAlreadyStartedError, match="Cannot add route"):
        app.get("/late", lambda request, reply: None)


def test_plugin_options_and_prefix():
    app = Framework()
    got = {}

    def api(instance, opts):
        got.update(opts)
        instance.get("/items", lambda request, reply: {"prefix": instance.prefix})

    app.register(api, {"a": 1}, prefix="/v1", b=2)
    assert app.inject(url="/v1/items").json() == {"prefix": "/v1"}
    assert got == {"a": 1, "prefix": "/v1", "b": 2}


def test_wrapped_plugin_ignores_prefix():
    app = Framework()

    @plugin(name="routes")
    def routes(instance, opts):
        instance.get("/fp", lambda request, reply: "ok")

    app.register(routes, prefix="/ignored")
    assert app.inject(url="/fp").text == "ok"
    assert app.inject(url="/ignored/fp").status_code == 404


def test_plugin_name_dependencies_and_decorators_checks():
    app = Framework()
    app.register(plugin(lambda instance, opts: instance.decorate("db", 1), name="db"))
    app.register(plugin(lambda instance, opts: None, name="needs-db", dependencies=["db"],
                        decorators={"instance": ["db"]}))
    app.ready()

    missing_dependency = Framework()
    missing_dependency.register(plugin(lambda instance, opts: None, name="needs", dependencies=["missing-plugin"]))
    with pytest.raises(Exception, match="The dependency 'missing-plugin' of plugin 'needs' is not registered"):
        missing_dependency.ready()

    missing_decorator = Framework()
    missing_decorator.register(plugin(lambda instance, opts: None, name="needsdec", decorators={"request": ["user"]}))
    with pytest.raises(Exception, match="The decorator 'user' required by 'needsdec' is not present in Request"):
        missing_decorator.ready()


def test_encapsulate_true_keeps_a_child_context():
    app = Framework()
    app.register(plugin(lambda instance, opts: instance.decorate("inner", 1), name="enc", encapsulate=True))
    app.ready()
    assert not app.has_decorator("inner")


def test_plugin_decorator_forms():
    @plugin
    def bare(instance, opts):
        pass

    @plugin(name="named")
    def other(instance, opts):
        pass

    assert bare.__plugin_meta__.name == "bare"
    assert other.__plugin_meta__.name == "named"
    with pytest.raises(TypeError):
        plugin(42)


def test_after_runs_once_earlier_registrations_have_loaded():
    app = Framework()
    order = []

    def first(instance, opts):
        order.append("first")
        instance.decorate("from_first", "x")

    def second(instance, opts):
        order.append("second")

    def parent(instance, opts):
        instance.register(plugin(first))
        order.append(f"before loading sees {instance.has_decorator('from_first')}")

        @instance.after
        def check(ctx):
            order.append(f"after sees {ctx.has_decorator('from_first')}")
            ctx.get("/late", lambda request, reply: {"ok": True})
        instance.register(second)

    app.register(parent)
    app.ready()
    assert order == ["before loading sees False", "first", "after sees True", "second"]
    assert app.inject(url="/late").json() == {"ok": True}


@pytest.mark.parametrize("enabled", [True, False])
def test_ready_pauses_the_cyclic_collector_while_routes_compile_and_leaves_it_as_found(enabled):
    seen = []

    def compiler(schema, method, url, http_part):
        seen.append(gc.isenabled())  # runs as the route compiles
        return lambda data: True

    app = Framework()
    app.set_validator_compiler(compiler)
    app.get("/x", {"schema": {"querystring": {"a": {"type": "string"}}}}, lambda request, reply: {"ok": True})
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        app.ready()
        after = gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
    assert seen and not any(seen) and after is enabled  # (GET /x and its HEAD route)
    assert app.inject(url="/x?a=1").json() == {"ok": True}


def in_generation(generation, target):
    return any(candidate is target for candidate in gc.get_objects(generation=generation))


@pytest.mark.skipif(gc.get_freeze_count() != 0, reason="this Python starts with objects of its own frozen (3.12 "
                    "does): ready() then leaves the collector's generations as they are (next test)")
def test_ready_leaves_what_it_compiled_in_the_collectors_oldest_generation_unwalked():
    app = Framework()
    app.get("/x", {"schema": {"querystring": {"a": {"type": "integer"}}}}, lambda request, reply: {"ok": True})
    collected = []

    def count(phase, info):
        if phase == "stop":
            collected.append(info["generation"])

    gc.collect()  # (the generations' counters start at zero: a pass in ready() would be its own)
    gc.callbacks.append(count)
    try:
        app.ready()
    finally:
        gc.callbacks.remove(count)
    compiled = app._state.routes[0].compiled
    assert not in_generation(0, compiled) and not in_generation(1, compiled) and in_generation(2, compiled)
    assert 1 not in collected and 2 not in collected  # no pass over the older generations in ready()
    assert app.inject(url="/x?a=1").json() == {"ok": True}


def test_ready_thaws_nothing_the_application_froze():
    app = Framework()
    app.get("/x", lambda request, reply: {"ok": True})
    kept = [{"frozen": True}]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        app.ready()
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
    assert app.inject(url="/x").json() == {"ok": True} and kept
