"""Running a profile: every benchmark of the suite for every model, each through its own
workflow command, into ``DIR/<model>/<benchmark>/``.

The profile adds no second way to answer a question: each cell is the workflow's own
command (``ramdocs run``, ``wikicontradict generate`` then ``judge``, ...) with its response
cache, checkpoint, answerers, executors and batch export, run in this process by the
``invoke`` function the caller gives (the command line's entry point). Running the profile
again runs each command again, which resumes from its checkpoint: finished items make no
call. Money, n and intervals are read afterwards from each run's contract
(:mod:`conflicteval.profiles.card`), never computed here.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from conflicteval.errors import ConflictEvalError

from .subset import read_items, write_subset
from .suite import Benchmark, Suite, load_suite, select_ids

__all__ = [
    "Cell",
    "Invoke",
    "ProfileOptions",
    "Selection",
    "model_dir",
    "prepare_data",
    "run_profile",
]

Invoke = Callable[[list[str], bool], tuple[int, str | None]]
"""Runs one command line (its words, and whether to hold its output back) in this process;
returns its exit status and its error line, if any."""

CountCalls = Callable[[list[str]], tuple[int, list[dict[str, Any]]]]
"""Runs one command line as its ``--dry-run`` in this process; returns its exit status and
its dry-run reports (one per model, :meth:`conflicteval.models.dryrun.DryRunReport.to_dict`)."""

PROFILE_FILE = "profile.json"
SCORE_INPUT = "input.jsonl"
"""A ConflictScore cell's input, written from the answers it scores."""


@dataclass
class Selection:
    """The items of one dataset in this profile, or why it could not be had."""

    dataset: str
    size: str
    rule: str
    seed: int
    source: str | None = None
    source_sha256: str | None = None
    pinned_sha256: str | None = None
    ids: list[str] = field(default_factory=list)
    ids_from: str = "rule"
    """``rule`` (selected from the source file now) or ``suite`` (ids stored in the suite)."""
    file: str | None = None
    file_sha256: str | None = None
    reason: str | None = None
    provide: str | None = None

    @property
    def available(self) -> bool:
        """Whether the items could be had."""
        return self.file is not None


@dataclass
class Cell:
    """One benchmark of one model: its run directory and how it went."""

    benchmark: str
    model: str
    run: str
    """The run directory, relative to the profile directory."""
    status: str = "not run"
    """``ran`` (its command ended; its contract says finished or partial), ``failed`` (the
    command stopped with an error), ``pending`` (calls wait for batch results), ``not run``."""
    reason: str | None = None
    category: str | None = None
    """Why not run, in a word for the card's counts (``not run: data not available``, ...)."""
    provide: str | None = None
    commands: list[list[str]] = field(default_factory=list)
    exit_status: int | None = None
    costs: list[dict[str, Any]] = field(default_factory=list)
    """The ``cost`` of each command's contract, over every run of the profile (a command's
    contract holds that command's calls only; a judge step's replaces its generation's)."""
    wall_s: float | None = None
    """Wall time of this cell's commands, summed over every run of the profile (a resumed
    cell adds the little its commands take to find everything done)."""
    dry_run: dict[str, Any] | None = None


@dataclass
class ProfileOptions:
    """What ``conflicteval profile`` was asked (see :func:`run_profile`)."""

    models: Sequence[str]
    out: Path
    size: str = "small"
    data: Mapping[str, str] = field(default_factory=dict)
    judge_model: str | None = None
    labeler: str = "lexical"
    """ConflictScore's labeler kind (``lexical``, ``nli``, or an ``llm`` kind whose model is
    ``judge_model``); the decomposer is the offline ``sentence`` one."""
    base_url: str | None = None
    max_usd: float | None = None
    dry_run: bool = False
    exporting: bool = False
    """Every command runs inside one batch export (``--batch-export``): a cell whose run is
    not finished waits for batch results."""
    executor: str | None = None
    concurrency: int | None = None
    model_words: Sequence[str] = ()
    """Further model options passed to every command that calls the model under test
    (``--timeout 30``, ``--no-cache``, ...)."""
    benchmarks: Sequence[str] | None = None
    quiet: bool = False


def model_dir(spec: str) -> str:
    """The directory name of a model spec (``openai/gpt-4o`` -> ``openai--gpt-4o``)."""
    out = "".join(c if c.isalnum() or c in "-._" else "-" for c in spec.replace("/", "--"))
    return out.strip("-") or "model"


