"""The app the session and CSRF server tests serve (tests/plugins/test_plugin_session_server.py).

The store comes from the environment: ``SESSION_STORE`` is ``redis`` (``SESSION_REDIS_URL``)
or ``sqlite`` (``SESSION_SQLITE_PATH``). Every answer names the worker process (``pid``),
so a test can see that a session one worker wrote was read by another. Routes under
``/short`` keep their sessions one second (the expiry test)."""
import os

from framework import Framework
from framework.plugins.csrf import csrf
from framework.plugins.session import RedisStore, SQLiteStore, session

SECRET = "session-server-test-secret"


def _store(prefix: str):
    if os.environ["SESSION_STORE"] == "redis":
        return RedisStore(os.environ["SESSION_REDIS_URL"], prefix=prefix)
    return SQLiteStore(os.environ["SESSION_SQLITE_PATH"])


def routes(instance):
    # Only /transfer is CSRF-checked here: these tests drive the session itself.
    @instance.post("/login", config={"csrf": False})
    def login(request, reply):
        request.session.regenerate()
        request.session["user"] = request.body["user"]
        return {"pid": os.getpid()}

    @instance.get("/me")
    def me(request, reply):
        return {"pid": os.getpid(), "user": request.session.get("user"), "new": request.session.new}

    @instance.post("/logout", config={"csrf": False})
    def logout(request, reply):
        request.session.invalidate()
        return {"pid": os.getpid()}

    @instance.get("/form")
    def form(request, reply):
        return {"pid": os.getpid(), "token": reply.generate_csrf()}

    @instance.post("/transfer")
    def transfer(request, reply):
        return {"pid": os.getpid(), "ok": True, "user": request.session.get("user")}


def _short(instance, opts):
    instance.register(session, secret=SECRET, store=_store("short:"), cookie_name="short", max_age=1)
    instance.register(csrf)
    routes(instance)


app = Framework()
app.register(session, secret=SECRET, store=_store("session:"))
app.register(csrf)
routes(app)
app.register(_short, prefix="/short")
