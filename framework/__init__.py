"""framework: Fastify's plugin model for Python WSGI.

Encapsulated plugin contexts, JSON Schema (draft 7) validation compiled at start-up,
and response serialization through compiled per-status response schemas.
"""
from .app import Framework
from .context import Context
from .errors import FrameworkError, ProblemError, ValidationError, create_error
from .http.problem import Problem
from .lifecycle.hooks import run_coroutine
from .loader import plugin
from .lifecycle.reply import Reply
from .lifecycle.request import Request
from .undefined import UNDEFINED

__all__ = ["Framework", "Context", "FrameworkError", "ValidationError", "ProblemError", "Problem", "create_error",
           "plugin", "Reply", "Request", "UNDEFINED", "run_coroutine"]
