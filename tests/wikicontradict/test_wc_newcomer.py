"""What a new user meets in a WikiContradict run, run as a user runs it (a subprocess):
a default report that fits 100 columns, "did you mean" for unknown rows and options, no
"0 model calls" line from a report, tokens sent vs replayed, cost, and the per-item table."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer
from conflicteval.wikicontradict import build_item_table
from conflicteval.wikicontradict.item_table import ITEM_COLUMNS

JUDGE_REPLY = "comment: The response names one answer.\nevaluation: partially correct"


def reply(body: dict[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    if str(messages[-1]["content"]).startswith("Please evaluate"):
        return JUDGE_REPLY
    return "One source says yes; however, another passage says no."


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    return subprocess.run(
        [sys.executable, "-m", "conflicteval", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAICompatServer]:
    with OpenAICompatServer(replies=reply) as s:
        yield s


@pytest.fixture()
def run(wc_csv: Path, tmp_path: Path, server: OpenAICompatServer) -> Path:
    """Two models (one priced, one not) x templates 1 and 5 x 3 instances, judged by gpt-4o."""
    out = tmp_path / "run"
    models = ["--model", "openai/gpt-4o-mini", "--model", "openai/a-long-local-model-name-v2"]
    common = ["--base-url", server.base_url, "--quiet"]
    gen = ["wikicontradict", "generate", "--data", str(wc_csv), *models, *common]
    assert main([*gen, "--templates", "1,5", "--limit", "3", "--out", str(out)]) == 0
    judge = ["wikicontradict", "judge", "--run", str(out), "--model", "openai/gpt-4o", *common]
    assert main(judge) == 0
    # graded again from scratch: every judge reply is replayed from the response cache
    assert main([*judge, "--restart"]) == 0
    return out


def test_default_report_fits_100_columns_and_wide_layouts_stay(run: Path) -> None:
    out = cli("wikicontradict", "report", "--run", str(run))
    assert out.returncode == 0, out.stderr
    widths = [len(line) for line in out.stdout.splitlines()]
    assert max(widths) <= 100, max(widths)
    assert "model" in out.stdout and "|---" not in out.stdout  # a text table
    md = cli("wikicontradict", "report", "--run", str(run), "--wide")
    assert "| model | subset | C % | PC % | IC % | failed | n |" in md.stdout
    table5 = ["wikicontradict", "report", "--run", str(run), "--layout", "table5"]
    fitted = cli(*table5)
    assert fitted.returncode == 0 and max(len(x) for x in fitted.stdout.splitlines()) <= 100
    wide = cli(*table5, "--wide")
    assert wide.returncode == 0 and max(len(x) for x in wide.stdout.splitlines()) > 100


def test_report_calls_nothing_and_says_no_model_calls(run: Path) -> None:
    out = cli("wikicontradict", "report", "--run", str(run))
    assert out.returncode == 0
    assert "model calls" not in out.stderr and "12 generated rows: 12 ok" in out.stderr


def test_report_footer_splits_tokens_and_shows_money(run: Path, server: OpenAICompatServer) -> None:
    out = cli("wikicontradict", "report", "--run", str(run)).stdout
    footer = " ".join(out[out.index("Tokens:") :].split())
    assert "prompt + " in footer and "tokens sent" in footer
    # the judge's second grading replayed every reply from the cache: sent 0, replayed all
    assert "judge 12 calls, 0 prompt + 0 completion tokens sent (" in footer
    assert "replayed from the cache" in footer
    assert "Cost: est. $" in footer and "openai/gpt-4o-mini: $0.15 prompt" in footer
    assert "list prices, table last checked" in footer
    assert "no price known for openai/a-long-local-model-name-v2" in footer
    data = json.loads(cli("wikicontradict", "report", "--run", str(run), "--format", "json").stdout)
    assert data["cost"]["usd"] > 0 and data["cost"]["prices_as_of"]
    assert data["cost"]["no_price_known"] == ["openai/a-long-local-model-name-v2"]


@pytest.mark.parametrize(
    ("match", "expected"),
    [
        ("openai/gpt-4o-mini=GPT4", "unknown table5 row 'GPT4'; did you mean 'GPT-4'?"),
        ("openai/gpt-4o-mimi=GPT-4", "did you mean 'openai/gpt-4o-mini'?"),
    ],
)
def test_match_with_an_unknown_name_is_refused_with_the_nearest(
    run: Path, match: str, expected: str
) -> None:
    out = cli(
        "wikicontradict", "report", "--run", str(run), "--compare", "table5", "--match", match
    )
    assert out.returncode == 2, out.stderr
    assert expected in out.stderr and "Traceback" not in out.stderr
    assert out.stdout == ""  # refused before any report


def test_match_without_compare_is_refused(run: Path) -> None:
    out = cli("wikicontradict", "report", "--run", str(run), "--match", "a=GPT-4")
    assert out.returncode == 2 and "add --compare" in out.stderr


def test_mistyped_option_shows_the_sub_commands_usage(run: Path) -> None:
    out = cli("wikicontradict", "report", "--run", str(run), "--formt", "csv")
    assert out.returncode == 2
    assert out.stderr.startswith("usage: conflicteval wikicontradict report")
    assert "unrecognized arguments: --formt csv (did you mean --format?)" in out.stderr
    bad = cli("wikicontradict", "report", "--run", str(run), "--format", "mdd")
    assert bad.returncode == 2 and "did you mean 'md'?" in bad.stderr
    assert bad.stderr.startswith("usage: conflicteval wikicontradict report")


def test_unknown_template_names_the_nearest(wc_csv: Path) -> None:
    out = cli("wikicontradict", "render", "--data", str(wc_csv), "--template", "5.22")
    assert out.returncode == 2 and "did you mean '5.2'?" in out.stderr


def test_per_item_table_from_the_cli(run: Path) -> None:
    out = cli("wikicontradict", "report", "--run", str(run), "--per-item", "--format", "csv")
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) == 12
    assert list(rows[0]) == list(ITEM_COLUMNS)
    first = rows[0]
    assert first["verdict"] == "partially correct"
    assert first["judge_comment"] == "The response names one answer."
    assert first["response"] == "One source says yes; however, another passage says no."
    assert " | " in first["gold_answers"] and first["question"]
    assert int(first["generation_prompt_tokens"]) > 0 and int(first["judge_prompt_tokens"]) > 0
    priced = [r for r in rows if r["model"] == "openai/gpt-4o-mini"]
    unpriced = [r for r in rows if r["model"] != "openai/gpt-4o-mini"]
    assert all(float(r["cost_usd"]) > 0 for r in priced)
    assert all(r["cost_usd"] == "" for r in unpriced)  # no price known: empty, never 0
    lines = cli("wikicontradict", "report", "--run", str(run), "--per-item", "--format", "json")
    objs = [json.loads(x) for x in lines.stdout.splitlines()]
    assert len(objs) == 12 and objs[0]["gold_answers"] == first["gold_answers"].split(" | ")
    md = cli("wikicontradict", "report", "--run", str(run), "--per-item")
    assert md.returncode == 2 and "--format csv" in md.stderr


def test_per_item_table_keeps_failed_and_ungraded_rows(run: Path, tmp_path: Path) -> None:
    table = build_item_table(run, tmp_path / "no-judgements.jsonl")
    assert {r.status for r in table.rows} == {"ungraded"}
    assert all(r.verdict is None and r.error for r in table.rows)


def test_per_item_table_to_pandas(run: Path) -> None:
    pytest.importorskip("pandas", reason="to_pandas needs the pandas extra")
    frame = build_item_table(run).to_pandas()
    assert list(frame.columns) == list(ITEM_COLUMNS) and len(frame) == 12
    assert set(frame["template"]) == {"1", "5"}
