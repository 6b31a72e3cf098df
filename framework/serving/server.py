"""``listen()``: serve an app on gunicorn (embedded, the default) or on granian (an optional extra).

gunicorn is the design card's server. granian (Rust, ``pip install framework[granian]``)
answers about ten times more requests per second for the same WSGI app on these
machines, because gunicorn's own per-request cost dominates a fast app.
"""
from __future__ import annotations

import errno
import os
import socket
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Protocol

from ..errors import AddressInUseError

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

#: ``listen()``'s callback: ``callback(None)`` once listening, ``callback(error)`` on failure.
Callback = Optional[Callable[[Optional[Exception]], Any]]


class ServedApp(Protocol):
    """What the servers use of the application (``Framework`` is one): a WSGI callable that
    is readied before the workers fork and closed once they have stopped. Typed
    structurally so that serving sits below the application and never imports it."""

    def __call__(self, environ: "WSGIEnvironment", start_response: "StartResponse", /) -> Iterable[bytes]: ...

    def ready(self) -> object: ...

    def close(self) -> None: ...


def serve(app: ServedApp, *, port: int = 3000, host: str = "127.0.0.1", callback: Callback = None,
          workers: int = 1, server: str = "gunicorn", on_listen: Callable[[], None] = lambda: None) -> None:
    """Ready ``app`` and serve it until the process is stopped (SIGTERM or SIGINT).

    This process runs ``ready()``, then ``on_listen()`` (the ``on_listen`` hooks) once the server accepts
    connections (before ``callback(None)``), and ``close()`` (``pre_close`` and
    ``on_close`` hooks) when the server has stopped. The workers are forked from it with
    the application ready: none of them compiles a route.
    """
    try:
        app.ready()
    except Exception as error:
        if callback is None:
            raise
        callback(error)
        return
    if server not in ("gunicorn", "granian"):
        _fail(ValueError(f"unknown server {server!r}: use 'gunicorn' or 'granian'"), callback)
        return
    try:
        check_bindable(host, port)
    except OSError as error:
        _fail(error, callback)
        return
    pid = os.getpid()
    try:
        if server == "gunicorn":
            _serve_gunicorn(app, host, port, workers, _listening(on_listen, callback))
        else:
            _serve_granian(app, host, port, workers, _listening(on_listen, callback))
    finally:
        if os.getpid() == pid:
            app.close()


def _listening(on_listen: Callable[[], None], callback: Callback) -> Callable[[Exception | None], Any]:
    """The callback the servers call: ``on_listen`` hooks first, then the user's callback."""
    def listening(error: Exception | None) -> None:
        if error is None:
            try:
                on_listen()
            except Exception as hook_error:
                error = hook_error
        if callback is not None:
            callback(error)
        elif error is not None:
            raise error  # as without a callback: the failure is raised
    return listening


def _fail(error: Exception, callback: Callback) -> None:
    if callback is None:
        raise error
    callback(error)


def check_bindable(host: str, port: int) -> None:
    """Raise :class:`~framework.errors.AddressInUseError` when another socket listens on ``host:port``.

    Both servers bind with ``SO_REUSEADDR``, as this check does: a port whose last
    connections linger in TIME_WAIT is free for them, one another process listens on is
    not. Without the check gunicorn retries for five seconds and exits with a bare code,
    and granian panics after its readiness probe has reached the other process.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
        return  # the server reports an unknown host itself
    for family, kind, proto, _, address in infos[:1]:
        probe = socket.socket(family, kind, proto)
        try:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise AddressInUseError(host, port) from None
            raise
        finally:
            probe.close()


def _serve_gunicorn(app: ServedApp, host: str, port: int, workers: int, callback: Callback) -> None:
    from gunicorn.app.base import BaseApplication
    master = os.getpid()

    class EmbeddedGunicorn(BaseApplication):  # type: ignore[misc]  # no py.typed in gunicorn: Any to mypy
        def load_config(self) -> None:
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("workers", workers)
            self.cfg.set("accesslog", None)
            if callback is not None:
                announce = callback

                def when_ready(arbiter: Any) -> None:
                    announce(None)
                self.cfg.set("when_ready", when_ready)

        def load(self) -> Any:  # gunicorn types its WSGI app with a MutableMapping environ
            return app

    try:
        EmbeddedGunicorn().run()
    except SystemExit as exit_:
        if os.getpid() != master:
            raise  # a worker (forked inside run()) leaves: never return into the caller's code
        if exit_.code in (0, None):
            return
        error: Exception = RuntimeError(f"gunicorn could not serve on {host}:{port} (exit code {exit_.code})")
        try:
            check_bindable(host, port)  # taken since the check before starting?
        except OSError as in_use:
            error = in_use
        if callback is None:
            raise error from None
        callback(error)


def _serve_granian(app: ServedApp, host: str, port: int, workers: int, callback: Callback) -> None:
    try:
        from granian.constants import Interfaces
        from granian.server import Server
    except ImportError as missing:
        error = RuntimeError("granian is not installed: pip install 'framework[granian]'")
        if callback is None:
            raise error from missing
        callback(error)
        return
    # Workers are forked, so the loader may simply close over the app.
    granian = Server("framework:app", address=host, port=port, interface=Interfaces.WSGI, workers=workers)
    finished = threading.Event()  # the server has stopped or failed: announce nothing more
    if callback is not None:
        if hasattr(granian, "on_startup"):  # granian's hook: bound and listening, in this process
            granian.on_startup(lambda: callback(None))
        else:  # older granian: poll the port
            threading.Thread(target=_announce_when_listening, args=(host, port, callback, finished),
                             daemon=True).start()
    try:
        granian.serve(target_loader=lambda *_: app, wrap_loader=False)
    except RuntimeError as error:
        finished.set()
        # Taken since the check before starting: granian's message carries a Rust backtrace.
        if not str(error).startswith("Address already in use"):
            raise
        _fail(AddressInUseError(host, port), callback)
    finally:
        finished.set()


def _announce_when_listening(host: str, port: int, callback: Callable[[Exception | None], Any],
                             finished: threading.Event, timeout: float = 30.0) -> None:
    """Call ``callback(None)`` once ``host:port`` accepts a connection, unless the server
    has already stopped or failed (another process holding the port answers too)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not finished.is_set():
        try:
            with socket.create_connection((host, port), timeout=0.2):
                pass
        except OSError:
            time.sleep(0.05)
            continue
        if not finished.is_set():
            callback(None)
        return
    if not finished.is_set():
        callback(TimeoutError(f"granian did not listen on {host}:{port} within {timeout} s"))
