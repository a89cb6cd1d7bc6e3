"""Choosing an executor: by name in Python, and ``--executor`` on the command line."""

from __future__ import annotations

import argparse
from typing import Any

EXECUTORS = ("local", "ray")


def resolve_executor(executor: Any = None) -> Any:
    """The executor object for ``None``, ``"local"``, ``"ray"`` or an executor object.

    Raises:
        ValueError: An unknown name, or an object without ``name`` and ``run``.
        MissingDependency: ``"ray"`` without the ``ray`` extra installed.
    """
    if executor is None or executor == "local":
        from conflicteval.executors.local import LocalExecutor

        return LocalExecutor()
    if executor == "ray":
        from conflicteval.executors.ray import RayExecutor

        return RayExecutor()
    if isinstance(executor, str):
        raise ValueError(f"unknown executor {executor!r} (known: {', '.join(EXECUTORS)})")
    if not (isinstance(getattr(executor, "name", None), str) and callable(executor.run)):
        raise ValueError(
            "an executor needs a 'name' and an async 'run(fn, todo, *, concurrency, emit)'"
        )
    return executor


def _at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _not_negative(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, not {value}")
    return value


def add_executor_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--executor`` and the Ray options to a batch command."""
    group = parser.add_argument_group("execution")
    group.add_argument(
        "--executor",
        choices=EXECUTORS,
        default="local",
        help="where items run: 'local' (this process, the default) or 'ray' (a pool of Ray "
        "actors: the cluster at $RAY_ADDRESS, else a local Ray instance; extra: "
        "pip install 'conflicteval[ray]')",
    )
    group.add_argument(
        "--ray-actors",
        type=_at_least_one,
        default=None,
        metavar="N",
        help="Ray actors (default: one per CPU, or per GPU share with --ray-gpus-per-actor)",
    )
    group.add_argument(
        "--ray-num-cpus",
        type=_at_least_one,
        default=None,
        metavar="N",
        help="CPUs of a local Ray instance started for this run (default: all)",
    )
    group.add_argument(
        "--ray-gpus-per-actor",
        type=_not_negative,
        default=0.0,
        metavar="G",
        help="GPUs each actor reserves, e.g. 1 for one NLI labeler per GPU (default 0)",
    )


def executor_from_args(args: argparse.Namespace) -> Any:
    """The executor the command line asked for (None: the local default)."""
    if getattr(args, "executor", "local") != "ray":
        return None
    from conflicteval.executors.ray import RayExecutor

    return RayExecutor(
        actors=getattr(args, "ray_actors", None),
        num_cpus=getattr(args, "ray_num_cpus", None),
        gpus_per_actor=getattr(args, "ray_gpus_per_actor", 0.0),
    )
