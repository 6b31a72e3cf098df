"""The framework's benchmark suite: ``python -m benchmarks`` (see __main__.py).

Runners: ``inprocess`` (WSGI callables called directly), ``http`` (servers +
wrk), ``startup`` (S5, time to ready() and memory) and the micro-benchmarks in
``validation.py`` and ``serialization.py``.  Contenders live in
``benchmarks/contenders/``, scenarios in ``benchmarks/scenarios.py``.
"""
