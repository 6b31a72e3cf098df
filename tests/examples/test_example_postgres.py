"""The example app on a real PostgreSQL server that this module starts (Debian's
``postgresql`` package: ``initdb``/``pg_ctl`` on PATH or in /usr/lib/postgresql/*/bin;
psycopg 3). Skipped when either is missing. As root, the server runs as ``nobody``."""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid

import pytest

psycopg = pytest.importorskip("psycopg", reason="psycopg 3 is not installed (pip install 'framework[postgres]')")

from test_example_app import TRANSCRIPT, Server, run_examples  # noqa: E402


def _binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def postgres():
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    directory = tempfile.mkdtemp(prefix="framework-pg-")
    as_user: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        shutil.chown(directory, "nobody", "nogroup")
        as_user = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    data, port = os.path.join(directory, "data"), _free_port()
    run = lambda *command: subprocess.run([*as_user, *command], check=True, capture_output=True,  # noqa: E731
                                          text=True, timeout=120, cwd=directory)
    run(initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8")
    run(pg_ctl, "-D", data, "-l", os.path.join(directory, "log"), "-w", "-t", "60", "start",
        "-o", f"-p {port} -k {directory} -c listen_addresses=127.0.0.1 -c fsync=off")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run([*as_user, pg_ctl, "-D", data, "-m", "fast", "-w", "stop"], capture_output=True, timeout=60)
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def database(postgres):
    name = "items_" + uuid.uuid4().hex[:12]
    with psycopg.connect(f"{postgres}/postgres", autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    return f"{postgres}/{name}"


def test_example_app_on_postgres_in_process(database):
    from examples.app import PostgresItemStore, create_app

    with create_app(api_keys=["k"], database=database) as app:
        created = app.inject(method="POST", url="/items", json={"name": "pen", "price": 1.5, "secret": "x"})
        assert (created.status_code, created.json()) == (201, {"id": 1, "name": "pen", "price": 1.5, "tags": []})
        assert app.inject(method="PUT", url="/items/1", json={"name": "pen", "price": 12}).json()["price"] == 12
        assert app.inject(url="/items?limit=10").json() == {
            "items": [{"id": 1, "name": "pen", "price": 12, "tags": []}]}
        assert app.inject(method="DELETE", url="/items/1").status_code == 204
        assert app.inject(url="/items/1").json()["code"] == "ITEM_NOT_FOUND"
        assert app.inject(method="PUT", url="/items/1", json={"name": "pen", "price": 1}).status_code == 404
    assert isinstance(PostgresItemStore(database), PostgresItemStore)


def test_readme_transcript_on_postgres_with_four_gunicorn_workers(database):
    server = Server("examples.app:app", {"DATABASE_URL": database})
    try:
        server.wait_ready()
        run_examples(server, TRANSCRIPT)
    finally:
        server.stop()