def _source(dataset: str, given: Mapping[str, str]) -> tuple[Path | None, str | None, str | None]:
    """(path, None, None) of the dataset's file, or (None, reason, how to provide it)."""
    from conflicteval.data.fetch import fetch
    from conflicteval.data.registry import get_entry

    if dataset in given:
        p = Path(given[dataset])
        if not p.is_file():
            return None, f"--data {dataset}={p}: no such file", f"--data {dataset}=PATH"
        return p, None, None
    try:
        get_entry(dataset)
    except (ConflictEvalError, KeyError):
        return None, "not in the dataset registry and not given", f"--data {dataset}=PATH"
    try:
        return Path(fetch(dataset, progress=False).path), None, None
    except ConflictEvalError as exc:
        reason = " ".join(str(exc).split())
        return None, reason, f"conflicteval data fetch {dataset} (or --data {dataset}=PATH)"


def prepare_data(
    suite: Suite,
    benchmarks: Sequence[Benchmark],
    size: str,
    given: Mapping[str, str],
    data_dir: Path,
) -> dict[str, Selection]:
    """Select each dataset's items and write their file into ``data_dir``; a dataset that
    cannot be had gets its reason and the way to provide it."""
    from conflicteval.data.fetch import sha256_file
    from conflicteval.data.registry import get_entry

    wanted = suite.size(size)
    out: dict[str, Selection] = {}
    for bench in benchmarks:
        if bench.dataset in out:
            continue
        sel = Selection(bench.dataset, size, suite.rule, suite.seed)
        out[bench.dataset] = sel
        try:
            sel.pinned_sha256 = get_entry(bench.dataset).sha256
        except (ConflictEvalError, KeyError):
            sel.pinned_sha256 = None
        path, sel.reason, provide = _source(bench.dataset, given)
        sel.provide = bench.provide or provide
        if path is None:
            continue
        items = read_items(bench, path)
        sel.source, sel.source_sha256 = str(path), sha256_file(path)
        stored = bench.ids.get(size)
        known = {i for i, _ in items.ids}
        if stored is not None and all(i in known for i in stored):
            sel.ids, sel.ids_from = list(stored), "suite"
        else:
            sel.ids = select_ids(items.ids, wanted, seed=suite.seed, dataset=bench.dataset)
        subset = write_subset(bench, items, sel.ids, data_dir, f"{bench.dataset}-{size}")
        sel.file, sel.file_sha256 = str(subset), sha256_file(subset)
    return out


def _common(opts: ProfileOptions) -> list[str]:
    words = ["--quiet"]
    if opts.base_url:
        words += ["--base-url", opts.base_url]
    if opts.executor:
        words += ["--executor", opts.executor]
    if opts.concurrency:
        words += ["--concurrency", str(opts.concurrency)]
    words += list(opts.model_words)
    return words


def _score_command(run_dir: Path, opts: ProfileOptions) -> list[str]:
    """``score`` of a ConflictScore cell: its input in the run directory, the offline sentence
    decomposer, the labeler asked for (an llm kind with ``judge_model``)."""
    argv = ["score", "--input", str(run_dir / SCORE_INPUT), "--out", str(run_dir)]
    argv += ["--decomposer", "sentence", "--labeler", opts.labeler]
    if opts.labeler.startswith("llm"):
        if not opts.judge_model:
            raise ConflictEvalError(f"--labeler {opts.labeler} needs --judge-model SPEC")
        return [*argv, "--model", opts.judge_model, *_common(opts)]
    return [*argv, "--quiet"]


def commands_of(
    bench: Benchmark, model: str, run_dir: Path, data_file: str, opts: ProfileOptions
) -> list[list[str]]:
    """The command lines of one cell: the workflow's command, then its judge step (if any)."""
    if bench.scores:
        return [_score_command(run_dir, opts)]
    common = _common(opts)
    first = [*bench.command, bench.data_option, data_file, "--out", str(run_dir), "--model", model]
    cmds = [first + common]
    if bench.judged:
        judge = ["wikicontradict", "judge", "--run", str(run_dir)]
        if opts.judge_model:
            cmds.append([*judge, "--model", opts.judge_model, *common])
        else:  # the offline judge: no model, no base URL, nothing to export
            cmds.append([*judge, "--model", "lexical", "--quiet"])
    return cmds


