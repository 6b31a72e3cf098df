"""Sessions (@fastify/session and @fastify/secure-session): ``request.session``, a dict kept
between requests through a cookie.

``session`` is wrapped with ``plugin(...)``: the routes of the registering context and its
descendants get ``request.session``. Where the data lives is the ``store``:

:class:`CookieStore` (the default)
    The whole session in the cookie, signed (itsdangerous's ``URLSafeTimedSerializer``:
    JSON, compressed when that helps, then signed with a timestamp). Nothing on the
    server; the client can read the data (not change it). A cookie holds 4096 bytes at
    most: a session whose cookie would be larger is refused when it is saved (see below).
:class:`SQLiteStore`
    One machine: every worker process of it shares one SQLite file (stdlib ``sqlite3``,
    WAL mode). The cookie holds a signed random session id.
:class:`RedisStore`
    Several machines: the sessions live in Redis (redis-py), each key expiring with its
    session. The cookie holds a signed random session id.

::

    from framework import Framework
    from framework.plugins.session import RedisStore, session

    app = Framework()
    app.register(session, secret=["new-secret", "old-secret"], store=RedisStore("redis://127.0.0.1:6379/0"),
                 max_age=3600, secure=True)

    @app.post("/login")
    def login(request, reply):
        user = check_password(request.body)          # yours
        request.session.regenerate()                 # a new id once the user is known
        request.session["user"] = user.id
        return {"ok": True}

    @app.post("/logout")
    def logout(request, reply):
        request.session.invalidate()
        return {"ok": True}

``request.session`` is loaded on first read: a route that never reads it costs no store
look-up and no signature check (its context's ``on_send`` hook still checks, in a dict
look-up, whether it was read). A missing, tampered, unsigned or expired cookie, or an id
the store no longer has, gives an empty new session (``session.new`` is ``True``): never
an error. The session is saved (and its cookie sent) only when it changed: setting,
deleting or clearing keys marks it; a change inside a value (``session["cart"].append(x)``)
does not, so assign the value again or set ``session.modified = True``. Values must be
JSON-serializable. A session emptied (``clear()``) is removed from the store and its
cookie cleared. :meth:`Session.regenerate` moves the data to a new id (call it when the
user logs in: a session id planted before login is worth nothing after it);
:meth:`Session.invalidate` ends the session (logout): the store forgets it and the cookie
is cleared (the cookie store has nothing to forget: a copy of the cookie someone kept
stays valid until it expires, so use a server-side store when logout has to be final).

The cookie goes out with the reply's headers, so a handler that answers with a werkzeug
``Response`` of its own (which carries its own headers) sends no session cookie.

Expiry: ``max_age`` seconds after the session was last saved, enforced on the server (the
cookie store's timestamp is signed; SQLite and Redis forget expired rows and keys), and
sent as the cookie's ``Max-Age``. With ``rolling=True`` every request that reads a
non-empty session saves it again, so the deadline moves with activity.

The cookie store refuses a session whose cookie (name, ``=`` and value) would pass
``CookieStore(max_size=4096)`` bytes: the error is logged (with the size and the limit)
and the request is answered 500 ``FST_SESSION_TOO_LARGE``; the session keeps what it held
before. Keep large data in a server-side store. A store that fails (Redis down, a locked
SQLite file past its timeout) answers 503 ``FST_SESSION_STORE_UNAVAILABLE``, its error
logged; nothing of it reaches the client.

Options:

``secret``
    A string, or a list for key rotation (the first signs, all verify). Required.
``store``
    A :class:`CookieStore` (default), :class:`SQLiteStore`, :class:`RedisStore`, or any
    :class:`ServerStore` (``get``/``set``/``delete`` by session id).
``cookie_name``
    Default ``"session"``.
``max_age``
    Seconds (an int > 0); default 86400 (a day).
``rolling``
    ``False`` (default) or ``True`` (see above).
``path``, ``domain``, ``secure``, ``httponly``, ``samesite``
    The cookie's attributes: ``"/"``, none, ``False`` (set ``True`` when served over HTTPS),
    ``True``, ``"Lax"`` (``"Strict"``, ``"Lax"`` or ``"None"``; ``"None"`` needs ``secure``).

Bad options fail ``ready()`` with a :class:`SessionOptionsError`. For CSRF protection of
the routes these sessions authenticate, see ``framework.plugins.csrf``.
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Mapping
from typing import Any, Callable, Protocol, cast

from itsdangerous import BadData, BadSignature, Signer, TimestampSigner, URLSafeTimedSerializer

from framework import Context, Reply, Request, plugin
from framework.errors import create_error
from framework.plugins.cookie_signing import CookieSigningOptionsError, PrecomputedSigner, secret_keys

__all__ = ["session", "Session", "CookieStore", "SQLiteStore", "RedisStore", "ServerStore",
           "SessionOptionsError", "SessionStoreError", "SessionTooLargeError", "SessionStoreUnavailableError"]

#: A cookie store session whose cookie would pass ``max_size``: 500, the sizes logged.
SessionTooLargeError = create_error("FST_SESSION_TOO_LARGE", "the session is too large to be saved", 500)
#: The session store failed (the cause is logged): 503.
SessionStoreUnavailableError = create_error("FST_SESSION_STORE_UNAVAILABLE", "session store unavailable", 503)

_OPTIONS = ("secret", "store", "cookie_name", "max_age", "rolling", "path", "domain", "secure", "httponly",
            "samesite")
_IGNORED = ("prefix",)
_SAMESITE = ("Strict", "Lax", "None")


class SessionOptionsError(ValueError):
    """Options the session plugin cannot work with; raised when it loads (``ready()``)."""


class SessionStoreError(Exception):
    """A store could not read or write (its library's error is the ``__cause__``): answered 503."""


class Session(dict[str, Any]):
    """``request.session``: a dict that knows whether it changed.

    ``new`` is ``True`` when no valid session came with the request; ``id`` is the
    server-side session id (``None`` for the cookie store, and until a new session is
    first saved); ``modified`` says whether it will be saved.
    """

    __slots__ = ("id", "new", "modified", "discarded_ids")

    def __init__(self, data: Mapping[str, Any] | None = None, session_id: str | None = None) -> None:
        super().__init__(data or ())
        self.id = session_id
        self.new = data is None
        self.modified = False
        #: Ids this request ended (regenerated or invalidated): deleted from the store on save.
        self.discarded_ids: list[str] = []

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        self.modified = True

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self.modified = True

    def __ior__(self, other: Any) -> "Session":  # type: ignore[override,misc]
        self.update(other)
        return self

    def clear(self) -> None:
        """Remove every key: saved, the session leaves the store and its cookie is cleared."""
        if self:
            self.modified = True
        super().clear()

    def pop(self, key: str, *default: Any) -> Any:
        """As ``dict.pop``; a removed key marks the session changed."""
        if key in self:
            self.modified = True
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, Any]:
        """As ``dict.popitem``, marking the session changed."""
        item = super().popitem()
        self.modified = True
        return item

    def setdefault(self, key: str, default: Any = None) -> Any:
        """As ``dict.setdefault``; an added key marks the session changed."""
        if key not in self:
            self.modified = True
        return super().setdefault(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        """As ``dict.update``, marking the session changed."""
        super().update(*args, **kwargs)
        self.modified = True

    def regenerate(self) -> None:
        """Keep the data under a new session id (after login: an id known before it, planted
        by someone else, no longer finds the session). The cookie store signs it afresh."""
        if self.id is not None:
            self.discarded_ids.append(self.id)
            self.id = None
        self.modified = True

    def invalidate(self) -> None:
        """End the session (logout): the store forgets it, the data is dropped and the cookie
        cleared. Keys set afterwards start a new session, under a new id."""
        self.regenerate()
        super().clear()

    def __repr__(self) -> str:
        return f"<Session {dict.__repr__(self)}{' new' if self.new else ''}{' modified' if self.modified else ''}>"


class ServerStore(Protocol):
    """A server-side store: the data of each session under its id. Raise
    :class:`SessionStoreError` when the store cannot be reached."""

    def get(self, session_id: str) -> dict[str, Any] | None:
        """The data saved under ``session_id``, or ``None`` (unknown or expired)."""
        ...

    def set(self, session_id: str, data: dict[str, Any], max_age: int) -> None:
        """Save ``data`` under ``session_id`` for ``max_age`` seconds."""
        ...

    def delete(self, session_id: str) -> None:
        """Forget ``session_id`` (nothing happens when it is unknown)."""
        ...


class CookieStore:
    """The session in the cookie itself, signed with a timestamp; ``max_size`` bytes at most
    (the cookie's name, ``=`` and value). ``clock`` (seconds, ``time.time`` by default) is
    what expiry is measured with."""

    def __init__(self, max_size: int = 4096, clock: Callable[[], float] = time.time) -> None:
        if type(max_size) is not int or max_size < 64:
            raise SessionOptionsError(f"session: CookieStore max_size has to be an int >= 64, not {max_size!r}")
        if not callable(clock):
            raise SessionOptionsError("session: CookieStore clock has to be a function returning seconds")
        self.max_size = max_size
        self.clock = clock

    def serializer(self, secrets_list: list[bytes]) -> URLSafeTimedSerializer:
        """The itsdangerous serializer that signs the cookie with these secrets (first signs)."""
        clock = self.clock

        class ClockedSigner(PrecomputedSigner, TimestampSigner):
            def get_timestamp(self) -> int:
                return int(clock())

        return _OneSignerSerializer(list(reversed(secrets_list)), salt="framework.session.cookie",
                                    signer=ClockedSigner, signer_kwargs={"digest_method": hashlib.sha256})

    def __repr__(self) -> str:
        return f"<CookieStore max_size={self.max_size}>"


class _OneSignerSerializer(URLSafeTimedSerializer):
    """itsdangerous makes a new signer at every ``dumps`` and ``loads``; a signer keeps no
    state between calls, so this one makes it once per salt."""

    def make_signer(self, salt: str | bytes | None = None) -> Signer:
        made: dict[str | bytes | None, Signer] = self.__dict__.setdefault("signers", {})
        signer = made.get(salt)
        if signer is None:
            signer = made[salt] = super().make_signer(salt)
        return signer


class SQLiteStore:
    """Sessions in an SQLite file shared by the processes of one machine. ``clock`` (seconds)
    is what expiry is measured with. Expired rows are never read, and are deleted at most
    once a minute, by a write. ``timeout``: seconds to wait for a lock held by another
    process before failing (503)."""

    _SCHEMA = "CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, data TEXT NOT NULL, expires REAL NOT NULL)"

    def __init__(self, path: str | os.PathLike[str], clock: Callable[[], float] = time.time,
                 timeout: float = 5.0) -> None:
        self.path = os.fspath(path)
        self.clock = clock
        self.timeout = timeout
        self.local = threading.local()
        self.next_purge = 0.0
        # Fail at registration, not at the first request, on a path SQLite cannot open.
        try:
            with self._connect() as connection:
                connection.execute(self._SCHEMA)
            connection.close()
        except sqlite3.Error as error:
            raise SessionOptionsError(f"session: SQLiteStore cannot use {self.path!r}: {error}") from error

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None,
                                     check_same_thread=False)
        # Turning a file to WAL takes it whole, and SQLite answers "database is locked" at
        # once, without its busy timeout, to the second of two processes doing so together
        # (the workers of one server booting): so that one waits here, within ``timeout``.
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                connection.execute("PRAGMA journal_mode=WAL")
                return connection
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() >= deadline:
                    connection.close()
                    raise
            time.sleep(0.005)

    def _connection(self) -> sqlite3.Connection:
        # One connection per thread and process: a connection must not cross a fork.
        connection: sqlite3.Connection | None = getattr(self.local, "connection", None)
        if connection is None or getattr(self.local, "pid", None) != os.getpid():
            connection = self._connect()
            connection.execute(self._SCHEMA)
            self.local.connection, self.local.pid = connection, os.getpid()
        return connection

    def get(self, session_id: str) -> dict[str, Any] | None:
        """The data saved under ``session_id`` and not yet expired, or ``None``."""
        try:
            row = self._connection().execute("SELECT data FROM sessions WHERE id = ? AND expires > ?",
                                             (session_id, self.clock())).fetchone()
        except sqlite3.Error as error:
            raise SessionStoreError(f"SQLite session store {self.path!r}: {error}") from error
        return None if row is None else cast("dict[str, Any]", json.loads(row[0]))

    def set(self, session_id: str, data: dict[str, Any], max_age: int) -> None:
        """Save ``data`` under ``session_id`` until ``max_age`` seconds from now."""
        now = self.clock()
        text = json.dumps(data, separators=(",", ":"))
        try:
            connection = self._connection()
            connection.execute("INSERT INTO sessions (id, data, expires) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE "
                               "SET data = excluded.data, expires = excluded.expires", (session_id, text, now + max_age))
            if now >= self.next_purge:
                self.next_purge = now + 60
                connection.execute("DELETE FROM sessions WHERE expires <= ?", (now,))
        except sqlite3.Error as error:
            raise SessionStoreError(f"SQLite session store {self.path!r}: {error}") from error

    def delete(self, session_id: str) -> None:
        """Forget ``session_id``."""
        try:
            self._connection().execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        except sqlite3.Error as error:
            raise SessionStoreError(f"SQLite session store {self.path!r}: {error}") from error

    def __repr__(self) -> str:
        return f"<SQLiteStore {self.path!r}>"


