"""``conflicteval wikicontradict ...``: stats, render, generate, judge, report, calibrate.

Exit codes: 0 when everything finished, 1 when some items failed (they are
kept in the output files and counted in the summary), 2 for bad input (the
top-level command prints the error).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conflicteval.cli.batch import batch_command
from conflicteval.cli.commands import area_register
from conflicteval.cli.common import (
    finish,
    limited,
    model_from_args,
    progress_from_args,
    run_options,
)
from conflicteval.cli.data import add_data_option, record_data_source, resolve_data_arg
from conflicteval.cli.options import (
    add_batch_options,
    add_json,
    add_limit,
    add_model_options,
    add_out,
    add_run_input,
    add_run_options,
)
from conflicteval.cli.terminal import add_wide, for_terminal
from conflicteval.cli.wikicontradict_report import aliases_from_args, check_aliases, report_command
from conflicteval.suggest import did_you_mean

DATA_HELP = "CSV release, nested JSON or Label Studio export"

if TYPE_CHECKING:  # imported where used: the command line starts without them
    from conflicteval.runs import BatchResult


register = area_register(__name__)


def add_actions(sub: argparse._SubParsersAction) -> None:
    """Add the ``wikicontradict`` actions: stats, render, generate, judge, report, calibrate."""
    p = sub.add_parser("stats", help="Table 1 counts of a data file")
    add_data_option(p, "wikicontradict", what=DATA_HELP)
    add_json(p)
    p.set_defaults(func=_stats)
    _add_render(sub).set_defaults(func=_render)
    _add_generate(sub).set_defaults(func=batch_command(_generate))
    _add_judge(sub).set_defaults(func=batch_command(_judge))
    _add_report(sub).set_defaults(func=_report)
    _add_calibrate(sub).set_defaults(func=batch_command(_calibrate))


def _add_render(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("render", help="print a rendered prompt and its expected answers")
    add_data_option(p, "wikicontradict", what=DATA_HELP)
    p.add_argument("--template", required=True, help="1, 2, 3, 4, 5, 5.1, 5.2, 5.3 or 5.4")
    p.add_argument("--id", default=None, help="instance id (default: the first instance)")
    _template_options(p)
    return p


def _add_generate(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("generate", help="generate responses (resumable) into DIR")
    add_data_option(p, "wikicontradict", what=DATA_HELP)
    p.add_argument("--templates", default="1,2,3,4,5", help="comma-separated (default 1,2,3,4,5)")
    add_out(p, "run directory (resumable)")
    add_limit(p, "instances")
    add_model_options(
        p,
        what="model to test",
        required=True,
        repeat=True,
        concurrency=16,
        concurrency_help="requests in flight at once",
    )
    add_run_options(p)
    _template_options(p)
    add_batch_options(p)
    return p


def _add_judge_model(p: argparse.ArgumentParser) -> None:
    add_model_options(
        p,
        what="the judge: 'lexical' (offline baseline) or a judge model",
        required=True,
        metavar="SPEC|lexical",
        concurrency=16,
        concurrency_help="judge calls in flight at once",
        old=("--judge",),
    )


def _add_judge(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("judge", help="grade a run's generations into judgements.jsonl")
    add_run_input(p, "run directory (from 'generate')", required=True)
    add_out(
        p,
        "judgements file (default RUN/judgements.jsonl)",
        required=False,
        metavar="FILE",
        old=("--output",),
    )
    _add_judge_model(p)
    add_run_options(p)
    add_batch_options(p)
    return p


def _add_report(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("report", help="Table 2/Table 5 style report of a judged run")
    add_run_input(p, "run directory (judged)", required=True)
    p.add_argument(
        "--format",
        choices=("md", "csv", "json"),
        default="md",
        help="output format (md; on stdout its tables are fitted to 100 columns unless --wide)",
    )
    p.add_argument(
        "--layout",
        choices=("compact", "table5", "table2"),
        default="compact",
        help="for md: 'compact' (default; fits 100 columns: a row per model and subset), or the "
        "paper's wide layouts 'table5' (a row per model) and 'table2' (a column per model and "
        "subset)",
    )
    p.add_argument(
        "--per-item",
        action="store_true",
        help="one flat row per generated response instead of the aggregate tables: id, "
        "template, question, response, verdict, judge comment, gold answers, tokens, cost "
        "(--format csv or json; json is JSON lines)",
    )
    p.add_argument("--judgements", default=None, help="default RUN/judgements.jsonl")
    add_out(p, "write to this file instead of stdout", required=False, metavar="FILE")
    add_wide(p)
    p.add_argument(
        "--plot",
        default=None,
        metavar="FILE",
        help="also save the report page's verdict chart, with the paper's rows: FILE.svg, or "
        "FILE.png (drawn by the operating system's Chromium)",
    )
    p.add_argument(
        "--compare",
        metavar="TABLE|RUN",
        default=None,
        help="a published table (table2, appendix_b, table4, table5): show the paper's figures "
        "beside the measured ones; or another run directory: each percentage's difference "
        "with its 95%% interval, and whether it is larger than the interval (md or json)",
    )
    _match_option(p)
    return p


def _add_calibrate(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("calibrate", help="judge agreement with human labels and worked examples")
    p.add_argument(
        "--labels",
        default=None,
        metavar="PATH",
        help="human labels (JSONL/CSV, or the HumanEval JSON: 'conflicteval data fetch "
        "wikicontradict-humaneval' gets the paper's); default: none, only the judge prompt's "
        "eight worked examples are graded",
    )
    p.add_argument(
        "--data",
        default=None,
        metavar="PATH",
        help="WikiContradict data file, for label rows without question/answers",
    )
    add_json(p)
    add_wide(p)
    _add_judge_model(p)
    add_run_options(p, resumable=False)
    p.add_argument(
        "--compare",
        choices=("table3",),
        default=None,
        help="show the paper's Table 3 (published judges) beside the measured agreement",
    )
    _match_option(p)
    add_batch_options(p)
    return p


def _match_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--match",
        action="append",
        default=[],
        metavar="MODEL=PAPER_ROW",
        help="pair a measured model (or judge) with a row of the paper's table "
        "(repeatable; default: matched by name)",
    )


def _template_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--templates-file", default=None, help="JSON file overriding template texts")
    p.add_argument(
        "--revised",
        default=None,
        help="JSONL/CSV of id, revised_passage_1, revised_passage_2 (templates 5.3/5.4)",
    )


def _load(args: argparse.Namespace) -> list[Any]:
    from conflicteval.wikicontradict.data import add_revisions, load_revisions, load_wikicontradict

    source = resolve_data_arg(args, "wikicontradict")
    args.data_source = source
    instances = load_wikicontradict(source.path)
    if getattr(args, "revised", None):
        instances = add_revisions(instances, load_revisions(args.revised))
    return instances


def _template_set(args: argparse.Namespace) -> Any:
    from conflicteval.wikicontradict.templates import TemplateSet, default_templates

    path = getattr(args, "templates_file", None)
    return TemplateSet.from_file(path) if path else default_templates()


def _model(spec: str, args: argparse.Namespace, concurrency: int) -> Any:
    # one call per item: the model's calls in flight follow --concurrency unless
    # --model-concurrency says otherwise (also what the Ray line reports per actor)
    args.default_model_concurrency = concurrency
    return model_from_args(args, spec, max_concurrency=concurrency)


def _err(text: str) -> None:
    print(text, file=sys.stderr)


def _stats(args: argparse.Namespace) -> int:
    from conflicteval.wikicontradict.data import load_wikicontradict, summary

    source = resolve_data_arg(args, "wikicontradict")
    counts = summary(load_wikicontradict(source.path))
    if args.json:
        print(json.dumps(counts, indent=2))
        return 0
    total = counts["total"] or 1

    def line(name: str, key: str) -> str:
        return f"  {name:<40}{counts[key]:>5}  ({100 * counts[key] / total:.0f}%)"

    print(f"WikiContradict: {source.path}")
    print(f"  {'instances':<40}{counts['total']:>5}")
    print("question type (heuristic: both answers Yes/No)")
    print(line("yes/no questions", "yes_no"))
    print(line("other (wh-) questions", "wh"))
    print("contradiction type")
    print(line("explicit", "explicit"))
    print(line("implicit", "implicit"))
    print("passages")
    print(line("same passage", "same_passage"))
    print(line("different passages", "different_passage"))
    print(line("'Same' yet texts differ (both shown)", "same_passage_differing_text"))
    print(line("with revised passages (5.3/5.4)", "with_revised_passages"))
    return 0


def _render(args: argparse.Namespace) -> int:
    from conflicteval.errors import ConflictEvalError
    from conflicteval.wikicontradict.templates import render

    instances = _load(args)
    if args.id is None:
        inst = instances[0]
        _err(f"(no --id: showing the first instance, id {inst.id})")
    else:
        found = [i for i in instances if i.id == str(args.id)]
        if not found:
            raise ConflictEvalError(f"no instance with id {args.id!r} in {args.data_source.path}")
        inst = found[0]
    tset = _template_set(args)
    if args.template not in tset:
        raise ConflictEvalError(
            f"unknown template {args.template!r}{did_you_mean(args.template, tset.names())}; "
            f"available: {', '.join(tset.names())}"
        )
    r = render(inst, args.template, tset)
    print(r.prompt)
    _err(f"\n--- template {r.template} ({r.template_version}), instance {r.instance_id}")
    _err("expected answers: " + " | ".join(r.answers))
    return 0


def _report(args: argparse.Namespace) -> int:
    # a report calls no model: no "this run: 0 model calls" line
    return finish(report_command(args), "generated rows", calls=False)


def _finish(result: BatchResult, what: str, path: Path, run_dir: str) -> int:
    _err(f"written: {path}")
    return finish(result, what, run_dir=run_dir)


def _generate(args: argparse.Namespace) -> int:
    from conflicteval._sync import run_sync
    from conflicteval.wikicontradict.generate import (
        GENERATIONS_FILE,
        generate,
    )

    instances = _load(args)
    instances = limited(instances, args.limit, "instances")
    templates = [t.strip() for t in args.templates.split(",") if t.strip()]
    models = [_model(spec, args, args.concurrency) for spec in args.model]
    tset = _template_set(args)
    result = run_sync(
        generate(
            instances,
            templates,
            models,
            args.out,
            template_set=tset,
            concurrency=args.concurrency,
            **run_options(args),
        )
    )
    from conflicteval.models.answerers import writes_outputs

    if not writes_outputs():  # a dry run: nothing written, its counts are the report
        return 0
    record_data_source(args.out, args.data_source)
    from conflicteval.results.build import timing_of
    from conflicteval.results.kinds_answers import write_wikicontradict_generated

    write_wikicontradict_generated(args.out, result, models, **timing_of(args))  # the contract
    status = _finish(result, "rows generated", Path(args.out) / GENERATIONS_FILE, args.out)
    # the answers are not graded yet: name the step that grades them
    run = shlex.quote(str(args.out))
    _err(
        f"next: grade them with the paper's judge prompt: conflicteval wikicontradict judge "
        f"--run {run} --model SPEC (the paper's judges: Llama-3-70b-instruct, GPT-4; or "
        f"--model lexical, the offline baseline), then conflicteval wikicontradict report "
        f"--run {run}"
    )
    return status


def _judge(args: argparse.Namespace) -> int:
    from conflicteval._sync import run_sync
    from conflicteval.wikicontradict.generate import read_generations
    from conflicteval.wikicontradict.judge import JUDGEMENTS_FILE, Judge

    judge_model = (
        "lexical" if args.model == "lexical" else _model(args.model, args, args.concurrency)
    )
    judge = Judge(judge_model)
    output = Path(args.out) if args.out else Path(args.run) / JUDGEMENTS_FILE
    generations = read_generations(args.run)
    if not generations:  # grades of nothing would read as a finished run
        from conflicteval.errors import DataError
        from conflicteval.wikicontradict.generate import GENERATIONS_FILE

        raise DataError(
            Path(args.run) / GENERATIONS_FILE,
            None,
            None,
            "no generations (an empty file): run 'wikicontradict generate' first",
        )
    rows = [r for r in generations if r.status == "ok"]
    if any(r.template in ("5.2", "5.4") for r in rows) and judge.model is not None:
        _err(
            "note: the judge prompt grades answers; templates 5.2/5.4 ask whether the context "
            "conflicts, which the paper graded by hand only"
        )
    result = run_sync(
        judge.grade_run(
            args.run,
            output=output,
            concurrency=args.concurrency,
            **run_options(args),
        )
    )
    from conflicteval.models.answerers import writes_outputs

    if not writes_outputs():  # a dry run: nothing written, its counts are the report
        return 0
    from conflicteval.results.build import timing_of
    from conflicteval.results.kinds_answers import write_wikicontradict_judged

    write_wikicontradict_judged(args.run, result, judge, **timing_of(args))  # the run contract
    return _finish(result, f"rows graded by {judge.name}", output, args.run)


def _calibrate(args: argparse.Namespace) -> int:
    from conflicteval._sync import run_sync
    from conflicteval.wikicontradict.calibrate import calibrate, load_human_labels
    from conflicteval.wikicontradict.data import load_wikicontradict
    from conflicteval.wikicontradict.judge import Judge
    from conflicteval.wikicontradict.published import (
        compare_calibration,
        comparison_json,
        comparison_markdown,
    )

    aliases = aliases_from_args(args)
    labels = load_human_labels(args.labels) if args.labels else None
    # the data file's provenance line, as every command that reads a dataset prints it
    instances = (
        load_wikicontradict(resolve_data_arg(args, "wikicontradict").path) if args.data else None
    )
    judge_model = (
        "lexical" if args.model == "lexical" else _model(args.model, args, args.concurrency)
    )
    judge = Judge(judge_model)
    if aliases:  # before any call
        check_aliases(aliases, [judge.name], args.compare)
    result, batches = run_sync(
        calibrate(
            judge,
            labels,
            instances=instances,
            labels_path=str(args.labels),
            concurrency=args.concurrency,
            progress=progress_from_args(args),
        )
    )
    rows = compare_calibration(result, args.compare, aliases=aliases) if args.compare else []
    if args.json:
        if rows:
            payload = json.loads(result.model_dump_json())
            payload["comparison"] = comparison_json(rows)
            print(json.dumps(payload, indent=2, ensure_ascii=False))
        else:
            print(result.model_dump_json(indent=2))
    else:
        text = result.to_markdown() + ("\n" + comparison_markdown(rows) if rows else "")
        sys.stdout.write(for_terminal(text, args))
        if judge.model is not None:
            print(
                "\nnote: the eight worked examples are part of the judge prompt itself; "
                "agreement on them is a sanity check, not an accuracy estimate."
            )
    status = 0
    for batch in batches:
        status = max(status, finish(batch, "labels graded"))
    return status
