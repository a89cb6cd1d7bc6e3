"""Every option more than one command takes, defined once.

A command adds an option with the function here, never with its own ``add_argument``, so an
option has one spelling, one type and one help text everywhere (the help may name what the
command's own value is: "only the first N claims"). The groups:

* model (:func:`add_model_options`): ``--model SPEC`` and how its calls are made (``--base-url``,
  ``--timeout``, ``--max-attempts``, ``--no-cache``), and the calls in flight (``--concurrency``
  for items, ``--model-concurrency`` for model calls). "Which model" is ``--model`` in every
  command; a command that uses a second model names it by its role (``--judge-model``,
  ``--scorer-model``, ``--entity-model``);
* run (:func:`add_run_options`): ``--quiet``, resuming (``--restart``, ``--retry-failed``,
  ``--adopt-checkpoint``), ``--drop-replies``, ``--item-timeout`` and where items run
  (``--executor``, ``--ray-*``, in :mod:`conflicteval.cli.executor_options`);
* batch (:func:`add_batch_options`): ``--batch-export FILE``;
* input and output: ``--out`` (always something the command writes, :func:`add_out`),
  ``--run DIR`` (a run directory the command reads, :func:`add_run_input`), ``--items``;
* what to print and how much to do: ``--json``, ``--dry-run``, ``--limit``, ``--paper``,
  ``--seed``;
* ConflictScore's instruments: ``--labeler KIND`` (always a labeler kind), ``--decomposer KIND``,
  ``--nli-model DIR``, ``--plain-json``.

An old spelling keeps working for one release (:mod:`conflicteval.cli.aliases`): it is
accepted, hidden from ``--help``, and prints one line ``warning: --old is deprecated; use
--new`` on stderr.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from conflicteval.cli.aliases import (
    LabelerKind,
    add_aliases,
    add_deprecated,
    check_required,
    deprecated_value,
)
from conflicteval.cli.argtypes import (
    not_negative_float,
    not_negative_int,
    positive_float,
    positive_int,
)
from conflicteval.cli.executor_options import add_executor_options

__all__ = [
    "DEFAULT_CLI_ITEM_TIMEOUT",
    "DEFAULT_MODEL_CONCURRENCY",
    "DRY_RUN_HELP",
    "SPEC_HELP",
    "add_batch_options",
    "add_decomposer",
    "add_deprecated",
    "add_dry_run",
    "add_items",
    "add_json",
    "add_labeler",
    "add_limit",
    "add_model_filter",
    "add_model_options",
    "add_nli_model",
    "add_out",
    "add_paper",
    "add_plain_json",
    "add_run_input",
    "add_run_options",
    "add_seed",
    "check_required",
    "deprecated_value",
    "not_negative_float",
    "not_negative_int",
    "positive_float",
    "positive_int",
]

Container = argparse.ArgumentParser | argparse._ArgumentGroup

SPEC_HELP = (
    "model spec: openai/<model> (OpenAI, or any OpenAI-compatible server with --base-url), "
    "azure/<deployment>; a bare <model> means openai/<model>"
)

DRY_RUN_HELP = (
    "call no model and write nothing: run the command counting its calls, cache hits, prompt "
    "tokens and estimated cost (a lower bound when later calls wait on replies not in the cache)"
)

DEFAULT_MODEL_CONCURRENCY = 16
"""Model calls in flight per model, at the least, when ``--model-concurrency`` is not given."""

DEFAULT_CLI_ITEM_TIMEOUT = 3600.0
"""The command line's bound on one item (an hour): far above any healthy item, so it only ends
items stuck past every per-attempt deadline, e.g. a workflow that keeps re-asking."""


# ------------------------------------------------------------------ model, run, batch


def add_model_options(
    parser: argparse.ArgumentParser,
    *,
    what: str | None = "model",
    required: bool = False,
    repeat: bool = False,
    concurrency: int = 8,
    concurrency_help: str = "items in flight at once",
    metavar: str = "SPEC",
    spec_help: bool = True,
    old: Sequence[str] = (),
) -> argparse._ArgumentGroup:
    """Add the shared model options to ``parser`` (in a "model" group).

    Args:
        parser: The sub-command's parser.
        what: What ``--model`` is for (its help text); None: no ``--model`` option (a
            command whose models all have a role, e.g. ``reports``).
        required: ``--model`` must be given.
        repeat: ``--model`` may be repeated (a list).
        concurrency: Default of ``--concurrency``.
        concurrency_help: What ``--concurrency`` bounds.
        metavar: ``--model``'s metavar (e.g. ``SPEC|lexical`` where a kind may stand there).
        spec_help: Append the model-spec syntax to ``--model``'s help.
        old: Old spellings of ``--model`` (deprecated: accepted with a warning, not shown).

    Returns:
        The argument group, for command-specific model options.
    """
    group = parser.add_argument_group("model")
    if what is not None:
        model = group.add_argument(
            "--model",
            metavar=metavar,
            required=required,
            action="append" if repeat else "store",
            default=None,
            help=(f"{what}; {SPEC_HELP}" if spec_help else what)
            + (" (repeatable)" if repeat else ""),
        )
        add_aliases(group, model, old)
    group.add_argument(
        "--base-url",
        metavar="URL",
        default=None,
        help="OpenAI-compatible server, e.g. http://localhost:8000/v1 "
        "(default: $OPENAI_BASE_URL or OpenAI's API, which needs OPENAI_API_KEY); for "
        "azure/<deployment>: the resource URL (default $AZURE_OPENAI_ENDPOINT)",
    )
    _add_decoding(group)
    group.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=positive_float,
        default=None,
        help="seconds one attempt of a model call may take (default 60)",
    )
    group.add_argument(
        "--max-attempts",
        metavar="N",
        type=positive_int,
        default=None,
        help="attempts per model call, the first included (default 6)",
    )
    group.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the response cache"
    )
    _add_in_flight(group, concurrency, concurrency_help)
    return group


def _add_decoding(group: argparse._ArgumentGroup) -> None:
    """How a model's decoding may depart from the protocol's (see models/decoding.py)."""
    group.add_argument(
        "--max-output-tokens",
        metavar="N",
        type=positive_int,
        default=None,
        help="output limit sent instead of the protocol's max_tokens (a reasoning model is "
        "otherwise sent 25000, room for its hidden reasoning)",
    )
    group.add_argument(
        "--reasoning-effort",
        metavar="LEVEL",
        default=None,
        help="reasoning_effort sent to a reasoning model (minimal, low, medium, high, ...)",
    )
    group.add_argument(
        "--model-family",
        choices=("chat", "reasoning"),
        default=None,
        help="what the model accepts (default: by its name; o1, o3, o4-mini, gpt-5* are "
        "reasoning models: max_completion_tokens, no temperature but 1, no top_p)",
    )


def _add_in_flight(group: argparse._ArgumentGroup, default: int, what: str) -> None:
    """The calls in flight: items (``--concurrency``) and model calls (``--model-concurrency``)."""
    group.add_argument(
        "--concurrency",
        metavar="N",
        type=positive_int,
        default=default,
        help=f"{what} (default {default}); model calls in flight: at least as many",
    )
    group.add_argument(
        "--model-concurrency",
        metavar="N",
        type=positive_int,
        default=None,
        help="model calls in flight at once, per model: the bound on requests sent "
        f"(default: the larger of {DEFAULT_MODEL_CONCURRENCY} and --concurrency, or "
        "--concurrency where an item is one call, as in wikicontradict; with --executor ray: "
        "per actor, each actor has its own)",
    )


def add_model_filter(container: Container) -> None:
    """``--model SPEC`` where it picks entries (``cache clear``) rather than a model to call."""
    container.add_argument(
        "--model",
        metavar="SPEC",
        default=None,
        help="only this model's entries (e.g. openai/gpt-4o)",
    )


def add_role_model(container: Container, role: str, what: str) -> argparse.Action:
    """``--<role>-model SPEC``: a command's second (third) model, named by its role."""
    return container.add_argument(
        f"--{role}-model", metavar="SPEC", default=None, help=f"{what}; {SPEC_HELP}"
    )


