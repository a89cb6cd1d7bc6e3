"""Where a command's items run: ``--executor local|ray`` and the Ray pool's options.

Part of the run options (:func:`conflicteval.cli.options.add_run_options` adds them to every
resumable command); :func:`conflicteval.cli.common.executor_from_args` reads them.
"""

from __future__ import annotations

import argparse

from conflicteval.cli.argtypes import not_negative_float, positive_int

__all__ = ["add_executor_options"]


def add_executor_options(group: argparse._ArgumentGroup) -> None:
    """Add ``--executor``, ``--ray-actors``, ``--ray-num-cpus`` and ``--ray-gpus-per-actor``."""
    from conflicteval.runs.executor import EXECUTORS

    group.add_argument(
        "--executor",
        choices=EXECUTORS,
        default="local",
        help="where items run: 'local' (this process, the default) or 'ray' (a pool of Ray "
        "actors: the cluster at $RAY_ADDRESS, else a local Ray instance; extra: "
        "pip install '.[ray]')",
    )
    group.add_argument(
        "--ray-actors",
        type=positive_int,
        default=None,
        metavar="N",
        help="Ray actors (default: one per CPU, or per GPU share with --ray-gpus-per-actor)",
    )
    group.add_argument(
        "--ray-num-cpus",
        type=positive_int,
        default=None,
        metavar="N",
        help="CPUs of a local Ray instance started for this run (default: all)",
    )
    group.add_argument(
        "--ray-gpus-per-actor",
        type=not_negative_float,
        default=0.0,
        metavar="G",
        help="GPUs each actor reserves, e.g. 1 for one NLI labeler per GPU (default 0)",
    )
