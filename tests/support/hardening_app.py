"""The app the real-server hardening tests serve (``test_hardening_server.py``)."""
from werkzeug.wrappers import Response

from framework import Framework

app = Framework(body_limit=1000)
answered = []


@app.get("/hello")
def hello(request, reply):
    return {"hello": "world"}


@app.get("/forge-value")
def forge_value(request, reply):
    return reply.header("x-a", "a\r\nx-forged: 1").send({"never": "sent"})


@app.get("/forge-name")
def forge_name(request, reply):
    return reply.header("x-forged: 1\r\nx-a", "1").send({"never": "sent"})


@app.get("/forge-redirect")
def forge_redirect(request, reply):
    return reply.redirect("/日本\r\nx-forged: 1")


@app.get("/cookies")
def cookies(request, reply):
    reply.set_cookie("a", "1", httponly=True)
    reply.header("set-cookie", "b=2")
    reply.clear_cookie("c")
    reply.header("x-many", ["1", "2"])
    return {"cookies": request.cookies}


@app.get("/users/:id")
def user(request, reply):
    return {"id": request.params["id"]}


@app.post("/echo")
def echo(request, reply):
    return {"body": request.body}


app.add_hook("on_response", lambda request, reply: answered.append((request.url, reply.status_code)))


@app.get("/werkzeug")
def werkzeug_response(request, reply):
    return Response("from werkzeug", status=203, content_type="text/plain")


@app.get("/answered")
def answered_so_far(request, reply):
    return {"answered": [list(item) for item in answered if item[0] != "/answered"]}
