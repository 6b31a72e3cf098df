"""decorate, decorate_request, decorate_reply and has_*."""
import pytest

from framework import UNDEFINED, Framework
from framework.errors import DecoratorAfterStartError, DecoratorAlreadyPresentError, DecoratorReferenceTypeError


def test_functions_become_methods_and_properties_stay_properties():
    app = Framework()
    app.decorate("greet", lambda self, name: f"hello {name} from {type(self).__name__}")
    app.decorate_request("shout", lambda self: self.method + "!")
    app.decorate_request("agent", property(lambda self: self.headers.get("user-agent", "none")))
    app.decorate_reply("teapot", lambda self: self.code(418).send({"tea": True}))

    @app.get("/r")
    def handler(request, reply):
        return {"shout": request.shout(), "agent": request.agent, "greet": app.greet("ada")}

    app.get("/tea", lambda request, reply: reply.teapot())
    assert app.inject(url="/r", headers={"User-Agent": "t"}).json() == {
        "shout": "GET!", "agent": "t", "greet": "hello ada from Framework"}
    tea = app.inject(url="/tea")
    assert tea.status_code == 418 and tea.json() == {"tea": True}


@pytest.mark.parametrize("value", [{}, [], set(), bytearray()])
def test_mutable_values_on_request_or_reply_are_refused(value):
    app = Framework()
    with pytest.raises(DecoratorReferenceTypeError, match="reference type"):
        app.decorate_request("shared", value)
    with pytest.raises(DecoratorReferenceTypeError):
        app.decorate_reply("shared", value)
    app.decorate("config", value)  # the instance may hold one


def test_redecorating_in_same_context_is_an_error_child_may_shadow():
    app = Framework()
    app.decorate_request("who", "root")
    with pytest.raises(DecoratorAlreadyPresentError, match="The decorator 'who' has already been added!"):
        app.decorate_request("who", "again")
    with pytest.raises(DecoratorAlreadyPresentError):
        app.decorate("register", 1)  # the framework's own names are taken

    def child(instance, opts):
        instance.decorate_request("who", "child")
        instance.get("/child", lambda request, reply: {"who": request.who})

    app.register(child)
    app.get("/root", lambda request, reply: {"who": request.who})
    assert app.inject(url="/child").json() == {"who": "child"}
    assert app.inject(url="/root").json() == {"who": "root"}


def test_decorators_added_later_in_ancestor_are_seen():
    app = Framework()

    def child(instance, opts):
        instance.get("/late", lambda request, reply: {"late": getattr(request, "late", UNDEFINED)})

    app.register(child)
    app.decorate_request("late", "yes")
    assert app.inject(url="/late").json() == {"late": "yes"}


def test_has_decorator_family_and_after_start():
    app = Framework()
    app.decorate("a", 1)
    app.decorate_request("b", 2)
    app.decorate_reply("c", 3)
    assert app.has_decorator("a") and app.has_request_decorator("b") and app.has_reply_decorator("c")
    assert not app.has_decorator("b") and not app.has_request_decorator("c")
    app.ready()
    with pytest.raises(DecoratorAfterStartError, match="The decorator 'd' has been added after start!"):
        app.decorate("d", 1)


def test_instance_values_are_per_request_copies():
    app = Framework()
    app.decorate_request("counter", 0)

    @app.get("/count")
    def count(request, reply):
        request.counter += 1
        return {"counter": request.counter}

    assert app.inject(url="/count").json() == {"counter": 1}
    assert app.inject(url="/count").json() == {"counter": 1}


def test_apps_do_not_share_decorators():
    first, second = Framework(), Framework()
    first.decorate("only_first", 1)
    assert not hasattr(second, "only_first")


def test_decorator_dependencies_must_be_present():
    from framework.errors import DecoratorMissingDependencyError
    app = Framework()
    with pytest.raises(DecoratorMissingDependencyError, match="The decorator is missing dependency 'db'."):
        app.decorate("users", lambda self: [], dependencies=["db"])
    app.decorate("db", "connection")
    app.decorate("users", lambda self: self.db, dependencies=["db"])
    assert app.users() == "connection"
