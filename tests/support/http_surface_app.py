"""The application the real-server tests of tests/serving/test_http_surface_server.py serve."""
import hashlib
import os
import tempfile
import time

from framework import Framework
from framework.plugins.cors import cors
from framework.plugins.multipart import multipart
from framework.plugins.static import static

app = Framework()
answered = []

ROOT = tempfile.mkdtemp(prefix="http-surface-")
with open(os.path.join(ROOT, "digits.txt"), "wb") as digits:
    digits.write(b"0123456789" * 100)


def peak_rss_kib():
    with open("/proc/self/status") as status:
        return {line.split(":")[0]: int(line.split()[1]) for line in status if line.startswith(("VmRSS", "VmHWM"))}


def api(instance, opts):
    instance.register(cors, origin=["https://app.example"], max_age=60)
    instance.get("/items", lambda request, reply: [1, 2, 3])
    instance.put("/items/:id", lambda request, reply: {"id": request.params["id"]})


app.register(api, prefix="/api")
app.register(static, root=ROOT, prefix="/files")
app.register(multipart, file_size=64 * 1024 * 1024, files=1, spool_size=1024 * 1024)


@app.get("/rss")
def rss(request, reply):
    return peak_rss_kib()


@app.post("/upload")
def upload(request, reply):
    stored = request.files["file"]
    digest = hashlib.sha256()
    size = 0
    while True:
        block = stored.stream.read(1 << 20)
        if not block:
            break
        digest.update(block)
        size += len(block)
    return {"size": size, "sha256": digest.hexdigest(), "name": stored.filename,
            "fields": request.body, **peak_rss_kib()}


def generator(request, reply):
    def chunks():
        for n in range(5):
            time.sleep(0.05)
            yield f"chunk {n}\n"
    return reply.type("text/plain; charset=utf-8").send(chunks())


app.get("/gen", generator, on_response=lambda request, reply: answered.append(request.url))


@app.get("/broken")
def broken(request, reply):
    def chunks():
        yield b"x" * 1000
        raise RuntimeError("mid-stream failure")
    return chunks()


@app.get("/typed-broken", schema={"response": {200: {"content": {"application/jsonl": {"itemSchema": {
    "type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}}}}}})
def typed_broken(request, reply):
    yield {"id": 1, "secret": "never sent"}
    yield {"secret": "no id"}  # refused by the item schema after the status went out


@app.get("/answered")
def get_answered(request, reply):
    return {"answered": answered}


@app.get("/events")
def events(request, reply):
    def produce():
        for n in range(3):
            yield {"event": "tick", "id": n, "data": {"n": n}}
            time.sleep(0.5)
    return reply.sse(produce(), heartbeat=0.2)
