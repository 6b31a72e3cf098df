"""A server-sent stream with a heartbeat releases its events and its thread when the
server closes it: from the thread that iterates it or from another one, with its queue
full or its events waiting (the real-server version: test_streaming_server.py)."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from werkzeug.test import EnvironBuilder

from framework import Framework


def serve(events):
    """The body a server gets for ``reply.sse(events)`` (default heartbeat), its chunks after
    the first two (the head and the first event), and the threads started meanwhile."""
    app = Framework()
    app.get("/events", lambda request, reply: reply.sse(events))
    app.ready()
    threads = set(threading.enumerate())
    body = app(EnvironBuilder(path="/events").get_environ(), lambda status, headers, exc_info=None: None)
    chunks = iter(body)
    first_two = [next(chunks), next(chunks)]
    return body, chunks, first_two, set(threading.enumerate()) - threads


def wait_until(condition, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within the deadline"
        time.sleep(0.01)


def test_client_leaving_with_the_queue_full_closes_the_events_and_ends_the_thread():
    finished = threading.Event()

    def events():
        try:
            while True:
                yield {"data": "x" * 1000}
        finally:
            finished.set()

    body, _, (head, event), started = serve(events())
    assert head == b": stream open\n\n" and event.startswith(b"data: xxx")
    assert [thread.name for thread in started] == ["sse-events"]
    body.close()  # what the server does when a write fails: the producer may be on a full queue
    assert finished.wait(5), "the events were never closed"
    wait_until(lambda: not any(thread.is_alive() for thread in started))


def test_closing_from_another_thread_while_waiting_for_an_event():
    release, finished = threading.Event(), threading.Event()

    def events():
        try:
            yield "first"
            release.wait(10)
            yield "never sent"
        finally:
            finished.set()

    body, chunks, first_two, started = serve(events())
    assert first_two == [b": stream open\n\n", b"data: first\n\n"]
    pool = ThreadPoolExecutor(1)
    try:
        waiting = pool.submit(next, chunks, None)  # the server's thread, waiting for an event
        body.close()  # from another thread, as a server may when the client leaves
        assert waiting.result(timeout=5) is None  # the stream ends without waiting a heartbeat
        release.set()  # the events' next step: they see the stream closed
        assert finished.wait(5), "the events were never closed"
        wait_until(lambda: not any(thread.is_alive() for thread in started))
    finally:
        release.set()
        pool.shutdown(wait=False)
