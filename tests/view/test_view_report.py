"""The report page without a browser: readers of every run kind, escaping, intervals,
comparison, the command line and the notebook display."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.errors import ConflictEvalError
from conflicteval.view import Report, detect_kind, load_run, render_report, view, write_report
from conflicteval.view.page import json_for_script, script_hash

from .runs import (
    HOSTILE,
    bench_items,
    detect_run,
    feverous_run,
    regenerate_run,
    reports_run,
    score_run,
)

BLOB = re.compile(r"<script type='application/json' id='ce-data'>(.*?)</script>", re.S)
SCRIPTS = re.compile(r"<script>(.*?)</script>", re.S)


def blob(html: str) -> dict[str, Any]:
    """The page's item data, parsed back."""
    m = BLOB.search(html)
    assert m is not None
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def test_json_for_script_leaves_no_markup_and_round_trips() -> None:
    value = {"t": f"a {HOSTILE} <!-- & \u2028\u2029 >", "n": [1, 2.5, None]}
    text = json_for_script(value)
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in text
    assert json.loads(text) == value


def test_score_run_report_escapes_hostile_text(tmp_path: Path) -> None:
    run = score_run(tmp_path)
    assert detect_kind(run).name == "conflictscore"
    html = render_report(run)
    # the reply and a document title hold </script><script>...: never as markup
    assert HOSTILE not in html and "<script>document" not in html
    assert len(SCRIPTS.findall(html)) == 1  # the page's own script, and only it
    assert script_hash(SCRIPTS.findall(html)[0]) in html  # allowed by hash, nothing else
    data = blob(html)
    items = data["runs"][0]["items"]
    assert [it["id"] for it in items] == ["r0", "r1", "r2", "r3"]
    hostile = next(it for it in items if HOSTILE in (it["response"] or ""))
    assert "\u2028" in hostile["response"]  # kept as text, escaped in the blob only
    titles = [d["title"] for d in hostile["documents"]]
    assert titles == ["Bridge history", f"Bridge {HOSTILE}", "Steel"]
    grid = items[0]["grid"]
    assert grid["docs"] == ["a", "b", "c"] and len(grid["cells"]) == len(grid["claims"])
    assert {c[0] for row in grid["cells"] for c in row} <= {"S", "C", "I"}
    # documents are stored once: the same text in every item is one entry of "texts"
    assert len(data["texts"]) == 3
    assert "mean CS-C" in html and "n = 4" in html and "sha256" in html


