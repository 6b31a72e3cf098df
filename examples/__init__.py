"""Example applications: ``examples.app`` (see its docstring) and ``examples.app_wrapped``."""