def add_run_options(
    parser: argparse.ArgumentParser, *, resumable: bool = True
) -> argparse._ArgumentGroup:
    """Add the shared run options: ``--quiet`` and, for resumable (batch) commands,
    ``--restart``, ``--retry-failed`` and the executor options (``--executor local|ray``,
    ``--ray-actors``, ``--ray-num-cpus``, ``--ray-gpus-per-actor``)."""
    group = parser.add_argument_group("run")
    add_quiet(group)
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
            "--drop-replies",
            action="store_true",
            help="keep no model reply with the items' records (by default each call's reply "
            "is kept, its first 4,000 characters, and the report shows it); a failed item "
            "keeps the reply it could not read",
        )
        group.add_argument(
            "--item-timeout",
            type=positive_float,
            default=DEFAULT_CLI_ITEM_TIMEOUT,
            metavar="SECONDS",
            help="seconds one item may take in all, retries included; an item still running "
            f"then is recorded as failed with that reason (default {DEFAULT_CLI_ITEM_TIMEOUT:.0f})",
        )
        add_executor_options(group)
    return group


def add_quiet(container: Container) -> None:
    """``--quiet``: no progress bar."""
    container.add_argument("--quiet", action="store_true", help="no progress bar")


def add_batch_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--batch-export FILE`` and ``--dry-run`` to a model-calling command.

    Wrap the command's function with
    :func:`conflicteval.cli.batch.batch_command`, which runs it in
    export mode (exit 3 while calls wait for batch results) or, with
    ``--dry-run``, counting its calls without making them or writing anything.
    """
    add_dry_run(parser)
    parser.add_argument(
        "--batch-export",
        metavar="FILE",
        default=None,
        help="call no model: write the calls the cache cannot answer to FILE as OpenAI Batch "
        "API / vllm run-batch requests, then exit 3; import the results with "
        "'conflicteval batch import' and run the command again (see 'conflicteval docs batch')",
    )


# ------------------------------------------------------------------ input and output


def add_out(
    container: Container,
    what: str,
    *,
    required: bool = True,
    metavar: str = "DIR",
    short: bool = False,
    old: Sequence[str] = (),
) -> argparse.Action:
    """``--out DIR|FILE``: what the command writes (never an input)."""
    names = ("-o", "--out") if short else ("--out",)
    action = container.add_argument(
        *names, required=required, default=None, metavar=metavar, help=what
    )
    return add_aliases(container, action, old)


def add_run_input(
    container: Container, what: str = "run directory", *, repeat: bool = False, **kw: Any
) -> argparse.Action:
    """``--run DIR``: a run directory the command reads (``--out`` of the command that
    wrote it)."""
    old = kw.pop("old", ())
    action = container.add_argument(
        "--run",
        action="append" if repeat else "store",
        metavar="DIR",
        help=what + (" (repeatable)" if repeat else ""),
        **kw,
    )
    return add_aliases(container, action, old)


def add_items(container: Container, what: str, *, required: bool = True) -> None:
    """``--items FILE``: the ConflictBench items (JSON lines) a command reads."""
    container.add_argument(
        "--items", required=required, default=None, metavar="FILE.jsonl", help=what
    )


# ------------------------------------------------------------------ printing and extent


def add_json(container: Container, what: str | None = None) -> None:
    """``--json``: print JSON instead of text (``what``: what the JSON holds beyond it)."""
    container.add_argument(
        "--json", action="store_true", help="print JSON" + (f" ({what})" if what else "")
    )


def add_dry_run(container: Container) -> None:
    """``--dry-run``: count the calls, cache hits, tokens and money; call nothing."""
    container.add_argument("--dry-run", action="store_true", help=DRY_RUN_HELP)


def add_limit(container: Container, things: str) -> None:
    """``--limit N``: only the first N ``things`` (questions, claims, items, ...)."""
    container.add_argument(
        "--limit", type=positive_int, default=None, metavar="N", help=f"only the first N {things}"
    )


def add_paper(container: Container) -> None:
    """``--paper``: the paper's published figures beside the measured ones."""
    container.add_argument("--paper", action="store_true", help="show the paper's numbers too")


