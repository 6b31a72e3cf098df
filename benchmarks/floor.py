"""S2's floor: what the framework's API costs at the least, beside ours and the twin.

``python -m benchmarks.floor [--rounds N]`` times, in one process and interleaved, three
WSGI callables answering S2 (``GET /users/42?fields=a&fields=b``):

* ours (``benchmarks/contenders/ours.py``);
* the hand-written twin (``benchmarks/contenders/handwritten.py``);
* the floor: the twin's routing, then what the API asks of any implementation, written
  out by hand with no call that could be inlined - a request object holding the environ,
  ``params`` and ``query``, a reply object with a status and a header dict, the path
  parameter coerced to an integer as Ajv coerces it, the whole query string parsed into
  ``request.query`` (a handler may read any key) and ``fields`` coerced to an array, the
  handler of ``ours.py`` called with both, and its dict encoded as the JSON answer.

The floor over the twin is the price of the API itself (a request and a reply, a query
dict with every key); ours over the floor is what the framework could still save. Ratios
are medians of per-round ratios, as in the in-process runner.
"""
from __future__ import annotations

import argparse
import statistics
from typing import Any, Callable

from benchmarks import contenders, inprocess
from benchmarks import scenarios as sc


def create_floor() -> Callable[..., Any]:
    from framework.http.media_types import parse_query_string
    from framework.http.encoding import default as encoding_default
    from orjson import dumps

    class Request:
        pass

    class Reply:
        status_code = 200
        sent = False

    new = object.__new__
    json = ("content-type", "application/json; charset=utf-8")

    def handler(request: Any, reply: Any) -> Any:  # ours.py's user()
        return {"id": request.params["id"], "fields": request.query.get("fields", [])}

    def floor(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        path = environ.get("PATH_INFO") or "/"
        raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
        if (raw and "%2" in raw) or environ["REQUEST_METHOD"] != "GET" or not path.startswith("/users/"):
            raise NotImplementedError("the floor answers S2 only")
        params = {"id": path[7:]}
        request = new(Request)
        request.environ = environ
        request.params = params
        reply = new(Reply)
        reply.request = request
        reply.headers = {}
        value = params["id"]
        if not (len(value) <= 15 and value.isdigit() and value.isascii()):
            raise NotImplementedError("the floor answers valid requests only")
        params["id"] = int(value)
        query = parse_query_string(environ.get("QUERY_STRING", ""))
        fields = query.get("fields")
        if fields is not None and type(fields) is not list:
            query["fields"] = [fields]
        request.query = query
        result = handler(request, reply)
        if result.__class__ is dict and not reply.sent and reply.status_code == 200 and not reply.headers:
            body = dumps(result, default=encoding_default)
            start_response("200 OK", [json, ("content-length", str(len(body)))])
            return [body]
        raise NotImplementedError("the floor answers a plain JSON dict only")

    return floor


def measure(rounds: int = 15, calls: int = 20_000) -> dict[str, Any]:
    """Per-call microseconds of each callable (median over rounds) and the medians of the
    per-round ratios to the twin."""
    apps = {"ours": contenders.load("ours").create_app(), "floor": create_floor(),
            "twin": contenders.load("handwritten").create_app()}
    for name, app in apps.items():
        reason = inprocess.check(app, sc.S2)
        if reason is not None:
            raise AssertionError(f"{name} answers S2 wrong: {reason}")
    environ, body = inprocess.make_environ(sc.S2)
    per_round: dict[str, list[float]] = {name: [] for name in apps}
    for _ in range(rounds):
        for name, app in apps.items():
            per_round[name].append(inprocess._timer(app, environ, body, calls) / calls * 1e6)
    return {
        "us": {name: statistics.median(times) for name, times in per_round.items()},
        "twin_over": {name: statistics.median(t / o for t, o in zip(per_round["twin"], times))
                      for name, times in per_round.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()
    result = measure(args.rounds, args.calls)
    print(f"S2 {sc.S2.title}: {args.rounds} rounds of {args.calls:,} calls")
    for name in ("twin", "floor", "ours"):
        print(f"  {name:6s} {result['us'][name]:6.3f} us/call   twin/{name} {result['twin_over'][name]:.2f}x")


if __name__ == "__main__":
    main()
