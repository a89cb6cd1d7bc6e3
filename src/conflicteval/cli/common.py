"""What every command does with the shared options once they are parsed.

The options themselves are defined once in :mod:`conflicteval.cli.options`. A command
builds its models with :func:`model_from_args`, its run settings with :func:`run_options`,
and ends with :func:`finish`: counts of ok / failed items, the most common failure reasons
with an example each, token usage, and the exit status.

Exit status of every command: 0 when every item was scored, 1 when some (or
all) failed (they are kept and counted), 2 for a usage or input error (a bad
option value, file or base URL) or a failure every call would repeat (a refused
key, an endpoint that is not there), 3 when calls wait for batch results
(``--batch-export``, :func:`~conflicteval.cli.options.add_batch_options`).

To add an option to every command, define it in :mod:`conflicteval.cli.options` and read
it in :func:`model_options` or :func:`run_options` here.
"""

from __future__ import annotations

import argparse
import json
import logging
import shlex
import sys
from collections.abc import Callable
from typing import Any, TextIO

from conflicteval.cli.options import DEFAULT_MODEL_CONCURRENCY
from conflicteval.cli.terminal import for_terminal
from conflicteval.errors import ConflictEvalError, UsageError
from conflicteval.exitcodes import EXIT_FAILED, EXIT_OK, EXIT_PENDING, EXIT_USAGE
from conflicteval.tables import fit_text

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_PENDING",
    "EXIT_USAGE",
    "executor_from_args",
    "exit_status",
    "finish",
    "limited",
    "model_from_args",
    "model_options",
    "note_limit",
    "print_reports",
    "progress_from_args",
    "reports_json",
    "run_options",
    "scorer_from_args",
]


def limited(items: list[Any], limit: int | None, what: str) -> list[Any]:
    """The first ``limit`` of ``items`` (all with None); a limit larger than the data is said
    in one line, so a run of 30 questions under ``--limit 500`` is not mistaken for 500."""
    if limit is None:
        return items
    note_limit(limit, len(items), what)
    return items[:limit]


def note_limit(limit: int | None, found: int, what: str) -> None:
    """One line when ``--limit`` is larger than the ``found`` items (a loader that applied the
    limit itself returns ``found`` < ``limit`` only when the data ran out)."""
    if limit is not None and limit > found:
        print(
            f"note: --limit {limit:,} is more than the {found:,} {what} the data holds: "
            f"all {found:,} are used",
            file=sys.stderr,
        )


def model_options(
    args: argparse.Namespace, spec: str | None = None, **extra: Any
) -> dict[str, Any]:
    """The :func:`conflicteval.get_model` options the shared model options ask for.

    ``extra`` options (e.g. ``max_concurrency``) are added; None values are left out.
    ``--model-concurrency`` sets ``max_concurrency`` over any default in ``extra``; without
    either, it is :func:`default_model_concurrency` (at least ``--concurrency``).
    """
    options: dict[str, Any] = {
        "timeout": getattr(args, "timeout", None),
        "max_attempts": getattr(args, "max_attempts", None),
        **extra,
    }
    if getattr(args, "model_concurrency", None) is not None:
        options["max_concurrency"] = args.model_concurrency
    elif "max_concurrency" not in extra:
        options["max_concurrency"] = default_model_concurrency(args)
    if getattr(args, "no_cache", False):
        options["cache"] = False
    provider = _provider(spec) if spec is not None else "openai"
    base_url = getattr(args, "base_url", None)
    if base_url and provider in ("openai", "azure", "anthropic"):
        options["base_url"] = base_url
    for name in ("max_output_tokens", "reasoning_effort"):
        options[name] = getattr(args, name, None)
    if provider in ("openai", "azure"):
        options["model_family"] = getattr(args, "model_family", None)
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
    if check_key:  # a run that calls the server: say first if it does not list the model
        _warn_unlisted(model)
    if check_key and getattr(model.provider, "needs_key", False):
        from conflicteval.models.openai_provider import MISSING_KEY

        raise UsageError(f"{model.name}: {getattr(model.provider, 'missing_key', MISSING_KEY)}")
    return model


def scorer_from_args(
    args: argparse.Namespace,
    spec: str | None = None,
    *,
    option: str = "--model",
    nli_model: Any = None,
    **extra: Any,
) -> Any:
    """The ConflictScorer ``--decomposer`` / ``--labeler`` ask for (defaults: the paper's
    ``llm`` kinds with a model, else ``sentence`` / ``lexical``); its model (``spec``,
    default ``args.model``, given as ``option``) is made only when a kind calls one."""
    from conflicteval.conflictscore.factory import make_scorer, needs_model, scorer_kinds

    spec = spec if spec is not None else getattr(args, "model", None)
    decomposer, labeler = scorer_kinds(args.decomposer, args.labeler, bool(spec))
    model = None
    if needs_model(decomposer) or needs_model(labeler):
        if not spec:
            raise UsageError(f"--decomposer {decomposer} / --labeler {labeler} need {option}")
        model = model_from_args(args, spec, **extra)
    structured = not getattr(args, "plain_json", False)
    return make_scorer(decomposer, labeler, model, nli_model=nli_model, structured=structured)


