"""The command line: ``python -m framework run|routes|plugins|openapi|explain|typegen|contract``.

``run module:app`` serves an application on gunicorn (the default) or granian::

    python -m framework run examples.app:app --workers 4 --host 127.0.0.1 --port 3000
    python -m framework run examples.app:app --server granian --workers 4
    python -m framework run examples.app:app --reload          # development: restart on changes

The process becomes the server (``exec``), so a process manager's SIGTERM reaches it.
Each worker imports ``framework.wsgi``, which imports the application named in
``FRAMEWORK_APP`` and readies it as the worker boots (no request pays route compilation);
the worker that readied it runs the ``on_close`` hooks when it stops. ``--reload`` is
gunicorn's ``--reload`` or granian's (``pip install 'granian[reload]'``).

``routes module:app`` and ``plugins module:app`` print ``print_routes()`` and
``print_plugins()`` after readying the application (then close it).

``openapi module:app`` prints the application's OpenAPI document (JSON), as
``app.openapi()`` returns it: the application must register ``framework.plugins.openapi``.
``--indent N`` (default 2; 0 for one line), ``--output FILE``, ``--yaml`` (YAML instead
of JSON, through PyYAML: ``pip install 'framework[openapi]'``).

``explain module:app METHOD URL`` prints ``app.explain(METHOD, URL)``: the route, its
hooks in run order with the plugin that added each, validators, serializers, error
handlers and the not-found handler. ``-H "Name: value"`` (repeatable) adds a request
header; ``--json`` prints the dict as JSON instead.

``typegen SOURCE...`` prints a module of ``TypedDict`` classes made from JSON Schemas: files,
directories of ``*.json`` files, or the shared schemas of ``module:app`` (see
``framework.typegen``). ``--output FILE``.

``contract lock module:app`` writes the application's contract (routes, inputs, responses
and auth, ``$ref`` s resolved; ``--output FILE``, default ``contract.json``, ``-`` for
stdout); ``contract check module:app`` compares the application with it (``--against
FILE``, default ``contract.json``), prints every change classified, and exits 1 on a
breaking one, 2 when the file is missing or not a contract (see
``framework.devtools.contract``).

``module:app`` names a module and an attribute (``app`` when omitted); an attribute that
is not an application but a callable (a factory) is called without arguments.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from typing import Any, Sequence

SERVERS = ("gunicorn", "granian")


def load_app(spec: str) -> Any:
    """The application ``module:attribute`` names (the working directory is importable): a
    :class:`~framework.Framework`, or any object with a ``ready()`` method (checked here)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name:
        raise SystemExit(f"error: {spec!r} does not name a module (module:app)")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    module = importlib.import_module(module_name)
    try:
        app = getattr(module, attribute or "app")
    except AttributeError:
        raise SystemExit(f"error: module {module_name!r} has no attribute {attribute or 'app'!r}") from None
    if not hasattr(app, "ready") and callable(app):
        app = app()
    if not hasattr(app, "ready"):
        raise SystemExit(f"error: {spec} is not a framework application: {app!r}")
    return app


def server_command(args: argparse.Namespace) -> list[str]:
    """The command ``run`` executes; the app is ``framework.wsgi:app`` (see ``FRAMEWORK_APP``)."""
    if args.server == "gunicorn":
        command = [sys.executable, "-m", "gunicorn", "--bind", f"{args.host}:{args.port}",
                   "--workers", str(args.workers)]
        if args.reload:
            command.append("--reload")
    else:
        command = [sys.executable, "-m", "granian", "--interface", "wsgi", "--host", args.host,
                   "--port", str(args.port), "--workers", str(args.workers)]
        if args.reload:
            command.append("--reload")
    return [*command, "framework.wsgi:app"]


def run(args: argparse.Namespace) -> int:
    """``run``: become the server (``exec``) for ``framework.wsgi:app`` with ``FRAMEWORK_APP`` set."""
    command = server_command(args)
    environ = dict(os.environ, FRAMEWORK_APP=args.app)
    path = [os.getcwd(), *filter(None, environ.get("PYTHONPATH", "").split(os.pathsep))]
    environ["PYTHONPATH"] = os.pathsep.join(path)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, command, environ)
    return 0  # not reached


def _print_tree(args: argparse.Namespace, method: str) -> int:
    app = load_app(args.app)
    app.ready()
    try:
        print(getattr(app, method)(), end="")
    finally:
        app.close()
    return 0


