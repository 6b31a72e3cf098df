"""The example application: encapsulation, bearer and JWT authentication, a validated CRUD API.

Run it (from the repository root)::

    gunicorn examples.app:app --bind 127.0.0.1:3000 --workers 4     # or: python -m examples.app

Environment (read once, at import, through ``framework.settings.load_settings``: a bad
value fails the worker's boot with every problem listed; see :data:`SETTINGS`):

- ``API_KEYS``: comma-separated keys accepted on ``/private`` and ``/account/me`` (default ``demo-key``).
- ``JWT_SECRET``: the HS256 secret of the tokens ``/account/me`` accepts (at least 32 bytes;
  default :data:`DEMO_JWT_SECRET`, for trying the example only).
- ``ITEMS_DB``: the SQLite file holding the items (default ``items.sqlite3`` in the
  working directory), shared by every worker process.
- ``DATABASE_URL=postgresql://...``: keep the items in PostgreSQL instead (psycopg 3:
  ``pip install 'framework[postgres]'``), for several machines behind a load balancer.
- ``EXAMPLE_WRAP_GRANDCHILD=1``: register the grandchild wrapped with ``plugin(...)``
  (``examples.app_wrapped`` is the same application with the flag set).
- ``PORT``: the port of ``python -m examples.app`` (default 3000).

The context tree is the seed's scenario (2.1)::

    root                 decorate_request("root_decorator", "root")
    ├── private          bearer_auth(keys=API_KEYS)         GET /private
    ├── account          auth(any_of=[JWT, Bearer(API_KEYS)])   prefix /account: GET /account/me
    ├── child            decorate_request("child_decorator", "child")   GET /child
    │   └── grandchild   decorate_request("grandchild_decorator", "grandchild")   GET /grandchild
    └── items            prefix /items: the CRUD routes, shared schemas "item-input" and "item"

Each of the three GET routes answers the three decorators as it sees them; a decorator
that is not visible in the route's context is ``UNDEFINED`` and so absent from the JSON:

=================  ==================================================  =====================================
route              body                                                with the grandchild wrapped
=================  ==================================================  =====================================
``/private``       ``{"root_decorator":"root"}`` (with a valid key)    same
``/child``         root and child                                      root, child and grandchild
``/grandchild``    all three                                           same
=================  ==================================================  =====================================

Only ``/private`` needs ``Authorization: Bearer <key>``: bearer_auth is registered in
its context, so its siblings stay public. ``/account/me`` (framework.plugins.auth) takes a
JWT signed with ``JWT_SECRET`` (issuer :data:`JWT_ISSUER`) or one of the API keys, and
answers who the credentials name.

Items (in SQLite, shared by every worker: run as many as you like):

- ``POST /items`` with ``{"name": str 1-100, "price": number >= 0, "tags": [str] <= 5}``:
  201 and the item (the body is validated without type coercion: ``"price": "1"`` or a
  ``null`` tag is a 400); undeclared input properties are dropped by the body schema
  (``additionalProperties: false``), and the store's bookkeeping (``revision``) by the
  response schema.
- ``GET /items?limit=N`` (1-100, default 20), ``GET /items/:id``, ``PUT /items/:id``
  (replace; same body as POST), ``DELETE /items/:id`` (204). ``id`` is a positive
  integer (``/items/abc`` is a 400); an unknown one is a 404 ``ITEM_NOT_FOUND``.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from typing import Any

from framework import UNDEFINED, Framework, create_error, plugin
from framework.settings import load_settings
from framework.plugins.auth import JWT, Bearer, auth
from framework.plugins.bearer_auth import bearer_auth
from framework.plugins.openapi import openapi

#: The key accepted when ``API_KEYS`` is not set. For trying the example only.
DEMO_KEY = "demo-key"
#: The JWT secret used when ``JWT_SECRET`` is not set. For trying the example only.
DEMO_JWT_SECRET = "demo-jwt-secret-for-trying-the-example"
#: The ``iss`` the example's JWTs must carry.
JWT_ISSUER = "https://id.example"
#: ``GET /account/me``'s answer: the scheme that accepted and whom the credentials name.
WHO = {"type": "object", "required": ["scheme"],
       "properties": {"scheme": {"type": "string"}, "principal": {"type": ["string", "null"]}}}
#: The SQLite file used when ``ITEMS_DB`` is not set (relative to the working directory).
DEFAULT_DATABASE = "items.sqlite3"
DECORATORS = ("root_decorator", "child_decorator", "grandchild_decorator")

ItemNotFoundError = create_error("ITEM_NOT_FOUND", "item %s not found", 404)

ITEM_INPUT = {
    "$id": "item-input",
    "type": "object",
    "required": ["name", "price"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 100},
        "price": {"type": "number", "minimum": 0},
        "tags": {"type": "array", "maxItems": 5, "items": {"type": "string", "maxLength": 20}, "default": []},
    },
}
ITEM = {
    "$id": "item",
    "type": "object",
    "required": ["id", "name", "price", "tags"],
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "price": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}
ITEM_ID = {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer", "minimum": 1}}}
#: The body of the framework's error replies (the 404 ``ITEM_NOT_FOUND``).
ERROR = {
    "$id": "error",
    "type": "object",
    "properties": {"statusCode": {"type": "integer"}, "code": {"type": "string"},
                   "error": {"type": "string"}, "message": {"type": "string"}},
}
NOT_FOUND = {"description": "No item has this id", "$ref": "error#"}


#: The example's settings: each property is read from the variable of its upper-cased name
#: (``load_settings(SETTINGS, prefix="")``), coerced and checked at import.
SETTINGS = {
    "type": "object",
    "properties": {
        # Comma-separated (blank entries ignored), or a JSON array.
        "api_keys": {"type": "array", "items": {"type": "string"}, "default": [DEMO_KEY]},
        "items_db": {"type": "string", "default": DEFAULT_DATABASE},
        "jwt_secret": {"type": "string", "minLength": 32, "default": DEMO_JWT_SECRET},
        # Used only when it is a postgresql:// URL (see database_of).
        "database_url": {"type": "string", "default": ""},
        "example_wrap_grandchild": {"type": "boolean", "default": False},
        "port": {"type": "integer", "minimum": 1, "maximum": 65535, "default": 3000},
    },
}


def settings_from_env(environ: Any = None) -> dict[str, Any]:
    """:data:`SETTINGS` read from ``environ`` (default ``os.environ``); a missing or invalid
    one raises ``framework.errors.SettingsError`` listing every problem."""
    return load_settings(SETTINGS, env=environ, prefix="")


def api_keys_from_env(environ: Any = None) -> list[str]:
    """``API_KEYS`` split on commas (blank entries ignored), or ``[DEMO_KEY]``."""
    keys: list[str] = settings_from_env(environ)["api_keys"]
    return keys


def decorator_values(request: Any, reply: Any) -> dict[str, Any]:
    """The three decorators as this route's request sees them (invisible ones: UNDEFINED)."""
    return {name: getattr(request, name, UNDEFINED) for name in DECORATORS}


