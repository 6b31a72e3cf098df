"""One request, start to answer: the compiled route, the request and the reply, the hooks,
body parsing, input validation, response serialization, the error chain, streaming and
files, and the request log. :func:`framework.lifecycle.run.run` is the whole path."""
