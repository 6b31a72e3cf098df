"""One request through one compiled route: the whole request path.

The steps before the handler (hook phases, body parsing, validation: those the route
has, in lifecycle order) run until one sends the reply; then the handler; then the reply
renders itself (error chain, serialization, ``on_send``, the answer). A route without
hooks or schemas simply has fewer steps: there is no second, faster copy of this path.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable

if TYPE_CHECKING:
    from .compiled_route import CompiledRoute


def run(route: "CompiledRoute", environ: dict[str, Any], start_response: Callable[..., Any],
        params: dict[str, str]) -> Iterable[bytes]:
    """Answer one request (a WSGI call) with ``route``; ``params`` are the path parameters."""
    request = route.request_class(environ, params, route)
    reply = route.reply_class(request, route)
    try:
        for step in route.steps:
            step(request, reply)
            if reply.sent:
                result: Any = reply
                break
        else:
            result = route.handler(request, reply)
    except Exception as error:
        result = error
    return reply.render(start_response, result)