class RedisStore:
    """Sessions in Redis, shared by every process of every machine: one key per session
    (``prefix`` + id) holding its JSON, expiring with it. Give a ``url``
    (``redis://host:6379/0``) or a redis-py ``client``. The client connects on first use,
    in each worker process; ``timeout`` bounds each command (seconds), so a Redis that is
    down answers 503 rather than a hang."""

    def __init__(self, url: str | None = None, *, client: Any = None, prefix: str = "session:",
                 timeout: float = 2.0) -> None:
        if (url is None) == (client is None):
            raise SessionOptionsError("session: RedisStore takes a url ('redis://host:6379/0') or a redis client")
        if url is not None and not isinstance(url, str):
            raise SessionOptionsError(f"session: RedisStore url has to be a string, not {type(url).__name__}")
        self.url = url
        self.prefix = prefix
        self.timeout = timeout
        self.client = client

    def _client(self) -> Any:
        if self.client is None:
            import redis  # redis-py keeps a pool per process: it reconnects after a fork

            self.client = redis.Redis.from_url(cast(str, self.url), socket_timeout=self.timeout,
                                               socket_connect_timeout=self.timeout)
        return self.client

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        import redis

        try:
            return getattr(self._client(), method)(*args, **kwargs)
        except redis.RedisError as error:
            raise SessionStoreError(f"Redis session store: {type(error).__name__}: {error}") from error

    def get(self, session_id: str) -> dict[str, Any] | None:
        """The data saved under ``session_id`` (Redis forgets it when it expires), or ``None``."""
        text = self._call("get", self.prefix + session_id)
        return None if text is None else cast("dict[str, Any]", json.loads(text))

    def set(self, session_id: str, data: dict[str, Any], max_age: int) -> None:
        """``SET`` with ``EX max_age``."""
        self._call("set", self.prefix + session_id, json.dumps(data, separators=(",", ":")), ex=max_age)

    def delete(self, session_id: str) -> None:
        """``DEL``."""
        self._call("delete", self.prefix + session_id)

    def __repr__(self) -> str:
        return f"<RedisStore {self.url or self.client!r}>"


