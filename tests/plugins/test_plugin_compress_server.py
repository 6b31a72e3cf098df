"""framework.plugins.compress and etag on gunicorn: curl --compressed and requests decode
what the server encodes (br, zstd, gzip; a stream too), conditional GET and PUT over HTTP,
and a gzip body inflating to 1 GB refused with 413 while the worker's peak RSS stays put."""
from __future__ import annotations

import http.client
import json
import shutil
import socket
import subprocess
import sys
import threading
import zlib

import pytest

from servers import free_port, start, stop

requests = pytest.importorskip("requests")
pytest.importorskip("brotli")
pytest.importorskip("zstandard")

EXPECTED = {"items": [{"id": i, "name": f"item number {i}"} for i in range(100)]}
LINES = "".join(f"line {i}\n" for i in range(2000))


@pytest.fixture(scope="module")
def port():
    port = free_port()
    process = start([sys.executable, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "-w", "1", "compress_app:app"],
                    port)
    try:
        yield port
    finally:
        stop(process)


def curl(*arguments):
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed: the curl checks are skipped (requests ones still run)")
    done = subprocess.run(["curl", "-sS", "--max-time", "20", *arguments], capture_output=True, timeout=30, check=True)
    head, _, body = done.stdout.partition(b"\r\n\r\n")
    return head.decode("latin-1").lower(), body


@pytest.mark.parametrize("coding", ["br", "zstd", "gzip"])
def test_curl_compressed_decodes_each_coding(port, coding):
    head, body = curl("--compressed", "-H", f"Accept-Encoding: {coding}", "-D", "-", "-o", "-",
                      f"http://127.0.0.1:{port}/doc")
    assert f"content-encoding: {coding}" in head and "vary: accept-encoding" in head
    assert json.loads(body) == EXPECTED


def test_curl_compressed_stream(port):
    head, body = curl("--compressed", "-D", "-", "-o", "-", f"http://127.0.0.1:{port}/lines")
    assert "content-encoding: br" in head and "transfer-encoding: chunked" in head
    assert body.decode() == LINES


def test_curl_conditional_get(port):
    head, _ = curl("--compressed", "-D", "-", "-o", "/dev/null", f"http://127.0.0.1:{port}/doc")
    tag = next(line.split(": ", 1)[1] for line in head.splitlines() if line.startswith("etag: "))
    head, body = curl("--compressed", "-D", "-", "-H", f"If-None-Match: {tag}", f"http://127.0.0.1:{port}/doc")
    assert head.startswith("http/1.1 304") and body == b""


@pytest.mark.parametrize("coding", ["br", "gzip"])
def test_requests_decodes_each_coding(port, coding):
    answer = requests.get(f"http://127.0.0.1:{port}/doc", headers={"Accept-Encoding": coding}, timeout=20)
    assert answer.headers["content-encoding"] == coding and answer.json() == EXPECTED


def test_requests_zstd_decoded_by_zstandard(port):
    """urllib3 decodes zstd with backports.zstd (not a dependency here): the raw body is decoded by zstandard."""
    import zstandard
    answer = requests.get(f"http://127.0.0.1:{port}/doc", headers={"Accept-Encoding": "zstd"}, timeout=20,
                          stream=True)
    assert answer.headers["content-encoding"] == "zstd"
    raw = answer.raw.read(decode_content=False)
    assert json.loads(zstandard.ZstdDecompressor().decompressobj().decompress(raw)) == EXPECTED


def test_requests_conditional_get_and_put(port):
    url = f"http://127.0.0.1:{port}/doc"
    first = requests.get(url, timeout=20)
    again = requests.get(url, headers={"If-None-Match": first.headers["etag"]}, timeout=20)
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == first.headers["etag"]
    assert requests.put(url, json={}, timeout=20).status_code == 428
    stale = requests.put(url, json={}, headers={"If-Match": '"v0"'}, timeout=20)
    assert stale.status_code == 412 and stale.json()["code"] == "FST_ETAG_PRECONDITION_FAILED"
    assert requests.put(url, json={}, headers={"If-Match": '"v1"'}, timeout=20).json() == {"replaced": True}


def test_requests_gzip_upload(port):
    body = zlib.compress(b"a" * 500_000)
    answer = requests.post(f"http://127.0.0.1:{port}/upload", data=body, timeout=20, headers={
        "Content-Type": "application/octet-stream", "Content-Encoding": "deflate"})
    assert answer.json() == {"size": 500_000}


def peak_rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError("no VmHWM")


def gigabyte_of_zeros_gzipped():
    encoder = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\0" * (1 << 20)
    parts = [encoder.compress(block) for _ in range(1024)]
    return b"".join(parts) + encoder.flush()


def post_while_reading(port, path, body, headers):
    """POST ``body`` from a thread while the answer is read: the server answers (and closes)
    after reading a little of it, so the client's sending may fail; its answer is what counts."""
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {len(body)}\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers.items()) + "\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        def send():
            try:
                sock.sendall(head.encode() + body)
            except OSError:
                pass  # the server closed after answering

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        response = http.client.HTTPResponse(sock)
        response.begin()
        answer = response.status, json.loads(response.read())
        sender.join(timeout=30)
        return answer


def test_a_gzip_bomb_is_a_413_without_inflating_it(port):
    bomb = gigabyte_of_zeros_gzipped()
    assert len(bomb) < 1_048_576  # under the body_limit encoded: only its inflation can exceed it
    pid = requests.get(f"http://127.0.0.1:{port}/pid", timeout=20).json()["pid"]
    before = peak_rss_kib(pid)
    status, answer = post_while_reading(port, "/upload", bomb, {
        "Content-Type": "application/octet-stream", "Content-Encoding": "gzip"})
    assert status == 413 and answer["code"] == "FST_ERR_CTP_BODY_TOO_LARGE"
    grown = peak_rss_kib(pid) - before
    assert grown < 32 * 1024, f"the worker's peak RSS grew by {grown} KiB"
    # and the worker still answers
    assert requests.get(f"http://127.0.0.1:{port}/pid", timeout=20).json()["pid"] == pid