def add_seed(container: Container, what: str) -> None:
    """``--seed N`` (default 0): what it seeds is the command's."""
    container.add_argument(
        "--seed", type=not_negative_int, default=0, metavar="N", help=f"seed of {what} (0)"
    )


# ------------------------------------------------------------------ ConflictScore instruments


_LABELER_NOTES = {
    "llm": "llm (Table 7 prompt, one call per claim-document pair)",
    "nli": "nli (with --nli-model)",
}
_DECOMPOSER_NOTES = {"llm": "llm (Table 6 prompt)"}


def add_labeler(
    container: Container,
    kinds: Sequence[str],
    default: str | None,
    default_help: str,
    *,
    old_specs: bool = False,
    model_list: bool = False,
) -> argparse.Action:
    """``--labeler KIND``: a labeler kind (never a model; the model is ``--model``).

    ``old_specs``: the command once took a model spec (or ``nli:DIR``) here; it still does,
    with the deprecation line (:class:`~conflicteval.cli.aliases.LabelerKind`), adding the
    spec to ``--model`` (a list when ``model_list``: a repeatable ``--model``).
    """
    helps = f"labeler kind: {', '.join(_LABELER_NOTES.get(k, k) for k in kinds)} "
    if old_specs:
        return container.add_argument(
            "--labeler",
            action=LabelerKind,
            kinds=kinds,
            model_list=model_list,
            default=default,
            metavar="{" + ",".join(kinds) + "}",
            help=f"{helps}(default: {default_help})",
        )
    return container.add_argument(
        "--labeler", choices=tuple(kinds), default=default, help=f"{helps}(default: {default_help})"
    )


