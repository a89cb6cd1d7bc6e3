"""The command-line options every command shares, defined once.

Every model-calling command takes the same model options
(:func:`add_model_options`: ``--model SPEC``, ``--base-url``, ``--timeout``,
``--max-attempts``, ``--no-cache``, ``--concurrency`` for items in flight and
``--model-concurrency`` for model calls in flight), every batch command the
same run options (:func:`add_run_options`: ``--quiet``, ``--restart``,
``--retry-failed``, and where the items run: ``--executor local|ray`` with the
Ray options), builds its models with :func:`model_from_args` and ends
with :func:`finish`: counts of ok / failed items, the most common failure
reasons with an example each, token usage, and the exit status.

Exit status of every command: 0 when every item was scored, 1 when some (or
all) failed (they are kept and counted), 2 for a usage or input error (a bad
option value, file or base URL) or a failure every call would repeat (a refused
key, an endpoint that is not there), 3 when calls wait for batch results
(``--batch-export``, :func:`add_batch_options`).

To add an option to every command, add it here (and read it in
:func:`model_options` or :func:`run_options`).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any, TextIO

from conflicteval.errors import UsageError
from conflicteval.exitcodes import EXIT_FAILED, EXIT_OK, EXIT_PENDING, EXIT_USAGE

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_PENDING",
    "EXIT_USAGE",
    "add_batch_options",
    "add_model_options",
    "add_run_options",
    "executor_from_args",
    "exit_status",
    "finish",
    "model_from_args",
    "model_options",
    "not_negative_float",
    "not_negative_int",
    "positive_float",
    "positive_int",
    "progress_from_args",
    "run_options",
]


SPEC_HELP = (
    "model spec: openai/<model> (OpenAI, or any OpenAI-compatible server with --base-url); "
    "a bare <model> means openai/<model>"
)


def add_model_options(
    parser: argparse.ArgumentParser,
    *,
    what: str | None = "model",
    required: bool = False,
    repeat: bool = False,
    concurrency: int = 8,
    concurrency_help: str = "items in flight at once",
) -> argparse._ArgumentGroup:
    """Add the shared model options to ``parser`` (in a "model" group).

    Args:
        parser: The sub-command's parser.
        what: What ``--model`` is for (its help text); None: no ``--model``
            option (the command names its model otherwise, e.g. ``--judge``).
        required: ``--model`` must be given.
        repeat: ``--model`` may be repeated (a list).
        concurrency: Default of ``--concurrency``.
        concurrency_help: What ``--concurrency`` bounds.

    Returns:
        The argument group, for command-specific model options.
    """
    group = parser.add_argument_group("model")
    if what is not None:
        group.add_argument(
            "--model",
            metavar="SPEC",
            required=required,
            action="append" if repeat else "store",
            default=None,
            help=f"{what}; {SPEC_HELP}" + (" (repeatable)" if repeat else ""),
        )
    group.add_argument(
        "--base-url",
        metavar="URL",
        default=None,
        help="OpenAI-compatible server, e.g. http://localhost:8000/v1 "
        "(default: $OPENAI_BASE_URL or OpenAI's API, which needs OPENAI_API_KEY)",
    )
    group.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=_positive_float,
        default=None,
        help="seconds one attempt of a model call may take (default 60)",
    )
    group.add_argument(
        "--max-attempts",
        metavar="N",
        type=_positive_int,
        default=None,
        help="attempts per model call, the first included (default 6)",
    )
    group.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the response cache"
    )
    group.add_argument(
        "--concurrency",
        metavar="N",
        type=_positive_int,
        default=concurrency,
        help=f"{concurrency_help} (default {concurrency})",
    )
    group.add_argument(
        "--model-concurrency",
        metavar="N",
        type=_positive_int,
        default=None,
        help="model calls in flight at once, per model (default "
        f"{DEFAULT_MODEL_CONCURRENCY}, or --concurrency where an item is one call, as in "
        "wikicontradict; with --executor ray: per actor, each actor has its own)",
    )
    return group


DEFAULT_MODEL_CONCURRENCY = 16
"""Model calls in flight per model when ``--model-concurrency`` is not given (the model's own)."""

DEFAULT_CLI_ITEM_TIMEOUT = 3600.0
"""The command line's bound on one item (an hour): far above any healthy item, so it only ends
items stuck past every per-attempt deadline, e.g. a workflow that keeps re-asking."""


def add_run_options(
    parser: argparse.ArgumentParser, *, resumable: bool = True
) -> argparse._ArgumentGroup:
    """Add the shared run options: ``--quiet`` and, for resumable (batch) commands,
    ``--restart``, ``--retry-failed`` and the executor options (``--executor local|ray``,
    ``--ray-actors``, ``--ray-num-cpus``, ``--ray-gpus-per-actor``)."""
    group = parser.add_argument_group("run")
    group.add_argument("--quiet", action="store_true", help="no progress bar")
    if resumable:
        group.add_argument(
            "--restart",
            action="store_true",
            help="start over: move an existing checkpoint aside (to <checkpoint>.old) instead "
            "of resuming it (needed when the model, labeler or settings changed)",
        )
        group.add_argument(
            "--retry-failed",
            action="store_true",
            help="on resume, run the items that failed with a model error again",
        )
        group.add_argument(
            "--adopt-checkpoint",
            action="store_true",
            help="take over a checkpoint that cannot be vouched for (its .meta.json identity "
            "record is missing, or an earlier version wrote it without input fingerprints): "
            "trust its finished items as made by this configuration from these inputs",
        )
        group.add_argument(
            "--item-timeout",
            type=_positive_float,
            default=DEFAULT_CLI_ITEM_TIMEOUT,
            metavar="SECONDS",
            help="seconds one item may take in all, retries included; an item still running "
            f"then is recorded as failed with that reason (default {DEFAULT_CLI_ITEM_TIMEOUT:.0f})",
        )
        _add_executor_options(group)
    return group


def _add_executor_options(group: argparse._ArgumentGroup) -> None:
    from conflicteval.executors.choice import EXECUTORS

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
        type=_positive_int,
        default=None,
        metavar="N",
        help="Ray actors (default: one per CPU, or per GPU share with --ray-gpus-per-actor)",
    )
    group.add_argument(
        "--ray-num-cpus",
        type=_positive_int,
        default=None,
        metavar="N",
        help="CPUs of a local Ray instance started for this run (default: all)",
    )
    group.add_argument(
        "--ray-gpus-per-actor",
        type=_not_negative_float,
        default=0.0,
        metavar="G",
        help="GPUs each actor reserves, e.g. 1 for one NLI labeler per GPU (default 0)",
    )