class _Sessions:
    """One registration: loads ``request.session`` on first read and saves it in ``on_send``."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        unknown = sorted(set(options) - set(_OPTIONS) - set(_IGNORED))
        if unknown:
            raise SessionOptionsError(f"session: unknown option(s) {', '.join(unknown)}; known: {', '.join(_OPTIONS)}")
        if "secret" not in options:
            raise SessionOptionsError("session: give secret (a string, or a list: the first signs, all verify)")
        try:
            keys = secret_keys(options["secret"], "session")
        except CookieSigningOptionsError as error:
            raise SessionOptionsError(str(error)) from None
        store = options.get("store")
        self.store: Any = CookieStore() if store is None else store
        if isinstance(self.store, CookieStore):
            self.serializer: URLSafeTimedSerializer | None = self.store.serializer(keys)
        else:
            self.serializer = None
            if not all(callable(getattr(self.store, name, None)) for name in ("get", "set", "delete")):
                raise SessionOptionsError(f"session: store has to be a CookieStore, SQLiteStore, RedisStore or an "
                                          f"object with get, set and delete, not {self.store!r}")
        # Each registration's sessions are of its own class: a descendant that registers
        # the plugin again (another cookie) loads request.session there, and only its own
        # on_send hook saves that session, not this one's (which runs on those routes too).
        self.session_class: type[Session] = type("Session", (Session,), {"__slots__": ()})
        self.id_signer = PrecomputedSigner(list(reversed(keys)), salt="framework.session.id",
                                           digest_method=hashlib.sha256)
        self.cookie_name = options.get("cookie_name", "session")
        if not isinstance(self.cookie_name, str) or not self.cookie_name:
            raise SessionOptionsError(f"session: cookie_name has to be a non-empty string, not {self.cookie_name!r}")
        self.max_age = options.get("max_age", 86400)
        if type(self.max_age) is not int or self.max_age <= 0:
            raise SessionOptionsError(f"session: max_age has to be a number of seconds (an int > 0), "
                                      f"not {self.max_age!r}")
        self.rolling = options.get("rolling", False)
        samesite = options.get("samesite", "Lax")
        if samesite not in _SAMESITE:
            raise SessionOptionsError(f"session: samesite has to be one of 'Strict', 'Lax', 'None', not {samesite!r}")
        flags = {name: options.get(name, default) for name, default in (("secure", False), ("httponly", True),
                                                                        ("rolling", False))}
        for name, flag in flags.items():
            if flag is not True and flag is not False:
                raise SessionOptionsError(f"session: {name} has to be True or False, not {flag!r}")
        if samesite == "None" and not flags["secure"]:
            raise SessionOptionsError("session: samesite='None' needs secure=True (browsers refuse it otherwise)")
        self.cookie_options: dict[str, Any] = {
            "path": options.get("path", "/"), "domain": options.get("domain"), "secure": flags["secure"],
            "httponly": flags["httponly"], "samesite": samesite}
        self._check_cookie_options()

    def _check_cookie_options(self) -> None:
        # reply.set_cookie would refuse a bad path or domain at every save: refuse it once, now.
        from framework.errors import InvalidCookieError
        from framework.http.cookies import cookie_line

        try:
            cookie_line(self.cookie_name, "", max_age=self.max_age, expires=None, **self.cookie_options)
        except InvalidCookieError as error:
            raise SessionOptionsError(f"session: {error}") from None

    # Loading.
    def load(self, request: Request) -> Session:
        """The request's session (an empty new one when its cookie brings none)."""
        raw = request.cookies.get(self.cookie_name)
        new = self.session_class
        if raw is None:
            return new()
        if self.serializer is not None:
            try:
                data = self.serializer.loads(raw, max_age=self.max_age)
            except BadData:  # tampered, unsigned, expired (SignatureExpired), a payload that does not decode
                return new()
            return new(cast("dict[str, Any]", data)) if isinstance(data, dict) else new()
        try:
            session_id = self.id_signer.unsign(raw.encode("utf-8", "surrogateescape")).decode("ascii")
        except (BadSignature, UnicodeError):
            return new()
        try:
            data = self.store.get(session_id)
        except SessionStoreError as error:
            raise self._unavailable(request, error) from None
        return new() if data is None else new(data, session_id)

    @staticmethod
    def _unavailable(request: Request, error: SessionStoreError) -> Exception:
        request.log.error("session store failed: %s", error)
        return SessionStoreUnavailableError()

    # Saving.
    def on_send(self, request: Request, reply: Reply, payload: Any) -> Any:
        """The hook: saves a session that was read and changed (or every one, ``rolling``)."""
        current: Session | None = request.__dict__.get("session")
        if type(current) is not self.session_class or not (current.modified or (self.rolling and current)):
            return payload
        current.modified = False  # one attempt: an error answer passes this hook again
        if self.serializer is not None:
            self._save_in_cookie(request, reply, current)
        else:
            try:
                self._save_in_store(request, reply, current)
            except SessionStoreError as error:
                raise self._unavailable(request, error) from None
        return payload

    def _save_in_cookie(self, request: Request, reply: Reply, current: Session) -> None:
        if not current:
            self._clear_cookie(request, reply)
            return
        assert self.serializer is not None
        value = self.serializer.dumps(dict(current))
        size = len(self.cookie_name) + 1 + len(value)
        if size > self.store.max_size:
            request.log.error("session not saved: its cookie %r would be %d bytes, past the cookie store's "
                              "max_size of %d; keep large data in a server-side store (SQLiteStore, RedisStore)",
                              self.cookie_name, size, self.store.max_size)
            raise SessionTooLargeError()
        reply.set_cookie(self.cookie_name, value, max_age=self.max_age, **self.cookie_options)

    def _save_in_store(self, request: Request, reply: Reply, current: Session) -> None:
        for session_id in current.discarded_ids:
            self.store.delete(session_id)
        current.discarded_ids.clear()
        if not current:
            if current.id is not None:
                self.store.delete(current.id)
            self._clear_cookie(request, reply)
            return
        if current.id is None:
            current.id = secrets.token_urlsafe(32)
        self.store.set(current.id, dict(current), self.max_age)
        reply.set_cookie(self.cookie_name, self.id_signer.sign(current.id).decode("ascii"), max_age=self.max_age,
                         **self.cookie_options)

    def _clear_cookie(self, request: Request, reply: Reply) -> None:
        if self.cookie_name in request.cookies:
            reply.clear_cookie(self.cookie_name, path=self.cookie_options["path"],
                               domain=self.cookie_options["domain"])


class _SessionAttribute:
    """``request.session``: loaded on first read, then an attribute of the request."""

    def __init__(self, sessions: _Sessions) -> None:
        self.sessions = sessions

    def __get__(self, request: Request | None, owner: type | None = None) -> Any:
        if request is None:
            return self
        loaded = request.__dict__["session"] = self.sessions.load(request)
        return loaded


def _session(instance: Context, opts: Mapping[str, Any]) -> None:
    sessions = _Sessions(dict(opts or {}))
    instance.decorate_request("session", _SessionAttribute(sessions))
    instance.add_hook("on_send", sessions.on_send)


_session.__doc__ = __doc__
#: The plugin: ``register(session, secret=..., store=...)``. Runs in the registering context.
session = plugin(_session, name="session")

