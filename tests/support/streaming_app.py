"""The app the real-server streaming tests serve (``test_streaming_server.py``): streams
that never end on their own, each counting how often it was started and closed, and a
route reporting the worker's threads and those counts (the server is another process)."""
import threading
import time

from framework import Framework

app = Framework()
_lock = threading.Lock()
opened: dict[str, int] = {}
closed: dict[str, int] = {}
EVENT = "x" * 32768  # one shared str: a full queue of events costs the worker no memory
BLOCK = EVENT.encode()


def _count(counts, name):
    with _lock:
        counts[name] = counts.get(name, 0) + 1


def counted(name, chunks):
    """``chunks`` as a generator whose start and ``finally`` are counted under ``name``."""
    _count(opened, name)
    try:
        yield from chunks
    finally:
        _count(closed, name)


def endless(item, pause=0.0):
    while True:
        yield item
        if pause:
            time.sleep(pause)


class EndlessFile:
    """A binary file object that never ends (no ``fileno``: streamed block by block),
    counting its opening and its closing."""

    def __init__(self):
        _count(opened, "file")
        self.closed = False

    def read(self, size=-1):
        return BLOCK

    def close(self):
        if not self.closed:
            self.closed = True
            _count(closed, "file")


@app.get("/sse")
def sse(request, reply):
    """Big events as fast as they can be made, with the default heartbeat."""
    return reply.sse(counted("sse", endless({"data": EVENT})))


@app.get("/sse-slow")
def sse_slow(request, reply):
    """Small events every 20 ms, with the default heartbeat."""
    return reply.sse(counted("sse-slow", endless({"data": "tick"}, pause=0.02)))


@app.get("/sse-plain")
def sse_plain(request, reply):
    """Big events without a heartbeat (no thread of ours)."""
    return reply.sse(counted("sse-plain", endless({"data": EVENT})), heartbeat=None)


@app.get("/gen")
def gen(request, reply):
    return reply.send(counted("gen", endless(BLOCK)))


@app.get("/file")
def file(request, reply):
    return reply.send(EndlessFile())


@app.get("/stats")
def stats(request, reply):
    with _lock:
        return {"threads": threading.active_count(),
                "opened": dict(opened), "closed": dict(closed),
                "names": sorted({thread.name.split("-")[0] for thread in threading.enumerate()})}
