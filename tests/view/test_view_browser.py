"""The report in a real browser: headless Chromium from the operating system's packages.

Each test renders a report of a real run, opens it from disk with a URL fragment that picks
the view and the filters, and reads back the DOM after the page's script ran: no script
error, the grid, charts and filters present, the filter applied, hostile text inert. A
screenshot of each view is saved into the test's tmp_path. Skipped without Chromium.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from conflicteval.view import load_run, write_report
from conflicteval.view.page import script_hash

from .chromium import check_ran, dump_dom, require_chromium, screenshot
from .runs import score_run
from .synthetic import write_large_score_run

ROW = re.compile(r'<tr class="row[^"]*" data-id="([^"]+)"')


@pytest.fixture(autouse=True)
def _browser() -> None:
    require_chromium()


def test_score_report_items_grid_charts_and_filters(tmp_path: Path, profile: Path) -> None:
    run = score_run(tmp_path)
    page = write_report(run, tmp_path / "report.html")

    dom = dump_dom(page, "tab=items&item=r1", profile)
    check_ran(dom)
    assert ROW.findall(dom) == ["r0", "r1", "r2", "r3"]
    assert '<table class="grid">' in dom and re.search(r'<td class="cell [SCI]"', dom)
    assert 'data-facet="conflicted"' in dom and 'data-facet="failed pairs"' in dom
    assert "Bridge history" in dom  # document titles
    # the hostile reply and title are text: escaped in the DOM, no element made from them
    assert "&lt;/script&gt;&lt;script&gt;document.title='pwned'" in dom
    assert '<img src="x"' not in dom and "<title>pwned</title>" not in dom
    screenshot(page, "tab=items&item=r1", tmp_path / "items.png", profile, "1280,1100")

    dom = dump_dom(page, "tab=items&f.conflicted=yes", profile)
    check_ran(dom)
    conflicted = [it["id"] for it in load_run(run).items if it["facets"]["conflicted"] == "yes"]
    assert conflicted and ROW.findall(dom) == conflicted  # the filter really filters
    assert "of 4 items" in dom

    dom = dump_dom(page, "tab=items&q=%E0%A4%A&x=%", profile)  # a malformed fragment
    check_ran(dom)

    dom = dump_dom(page, "tab=items&q=sources+disagree", profile)
    check_ran(dom)
    assert ROW.findall(dom) == ["r1", "r3"]  # search over the responses

    dom = dump_dom(page, "tab=charts", profile)
    check_ran(dom)
    assert dom.count('<svg xmlns="http://www.w3.org/2000/svg" class="chart"') == 2
    assert "CS-C per response" in dom and "n = 4 responses" in dom
    screenshot(page, "tab=charts", tmp_path / "charts.png", profile)
    screenshot(page, "", tmp_path / "summary.png", profile)


def test_failed_only_filter_and_failure_in_place(tmp_path: Path, profile: Path) -> None:
    run = score_run(tmp_path)
    ck = run / "checkpoint.jsonl"
    lines = ck.read_text(encoding="utf-8").strip("\n").split("\n")
    lines[2] = (
        '{"id":"r2","status":"model_error","result":null,"error":"model error: HTTP 503",'
        '"raw":null}'
    )
    ck.write_text("\n".join(lines) + "\n", encoding="utf-8")
    page = write_report(run, tmp_path / "report.html")
    dom = dump_dom(page, "tab=items&failed=1&item=r2", profile)
    check_ran(dom)
    assert ROW.findall(dom) == ["r2"]
    assert '<div class="failure"><b>model_error: </b>model error: HTTP 503</div>' in dom


def test_wikicontradict_judge_beside_gold(
    tmp_path: Path, profile: Path, wc_csv: Path, openai_server: Any
) -> None:
    from .runs import wikicontradict_run

    run = wikicontradict_run(tmp_path, wc_csv, openai_server)
    page = write_report(run, tmp_path / "wc.html")
    first5 = next(it["id"] for it in load_run(run).items if it["facets"]["template"] == "5")
    dom = dump_dom(page, f"tab=items&f.template=5&item={first5}", profile)
    check_ran(dom)
    rows = ROW.findall(dom)
    assert len(rows) == 3 and all("|t5|" in r for r in rows)
    assert "<h4>gold answers</h4>" in dom and "<h4>judge</h4>" in dom
    assert re.search(r'<span class="verdict v-(correct|partially-correct|incorrect)">', dom)
    screenshot(page, "tab=charts", tmp_path / "wc_charts.png", profile)


def test_compare_view(tmp_path: Path, profile: Path) -> None:
    a = score_run(tmp_path, "a", n=4)
    b = score_run(tmp_path, "b", n=3)
    page = write_report([a, b], tmp_path / "compare.html")
    dom = dump_dom(page, "tab=compare", profile)
    check_ran(dom)
    body = dom[dom.find('id="compare-rows"') :]
    assert '<tr class="differs"><td class="id">r3</td>' in body  # only in the first run
    assert "absent" in body
    screenshot(page, "tab=compare", tmp_path / "compare.png", profile)


def test_a_script_error_is_caught(tmp_path: Path, profile: Path) -> None:
    """The check itself: a page whose script fails is reported as failing."""
    page = write_report(score_run(tmp_path), tmp_path / "report.html")
    html = page.read_text(encoding="utf-8")
    start = html.rindex("<script>") + len("<script>")
    script = html[start : html.rindex("</script>")]
    broken = script.replace("  init();\n", "  init();\n  null.boom();\n")
    assert broken != script
    html = html.replace(script_hash(script), script_hash(broken)).replace(script, broken)
    page.write_text(html, encoding="utf-8")
    dom = dump_dom(page, "", profile)
    with pytest.raises(AssertionError, match="data-js-errors"):
        check_ran(dom)


@pytest.mark.slow
def test_ten_thousand_items(tmp_path: Path, profile: Path) -> None:
    run = write_large_score_run(tmp_path / "big", n=10_000)
    started = time.perf_counter()
    page = write_report(run, tmp_path / "big.html")
    render_s = time.perf_counter() - started
    size_mb = page.stat().st_size / 1e6
    # about 3.4 kB per response (3-5 claims x 3 documents, snippet and reasoning per cell;
    # each distinct document stored once): ~34 MB, less than the run's own checkpoint
    checkpoint_mb = (run / "checkpoint.jsonl").stat().st_size / 1e6
    assert size_mb < checkpoint_mb and size_mb < 45, (size_mb, checkpoint_mb)
    dom = dump_dom(page, "tab=items&failed=1&page=2", profile, timeout=240)
    check_ran(dom)
    rows = ROW.findall(dom)
    assert len(rows) == 50 and all(r.startswith("q") for r in rows)  # a page of failures
    assert "104 of 10000 items" in dom
    ready = re.search(r'data-ready-ms="(\d+)"', dom)
    assert ready is not None
    print(f"10,000 items: {size_mb:.1f} MB, written in {render_s:.1f} s, drawn {ready.group(1)} ms")


def test_a_link_to_an_item_opens_its_page(tmp_path: Path, profile: Path) -> None:
    run = score_run(tmp_path, n=120)
    page = write_report(run, tmp_path / "report.html")
    dom = dump_dom(page, "tab=items&item=r117", profile)
    check_ran(dom)
    assert ROW.findall(dom)[0] == "r100" and "page 3 of 3" in dom
    assert '<tr class="detail-row">' in dom and "When was the bridge opened? (117)" in dom
