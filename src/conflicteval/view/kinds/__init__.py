"""One module per kind of run directory; each defines ``KIND`` (a ``RunKind``).

A new kind is one new module here (see :mod:`conflicteval.view.registry`).
"""
