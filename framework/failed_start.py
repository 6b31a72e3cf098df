"""What a worker does when its application could not start on the first request.

A plugin that failed half-way may have left decorators, hooks and routes behind, and the
plugins queued after it never loaded: the application cannot be booted again in place
(Fastify's cannot either). So it stays closed: every request is answered ``503`` with
``Retry-After``, and the failure is logged once. Under a server that replaces a worker
that exits (gunicorn; granian with ``--respawn-failed-workers``) the worker then stops
itself (SIGTERM, the server's own graceful stop) after :data:`RETRY_SECONDS`: the fresh
worker imports the application anew and boots it on its first request, and so the
application recovers once the cause (a database not up yet) has gone.
"""
from __future__ import annotations

import logging
import math
import os
import signal
import threading
import time
from typing import Any, Callable, Iterable

#: How long a worker whose application could not start answers 503 before it exits: the
#: pace at which a server retries the start. Above 5.5 s, because granian stops altogether
#: when a worker it respawned exits sooner than that (its crash-loop guard).
RETRY_SECONDS = 6.0


def replaces_workers(environ: dict[str, Any]) -> bool:
    """Whether the server answering ``environ`` starts a new worker when one exits."""
    software = str(environ.get("SERVER_SOFTWARE") or "").lower()
    return software.startswith(("gunicorn/", "granian"))


class FailedStart:
    """A start that failed: logged (once) when created, then the answer to every request."""

    def __init__(self, error: BaseException, logger: logging.Logger, exits: bool,
                 body: Callable[[dict[str, Any]], bytes], content_type: str) -> None:
        #: ``body(environ)``: the 503's body, in the application's error style.
        self.body = body
        self.content_type = content_type
        self.exits_at = time.monotonic() + RETRY_SECONDS if exits else None
        if exits:
            logger.error("The application could not start: answering 503; this worker stops in %g s "
                         "so that the server starts a fresh one, which starts the application again",
                         RETRY_SECONDS, exc_info=error)
            stop = threading.Timer(RETRY_SECONDS, os.kill, (os.getpid(), signal.SIGTERM))
            stop.daemon = True
            stop.start()
        else:
            logger.error("The application could not start: answering 503 until this process is restarted "
                         "(its server does not replace a worker that exits)", exc_info=error)

    def answer(self, start_response: Callable[..., Any], environ: dict[str, Any]) -> Iterable[bytes]:
        """The fixed 503, ``Retry-After`` saying when a fresh worker should be there."""
        wait = RETRY_SECONDS if self.exits_at is None else self.exits_at - time.monotonic()
        body = self.body(environ)
        start_response("503 Service Unavailable", [("content-type", self.content_type),
                                                   ("content-length", str(len(body))),
                                                   ("retry-after", str(max(1, math.ceil(wait))))])
        return [body]