def test_interval_is_shown_when_the_run_records_one(tmp_path: Path) -> None:
    run = score_run(tmp_path)
    html = render_report(run)
    assert "[0.100, 0.400]" not in html
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    summary["mean_cs_c_ci"] = [0.1, 0.4]
    (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    html = render_report(run)
    assert "[0.100, 0.400]" in html and "the interval the run recorded" in html


def test_failures_are_counted_and_shown_in_place(tmp_path: Path) -> None:
    run = score_run(tmp_path)
    lines = (run / "checkpoint.jsonl").read_text(encoding="utf-8").strip("\n").split("\n")
    bad = json.loads(lines[1])
    bad.update(status="parse_error", result=None, error="no label in reply <b>x</b>", raw="??")
    lines[1] = json.dumps(bad)
    (run / "checkpoint.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rv = load_run(run)
    assert rv.counts["parse_error"] == 1 and rv.counts["ok"] == 3
    assert rv.failures == [("no label in reply <b>x</b>", 1, "r1")]
    html = render_report(rv)
    assert "no label in reply &lt;b&gt;x&lt;/b&gt;" in html  # the summary's reasons, escaped
    item = blob(html)["runs"][0]["items"][1]
    assert item["status"] == "parse_error" and item["raw"] == "??"


def test_wikicontradict_run(tmp_path: Path, wc_csv: Path, openai_server: Any) -> None:
    from .runs import wikicontradict_run

    run = wikicontradict_run(tmp_path, wc_csv, openai_server)
    rv = load_run(run)
    assert rv.kind == "wikicontradict" and rv.facets == ["model", "template", "verdict", "type"]
    assert len(rv.items) == 6
    item = rv.items[0]
    assert item["judge"]["verdict"] in ("correct", "partially correct", "incorrect")
    assert item["gold"] and item["documents"][0]["title"]  # passages from the recorded data
    html = render_report(rv)
    assert "WikiContradict verdicts per template, measured beside published" in html
    assert "paper: GPT-4 (ref.)" in html  # the measured model is unknown to the paper
    t5 = next(h for h in rv.headlines if h.name == "correct, T5")
    assert t5.n == 3 and t5.value is not None
    # every share carries the report's interval (percent, failed rows in n)
    from conflicteval.wikicontradict.report import share_ci

    correct = round(t5.value * 3 / 100)
    assert [t5.low, t5.high] == share_ci(correct, 3)
    assert all(h.low is not None and h.high is not None for h in rv.headlines)
    assert item["key"] == "t2|" + item["id"].rsplit("|", 1)[1]


@pytest.mark.parametrize("which", ["detect", "feverous", "reports", "regenerate"])
def test_other_protocol_runs(
    which: str, tmp_path: Path, shared_data: Path, openai_server: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    if which == "detect":
        run = detect_run(tmp_path)
    elif which == "feverous":
        run = feverous_run(tmp_path, shared_data / "feverous" / "feverous_s_dev_first5.json")
    elif which == "reports":
        run = reports_run(tmp_path, openai_server)
    else:
        run = regenerate_run(tmp_path, openai_server)
    rv = load_run(run)
    assert rv.kind == which
    assert rv.items and rv.counts["total"] == len(rv.items) and rv.charts and rv.headlines
    html = render_report(rv)
    assert HOSTILE not in html
    for chart in rv.charts:
        assert "<title>" in chart.svg and "n = " in chart.svg
    if which == "detect":
        assert rv.items[0]["grid"]["claims"] == ["The Steelers have the most titles."]
        noconf = next(it for it in rv.items if it["id"] == "macnoise-nq:1:noconf")
        assert noconf["grid"]["gold"] == [["S", "I"]]  # gold beside the labels, per cell
        assert "paper, GPT-4.1 (Table 2)" in html
    if which == "reports":
        assert rv.items[0]["grid"]["cells"] and rv.items[0]["documents"]
    # every headline number shown carries its interval
    assert all(
        h.low is not None and h.high is not None for h in rv.headlines if h.value is not None
    )


def test_generic_reader_and_unknown_directories(tmp_path: Path) -> None:
    run = score_run(tmp_path)
    (run / "scores.jsonl").unlink()
    assert detect_kind(run).name == "run"  # a checkpoint without its kind's files
    assert load_run(run).items[0]["fields"]
    with pytest.raises(ConflictEvalError, match="not a run directory of a known kind"):
        detect_kind(tmp_path)
    with pytest.raises(ConflictEvalError, match="unknown run kind"):
        load_run(run, "nope")


def test_compare_marks_differences(tmp_path: Path) -> None:
    a = score_run(tmp_path, "a", n=4)
    b = score_run(tmp_path, "b", n=3)
    html = render_report([a, b])
    rows = {r[0]: r for r in blob(html)["compare"]["rows"]}
    assert rows["r0"][2] is False and rows["r3"] == ["r3", [rows["r3"][1][0], None], True]
    assert "id='view-compare'" in html
    # the difference is tested item by item by the result contract's one paired comparison
    from conflicteval.results import compare

    cmp = compare(a, b, allow_different_data=True)  # 4 and 3 items of two data files
    assert "the runs read different data" in html  # said on the page, items paired by id
    assert "id='compare-paired'" in html and f"{cmp.shared} items paired" in html
    assert cmp.shared == 3 and cmp.metrics
    for m in cmp.metrics:
        assert f"<td>{m.n}</td>" in html and f"<td>{m.verdict}</td>" in html
    assert "within the intervals" not in html  # no unpaired interval-overlap verdict any more
    # a run the contract cannot pair (here: its summary.json is gone) says why, no verdict
    (b / "summary.json").unlink()
    html = render_report([a, b])
    assert "not compared &mdash;" in html and "items paired" not in html


def test_cli_writes_the_report_and_refuses_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = score_run(tmp_path)
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1] == f"open the report: conflicteval view {run}"
    assert main(["view", str(run)]) == 0
    assert (run / "report.html").is_file() and "report.html" in capsys.readouterr().out
    assert main(["view", str(run), str(run), "-o", str(tmp_path / "two.html")]) == 0
    assert "id='view-compare'" in (tmp_path / "two.html").read_text(encoding="utf-8")
    capsys.readouterr()  # the elapsed time of the command before
    assert main(["view", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "missing" in err and len(err.splitlines()) == 1
    assert main(["view"]) == 2


def test_demo_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo.html"
    assert main(["view", "--demo", "-o", str(out)]) == 0
    items = blob(out.read_text(encoding="utf-8"))["runs"][0]["items"]
    assert [it["id"] for it in items] == ["takes-a-side", "hedges", "documents-agree"]
    assert all(it["title"] and it["question"] and it["grid"] for it in items)
    assert main(["demo"]) == 0
    assert "conflicteval view --demo" in capsys.readouterr().out.splitlines()[-1]


def test_the_demo_run_shows_its_headline_numbers_with_intervals(tmp_path: Path) -> None:
    """The demo writes the files ``score --out`` writes, so its means carry their intervals."""
    from conflicteval.view.demo import write_demo_run

    rv = load_run(write_demo_run(tmp_path / "demo"))
    means = {h.name: h for h in rv.headlines if h.name.startswith("mean CS-")}
    assert set(means) == {"mean CS-C", "mean CS-R"}
    for h in means.values():
        assert h.value is not None and h.low is not None and h.high is not None
        assert h.low <= h.value <= h.high


def test_python_api_and_notebook_display(tmp_path: Path) -> None:
    run = score_run(tmp_path)
    path = write_report(run, tmp_path / "r.html", title="My <run>")
    assert "<title>My &lt;run&gt;</title>" in path.read_text(encoding="utf-8")
    report = view(run)
    assert isinstance(report, Report) and report.html.startswith("<!DOCTYPE html>")
    shown = report._repr_html_()
    assert shown.startswith('<iframe srcdoc="') and "<script>" not in shown
    assert 'sandbox="allow-scripts"' in shown


def test_a_new_kind_is_one_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import conflicteval.view.kinds as kinds_package
    from conflicteval.view import known_kinds

    plugin = tmp_path / "plugins"
    plugin.mkdir()
    (plugin / "sketch.py").write_text(
        "from conflicteval.view.model import RunView\n"
        "from conflicteval.view.registry import RunKind\n"
        "KIND = RunKind('sketch', 'Sketch run', lambda p: (p / 'sketch.json').exists(),\n"
        "               lambda p: RunView('sketch', 'Sketch run', str(p)), priority=30)\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(kinds_package, "__path__", [*kinds_package.__path__, str(plugin)])
    monkeypatch.delitem(sys.modules, "conflicteval.view.kinds.sketch", raising=False)
    run = tmp_path / "b"
    run.mkdir()
    (run / "sketch.json").write_text("{}", encoding="utf-8")
    assert "sketch" in [k.name for k in known_kinds()]
    assert detect_kind(run).name == "sketch" and load_run(run).kind_title == "Sketch run"
    assert "Sketch run" in render_report(run)


def test_headline_reads_both_interval_forms() -> None:
    from conflicteval.view.common import headline

    h = headline("F1", {"f1": 0.5, "f1_ci": {"low": 0.4, "high": 0.6}}, "f1", n=9)
    assert (h.value, h.low, h.high, h.n) == (0.5, 0.4, 0.6, 9)
    h = headline("EM", {"em": {"value": 40.0, "ci": [30.0, 50.0], "n": 12}}, "em", percent=True)
    assert (h.value, h.low, h.high, h.n, h.percent) == (40.0, 30.0, 50.0, 12, True)
    h = headline("CS-C", {"cs_c": {"value": None, "ci": None, "n": 0}}, "cs_c")
    assert (h.value, h.low, h.n) == (None, None, 0)
    h = headline("acc", {"acc": 0.7}, "acc", n=3)
    assert (h.low, h.high, h.n) == (None, None, 3)  # no interval recorded: its n


def test_ramdocs_run(
    tmp_path: Path, shared_data: Path, openai_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("conflicteval.ramdocs", reason="the RAMDocs protocol is not installed")
    data = shared_data / "ramdocs" / "RAMDocs_test_first30.jsonl"
    if not data.exists():
        pytest.skip(f"{data} not found")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    openai_server.set_replies(lambda body: f"The answer is Paris. {HOSTILE}")
    out = tmp_path / "rd"
    argv = ["ramdocs", "run", "--data", str(data), "--method", "rag", "--model", "openai/m"]
    argv += ["--base-url", openai_server.base_url, "--limit", "4", "--out", str(out), "--quiet"]
    assert main(argv) in (0, 1)
    rv = load_run(out)
    assert rv.kind == "ramdocs" and len(rv.items) == 4 and rv.counts["ok"] == 4
    em = rv.headlines[0]
    assert em.name == "exact match" and em.n == 4 and em.low is not None and em.percent
    assert rv.items[0]["facets"]["outcome"] == "wrong" and rv.items[0]["gold"]
    assert rv.items[0]["documents"] and HOSTILE in rv.items[0]["response"]
    html = render_report(rv)
    assert HOSTILE not in html and "paper: GPT-4o-mini" in html


def test_view_lists_only_failed_or_the_first_items_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import conflicteval.view
    from conflicteval.cli import main

    run = score_run(tmp_path, n=6)
    ck = run / "checkpoint.jsonl"
    lines = ck.read_text(encoding="utf-8").strip("\n").split("\n")
    lines[4] = '{"id":"r4","status":"model_error","result":null,"error":"model error: HTTP 503"}'
    ck.write_text("\n".join(lines) + "\n", encoding="utf-8")

    out = tmp_path / "failed.html"
    assert main(["view", str(run), "--failed-only", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert [it["id"] for it in blob(html)["runs"][0]["items"]] == ["r4"]
    assert "The item list shows 1 of the run&#x27;s 6 items: only the 1 failed items" in html
    assert "<th>total</th><td>6</td>" in html  # the summary still counts every item

    out = tmp_path / "first.html"
    monkeypatch.setattr(conflicteval.view, "LARGE_PAGE", 1000)
    capsys.readouterr()
    assert main(["view", str(run), "--max-items", "2", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert [it["id"] for it in blob(html)["runs"][0]["items"]] == ["r0", "r1"]
    assert "the first 2 of them (--max-items 2)" in html
    assert "list fewer items with --max-items N or --failed-only" in capsys.readouterr().err

    assert main(["view", str(run), "--max-items", "0", "-o", str(out)]) == 2
    assert "--max-items must be at least 1" in capsys.readouterr().err


def test_regeneration_chart_names_roles_and_draws_the_papers_values(
    tmp_path: Path, openai_server: Any
) -> None:
    rv = load_run(regenerate_run(tmp_path, openai_server))
    chart = rv.charts[0].svg
    assert "judge: openai/m" in chart and "answering: openai/m" in chart
    assert "paper (Table 5, 779 questions)" in chart
    assert "84.210" not in chart and ">84.2</title>" not in chart  # one decimal on 0-100
    assert "paper (Table 5, 779 questions): 84.2" in chart  # the RAG row's figure as a tick


def test_bench_draws_per_class_precision_recall_and_f1(tmp_path: Path) -> None:
    from conflicteval.cli import main

    items = bench_items(tmp_path / "gold.jsonl")
    out = tmp_path / "bench"
    argv = ["bench", "labeler", "--gold", "conflictbench", "--data", str(items)]
    assert main([*argv, "--labeler", "lexical", "--out", str(out), "--quiet"]) in (0, 1)
    rv = load_run(out)
    chart = next(c.svg for c in rv.charts if c.title == "per-class precision, recall and F1")
    for label in ("SUPPORTS", "CONTRADICTS", "IRRELEVANT"):
        assert f"{label} precision" in chart and f"{label} f1" in chart
    assert "interval [" in chart  # each figure's interval is drawn


def test_view_writes_the_pages_charts_as_svg_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from conflicteval.cli import main

    run = detect_run(tmp_path)
    charts = tmp_path / "figures"
    assert main(["view", str(run), "--charts", str(charts), "-o", str(tmp_path / "r.html")]) == 0
    files = sorted(p.name for p in charts.iterdir())
    assert files == ["detect-1-detection-confusion.svg", "detect-2-f1-per-source.svg"]
    page_charts = [c.svg for c in load_run(run).charts]
    second = (charts / files[1]).read_text(encoding="utf-8")
    assert second.startswith("<?xml") and "style='background:#fff'" in second
    # the same drawing as the page's, but for the background
    assert second.split("\n", 1)[1].strip() == page_charts[1].replace(
        "<svg ", "<svg style='background:#fff' ", 1
    )
    assert main(["view", str(run), "--png"]) == 2
    assert "--png goes with --charts DIR" in capsys.readouterr().err


def test_view_charts_as_png_through_chromium(tmp_path: Path) -> None:
    from conflicteval.cli import main

    from .chromium import require_chromium

    require_chromium()
    run = detect_run(tmp_path)
    charts = tmp_path / "figures"
    argv = ["view", str(run), "--charts", str(charts), "--png", "-o", str(tmp_path / "r.html")]
    assert main(argv) == 0
    png = charts / "detect-2-f1-per-source.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_one_chart_as_png_through_chromium(tmp_path: Path) -> None:
    from conflicteval.view.files import write_chart

    from .chromium import require_chromium

    require_chromium()
    chart = load_run(detect_run(tmp_path)).charts[0]
    png = write_chart(chart, tmp_path / "one" / "chart.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    svg = write_chart(chart, tmp_path / "one" / "chart.svg")
    assert chart.svg.split(">", 1)[1] in svg.read_text(encoding="utf-8")
