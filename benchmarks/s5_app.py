"""S5's application, built from a route table of ``benchmarks.startup.route_table``: one
``POST`` route per entry with its body and response schemas (and the shared schema, when
the table has one), each answering its body. Shared by ``benchmarks.startup``'s child and
``benchmarks.preload``'s gunicorn app, so both measure the same application.

Nothing is imported at module level: the start-up child times importing ``framework``
itself, before it calls :func:`build`.
"""


def build(table):
    """The S5 app of ``table`` (``{"shared": schema or None, "routes": [...]}``), not readied."""
    from framework import Framework

    app = Framework()
    if table["shared"]:
        app.add_schema(table["shared"])

    def handler(request, reply):
        return request.body

    for route in table["routes"]:
        schema = {"body": route["body"],
                  "response": {int(k): v for k, v in route["response"].items()}}
        app.post(route["url"], {"schema": schema}, handler)
    return app
