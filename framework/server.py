"""``listen()``: serve an app on gunicorn (embedded, the default) or on granian (an optional extra).

gunicorn is the design card's server. granian (Rust, ``pip install framework[granian]``)
answers about ten times more requests per second for the same WSGI app on these
machines, because gunicorn's own per-request cost dominates a fast app.
"""
from __future__ import annotations

import socket
import threading
import time
from typing import Any, Callable

Callback = Callable[[Exception | None], Any] | None


def serve(app: Any, *, port: int = 3000, host: str = "127.0.0.1", callback: Callback = None,
          workers: int = 1, server: str = "gunicorn") -> None:
    """Ready ``app`` and serve it until the process is stopped."""
    try:
        app.ready()
    except Exception as error:
        if callback is None:
            raise
        callback(error)
        return
    if server == "gunicorn":
        _serve_gunicorn(app, host, port, workers, callback)
    elif server == "granian":
        _serve_granian(app, host, port, workers, callback)
    else:
        error = ValueError(f"unknown server {server!r}: use 'gunicorn' or 'granian'")
        if callback is None:
            raise error
        callback(error)


def _serve_gunicorn(app: Any, host: str, port: int, workers: int, callback: Callback) -> None:
    from gunicorn.app.base import BaseApplication

    class EmbeddedGunicorn(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("workers", workers)
            self.cfg.set("accesslog", None)
            if callback is not None:
                self.cfg.set("when_ready", lambda arbiter: callback(None))

        def load(self) -> Any:
            return app

    try:
        EmbeddedGunicorn().run()
    except SystemExit as exit_:
        if exit_.code in (0, None):
            return
        error = RuntimeError(f"gunicorn could not serve on {host}:{port} (exit code {exit_.code})")
        if callback is None:
            raise error from None
        callback(error)


def _serve_granian(app: Any, host: str, port: int, workers: int, callback: Callback) -> None:
    try:
        from granian.constants import Interfaces
        from granian.server import Server
    except ImportError as missing:
        error = RuntimeError("granian is not installed: pip install 'framework[granian]'")
        if callback is None:
            raise error from missing
        callback(error)
        return
    if callback is not None:
        threading.Thread(target=_announce_when_listening, args=(host, port, callback), daemon=True).start()
    # Workers are forked, so the loader may simply close over the app.
    Server("framework:app", address=host, port=port, interface=Interfaces.WSGI, workers=workers) \
        .serve(target_loader=lambda *_: app, wrap_loader=False)


def _announce_when_listening(host: str, port: int, callback: Callable[[Exception | None], Any],
                             timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.2):
                callback(None)
                return
        except OSError:
            time.sleep(0.05)
    callback(TimeoutError(f"granian did not listen on {host}:{port} within {timeout} s"))
