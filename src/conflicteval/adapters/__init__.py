"""Adapters to evaluation harnesses: the top floor of the package.

* :mod:`conflicteval.adapters.inspect`: Inspect AI tasks, scorers and metrics (extra
  ``inspect``), registered through the ``inspect_ai`` entry-point group;
* :mod:`conflicteval.adapters.ragas`: ConflictScore as ragas metrics (extra ``ragas``);
* :mod:`conflicteval.adapters.deepeval`: ConflictScore as deepeval metrics (extra
  ``deepeval``).

Each adapter only translates between a harness's types and the library's; nothing else in
the package imports them. Importing this package imports no harness.
"""