def add_batch_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--batch-export FILE`` and ``--dry-run`` to a model-calling command.

    Wrap the command's function with
    :func:`conflicteval.executors.batch_cli.batch_command`, which runs it in
    export mode (exit 3 while calls wait for batch results) or, with
    ``--dry-run``, counting its calls without making them or writing anything.
    """
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="call no model and write nothing: run the command counting its calls, cache "
        "hits, prompt tokens and estimated cost (a lower bound when later calls wait on "
        "replies not in the cache)",
    )
    parser.add_argument(
        "--batch-export",
        metavar="FILE",
        default=None,
        help="call no model: write the calls the cache cannot answer to FILE as OpenAI Batch "
        "API / vllm run-batch requests, then exit 3; import the results with "
        "'conflicteval batch import' and run the command again (see 'conflicteval docs batch')",
    )


def model_options(
    args: argparse.Namespace, spec: str | None = None, **extra: Any
) -> dict[str, Any]:
    """The :func:`conflicteval.get_model` options the shared model options ask for.

    ``extra`` options (e.g. ``max_concurrency``) are added; None values are left out.
    ``--model-concurrency`` sets ``max_concurrency`` over any default in ``extra``.
    """
    options: dict[str, Any] = {
        "timeout": getattr(args, "timeout", None),
        "max_attempts": getattr(args, "max_attempts", None),
        **extra,
    }
    if getattr(args, "model_concurrency", None) is not None:
        options["max_concurrency"] = args.model_concurrency
    if getattr(args, "no_cache", False):
        options["cache"] = False
    base_url = getattr(args, "base_url", None)
    if base_url and (spec is None or _provider(spec) == "openai"):
        options["base_url"] = base_url
    return {k: v for k, v in options.items() if v is not None}


def model_from_args(
    args: argparse.Namespace,
    spec: str | None = None,
    *,
    check_key: bool | None = None,
    **extra: Any,
) -> Any:
    """The model ``spec`` (default ``args.model``) with the shared options applied.

    Args:
        args: The parsed arguments.
        spec: The model spec (default: ``args.model``).
        check_key: Refuse at once when the model is OpenAI's API and no key is
            set (default: unless ``args.dry_run`` or ``args.batch_export``, which call
            nothing).
        **extra: Further :func:`~conflicteval.get_model` options (``max_concurrency``).

    Raises:
        UsageError: Unknown provider, or no API key for OpenAI's API.
    """
    from conflicteval.models import get_model

    spec = spec if spec is not None else getattr(args, "model", None)
    if not spec:
        raise UsageError("no model given (--model SPEC)")
    model = get_model(spec, **model_options(args, spec, **extra))
    if check_key is None:  # a dry run or a batch export sends nothing, so needs no key
        check_key = not getattr(args, "dry_run", False) and not getattr(args, "batch_export", None)
    if check_key and getattr(model.provider, "needs_key", False):
        from conflicteval.models.openai_provider import MISSING_KEY

        raise UsageError(f"{model.name}: {MISSING_KEY}")
    return model


def run_options(args: argparse.Namespace) -> dict[str, Any]:
    """``progress``, ``restart``, ``retry_failed`` (and ``executor``) for a batch entry point."""
    options = {
        "progress": progress_from_args(args),
        "restart": bool(getattr(args, "restart", False)),
        "retry_failed": bool(getattr(args, "retry_failed", False)),
    }
    if hasattr(args, "executor"):
        options["executor"] = executor_from_args(args)
    if hasattr(args, "adopt_checkpoint"):  # like the item bound: for every batch of the command
        from conflicteval import runner

        runner.DEFAULT_ADOPT = bool(args.adopt_checkpoint)
    if getattr(args, "item_timeout", None) is not None:
        # The runner's default bound is the front end's to set; every batch this command runs
        # (several, for multi-stage workflows) gets it.
        from conflicteval import runner

        runner.DEFAULT_ITEM_TIMEOUT = args.item_timeout
    return options


def executor_from_args(args: argparse.Namespace) -> Any:
    """The executor the command line asked for (None: the local default)."""
    if getattr(args, "executor", "local") != "ray":
        ray_only = [
            flag
            for flag, dest in (("--ray-actors", "ray_actors"), ("--ray-num-cpus", "ray_num_cpus"))
            if getattr(args, dest, None) is not None
        ] + (["--ray-gpus-per-actor"] if getattr(args, "ray_gpus_per_actor", 0.0) else [])
        if ray_only:  # silently running locally would hide the mistake
            raise UsageError(f"{', '.join(ray_only)} only apply with --executor ray")
        return None
    from conflicteval.executors.ray import RayExecutor

    executor = RayExecutor(
        actors=getattr(args, "ray_actors", None),
        num_cpus=getattr(args, "ray_num_cpus", None),
        gpus_per_actor=getattr(args, "ray_gpus_per_actor", 0.0),
    )
    if hasattr(args, "model_concurrency"):
        print(ray_model_concurrency_line(args), file=sys.stderr)
    return executor


def ray_model_concurrency_line(args: argparse.Namespace) -> str:
    """What ``--model-concurrency`` means on Ray: per actor, and the total over the actors."""
    per = (
        getattr(args, "model_concurrency", None)
        or getattr(args, "default_model_concurrency", None)  # a command's own default
        or DEFAULT_MODEL_CONCURRENCY
    )
    actors = getattr(args, "ray_actors", None)
    if actors is None and getattr(args, "ray_gpus_per_actor", 0.0) == 0.0:
        # a local instance: one actor per CPU it gets (a cluster's CPUs are unknown here)
        import os

        if not os.environ.get("RAY_ADDRESS"):
            actors = getattr(args, "ray_num_cpus", None) or os.cpu_count()
    if actors is None:
        return f"model calls in flight: {per} per Ray actor per model (x the actors in all)"
    return (
        f"model calls in flight: {per} per Ray actor per model x {actors} actors "
        f"= {per * actors} in all (at most; fewer actors when there are few items)"
    )


def progress_from_args(args: argparse.Namespace) -> bool | None:
    """False with ``--quiet``; otherwise None (a bar when stderr is a terminal)."""
    return False if getattr(args, "quiet", False) else None


def exit_status(counts: dict[str, int]) -> int:
    """0 when every item ended ok, 1 otherwise (some or all failed)."""
    return EXIT_OK if counts.get("ok", 0) == counts.get("total", 0) else EXIT_FAILED


def finish(
    result: Any,
    what: str = "items",
    *,
    stream: TextIO | None = None,
    limit: int = 5,
    run_dir: Any = None,
    calls: bool = True,
) -> int:
    """Print the closing lines of a batch command and return its exit status.

    Args:
        result: A :class:`~conflicteval.runner.BatchResult`.
        what: What the items are ("responses", "claims", ...).
        stream: Where to print (default: standard error).
        limit: How many failure reasons to show.
        run_dir: The run directory written, if any: the last line says how to open its report.
        calls: Print the "this run: N model calls" line (False for a command that calls
            no model).

    Returns:
        :func:`exit_status` of the result's counts.
    """
    out = stream if stream is not None else sys.stderr
    print(result.report(what, limit=limit, calls=calls), file=out)
    counts = result.counts
    if counts["total"] and not counts["ok"] and not counts.get("pending"):
        print(f"nothing could be scored: all {counts['total']} {what} failed", file=out)
    if run_dir is not None:
        print(f"open the report: conflicteval view {shlex.quote(str(run_dir))}", file=out)
    return exit_status(counts)


def _provider(spec: str) -> str:
    from conflicteval.models import _REGISTRY

    name, slash, _ = spec.partition("/")
    if not slash and name not in _REGISTRY:
        return "openai"
    return name


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def not_negative_int(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


_positive_int = positive_int


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return value


def not_negative_float(text: str) -> float:
    """An argparse type: a finite number of at least 0."""
    value = _float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {text}")
    return value


def positive_float(text: str) -> float:
    """An argparse type: a finite number above 0."""
    value = _float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


_not_negative_float = not_negative_float
_positive_float = positive_float
