"""framework: Fastify's plugin model for Python WSGI."""
from .undefined import UNDEFINED

__all__ = ["UNDEFINED"]