class ItemStore:
    """Items in SQLite (standard library ``sqlite3``): one database file shared by every
    worker process, a connection per thread (gunicorn may run a worker's requests in
    threads), WAL mode and a busy timeout so that writers in several processes wait for
    each other instead of failing.

    :meth:`open` creates the schema (an ``on_ready`` hook); :meth:`close` closes every
    connection this process opened (an ``on_close`` hook). Ids are SQLite row ids: an
    item gets the largest id plus one.
    """

    SCHEMA = "CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, revision INTEGER NOT NULL, data TEXT NOT NULL)"

    def __init__(self, path: str) -> None:
        self.path = path
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            # check_same_thread=False only so that close() may close it from another thread.
            connection = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA busy_timeout = 30000")
            connection.execute("PRAGMA synchronous = NORMAL")
            self._local.connection = connection
            with self._lock:
                self._connections.append(connection)
        return connection

    def open(self) -> None:
        # A connection of its own, closed at once: ``listen()`` readies the app before it
        # forks its workers, and a SQLite connection must not cross a fork.
        connection = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            connection.execute("PRAGMA busy_timeout = 30000")
            self._turn_to_wal(connection)
            connection.execute(self.SCHEMA)
        finally:
            connection.close()

    @staticmethod
    def _turn_to_wal(connection: sqlite3.Connection) -> None:
        # WAL is persistent: set once per database file. SQLite answers the second of two
        # workers doing so at one instant "database is locked" at once, without its busy
        # timeout, so that one tries again (for up to 30 s, the busy timeout).
        deadline = time.monotonic() + 30
        while True:
            try:
                connection.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() >= deadline:
                    raise
            time.sleep(0.005)

    def close(self) -> None:
        with self._lock:
            connections, self._connections = self._connections, []
        for connection in connections:
            connection.close()
        self._local = threading.local()

    @staticmethod
    def _item(row: tuple[int, int, str]) -> dict[str, Any]:
        return {"id": row[0], **json.loads(row[2]), "revision": row[1]}

    def create(self, data: dict[str, Any]) -> dict[str, Any]:
        cursor = self._connection().execute("INSERT INTO items (revision, data) VALUES (1, ?)", (json.dumps(data),))
        return {"id": cursor.lastrowid, **data, "revision": 1}

    def list(self, limit: int) -> list[dict[str, Any]]:
        rows = self._connection().execute("SELECT id, revision, data FROM items ORDER BY id LIMIT ?", (limit,))
        return [self._item(row) for row in rows]

    def get(self, item_id: int) -> dict[str, Any]:
        row = self._connection().execute("SELECT id, revision, data FROM items WHERE id = ?", (item_id,)).fetchone()
        if row is None:
            raise ItemNotFoundError(item_id)
        return self._item(row)

    def replace(self, item_id: int, data: dict[str, Any]) -> dict[str, Any]:
        connection = self._connection()
        connection.execute("BEGIN IMMEDIATE")
        try:
            updated = connection.execute("UPDATE items SET data = ?, revision = revision + 1 WHERE id = ?",
                                         (json.dumps(data), item_id)).rowcount
            row = connection.execute("SELECT revision FROM items WHERE id = ?", (item_id,)).fetchone()
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        if not updated:
            raise ItemNotFoundError(item_id)
        return {"id": item_id, **data, "revision": row[0]}

    def delete(self, item_id: int) -> None:
        if not self._connection().execute("DELETE FROM items WHERE id = ?", (item_id,)).rowcount:
            raise ItemNotFoundError(item_id)


