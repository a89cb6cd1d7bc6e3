"""Choosing an executor by name (``--executor`` itself is a shared option of the command line,
``conflicteval.cli.options``)."""

from __future__ import annotations

from typing import Any

EXECUTORS = ("local", "ray")


def resolve_executor(executor: Any = None) -> Any:
    """The executor object for ``None``, ``"local"``, ``"ray"`` or an executor object.

    Raises:
        ValueError: An unknown name, or an object without ``name`` and ``run``.
        MissingDependency: ``"ray"`` without the ``ray`` extra installed.
    """
    if executor is None or executor == "local":
        from conflicteval.runs.local import LocalExecutor

        return LocalExecutor()
    if executor == "ray":
        from conflicteval.runs.ray import RayExecutor

        return RayExecutor()
    if isinstance(executor, str):
        raise ValueError(f"unknown executor {executor!r} (known: {', '.join(EXECUTORS)})")
    if not (isinstance(getattr(executor, "name", None), str) and callable(executor.run)):
        raise ValueError(
            "an executor needs a 'name' and an async 'run(fn, todo, *, concurrency, emit)'"
        )
    return executor
