"""An application with framework.plugins.compress and framework.plugins.etag on its root,
served by gunicorn in tests/plugins/test_plugin_compress_server.py: a 3 KB JSON document
with an ETag, a PUT guarded by request.precondition, a streamed text answer, an upload
route (the default 1 MiB body_limit) and the worker's pid (to read its peak RSS)."""
import os

from framework import Framework
from framework.plugins.compress import compress
from framework.plugins.etag import etag

DOC = {"items": [{"id": i, "name": f"item number {i}"} for i in range(100)]}
VERSION = {"tag": '"v1"'}

app = Framework()
app.register(compress)
app.register(etag)
app.add_content_type_parser("application/octet-stream", lambda request, body: body)


@app.get("/doc")
def document(request, reply):
    return DOC


@app.put("/doc", config={"precondition": "required"})
def replace(request, reply):
    request.precondition(VERSION["tag"])
    return {"replaced": True}


@app.get("/lines")
def lines(request, reply):
    reply.type("text/plain; charset=utf-8")
    return (f"line {i}\n" for i in range(2000))


@app.post("/upload")
def upload(request, reply):
    return {"size": len(request.body)}


@app.get("/pid")
def pid(request, reply):
    return {"pid": os.getpid()}


app.ready()
