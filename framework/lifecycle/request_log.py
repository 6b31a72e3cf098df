"""Request ids, the request's logger, and the optional request log (Fastify's two lines).

Everything goes through the standard library's ``logging`` (the ``framework`` logger
unless ``Framework(logger=...)`` names another); the library configures nothing unless
``Framework(logger=True)``.

Request ids are taken lazily: a request whose id nobody reads never makes one. The
default id is ``req-<prefix>-<counter>`` (hex): a random 48-bit prefix drawn per process (again in
a forked child) and a counter, so ids do not repeat across workers or machines (a
collision needs two processes drawing the same prefix). An id arriving in the configured
``request_id_header`` is kept only if it is short and made of safe characters; otherwise
a fresh one replaces it, so a log line cannot be forged through it.

With ``request_logging=True`` each route gets two extra steps at ``ready()``: one logs
"incoming request" before the route's hooks, one (an ``on_response`` hook) logs "request
completed" once the response has gone out. Their fields (``req_id``, ``method``,
``url``, ``remote_address``, ``status_code``, ``response_time`` in ms) are ``extra``
fields of the record, for JSON formatters. Headers are never logged. Without request
logging, no step is added: the request path is the same as before.
"""
from __future__ import annotations

import itertools
import logging
import os
import re
import time
from typing import TYPE_CHECKING, Any, Callable, MutableMapping, Protocol

if TYPE_CHECKING:
    _LoggerAdapter = logging.LoggerAdapter[logging.Logger]
else:  # not subscriptable at run time before Python 3.11
    _LoggerAdapter = logging.LoggerAdapter

class LoggedRequest(Protocol):
    """What request ids and the request log read of a request. This module sits below
    ``framework.lifecycle.request`` (whose ``Request`` is one), so it names only these."""

    @property
    def environ(self) -> dict[str, Any]: ...
    @property
    def id(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def ip(self) -> str | None: ...
    @property
    def log(self) -> "logging.LoggerAdapter[logging.Logger]": ...


class LoggedReply(Protocol):
    """What the request log reads of, and sets on, a reply (``framework.lifecycle.reply.Reply`` is one)."""

    @property
    def status_code(self) -> int: ...
    def header(self, name: str, value: Any) -> object: ...


#: An incoming request id is kept only when it matches this (at most 64 safe characters).
SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_match_safe_id = SAFE_REQUEST_ID.fullmatch

#: Fastify's level names, accepted as a route's ``log_level`` (as are ``logging`` levels).
LEVELS: dict[str, int] = {"trace": 5, "debug": logging.DEBUG, "info": logging.INFO, "warn": logging.WARNING,
                          "warning": logging.WARNING, "error": logging.ERROR, "fatal": logging.CRITICAL,
                          "critical": logging.CRITICAL, "silent": logging.CRITICAL + 10}


class _IdSource:
    """``req-<prefix>-<counter>``; the prefix is drawn again in a forked child (gunicorn ``--preload``)."""

    def __init__(self) -> None:
        self.reseed()

    def reseed(self) -> None:
        self.prefix = "req-" + os.urandom(6).hex() + "-"
        self.counter = itertools.count(1)

    def __call__(self) -> str:
        return self.prefix + format(next(self.counter), "x")


_ids = _IdSource()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_ids.reseed)


def describe(error: BaseException) -> str:
    """``error`` for a log line, on one line (its text as ``repr``), even when its ``__str__`` raises."""
    return f"{type(error).__name__}: {_text(error)!r}"


def _text(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:
        return f"<{type(error).__name__}: its text cannot be shown>"


def default_request_id() -> str:
    """A request id unique across processes and machines (see the module docstring)."""
    return _ids()


def parse_level(level: Any) -> int:
    """A route's ``log_level``: a Fastify name (``"warn"``, ``"silent"``...) or a ``logging`` level."""
    if isinstance(level, bool):
        raise ValueError(f"log_level must be a level name or number, got {level!r}")
    if isinstance(level, int):
        return level
    if isinstance(level, str) and level.lower() in LEVELS:
        return LEVELS[level.lower()]
    raise ValueError(f"unknown log_level {level!r}: use one of {', '.join(LEVELS)} or a logging level")


def request_id_reader(header: str | None, generate: Callable[[Any], Any] | None) -> Callable[[LoggedRequest], str]:
    """What ``request.id`` calls: the incoming id when ``header`` is set and it is safe,
    else ``generate(request)`` (``gen_request_id``) or the default id."""
    if generate is None:
        def fresh(request: LoggedRequest) -> str:
            return _ids()
    else:
        def fresh(request: LoggedRequest) -> str:
            return str(generate(request))
    if header is None:
        return fresh
    key = "HTTP_" + header.upper().replace("-", "_")

    def incoming_or_fresh(request: LoggedRequest) -> str:
        incoming: str | None = request.environ.get(key)
        if incoming and _match_safe_id(incoming):
            return incoming
        return fresh(request)
    return incoming_or_fresh


def check_request_id_header(header: Any) -> str | None:
    """The ``request_id_header`` option, lower-cased (``None`` for ``None`` or ``False``);
    ``ValueError`` unless it is a header name."""
    if header is None or header is False:
        return None
    if not isinstance(header, str) or not re.fullmatch(r"[A-Za-z0-9-]+", header):
        raise ValueError(f"request_id_header must be a header name such as 'x-request-id', got {header!r}")
    return header.lower()


class RequestLogger(_LoggerAdapter):
    """``request.log``: the route's logger with the request id as the record's ``req_id``
    (and its route's ``log_level``, below which nothing is logged)."""

    def __init__(self, logger: logging.Logger, req_id: str, level: int = 0) -> None:
        super().__init__(logger, {"req_id": req_id})
        self.level = level

    def isEnabledFor(self, level: int) -> bool:  # noqa: N802 (logging's name)
        return level >= self.level and self.logger.isEnabledFor(level)

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, MutableMapping[str, Any]]:
        extra = kwargs.get("extra")
        # ``extra`` is typed Optional in typeshed; __init__ always sets it.
        kwargs["extra"] = {**self.extra, **extra} if extra else self.extra  # type: ignore[dict-item]
        return msg, kwargs


class EchoRequestId:
    """The first step of every route when ``request_id_header`` is set: the reply carries the id."""

    __slots__ = ("header",)

    def __init__(self, header: str) -> None:
        self.header = header

    def __call__(self, request: LoggedRequest, reply: LoggedReply) -> None:
        reply.header(self.header, request.id)

    def __repr__(self) -> str:
        return f"<echo request id in {self.header}>"


class LogIncoming:
    """A step before the route's hooks: remember the start time, log "incoming request"."""

    __slots__ = ()

    def __call__(self, request: LoggedRequest, reply: LoggedReply) -> None:
        request.__dict__["_log_started"] = time.perf_counter()
        log = request.log
        if log.isEnabledFor(logging.INFO):
            log.info("incoming request", extra={"method": request.method, "url": request.url,
                                                "remote_address": request.ip})

    def __repr__(self) -> str:
        return "<log incoming request>"


def log_completed(request: LoggedRequest, reply: LoggedReply) -> None:
    """An ``on_response`` hook: log "request completed" with the status and the time taken."""
    log = request.log
    if log.isEnabledFor(logging.INFO):
        started = request.__dict__.get("_log_started")
        elapsed = (time.perf_counter() - started) * 1000 if started is not None else None
        log.info("request completed", extra={
            "method": request.method, "url": request.url, "status_code": reply.status_code,
            "response_time": round(elapsed, 3) if elapsed is not None else None})