def _openapi(args: argparse.Namespace) -> int:
    app = load_app(args.app)
    app.ready()
    if not app.has_decorator("openapi"):
        print(f"error: {args.app} does not register framework.plugins.openapi on its root "
              "(app.register(openapi, ...))", file=sys.stderr)
        return 1
    if args.yaml:
        try:
            import yaml  # PyYAML: pip install 'framework[openapi]'
        except ImportError:
            print("error: --yaml needs PyYAML: pip install 'framework[openapi]'", file=sys.stderr)
            return 1
        # types-PyYAML leaves one parameter's type open: pyright calls the function partially unknown.
        text = yaml.safe_dump(app.openapi(), sort_keys=False,  # pyright: ignore[reportUnknownMemberType]
                              allow_unicode=True)
    else:
        text = json.dumps(app.openapi(), indent=args.indent or None, ensure_ascii=False) + "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8") as output:
            output.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _explain(args: argparse.Namespace) -> int:
    headers: dict[str, str] = {}
    for header in args.header or ():
        name, colon, value = header.partition(":")
        if not colon:
            print(f"error: a header is 'Name: value', got {header!r}", file=sys.stderr)
            return 2
        headers[name.strip()] = value.strip()
    app = load_app(args.app)
    try:
        explanation = app.explain(args.method, args.url, headers)
        if args.json:
            sys.stdout.write(json.dumps(explanation, indent=2, default=repr, ensure_ascii=False) + "\n")
        else:
            sys.stdout.write(str(explanation))
    finally:
        app.close()
    return 0


def _typegen(args: argparse.Namespace) -> int:
    from ..devtools.typegen import command
    return command(args.sources, args.output, load_app)


def _contract(args: argparse.Namespace) -> int:
    from ..devtools.contract import command
    return command(args, load_app)


def add_commands(subcommands: Any) -> None:
    """Add ``run``, ``routes``, ``plugins``, ``openapi``, ``explain``, ``typegen`` and
    ``contract`` to an ``argparse`` sub-parser set."""
    run_parser = subcommands.add_parser("run", help="serve an application on gunicorn or granian")
    run_parser.add_argument("app", help="module:app")
    run_parser.add_argument("--server", choices=SERVERS, default="gunicorn")
    run_parser.add_argument("--workers", "-w", type=int, default=1)
    run_parser.add_argument("--host", default="127.0.0.1")
    run_parser.add_argument("--port", "-p", type=int, default=3000)
    run_parser.add_argument("--reload", action="store_true", help="restart when files change (development)")
    run_parser.set_defaults(command_function=run)
    for name, method, text in (("routes", "print_routes", "print the route tree"),
                               ("plugins", "print_plugins", "print the plugin tree with load times")):
        parser = subcommands.add_parser(name, help=text)
        parser.add_argument("app", help="module:app")

        def print_tree(args: argparse.Namespace, method: str = method) -> int:
            return _print_tree(args, method)
        parser.set_defaults(command_function=print_tree)
    openapi_parser = subcommands.add_parser("openapi", help="print the application's OpenAPI 3.1 document")
    openapi_parser.add_argument("app", help="module:app")
    openapi_parser.add_argument("--indent", type=int, default=2, help="JSON indentation (0: one line)")
    openapi_parser.add_argument("--output", "-o", help="write to this file instead of stdout")
    openapi_parser.add_argument("--yaml", action="store_true", help="YAML instead of JSON (PyYAML)")
    openapi_parser.set_defaults(command_function=_openapi)
    explain_parser = subcommands.add_parser("explain", help="explain how the application answers one request")
    explain_parser.add_argument("app", help="module:app")
    explain_parser.add_argument("method", help="GET, POST...")
    explain_parser.add_argument("url", help="the path, with a query string if any")
    explain_parser.add_argument("--header", "-H", action="append", help="a request header, 'Name: value'")
    explain_parser.add_argument("--json", action="store_true", help="print the explanation as JSON")
    explain_parser.set_defaults(command_function=_explain)
    typegen_parser = subcommands.add_parser("typegen", help="print TypedDicts made from JSON Schemas")
    typegen_parser.add_argument("sources", nargs="+", metavar="SOURCE",
                                help="a JSON file, a directory of *.json files, or module:app (its shared schemas)")
    typegen_parser.add_argument("--output", "-o", help="write to this file instead of stdout")
    typegen_parser.set_defaults(command_function=_typegen)
    contract_parser = subcommands.add_parser("contract", help="lock the API's contract, or check it for breaking changes")
    contract_actions = contract_parser.add_subparsers(dest="action", required=True)
    lock_parser = contract_actions.add_parser("lock", help="write the application's contract file")
    lock_parser.add_argument("app", help="module:app")
    lock_parser.add_argument("--output", "-o", default="contract.json", help="the file to write ('-': stdout)")
    check_parser = contract_actions.add_parser("check", help="list the changes since the contract file; "
                                                             "exit 1 on a breaking one")
    check_parser.add_argument("app", help="module:app")
    check_parser.add_argument("--against", default="contract.json", help="the contract file to compare with")
    contract_parser.set_defaults(command_function=_contract)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m framework``: parse ``argv`` and run the subcommand; the exit status."""
    parser = argparse.ArgumentParser(prog="python -m framework")
    add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    if getattr(args, "workers", 1) < 1:
        parser.error("--workers must be at least 1")
    return int(args.command_function(args) or 0)