def run_options(args: argparse.Namespace) -> dict[str, Any]:
    """``{"options": RunOptions}`` for a batch entry point: every batch of the command gets it.

    The :class:`~conflicteval.runs.options.RunOptions` carries ``--concurrency``,
    ``--quiet``, ``--restart``, ``--retry-failed``, ``--executor``, ``--item-timeout``,
    ``--adopt-checkpoint`` and ``--drop-replies`` (those the command has).
    """
    from conflicteval.runs.options import RunOptions

    return {
        "options": RunOptions(
            concurrency=getattr(args, "concurrency", None),
            progress=progress_from_args(args),
            restart=bool(getattr(args, "restart", False)),
            retry_failed=bool(getattr(args, "retry_failed", False)),
            executor=executor_from_args(args) if hasattr(args, "executor") else None,
            item_timeout=getattr(args, "item_timeout", None),
            adopt=bool(getattr(args, "adopt_checkpoint", False)),
            keep_replies=not getattr(args, "drop_replies", False),
        )
    }


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
    from conflicteval.runs.ray import RayExecutor

    executor = RayExecutor(
        actors=getattr(args, "ray_actors", None),
        num_cpus=getattr(args, "ray_num_cpus", None),
        gpus_per_actor=getattr(args, "ray_gpus_per_actor", 0.0),
    )
    if hasattr(args, "model_concurrency"):
        print(ray_model_concurrency_line(args), file=sys.stderr)
    return executor


def default_model_concurrency(args: argparse.Namespace) -> int:
    """Model calls in flight per model without ``--model-concurrency``: the larger of 16 and
    ``--concurrency``, so that N items in flight are never held to fewer calls than N."""
    return max(DEFAULT_MODEL_CONCURRENCY, getattr(args, "concurrency", None) or 0)


def ray_model_concurrency_line(args: argparse.Namespace) -> str:
    """What ``--model-concurrency`` means on Ray: per actor, and the total over the actors."""
    per = (
        getattr(args, "model_concurrency", None)
        or getattr(args, "default_model_concurrency", None)  # a command's own default
        or default_model_concurrency(args)
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
        result: A :class:`~conflicteval.runs.BatchResult`.
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
    print(fit_text(result.report(what, limit=limit, calls=calls)), file=out)
    counts = result.counts
    if counts["total"] and not counts["ok"] and not counts.get("pending"):
        print(f"nothing could be scored: all {counts['total']} {what} failed", file=out)
    if run_dir is not None:
        _contract_lines(run_dir, out)
        print(f"open the report: conflicteval view {shlex.quote(str(run_dir))}", file=out)
    return exit_status(counts)


_warned: set[tuple[str, str]] = set()


def _warn_unlisted(model: Any) -> None:
    """One warning before the run when a local OpenAI-compatible server does not list the
    model in ``/v1/models`` (OpenAI's own API and Azure are not asked)."""
    from conflicteval.models.endpoint import unlisted_model
    from conflicteval.models.openai_provider import DEFAULT_BASE_URL, OpenAIProvider

    provider = model.provider
    if type(provider) is not OpenAIProvider or provider.base_url == DEFAULT_BASE_URL:
        return
    key = (provider.base_url, provider.model)
    if key in _warned:
        return
    _warned.add(key)
    line = unlisted_model(provider.base_url, provider.model, provider._api_key)
    if line is not None:
        logging.getLogger("conflicteval.cli").warning("%s", line)


def _contract_lines(run_dir: Any, out: TextIO) -> None:
    """The money and time of the run's contract (summary.json), as the viewer shows them."""
    from pathlib import Path

    from conflicteval.results.load import cost_line, read_summary

    if not (Path(run_dir) / "summary.json").is_file():
        return
    try:
        s = read_summary(run_dir)
    except ConflictEvalError:
        return  # a summary from before the contract
    took = f"; took {s.elapsed_s:g} s" if s.elapsed_s is not None else ""
    print(f"{cost_line(s)}{took}", file=out)  # whole: the line the viewer shows
    if took:
        from conflicteval.cli.terminal import said_elapsed

        said_elapsed()


def _provider(spec: str) -> str:
    from conflicteval.models import _REGISTRY

    name, slash, _ = spec.partition("/")
    if not slash and name not in _REGISTRY:
        return "openai"
    return name


def reports_json(reports: list[dict[str, Any]]) -> str:
    """The ``--json`` text of a report command: one run's report as an object, several runs'
    as a list in the order given."""
    return json.dumps(reports if len(reports) > 1 else reports[0], indent=2)


def print_reports(
    reports: list[dict[str, Any]],
    args: argparse.Namespace,
    fmt: Callable[[dict[str, Any]], str],
) -> int:
    """Print a report command's reports: :func:`reports_json` under ``--json``, otherwise each
    formatted by ``fmt``, a blank line between, fitted to the terminal. Returns 0."""
    if args.json:
        print(reports_json(reports))
    else:
        print(for_terminal("\n\n".join(fmt(r) for r in reports), args))
    return 0
