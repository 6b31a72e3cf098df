"""The app the real-HTTP tests serve (``gunicorn tests_app:app``, ``granian ... tests_app:app``)."""
import os
import sys

from framework import Framework

app = Framework(body_limit=1_048_576)
app.get("/hello", lambda request, reply: {"hello": "world"})
app.post("/echo", lambda request, reply: {"size": len(request.body) if isinstance(request.body, str) else None,
                                          "body": request.body if not isinstance(request.body, str) else None})
app.get("/boom", lambda request, reply: 1 / 0)

if __name__ == "__main__":  # python tests_app.py PORT SERVER: serve through listen()
    def announce(error):
        print("listening" if error is None else f"failed: {error}", flush=True)
    app.listen(port=int(sys.argv[1]), host="127.0.0.1", callback=announce, server=sys.argv[2])
    os._exit(0)