class PostgresItemStore:
    """The same store on PostgreSQL (``DATABASE_URL=postgresql://...``; psycopg 3,
    ``pip install 'framework[postgres]'``): for several machines behind a load balancer.
    A connection per thread, in autocommit; the schema is created under an advisory lock
    (workers starting together would otherwise race on ``CREATE TABLE IF NOT EXISTS``)."""

    SCHEMA = "CREATE TABLE IF NOT EXISTS items (id BIGSERIAL PRIMARY KEY, revision INTEGER NOT NULL, data TEXT NOT NULL)"
    LOCK = 7461636  # any constant: the advisory lock guarding the schema's creation

    def __init__(self, url: str) -> None:
        import psycopg  # an optional dependency: imported only when DATABASE_URL asks for it

        self._psycopg = psycopg
        self.url = url
        self._local = threading.local()
        self._connections: list[Any] = []
        self._lock = threading.Lock()

    def _connection(self) -> Any:
        connection = getattr(self._local, "connection", None)
        if connection is None or connection.closed:
            connection = self._psycopg.connect(self.url, autocommit=True)
            self._local.connection = connection
            with self._lock:
                self._connections.append(connection)
        return connection

    def open(self) -> None:
        with self._psycopg.connect(self.url) as connection:  # its own: it must not cross listen()'s fork
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (self.LOCK,))
            connection.execute(self.SCHEMA)

    def close(self) -> None:
        with self._lock:
            connections, self._connections = self._connections, []
        for connection in connections:
            connection.close()
        self._local = threading.local()

    def create(self, data: dict[str, Any]) -> dict[str, Any]:
        row = self._connection().execute("INSERT INTO items (revision, data) VALUES (1, %s) RETURNING id",
                                         (json.dumps(data),)).fetchone()
        return {"id": row[0], **data, "revision": 1}

    def list(self, limit: int) -> list[dict[str, Any]]:
        rows = self._connection().execute("SELECT id, revision, data FROM items ORDER BY id LIMIT %s", (limit,))
        return [ItemStore._item(row) for row in rows]

    def get(self, item_id: int) -> dict[str, Any]:
        row = self._connection().execute("SELECT id, revision, data FROM items WHERE id = %s",
                                         (item_id,)).fetchone()
        if row is None:
            raise ItemNotFoundError(item_id)
        return ItemStore._item(row)

    def replace(self, item_id: int, data: dict[str, Any]) -> dict[str, Any]:
        row = self._connection().execute(
            "UPDATE items SET data = %s, revision = revision + 1 WHERE id = %s RETURNING revision",
            (json.dumps(data), item_id)).fetchone()
        if row is None:
            raise ItemNotFoundError(item_id)
        return {"id": item_id, **data, "revision": row[0]}

    def delete(self, item_id: int) -> None:
        if not self._connection().execute("DELETE FROM items WHERE id = %s", (item_id,)).rowcount:
            raise ItemNotFoundError(item_id)


