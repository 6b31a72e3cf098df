"""The app the double-submit CSRF server tests serve (tests/plugins/test_plugin_session_server.py):
``framework.plugins.csrf`` with ``store="cookie"`` (the token in a cookie signed by
``framework.plugins.cookie_signing``), no session. Every answer names the worker process
(``pid``), so a test can see that a token one worker handed out was accepted by another."""
import os

from framework import Framework
from framework.plugins.cookie_signing import cookie_signing
from framework.plugins.csrf import csrf

app = Framework()
app.register(cookie_signing, secret="csrf-cookie-server-test-secret")
app.register(csrf, store="cookie")


@app.get("/form")
def form(request, reply):
    return {"pid": os.getpid(), "token": reply.generate_csrf()}


@app.post("/transfer")
def transfer(request, reply):
    return {"pid": os.getpid(), "ok": True}
