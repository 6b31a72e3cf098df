"""``python -m framework <command>``: command-line tools for an application.

Commands (each an ``argparse`` subcommand; add one with a ``_add_<name>`` function and an
entry in :data:`COMMANDS`):

``openapi module:app``
    Print the application's OpenAPI document (JSON), as ``app.openapi()`` returns it: the
    application must register ``plugins.openapi``. ``--indent N`` (default 2; 0 for one
    line), ``--output FILE``.

``module:app`` names a ``Framework`` instance (or a function returning one, called without
arguments) the way ``gunicorn`` does; the current directory is importable.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from typing import Any, Callable, Sequence


def load_app(target: str) -> Any:
    """``module:attribute`` (``attribute`` defaults to ``app``) imported and, when it is a
    factory function, called."""
    module_name, _, attribute = target.partition(":")
    if not module_name:
        raise SystemExit(f"error: {target!r} is not module:app")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    module = importlib.import_module(module_name)
    try:
        app = getattr(module, attribute or "app")
    except AttributeError:
        raise SystemExit(f"error: module {module_name!r} has no attribute {attribute or 'app'!r}") from None
    if callable(app) and not hasattr(app, "ready"):
        app = app()
    if not hasattr(app, "ready"):
        raise SystemExit(f"error: {target} is not a framework application")
    return app


def _openapi(arguments: argparse.Namespace) -> int:
    app = load_app(arguments.app)
    app.ready()
    if not app.has_decorator("openapi"):
        print(f"error: {arguments.app} does not register plugins.openapi on its root "
              "(app.register(openapi, ...))", file=sys.stderr)
        return 1
    text = json.dumps(app.openapi(), indent=arguments.indent or None, ensure_ascii=False) + "\n"
    if arguments.output:
        with open(arguments.output, "w", encoding="utf-8") as output:
            output.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _add_openapi(commands: Any) -> None:
    command = commands.add_parser("openapi", help="print the application's OpenAPI 3.1 document")
    command.add_argument("app", help="the application, as module:app")
    command.add_argument("--indent", type=int, default=2, help="JSON indentation (0: one line)")
    command.add_argument("--output", "-o", help="write to this file instead of stdout")
    command.set_defaults(run=_openapi)


#: Each adds one subcommand to the parser.
COMMANDS: tuple[Callable[[Any], None], ...] = (_add_openapi,)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m framework", description="framework's command-line tools")
    commands = parser.add_subparsers(dest="command", metavar="command", required=True)
    for add in COMMANDS:
        add(commands)
    arguments = parser.parse_args(argv)
    return int(arguments.run(arguments))


if __name__ == "__main__":
    sys.exit(main())