def _tally(reports: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A dry run's reports (one per model) summed: calls, calls to send, their prompt tokens
    and their estimated dollars online (prompts, and completions at their ``max_tokens``);
    ``usd`` None when a model that would be sent calls has no price."""
    calls = sent = tokens = 0
    usd: float | None = 0.0
    for report in reports:
        calls += int(report.get("calls", 0))
        sent += int(report.get("uncached", 0))
        tokens += int(report.get("uncached_prompt_tokens", 0))
        cost = report.get("cost_usd")
        if cost is None:
            usd = None if report.get("uncached") else usd
        elif usd is not None:
            usd += (cost.get("online_prompt") or 0.0) + (cost.get("online_completion_max") or 0.0)
    return {"calls": calls, "to_send": sent, "prompt_tokens": tokens, "usd": usd}


def _own_cost(cost: dict[str, Any]) -> dict[str, Any]:
    """The calls a command made itself: its contract's cost without the rows another command
    made (``made_by``; a judged WikiContradict contract carries the answers' money, counted
    with ``wikicontradict generate``, beside the grades')."""
    if not any(r.get("made_by") for r in cost.get("per_model", [])):
        return cost
    rows = [r for r in cost.get("per_model", []) if not r.get("made_by")]
    own = dict(cost, per_model=rows)
    for part in ("sent", "replayed"):
        own[part] = {
            key: sum(int(r.get(part, {}).get(key, 0)) for r in rows)
            for key in ("calls", "prompt_tokens", "completion_tokens")
        }
    if cost.get("usd") is not None:
        own["usd"] = round(sum(r.get("usd") or 0.0 for r in rows), 6)
    elif not any(r.get("usd") is None and r.get("sent", {}).get("calls") for r in rows):
        own["usd"], own["unpriced"] = round(sum(r.get("usd") or 0.0 for r in rows), 6), []
    return own


def _contract_cost(run_dir: Path) -> dict[str, Any] | None:
    """The ``cost`` of the contract in ``run_dir`` (None: no contract there)."""
    from conflicteval.results.load import read_summary

    try:
        return read_summary(run_dir).cost.model_dump(mode="json")
    except ConflictEvalError:
        return None


def run_profile(
    opts: ProfileOptions, invoke: Invoke, count: CountCalls, *, suite: Suite | None = None
) -> tuple[list[Cell], dict[str, Selection]]:
    """Run (or, with ``dry_run``, count) every cell of the profile; write ``profile.json``
    (unless a dry run). Returns the cells and the datasets' selections.

    Raises:
        ConflictEvalError: An unknown size or benchmark.
    """
    suite = suite or load_suite()
    chosen = (
        [suite.benchmark(b) for b in opts.benchmarks] if opts.benchmarks else list(suite.benchmarks)
    )
    known = sorted({b.dataset for b in suite.benchmarks})
    unknown = [name for name in opts.data if name not in known]
    if unknown:
        raise ConflictEvalError(
            f"--data {unknown[0]}=...: no benchmark of the suite reads a dataset of that name "
            f"(names: {', '.join(known)})"
        )
    started = time.time()
    tmp = tempfile.TemporaryDirectory(prefix="conflicteval-profile-") if opts.dry_run else None
    try:
        data_dir = Path(tmp.name) if tmp else opts.out / "data"
        selections = prepare_data(suite, chosen, opts.size, opts.data, data_dir)
        cells = _run_cells(opts, invoke, count, chosen, selections)
    finally:
        if tmp is not None:
            tmp.cleanup()
    if not opts.dry_run:
        _write_record(opts, suite, cells, selections, started)
    return cells, selections


def _run_cells(
    opts: ProfileOptions,
    invoke: Invoke,
    count: CountCalls,
    chosen: list[Benchmark],
    sel: dict[str, Selection],
) -> list[Cell]:
    cells: list[Cell] = []
    spent = 0.0
    stop: str | None = None
    for model in opts.models:
        for bench in chosen:
            rel = Path(model_dir(model)) / bench.id
            cell = Cell(bench.id, model, rel.as_posix())
            cells.append(cell)
            s = sel[bench.dataset]
            if not s.available:
                cell.reason = f"data not available: {s.reason}"
                cell.category = "not run: data not available"
                cell.provide = s.provide
                continue
            assert s.file is not None
            cell.commands = commands_of(bench, model, opts.out / rel, s.file, opts)
            if stop is not None:
                cell.reason, cell.category = stop, "not run: stopped"
                continue
            if bench.scores and not _score_input(cell, bench, opts, s.file):
                continue
            if opts.dry_run:
                rc, reports = count(cell.commands[0])
                cell.dry_run = _tally(reports)
                cell.exit_status = rc
                cell.status = "counted" if rc in (0, 1) else "failed"
                if bench.judged and opts.judge_model:
                    cell.reason = "judge calls not counted: they need the generations first"
                continue
            if opts.max_usd is not None:
                est = _tally(count(cell.commands[0])[1])
                cell.dry_run = est
                if est["usd"] is None:
                    stop = cell.reason = f"--max-usd {opts.max_usd:g}: {model} has no price"
                    cell.category = "not run: stopped"
                    continue
                if spent + est["usd"] > opts.max_usd:
                    stop = cell.reason = (
                        f"stopped before the spend passed --max-usd {opts.max_usd:g} "
                        f"(spent ${spent:.4f}, this benchmark estimated ${est['usd']:.4f}); "
                        "run the same command with a higher cap to go on"
                    )
                    cell.category = "not run: stopped"
                    continue
            _run_cell(cell, invoke, opts)
            spent += sum(c.get("usd") or 0.0 for c in cell.costs)
            if cell.exit_status == 130:
                stop = "interrupted"
    return cells


def _score_input(cell: Cell, bench: Benchmark, opts: ProfileOptions, data: str) -> bool:
    """Write a ConflictScore cell's input from the answers of the cell it scores; False (the
    cell not run, with the reason) when there are none yet."""
    from .derived import write_score_input

    assert bench.scores is not None
    source = opts.out / model_dir(cell.model) / bench.scores
    if opts.dry_run:
        cell.reason = f"not counted: it scores the answers of {bench.scores}, made first"
        cell.category = "not run: dry run"
        return False
    try:
        write_score_input(bench.scores, source, data, opts.out / cell.run / SCORE_INPUT)
    except ConflictEvalError as exc:
        cell.reason = f"no answers of {bench.scores} to score: {exc}"
        cell.category = "not run: no answers to score"
        return False
    return True


def _finished(run_dir: Path) -> bool:
    from conflicteval.results.load import read_summary

    try:
        return read_summary(run_dir).status == "finished"
    except ConflictEvalError:
        return False


def _run_cell(cell: Cell, invoke: Invoke, opts: ProfileOptions) -> None:
    started = time.perf_counter()
    try:
        _run_commands(cell, invoke, opts)
    finally:
        cell.wall_s = round(time.perf_counter() - started, 3)


def _run_commands(cell: Cell, invoke: Invoke, opts: ProfileOptions) -> None:
    run_dir = opts.out / cell.run
    for argv in cell.commands:
        before = (
            (run_dir / "summary.json").stat().st_mtime_ns
            if (run_dir / "summary.json").exists()
            else None
        )
        rc, error = invoke(argv, opts.quiet)
        cell.exit_status = rc
        written = (run_dir / "summary.json").exists() and (
            (run_dir / "summary.json").stat().st_mtime_ns != before
        )
        cost = _contract_cost(run_dir) if written else None
        if cost is not None:  # this command's calls, read from the contract it wrote
            cell.costs.append(_own_cost(cost))
        if rc == 3:
            cell.status, cell.reason = "pending", "calls wait for batch results"
            return
        if rc >= 2:
            cell.status, cell.reason = "failed", error or f"exit status {rc}"
            return
    cell.status = "ran"
    if opts.exporting and not _finished(opts.out / cell.run):
        cell.status, cell.reason = "pending", "calls wait for batch results"
        return
    if cell.exit_status == 1:
        cell.reason = "some items failed (kept and counted in its contract)"


def _write_record(
    opts: ProfileOptions,
    suite: Suite,
    cells: list[Cell],
    selections: dict[str, Selection],
    started: float,
) -> None:
    from conflicteval._atomic import atomic_write_text

    try:  # the time each cell took in the profile's earlier runs
        before = json.loads((opts.out / PROFILE_FILE).read_text(encoding="utf-8"))["cells"]
        spent = {(c["model"], c["benchmark"]): c.get("wall_s") or 0.0 for c in before}
        costs = {(c["model"], c["benchmark"]): list(c.get("costs") or []) for c in before}
    except (OSError, ValueError, KeyError, TypeError):
        spent, costs = {}, {}
    for cell in cells:
        earlier = spent.get((cell.model, cell.benchmark), 0.0)
        if cell.wall_s is not None or earlier:
            cell.wall_s = round((cell.wall_s or 0.0) + earlier, 3)
        cell.costs = costs.get((cell.model, cell.benchmark), []) + cell.costs
    record = {
        "suite": suite.schema,
        "size": opts.size,
        "models": list(opts.models),
        "judge": opts.judge_model or "lexical",
        "labeler": opts.labeler,
        "started": started,
        "finished": time.time(),
        "selections": {k: asdict(v) for k, v in selections.items()},
        "cells": [asdict(c) for c in cells],
    }
    opts.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(opts.out / PROFILE_FILE, json.dumps(record, indent=2) + "\n")