def open_store(database: str) -> "ItemStore | PostgresItemStore":
    """A ``postgresql://`` (or ``postgres://``) URL: PostgreSQL; anything else: a SQLite file path."""
    if database.startswith(("postgresql://", "postgres://")):
        return PostgresItemStore(database)
    return ItemStore(database)


def items_plugin(instance: Any, opts: dict[str, Any]) -> None:
    """The CRUD routes; register with ``prefix="/items"`` and ``database`` (a SQLite file
    path or a ``postgresql://`` URL)."""
    store = open_store(opts["database"])
    instance.add_hook("on_ready", store.open)
    instance.add_hook("on_close", lambda instance: store.close())
    instance.add_schema(ITEM_INPUT)
    instance.add_schema(ITEM)
    instance.add_schema(ERROR)
    @instance.get("/", schema={
        "summary": "List the items", "tags": ["items"], "operation_id": "listItems",
        "querystring": {"limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20,
                                  "description": "How many items at most"}},
        "response": {200: {"type": "object", "properties": {"items": {"type": "array", "items": {"$ref": "item#"}}}}},
    })
    def list_items(request: Any, reply: Any) -> Any:
        return {"items": store.list(request.query["limit"])}

    @instance.post("/", schema={"summary": "Create an item", "tags": ["items"], "operation_id": "createItem",
                                "body": {"$ref": "item-input#"}, "response": {201: {"$ref": "item#"}}})
    def create_item(request: Any, reply: Any) -> Any:
        return reply.code(201).send(store.create(request.body))

    @instance.get("/:id", schema={"summary": "Read an item", "tags": ["items"], "operation_id": "getItem",
                                  "params": ITEM_ID, "response": {200: {"$ref": "item#"}, 404: NOT_FOUND}})
    def get_item(request: Any, reply: Any) -> Any:
        return store.get(request.params["id"])

    @instance.put("/:id", schema={"summary": "Replace an item", "tags": ["items"], "operation_id": "replaceItem",
                                  "params": ITEM_ID, "body": {"$ref": "item-input#"},
                                  "response": {200: {"$ref": "item#"}, 404: NOT_FOUND}})
    def replace_item(request: Any, reply: Any) -> Any:
        return store.replace(request.params["id"], request.body)

    @instance.delete("/:id", schema={"summary": "Delete an item", "tags": ["items"], "operation_id": "deleteItem",
                                     "params": ITEM_ID,
                                     "response": {204: {"description": "Deleted", "type": "null"}, 404: NOT_FOUND}})
    def delete_item(request: Any, reply: Any) -> Any:
        store.delete(request.params["id"])
        return reply.code(204).send()


