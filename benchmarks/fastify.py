"""Fastify 4.29 on Node serving S1-S4, for the HTTP runner.

The very schemas and rows of ``benchmarks/scenarios.py`` are written to a JSON
file that the Node script loads, so Fastify validates and serializes against
the same definitions as ours: ``params`` and ``querystring`` schemas on S2, the
draft-07 item schema as S3's body and its 201 response schema, the report
schema on S4 (fast-json-stringify drops the undeclared ``secret``).  Fastify
runs as its documentation shows it, with its default Ajv options and no
logger, in one process (Node runs JavaScript on one thread: one worker, as the
Python servers it is compared with).

Fastify is installed by npm into the cache directory of the S5 runner
(:func:`benchmarks.startup.prepare_fastify`), outside the repository.
"""

from __future__ import annotations

import json
import os
import shutil

from benchmarks import scenarios
from benchmarks.startup import FASTIFY_VERSION

NAME = "fastify"
SERVER = "node-1"
LABEL = f"{NAME} @ {SERVER}"

SERVER_SCRIPT = r"""
'use strict'
const fs = require('fs')
const data = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
const port = Number(process.argv[3])
const app = require('fastify')({ logger: false })
let nextId = 1

app.get('/hello', async () => ({ hello: 'world' }))

app.get('/users/:id', {
  schema: { params: data.userParams, querystring: data.userQuery }
}, async (request) => ({ id: request.params.id, fields: request.query.fields || [] }))

app.post('/items', {
  schema: { body: data.item, response: { 201: data.itemResponse } }
}, async (request, reply) => {
  reply.code(201)
  return { id: nextId++, ...request.body }
})

app.get('/report', {
  schema: { response: { 200: data.report } }
}, async () => data.rows)

app.listen({ port, host: '127.0.0.1' }).catch((err) => {
  console.error(err)
  process.exit(1)
})
"""


def node_missing() -> str | None:
    """Why Fastify cannot run here, or None."""
    if not shutil.which("node") or not shutil.which("npm"):
        return "node/npm not found (Fastify runs on Node.js)"
    return None


def prepare(workdir: str, log=print, install: bool = True) -> tuple[str | None, str | None]:
    """Write the server script into Fastify's cache directory and the data file into
    ``workdir``; return ``(script, None)``, or ``(None, reason)`` when Fastify cannot run
    here.  ``install=False`` never runs npm: Fastify must already be in the cache."""
    from benchmarks.startup import cache_dir, prepare_fastify

    reason = node_missing()
    if reason:
        return None, reason
    if not install and not os.path.isdir(os.path.join(cache_dir(), "node_modules", "fastify")):
        return None, (f"Fastify {FASTIFY_VERSION} is not in {cache_dir()} (python -m benchmarks "
                      "--runners http, or startup, installs it with npm)")
    fastify_dir = prepare_fastify(log=log)
    if fastify_dir is None:
        return None, f"npm could not install Fastify {FASTIFY_VERSION} (see the log above)"
    # require('fastify') resolves from the script's directory: it sits beside node_modules.
    script = os.path.join(fastify_dir, "http-server.js")
    with open(script, "w") as fh:
        fh.write(SERVER_SCRIPT)
    with open(os.path.join(workdir, "fastify-data.json"), "w") as fh:
        json.dump({
            "userParams": scenarios.USER_PARAMS_SCHEMA,
            "userQuery": scenarios.USER_QUERY_SCHEMA,
            "item": scenarios.ITEM_SCHEMA,
            "itemResponse": scenarios.ITEM_RESPONSE_SCHEMA,
            "report": scenarios.REPORT_SCHEMA,
            "rows": scenarios.ROWS,
        }, fh)
    return script, None


def argv(script: str, workdir: str, port: int) -> list[str]:
    return [shutil.which("node") or "node", script, os.path.join(workdir, "fastify-data.json"),
            str(port)]


def version(script: str) -> str:
    try:
        path = os.path.join(os.path.dirname(script), "node_modules", "fastify", "package.json")
        with open(path) as fh:
            return json.load(fh)["version"]
    except (OSError, ValueError, KeyError):
        return FASTIFY_VERSION