def add_decomposer(
    container: Container, kinds: Sequence[str], default: str | None, default_help: str
) -> None:
    """``--decomposer KIND``: how a response is split into claims."""
    container.add_argument(
        "--decomposer",
        choices=tuple(kinds),
        default=default,
        help=f"decomposer kind: {', '.join(_DECOMPOSER_NOTES.get(k, k) for k in kinds)} "
        f"(default: {default_help})",
    )


def add_nli_model(container: Container) -> None:
    """``--nli-model DIR``: the local model of the ``nli`` labeler."""
    container.add_argument(
        "--nli-model", metavar="DIR", default=None, help="local NLI model directory (--labeler nli)"
    )


def add_plain_json(container: Container) -> None:
    """``--plain-json``: LLM labelers ask for their JSON in the prompt only."""
    container.add_argument(
        "--plain-json",
        action="store_true",
        help="llm labelers: ask for the JSON in the prompt only, as the paper does (no "
        "response_format schema); default: send the schema",
    )


# ------------------------------------------------------------------ files on this machine


def add_checksum_mismatch(container: Container) -> None:
    """``--allow-checksum-mismatch``: use a fetched file whose sha256 differs from its pin."""
    container.add_argument(
        "--allow-checksum-mismatch",
        action="store_true",
        help="use a file whose sha256 differs from its pin; the provenance records "
        "'mismatch allowed' and the actual hash",
    )


def add_cache_dir(container: Container, *, old: Sequence[str] = ()) -> None:
    """``--cache-dir DIR``: the response cache a command reads or clears."""
    action = container.add_argument(
        "--cache-dir",
        metavar="DIR",
        default=None,
        help="response cache directory (default: $CONFLICTEVAL_CACHE_DIR or the user cache dir)",
    )
    add_aliases(container, action, old)