def database_of(settings: dict[str, Any]) -> str:
    """``DATABASE_URL`` when it is a ``postgresql://`` URL, else ``ITEMS_DB`` (the SQLite
    file), else ``DEFAULT_DATABASE`` in the working directory."""
    url: str = settings["database_url"]
    if url.startswith(("postgresql://", "postgres://")):
        return url
    path: str = settings["items_db"]
    return path or DEFAULT_DATABASE


def create_app(*, api_keys: list[str] | None = None, wrap_grandchild: bool = False,
               database: str | None = None, jwt_secret: str = DEMO_JWT_SECRET) -> Framework:
    """Build the example application (``api_keys`` default: :func:`api_keys_from_env`;
    ``database`` default: :func:`database_of` the environment's settings)."""
    # A known path asked with a method it does not declare answers 405 with Allow (API clients
    # and schemathesis expect it), not Fastify's default 404.
    # A JSON body is typed already: coerce_body=False validates it without coercion (a null
    # tag is a 400, not ""), while the querystring and path parameters, which arrive as
    # text, are coerced.
    app = Framework(method_not_allowed=True, coerce_body=False)
    app.decorate_request("root_decorator", "root")
    # GET /documentation (Swagger UI) and /documentation/json: every route of the application.
    app.register(openapi, info={"title": "framework example", "version": "1.0.0",
                                "description": "Encapsulation, bearer and JWT authentication and a validated "
                                               "CRUD API."},
                 tags=[{"name": "items", "description": "The item store (SQLite or PostgreSQL)"}])

    def private(instance: Any, opts: dict[str, Any]) -> None:
        instance.register(bearer_auth, keys=opts["keys"])
        instance.get("/private", decorator_values)

    def grandchild(instance: Any, opts: dict[str, Any]) -> None:
        instance.decorate_request("grandchild_decorator", "grandchild")
        instance.get("/grandchild", decorator_values)

    def child(instance: Any, opts: dict[str, Any]) -> None:
        instance.decorate_request("child_decorator", "child")
        instance.get("/child", decorator_values)
        instance.register(plugin(grandchild, name="grandchild") if wrap_grandchild else grandchild)

    def account(instance: Any, opts: dict[str, Any]) -> None:
        instance.register(auth, any_of=[JWT(secret=opts["secret"], algorithms=["HS256"], issuer=JWT_ISSUER),
                                        Bearer(opts["keys"], name="apiKeys")])

        def routes(inner: Any, opts: dict[str, Any]) -> None:
            inner.get("/me", {"schema": {"summary": "Whom the credentials name", "tags": ["account"],
                                           "response": {200: WHO}}},
                      lambda request, reply: {"scheme": request.auth.scheme, "principal": request.auth.principal})

        instance.register(routes)

    keys = api_keys if api_keys is not None else api_keys_from_env()
    app.register(private, keys=keys)
    app.register(account, prefix="/account", keys=keys, secret=jwt_secret)
    app.register(child)
    app.register(items_plugin, prefix="/items", database=database or database_of(settings_from_env()))
    return app


# Read at import, like the app below: a missing or invalid setting fails the worker's boot.
settings = settings_from_env()
app = create_app(api_keys=settings["api_keys"], wrap_grandchild=settings["example_wrap_grandchild"],
                 database=database_of(settings), jwt_secret=settings["jwt_secret"])
# Ready at import: each gunicorn/granian worker compiles its routes and opens the store as
# it boots (a bad configuration fails the boot), not on its first request; the worker
# that ran ready() runs the on_close hooks when it stops.
app.ready()

if __name__ == "__main__":
    app.listen(port=settings["port"])
