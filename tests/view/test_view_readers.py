"""The report for every reader, in a real headless Chromium driven over the DevTools pipe.

Keys are pressed on the focused element as a keyboard user presses them; the colour scheme is
emulated; JavaScript is switched off; a phone's viewport is emulated. The contrast of every
piece of text against what is painted behind it is computed in the page, in the light and
the dark scheme, and must reach WCAG AA (4.5:1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.view import load_run, write_report

from .cdp import Browser
from .chromium import require_chromium
from .runs import detect_run, score_run


@pytest.fixture(autouse=True)
def _browser() -> None:
    require_chromium()


ROW_IDS = "Array.from(document.querySelectorAll('#item-rows tr.row')).map(r => r.dataset.id)"

CONTRAST = (Path(__file__).parent / "contrast.js").read_text(encoding="utf-8")
"""A script for the page: its texts whose contrast is under 4.5:1 (see the file)."""


def _contrast(browser: Browser) -> tuple[int, list[Any]]:
    result = json.loads(browser.eval(CONTRAST))
    return result["checked"], result["bad"]


def _failed_score_run(tmp_path: Path, name: str = "cs", n: int = 6) -> Path:
    run = score_run(tmp_path, name, n=n)
    ck = run / "checkpoint.jsonl"
    lines = ck.read_text(encoding="utf-8").strip("\n").split("\n")
    lines[1] = (
        '{"id":"r1","status":"model_error","result":null,"error":"model error: HTTP 503",'
        '"raw":null}'
    )
    ck.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return run


def test_a_detection_failure_shows_its_own_reason_by_keyboard(
    tmp_path: Path, profile: Path
) -> None:
    """The second document's pair failed (one reason recorded): its cell shows that reason.

    ``pair_errors`` holds one reason per failed pair, so the reason of the failed pair at
    document 2 is the list's first entry, not its second.
    """
    run = detect_run(tmp_path)
    ck = run / "checkpoint.jsonl"
    records = [json.loads(line) for line in ck.read_text(encoding="utf-8").splitlines()]
    target = records[0]
    target["result"]["labels"] = ["SUPPORTS", None]
    target["result"]["pair_errors"] = ["parse error: the reply named two labels"]
    target["result"]["failed_pairs"] = 1
    ck.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    page = write_report(run, tmp_path / "detect.html")
    with Browser(profile) as b:
        b.open(page, f"tab=items&item={target['id']}")
        b.eval("document.querySelector('td[data-cell=\"1.2\"]').focus()")
        b.press("Enter")
        info = b.eval("document.querySelector('.cell-info').textContent")
        assert "parse error: the reply named two labels" in info
        b.eval("document.querySelector('td[data-cell=\"1.1\"]').focus()")
        b.press(" ")
        info = b.eval("document.querySelector('.cell-info').textContent")
        assert "SUPPORTS" in info and "parse error" not in info


def test_rows_open_and_close_by_keyboard_and_keep_the_focus(tmp_path: Path, profile: Path) -> None:
    page = write_report(score_run(tmp_path), tmp_path / "report.html")
    with Browser(profile) as b:
        b.open(page, "tab=items")
        b.eval("document.querySelector('#item-rows tr.row[data-id=\"r2\"]').focus()")
        b.press("Enter")
        assert b.eval("document.querySelectorAll('tr.detail-row').length") == 1
        assert b.eval("document.activeElement.dataset.id") == "r2"
        assert b.eval("document.activeElement.getAttribute('aria-expanded')") == "true"
        b.press(" ")
        assert b.eval("document.querySelectorAll('tr.detail-row').length") == 0
        assert b.eval("document.activeElement.dataset.id") == "r2"


def test_tabs_are_aria_tabs_and_arrow_keys_move_between_them(tmp_path: Path, profile: Path) -> None:
    page = write_report(score_run(tmp_path), tmp_path / "report.html")
    with Browser(profile) as b:
        b.open(page)
        roles = b.eval(
            "[document.querySelector('nav').getAttribute('role'),"
            " Array.from(document.querySelectorAll('nav button')).map(t => t.getAttribute('role')),"
            " document.getElementById('view-items').getAttribute('role')]"
        )
        assert roles == ["tablist", ["tab", "tab", "tab"], "tabpanel"]
        b.eval("document.getElementById('tab-summary').focus()")
        b.press("ArrowRight")
        assert b.eval("document.activeElement.id") == "tab-charts"
        assert b.eval("document.getElementById('tab-charts').getAttribute('aria-selected')") == (
            "true"
        )
        assert b.eval("document.getElementById('view-charts').hidden") is False
        assert b.eval("document.getElementById('view-summary').hidden") is True
        b.press("ArrowLeft")
        b.press("ArrowLeft")  # wraps round to the last tab
        assert b.eval("document.activeElement.id") == "tab-items"


def test_sorting_by_a_column_by_keyboard(tmp_path: Path, profile: Path) -> None:
    run = score_run(tmp_path, n=12)
    page = write_report(run, tmp_path / "report.html")
    items = load_run(run).items
    cs_c = {it["id"]: it["numbers"]["CS-C"] for it in items}
    with Browser(profile) as b:
        b.open(page, "tab=items")
        natural = b.eval(ROW_IDS)
        assert natural == [it["id"] for it in items]
        b.eval("document.querySelector('#item-head button[data-sort=\"id\"]').focus()")
        b.press("Enter")
        up = b.eval(ROW_IDS)
        # natural order of ids: r2 before r10
        assert up == sorted(up, key=lambda i: int(i[1:]))
        assert b.eval("document.activeElement.dataset.sort") == "id"
        assert b.eval("document.querySelector('#item-head th').getAttribute('aria-sort')") == (
            "ascending"
        )
        b.press("Enter")
        assert b.eval(ROW_IDS) == list(reversed(up))
        assert "sort=id" in b.eval("location.hash") and "desc=1" in b.eval("location.hash")
        # the most conflicted responses first: CS-C, descending (Enter twice)
        b.eval("document.querySelector('#item-head button[data-sort=\"n.CS-C\"]').focus()")
        b.press("Enter")
        b.press("Enter")
        by_cs_c = b.eval(ROW_IDS)
        numbers = [cs_c[i] for i in by_cs_c]
        assert numbers == sorted(numbers, reverse=True) and numbers[0] > numbers[-1]


def test_search_reaches_documents_and_claims(tmp_path: Path, profile: Path) -> None:
    page = write_report(score_run(tmp_path), tmp_path / "report.html")
    with Browser(profile) as b:
        b.open(page, "tab=items&q=steel+and+stone")  # only in a document's text
        assert b.eval(ROW_IDS) == ["r0", "r1", "r2", "r3"]
        b.open(page, "tab=items&q=no+such+words+anywhere")
        assert b.eval(ROW_IDS) == []


def test_summary_and_charts_show_without_javascript(tmp_path: Path, profile: Path) -> None:
    page = write_report(score_run(tmp_path), tmp_path / "report.html")
    with Browser(profile) as b:
        b.no_script()
        b.open(page, script=False)
        shown = b.eval(
            "Array.from(document.querySelectorAll('svg.chart')).filter(s => s.getClientRects()"
            ".length && s.getBoundingClientRect().height > 50).length"
        )
        assert shown == 2
        assert b.eval("document.getElementById('view-summary').getClientRects().length") > 0
        assert b.eval("getComputedStyle(document.querySelector('nav')).display") == "none"
        assert "JavaScript is off" in b.eval("document.body.innerText")
        b.screenshot(tmp_path / "nojs.png")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_text_reaches_aa_contrast(tmp_path: Path, profile: Path, scheme: str) -> None:
    a = _failed_score_run(tmp_path, "a")
    b_run = score_run(tmp_path, "b", n=4)
    page = write_report([a, b_run], tmp_path / "report.html")
    detect_page = write_report(detect_run(tmp_path), tmp_path / "detect.html")
    with Browser(profile) as b:
        if scheme == "dark":
            b.dark()
        b.open(page)
        background = b.eval("getComputedStyle(document.body).backgroundColor")
        assert (background == "rgb(21, 25, 32)") == (scheme == "dark"), background
        total = 0
        for fragment, click in (
            ("tab=summary", None),
            ("tab=charts", None),
            ("tab=items&item=r0", "td[data-cell='1.2']"),
            ("tab=items&item=r1", None),
            ("tab=compare&diff=0", None),
        ):
            b.open(page, fragment)
            if click:
                b.eval(f'document.querySelector("{click}").click()')
            checked, bad = _contrast(b)
            assert not bad, (fragment, bad)
            total += checked
        for fragment in ("tab=charts", "tab=items&item=macnoise-nq:0:conf"):
            b.open(detect_page, fragment)
            checked, bad = _contrast(b)
            assert not bad, (fragment, bad)
            total += checked
        assert total > 200  # the check saw the page's text, not nothing
        b.screenshot(tmp_path / f"{scheme}.png")


def test_a_phone_gets_readable_ids_full_size_charts_and_no_page_overflow(
    tmp_path: Path, profile: Path
) -> None:
    a = score_run(tmp_path, "a")
    b_run = score_run(tmp_path, "b", n=3)
    page = write_report([a, b_run], tmp_path / "report.html")
    with Browser(profile) as b:
        b.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True},
        )
        b.open(page, "tab=items")
        widths = b.eval(
            "Array.from(document.querySelectorAll('#item-rows td.id'))"
            ".map(td => td.getBoundingClientRect().width)"
        )
        assert widths and min(widths) >= 60, widths  # not one character a line
        assert b.eval("document.documentElement.scrollWidth") <= 390
        b.open(page, "tab=charts")
        scale = b.eval(
            "Array.from(document.querySelectorAll('svg.chart'))"
            ".map(s => s.getBoundingClientRect().width / s.width.baseVal.value)"
        )
        assert scale and min(scale) > 0.99, scale  # drawn at full size, scrolled, not shrunk
        assert b.eval("document.documentElement.scrollWidth") <= 390
        b.open(page, "tab=compare")
        reach = b.eval(
            "(function () { var wrap = document.querySelector('#compare-items .table-wrap');"
            " var cells = wrap.querySelectorAll('tr:first-child th');"
            " var last = cells[cells.length - 1].getBoundingClientRect();"
            " var box = wrap.getBoundingClientRect();"
            " return [last.right - box.left <= wrap.scrollWidth + 1,"
            " getComputedStyle(wrap).overflowX]; })()"
        )
        assert reach == [True, "auto"]
        assert b.eval("document.documentElement.scrollWidth") <= 390
        b.screenshot(tmp_path / "phone.png")


def test_a_madam_rag_item_shows_its_question_document_types_and_every_round(
    tmp_path: Path, profile: Path, shared_data: Path, openai_server: Any
) -> None:
    """``answers.jsonl`` holds no question text: it comes from the data file the answers
    were made from (checked by their fingerprints), with each document's type."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ramdocs"))
    from conftest import reply_to  # the scripted MADAM-RAG replies of the RAMDocs tests

    sys.path.pop(0)
    from conflicteval.cli import main
    from conflicteval.ramdocs.data import load_ramdocs

    data = shared_data / "ramdocs" / "RAMDocs_test_first30.jsonl"
    openai_server.set_replies(lambda body: reply_to(str(body["messages"][-1]["content"])))
    out = tmp_path / "madam"
    argv = ["ramdocs", "run", "--data", str(data), "--method", "madam", "--limit", "2"]
    argv += ["--model", "openai/t", "--base-url", openai_server.base_url, "--out", str(out)]
    assert main([*argv, "--quiet"]) in (0, 1)
    first = load_ramdocs(data)[0]
    rounds = json.loads((out / "answers.jsonl").read_text(encoding="utf-8").splitlines()[0])
    n_rounds = len(rounds["result"]["rounds"])
    assert n_rounds >= 2
    page = write_report(out, tmp_path / "madam.html")
    with Browser(profile) as b:
        b.open(page, f"tab=items&item={first.id}")
        text = b.eval("document.querySelector('tr.detail-row').textContent")
        assert first.question in text
        assert f"MADAM-RAG debate ({n_rounds} rounds)" in text
        for k in range(1, n_rounds + 1):
            assert f"round {k}" in text
        assert b.eval("document.querySelectorAll('table.debate tr').length") >= n_rounds * (
            1 + len(first.documents)
        )
        assert "aggregator:" in text
        types = {d.type for d in first.documents}
        assert all(f"{t} \u00b7 answer:" in text for t in types)
        # search by the question's words finds the item
        b.open(page, "tab=items&q=" + "+".join(first.question.split()[:4]))
        assert first.id in b.eval(ROW_IDS)
    # a data file edited since the run: what comes from it (the documents' types) is no longer
    # shown beside the answers; the question the answer keeps is still its own
    lines = data.read_text(encoding="utf-8").splitlines(keepends=True)
    edited = tmp_path / "edited.jsonl"
    record = json.loads(lines[0])
    record["question"] = "An edited question?"
    edited.write_text(json.dumps(record) + "\n" + "".join(lines[1:]), encoding="utf-8")
    meta = json.loads((out / "data.json").read_text(encoding="utf-8"))
    for f in meta["files"]:
        f["path"] = str(edited)
    (out / "data.json").write_text(json.dumps(meta), encoding="utf-8")
    from conflicteval.view import load_run

    view = load_run(out)
    item = next(it for it in view.items if it["id"] == first.id)
    assert item["question"] == first.question
    assert all(d["title"] is None for d in item["documents"])
    assert any("made from other contents" in n for n in view.notes)
