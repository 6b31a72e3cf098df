"""framework.plugins.session through inject: the cookie, SQLite and Redis (a real
redis-server) stores; login, regenerate, logout, expiry, saving only on change, the cookie's
flags, the cookie store's size limit, a store that fails, scoping and options."""
from __future__ import annotations

import logging
import pathlib
import secrets
import subprocess
import sys
import time

import pytest

from framework import Framework
from framework.plugins.session import (CookieStore, RedisStore, Session, SessionOptionsError, SQLiteStore,
                                       session)
from redis_server import redis_server


class Clock:
    """An injectable clock: seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def redis_url():
    with redis_server() as url:
        yield url


def _store_maker(request, tmp_path, kind):
    if kind == "redis":
        url = request.getfixturevalue("redis_url")
        return lambda clock=time.time: RedisStore(url, prefix=f"test:{time.monotonic_ns()}:")
    if kind == "sqlite":
        return lambda clock=time.time: SQLiteStore(tmp_path / "sessions.db", clock=clock)
    return lambda clock=time.time: CookieStore(clock=clock)


@pytest.fixture(params=["cookie", "sqlite", "redis"])
def make_store(request, tmp_path):
    """``make_store(clock)``: a new store of the parametrized kind."""
    return _store_maker(request, tmp_path, request.param)


@pytest.fixture(params=["sqlite", "redis"])
def make_server_store(request, tmp_path):
    """``make_server_store(clock)``: a new server-side store."""
    return _store_maker(request, tmp_path, request.param)


def routes(instance) -> None:
    @instance.post("/login")
    def login(request, reply):
        before = request.session.id
        request.session.regenerate()
        request.session["user"] = request.body["user"]
        return {"before": before}

    @instance.get("/me")
    def me(request, reply):
        return {"user": request.session.get("user"), "new": request.session.new, "id": request.session.id}

    @instance.post("/cart")
    def cart(request, reply):
        request.session.setdefault("cart", []).append(request.body["item"])  # a change inside a value
        if request.body.get("mark"):
            request.session.modified = True
        return {"cart": request.session["cart"]}

    @instance.post("/logout")
    def logout(request, reply):
        request.session.invalidate()
        return {"ok": True}

    @instance.post("/clear")
    def clear(request, reply):
        request.session.clear()
        return {"ok": True}

    @instance.get("/plain")
    def plain(request, reply):
        return {"plain": True}


def app_with(store=None, **options) -> Framework:
    app = Framework()
    app.register(session, secret=options.pop("secret", "a-long-test-secret"), store=store, **options)
    routes(app)
    return app


class Browser:
    """Keeps the session cookie between requests, as a browser does."""

    def __init__(self, app: Framework) -> None:
        self.app = app
        self.cookie: str | None = None
        self.last = None

    def __call__(self, method: str, url: str, **options):
        if self.cookie:
            options.setdefault("headers", {})["cookie"] = f"session={self.cookie}"
        self.last = response = self.app.inject(method=method, url=url, **options)
        for line in response.headers.getlist("set-cookie"):
            name, _, rest = line.partition("=")
            if name == "session":
                value = rest.split(";")[0]
                self.cookie = value if "Max-Age=0" not in line else None
        return response.json()

    def set_cookie(self) -> str | None:
        return self.last.headers.get("set-cookie")


# Login, regenerate, logout: every store.
def test_login_then_the_session_is_read_back(make_store):
    browser = Browser(app_with(make_store()))
    assert browser("GET", "/me")["new"] is True
    browser("POST", "/login", json={"user": "ann"})
    me = browser("GET", "/me")
    assert me["user"] == "ann" and me["new"] is False


def test_the_cookie_flags(make_store):
    browser = Browser(app_with(make_store(), max_age=600))
    browser("POST", "/login", json={"user": "ann"})
    line = browser.set_cookie()
    attributes = line.split("; ")[1:]
    assert "HttpOnly" in attributes and "SameSite=Lax" in attributes and "Path=/" in attributes
    assert "Max-Age=600" in attributes and "Secure" not in attributes


def test_secure_path_domain_and_samesite_options():
    browser = Browser(app_with(secure=True, path="/app", domain="example.com", samesite="Strict", httponly=False))
    browser("POST", "/login", json={"user": "ann"})
    attributes = browser.set_cookie().split("; ")[1:]
    assert {"Secure", "Path=/app", "Domain=example.com", "SameSite=Strict"} <= set(attributes)
    assert "HttpOnly" not in attributes


def test_saved_only_when_changed(make_store):
    browser = Browser(app_with(make_store()))
    browser("POST", "/login", json={"user": "ann"})
    browser("GET", "/me")
    assert browser.set_cookie() is None          # read, unchanged: not saved
    browser("GET", "/plain")
    assert browser.set_cookie() is None          # never read


def test_a_change_inside_a_value_is_saved_only_when_marked(make_store):
    browser = Browser(app_with(make_store()))
    browser("POST", "/login", json={"user": "ann"})
    assert browser("POST", "/cart", json={"item": "pen"})["cart"] == ["pen"]   # setdefault added the key
    assert browser("POST", "/cart", json={"item": "ink"})["cart"] == ["pen", "ink"]
    assert browser("POST", "/cart", json={"item": "cap"})["cart"] == ["pen", "cap"]  # the "ink" change was lost
    assert browser("POST", "/cart", json={"item": "nib", "mark": True})["cart"] == ["pen", "nib"]
    assert browser("POST", "/cart", json={"item": "box"})["cart"] == ["pen", "nib", "box"]


def test_regenerate_gives_a_new_id_and_the_old_one_finds_nothing(tmp_path):
    app = app_with(SQLiteStore(tmp_path / "s.db"))
    browser = Browser(app)
    browser("POST", "/login", json={"user": "ann"})
    first_cookie, first_id = browser.cookie, browser("GET", "/me")["id"]
    assert browser("POST", "/login", json={"user": "bob"})["before"] == first_id
    second_id = browser("GET", "/me")["id"]
    assert second_id != first_id and browser.cookie != first_cookie
    stale = Browser(app)
    stale.cookie = first_cookie
    assert stale("GET", "/me") == {"user": None, "new": True, "id": None}


def test_regenerate_moves_the_data_to_a_new_id_in_each_server_store(make_server_store):
    app = app_with(make_server_store())
    browser = Browser(app)
    browser("POST", "/login", json={"user": "ann"})
    planted = browser.cookie                     # say, an id someone planted before login
    browser("POST", "/login", json={"user": "ann"})
    assert browser.cookie != planted and browser("GET", "/me")["user"] == "ann"
    assert app.inject(url="/me", headers={"cookie": f"session={planted}"}).json()["new"] is True


def test_logout_clears_the_cookie_and_the_store_forgets_the_session(make_store):
    store = make_store()
    app = app_with(store)
    browser = Browser(app)
    browser("POST", "/login", json={"user": "ann"})
    kept = browser.cookie
    browser("POST", "/logout")
    assert "Max-Age=0" in browser.set_cookie() and browser.cookie is None
    assert browser("GET", "/me")["new"] is True
    replayed = app.inject(url="/me", headers={"cookie": f"session={kept}"}).json()
    if isinstance(store, CookieStore):
        assert replayed["user"] == "ann"          # documented: a cookie store cannot revoke a copy
    else:
        assert replayed == {"user": None, "new": True, "id": None}


def test_clear_empties_the_session_and_clears_the_cookie(make_store):
    browser = Browser(app_with(make_store()))
    browser("POST", "/login", json={"user": "ann"})
    browser("POST", "/clear")
    assert "Max-Age=0" in browser.set_cookie()
    assert browser("GET", "/me")["user"] is None


def test_an_empty_new_session_sets_no_cookie(make_store):
    browser = Browser(app_with(make_store()))
    browser("POST", "/clear")
    assert browser.set_cookie() is None


# Expiry.
@pytest.mark.parametrize("kind", ["cookie", "sqlite"])
def test_expiry_with_an_injected_clock(kind, tmp_path):
    clock = Clock()
    store = CookieStore(clock=clock) if kind == "cookie" else SQLiteStore(tmp_path / "s.db", clock=clock)
    browser = Browser(app_with(store, max_age=60))
    browser("POST", "/login", json={"user": "ann"})
    clock.now += 59
    assert browser("GET", "/me")["user"] == "ann"
    clock.now += 2
    assert browser("GET", "/me") == {"user": None, "new": True, "id": None}


def test_redis_expiry_is_redis_own_ttl(redis_url):
    browser = Browser(app_with(RedisStore(redis_url, prefix="expiry:"), max_age=1))
    browser("POST", "/login", json={"user": "ann"})
    assert "Max-Age=1" in browser.set_cookie()    # saved (the other tests read Redis back); now it expires
    deadline = time.monotonic() + 15
    while browser("GET", "/me")["user"] is not None:
        assert time.monotonic() < deadline, "the Redis key never expired"
        time.sleep(0.1)


def test_rolling_saves_every_read_so_activity_keeps_the_session(tmp_path):
    clock = Clock()
    browser = Browser(app_with(SQLiteStore(tmp_path / "s.db", clock=clock), max_age=60, rolling=True))
    browser("POST", "/login", json={"user": "ann"})
    for _ in range(3):
        clock.now += 45
        assert browser("GET", "/me")["user"] == "ann"
        assert "Max-Age=60" in browser.set_cookie()
    browser("GET", "/plain")
    assert browser.set_cookie() is None            # not read: not saved
    clock.now += 61
    assert browser("GET", "/me")["user"] is None


# Bad cookies are a new session, never an error.
@pytest.mark.parametrize("cookie", ["", "garbage", "a.b.c", "eyJ1c2VyIjoiYW5uIn0.AAAAAA.AAAA", "%ff", '"\\303"'])
def test_a_tampered_or_garbage_cookie_is_a_new_session(make_store, cookie):
    app = app_with(make_store())
    response = app.inject(url="/me", headers={"cookie": f"session={cookie}"})
    assert response.status_code == 200 and response.json() == {"user": None, "new": True, "id": None}


def test_a_cookie_signed_with_another_secret_is_a_new_session(make_store):
    store = make_store()
    browser = Browser(app_with(store, secret="one"))
    browser("POST", "/login", json={"user": "ann"})
    other = Browser(app_with(store, secret="two"))
    other.cookie = browser.cookie
    assert other("GET", "/me")["new"] is True


def test_secret_rotation_keeps_the_sessions_of_the_old_secret(make_store):
    store = make_store()
    old = Browser(app_with(store, secret="old"))
    old("POST", "/login", json={"user": "ann"})
    rotated = Browser(app_with(store, secret=["new", "old"]))
    rotated.cookie = old.cookie
    assert rotated("GET", "/me")["user"] == "ann"


# The cookie store's size limit.
def test_a_session_too_large_for_its_cookie_is_refused_at_save_and_logged(caplog):
    app = app_with(CookieStore(max_size=512))

    @app.post("/note")
    def note(request, reply):
        request.session["note"] = request.body["note"]
        return {"saved": True}

    browser = Browser(app)
    browser("POST", "/login", json={"user": "ann"})
    before = browser.cookie
    with caplog.at_level(logging.ERROR):
        refused = browser("POST", "/note", json={"note": secrets.token_urlsafe(600)})
    assert refused == {"statusCode": 500, "code": "FST_SESSION_TOO_LARGE", "error": "Internal Server Error",
                       "message": "the session is too large to be saved"}
    assert browser.set_cookie() is None and browser.cookie == before
    assert "past the cookie store's max_size of 512" in caplog.text
    assert browser("GET", "/me")["user"] == "ann"          # what it held before
    assert browser("POST", "/note", json={"note": "short"}) == {"saved": True}


def test_the_default_limit_is_4096_bytes():
    app = app_with()

    @app.post("/note")
    def note(request, reply):
        request.session["note"] = request.body["note"]
        return {"saved": True}

    # JSON, compressed when that helps: random text hardly compresses.
    fits = app.inject(method="POST", url="/note", json={"note": secrets.token_urlsafe(2400)})
    assert fits.status_code == 200 and 3000 < len(fits.headers["set-cookie"].split(";")[0]) <= 4096
    assert app.inject(method="POST", url="/note", json={"note": secrets.token_urlsafe(3200)}).status_code == 500


# A store that fails.
def test_a_store_that_fails_is_a_503_logged_on_read_and_on_save(caplog, tmp_path):
    from servers import free_port
    app = app_with(RedisStore(f"redis://127.0.0.1:{free_port()}/0", timeout=1))
    signed_id = Browser(app_with(SQLiteStore(tmp_path / "s.db")))  # same secret: a validly signed id
    signed_id("POST", "/login", json={"user": "ann"})
    unavailable = {"statusCode": 503, "code": "FST_SESSION_STORE_UNAVAILABLE", "error": "Service Unavailable",
                   "message": "session store unavailable"}
    with caplog.at_level(logging.ERROR):
        unsigned = app.inject(url="/me", headers={"cookie": "session=x"})
        read = app.inject(url="/me", headers={"cookie": f"session={signed_id.cookie}"})
        login = app.inject(method="POST", url="/login", json={"user": "ann"})
    assert unsigned.status_code == 200  # an unsigned id never reaches the store
    assert read.json() == unavailable and login.json() == unavailable
    assert caplog.text.count("session store failed: Redis session store: ConnectionError") == 2


def test_a_store_of_your_own():
    class DictStore:
        def __init__(self):
            self.data = {}

        def get(self, session_id):
            return self.data.get(session_id)

        def set(self, session_id, data, max_age):
            self.data[session_id] = data

        def delete(self, session_id):
            self.data.pop(session_id, None)

    store = DictStore()
    browser = Browser(app_with(store))
    browser("POST", "/login", json={"user": "ann"})
    assert list(store.data.values()) == [{"user": "ann"}]
    browser("POST", "/logout")
    assert store.data == {}


def test_two_apps_on_one_sqlite_file_share_sessions(tmp_path):
    first, second = (Browser(app_with(SQLiteStore(tmp_path / "shared.db"))) for _ in range(2))
    first("POST", "/login", json={"user": "ann"})
    second.cookie = first.cookie
    assert second("GET", "/me")["user"] == "ann"


def test_processes_booting_together_on_one_new_sqlite_file_all_open_it(tmp_path):
    # 20 rounds of 8 processes making the store at one instant: before the fix, a few of
    # them failed with "database is locked" in most runs (CI saw a granian worker die so).
    script = pathlib.Path(__file__).parents[1] / "support" / "sqlite_boot_race.py"
    run = subprocess.run([sys.executable, str(script), str(tmp_path), "20", "8"],
                         capture_output=True, text=True, timeout=120, check=True)
    assert run.stdout.splitlines() == ["0"], run.stdout


# Scoping and the Session object.
def test_scoped_to_the_registering_context():
    app = Framework()

    def with_sessions(instance, opts):
        instance.register(session, secret="s")
        instance.get("/has", lambda request, reply: {"has": instance.has_request_decorator("session")})

    def without(instance, opts):
        instance.get("/has", lambda request, reply: {"has": instance.has_request_decorator("session")})

    app.register(with_sessions, prefix="/a")
    app.register(without, prefix="/b")
    assert app.inject(url="/a/has").json() == {"has": True}
    assert app.inject(url="/b/has").json() == {"has": False}


def test_session_tracks_every_kind_of_change():
    for change in (lambda s: s.__setitem__("k", 1), lambda s: s.update(k=1), lambda s: s.setdefault("k", 1),
                   lambda s: s.__ior__({"k": 1})):
        fresh = Session()
        change(fresh)
        assert fresh.modified and fresh == {"k": 1}
    for change in (lambda s: s.__delitem__("a"), lambda s: s.pop("a"), lambda s: s.popitem(), lambda s: s.clear()):
        loaded = Session({"a": 1}, "id")
        change(loaded)
        assert loaded.modified and loaded == {} and not loaded.new
    untouched = Session({"a": 1})
    untouched.pop("missing", None), untouched.setdefault("a", 2), untouched.get("a")
    assert not untouched.modified
    assert repr(Session()) == "<Session {} new>"


@pytest.mark.parametrize("options, message", [
    ({}, "give secret"),
    ({"secret": ""}, "session: every secret has to be a non-empty string"),
    ({"secret": "s", "store": "redis://x"}, "store has to be a CookieStore"),
    ({"secret": "s", "max_age": 0}, "max_age has to be a number of seconds"),
    ({"secret": "s", "max_age": 1.5}, "max_age has to be a number of seconds"),
    ({"secret": "s", "samesite": "lax"}, "samesite has to be one of"),
    ({"secret": "s", "samesite": "None"}, "samesite='None' needs secure=True"),
    ({"secret": "s", "secure": "yes"}, "secure has to be True or False"),
    ({"secret": "s", "rolling": 1}, "rolling has to be True or False"),
    ({"secret": "s", "cookie_name": ""}, "cookie_name has to be a non-empty string"),
    ({"secret": "s", "cookie_name": "a;b"}, "a cookie name is a token"),
    ({"secret": "s", "path": "/a; Secure"}, "path '/a; Secure' is refused"),
    ({"secret": "s", "domain": "x.example; SameSite=None"}, "domain 'x.example; SameSite=None' is refused"),
    ({"secret": "s", "ttl": 5}, "unknown option(s) ttl"),
])
def test_bad_options_fail_ready(options, message):
    app = Framework()
    app.register(session, **options)
    with pytest.raises(SessionOptionsError) as refused:
        app.ready()
    assert message in str(refused.value) and str(refused.value).startswith("session: ")


@pytest.mark.parametrize("make, message", [
    (lambda tmp: CookieStore(max_size=10), "max_size has to be an int >= 64"),
    (lambda tmp: SQLiteStore(tmp / "missing-folder" / "s.db"), "SQLiteStore cannot use"),
    (lambda tmp: RedisStore(), "RedisStore takes a url"),
    (lambda tmp: RedisStore(42), "url has to be a string"),
])
def test_bad_stores_are_refused_when_made(make, message, tmp_path):
    with pytest.raises(SessionOptionsError) as refused:
        make(tmp_path)
    assert message in str(refused.value)


def test_a_descendant_registration_keeps_its_own_cookie_and_the_ancestors_hook_leaves_it_alone():
    app = app_with()

    def short(instance, opts):
        instance.register(session, secret="other", cookie_name="short", max_age=5)
        routes(instance)
    app.register(short, prefix="/short")
    response = app.inject(method="POST", url="/short/login", json={"user": "ann"})
    lines = response.headers.getlist("set-cookie")
    assert len(lines) == 1 and lines[0].startswith("short=") and "Max-Age=5" in lines[0]
    cookie = lines[0].split(";")[0]
    assert app.inject(url="/short/me", headers={"cookie": cookie}).json()["user"] == "ann"
    assert app.inject(url="/me", headers={"cookie": cookie}).json()["user"] is None


def test_the_docstring_example_declares_its_routes_without_reaching_redis():
    import framework.plugins.session as module
    from test_plugin_docstrings import first_example

    app = first_example(module)["app"]
    response = app.inject(method="POST", url="/logout")     # a new session, nothing to forget
    assert response.json() == {"ok": True} and "set-cookie" not in response.headers
    assert app.has_route("POST", "/login")
