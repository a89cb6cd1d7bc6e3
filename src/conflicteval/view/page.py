"""The report page: one self-contained HTML file (inline CSS, inline script, inline SVG).

The summary, charts and run comparison are drawn here in Python, every text escaped; the
items (possibly hundreds of thousands) travel as one inline JSON blob that the page's small
script draws a page at a time. The page is written streaming (:func:`write_page`): the
items are made and written one at a time, and neither the page nor a list of its items
is ever held whole. The blob is escaped so that no text in it can end the
``<script>`` element (``<``, ``>``, ``&``, U+2028 and U+2029 become ``\\uXXXX``), and the
page's Content-Security-Policy allows only its own script (by hash): no network, and no
other script even if one got in.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import shutil
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from html import escape
from importlib import resources
from typing import Any, TextIO

from conflicteval._version import __version__
from conflicteval.formatting import UNDEFINED, number

from .model import Headline, RunView

__all__ = [
    "compare_rows",
    "fmt_number",
    "json_for_script",
    "render_page",
    "script_hash",
    "write_items_data",
    "write_page",
]


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _asset(name: str) -> str:
    return resources.files("conflicteval.view").joinpath("assets").joinpath(name).read_text("utf-8")


def json_for_script(value: Any) -> str:
    """JSON text safe inside ``<script type="application/json">``: no ``<``, ``>``, ``&``,
    U+2028 or U+2029 left unescaped (so ``</script>`` in a reply stays text)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def script_hash(script: str) -> str:
    """The Content-Security-Policy source that allows exactly this inline script."""
    return (
        "'sha256-"
        + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
        + "'"
    )


def fmt_number(value: float | None, percent: bool = False) -> str:
    """A headline value for people (``undefined`` for None)."""
    if value is not None and not percent and abs(value) >= 100:
        return f"{value:,.0f}"  # a count or a sum of money is read with its thousands marked
    if percent:
        return number(value, 1, unit="%", missing=UNDEFINED)
    return number(value, 3, missing=UNDEFINED)


def _headline_cell(h: Headline) -> str:
    from conflicteval.stats_text import small_sample_note

    shown = "not measured" if h.value is None and "not measured" in h.note else None
    text = f"<span class='big'>{_e(shown or fmt_number(h.value, h.percent))}</span>"
    interval = h.low is not None and h.high is not None
    if interval:
        text += (
            f" <span class='ci'>[{_e(fmt_number(h.low, h.percent))}, "
            f"{_e(fmt_number(h.high, h.percent))}]</span>"
        )
    if h.n is not None:
        text += f" <span class='ci'>n = {h.n}{' ' + _e(h.unit) if h.unit else ''}</span>"
    # the one rule of conflicteval.stats: an interval over a few units says so
    small = small_sample_note(h.n, h.unit or "items") if interval and h.n is not None else None
    for note in (h.note, small):
        if note:
            text += f"<div class='ci'>{_e(note)}</div>"
    return text


def _summary(run: RunView, index: int) -> str:
    c = run.counts
    failed = c.get("parse_error", 0) + c.get("model_error", 0)
    parts = [
        f"<div class='card' id='run-{index}'><h2>{_e(run.kind_title)}: {_e(run.name)}</h2>",
        f"<div class='path'>{_e(run.path)}</div><div class='cols'><div>",
        "<h3>Headline numbers</h3><table class='nums'>",
    ]
    for h in run.headlines:
        parts.append(f"<tr><th>{_e(h.name)}</th><td class='num'>{_headline_cell(h)}</td></tr>")
    if not run.headlines:
        parts.append("<tr><td class='muted'>no headline numbers in this run</td></tr>")
    if any(h.low is not None for h in run.headlines):
        parts.append(
            "<tr><td colspan='2' class='ci'>[low, high]: the interval the run recorded</td></tr>"
        )
    parts.append("</table><h3>Items</h3><table class='kv'>")
    rows = [("total", c.get("total", 0)), ("ok", c.get("ok", 0)), ("failed", failed)]
    rows += [(k.replace("_", " "), v) for k, v in c.items() if k in ("parse_error", "model_error")]
    rows += [(k, v) for k, v in c.items() if k not in ("ok", "parse_error", "model_error", "total")]
    parts += [f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows]
    parts.append("</table></div><div>")
    if run.failures:
        parts.append("<h3>Top failure reasons</h3><table class='kv'>")
        for reason, n, example in run.failures:
            parts.append(
                f"<tr><th>{n} \u00d7</th><td>{_e(reason)} <span class='muted'>(e.g. "
                f"{_e(example)})</span></td></tr>"
            )
        parts.append("</table>")
    parts.append("<h3>Tokens and money</h3><table class='kv'>")
    u = run.usage
    for key, label in (
        ("calls", "model calls"),
        ("cached_calls", "from cache"),
        ("prompt_tokens", "prompt tokens"),
        ("completion_tokens", "completion tokens"),
        ("truncated", "replies cut off"),
        ("cost", "estimated cost"),
        ("unpriced", "not priced"),
    ):
        if key in u:
            value = f"{u[key]:,}" if isinstance(u[key], int) else u[key]
            parts.append(f"<tr><th>{_e(label)}</th><td>{_e(value)}</td></tr>")
    parts.append("</table></div></div><h3>What produced it</h3><div class='prov'>")
    for key, value in run.provenance:
        parts.append(f"<div><span class='k'>{_e(key)}</span> <span>{_e(value)}</span></div>")
    if not run.provenance:
        parts.append("<div class='muted'>not recorded in this run directory</div>")
    parts.append("</div>")
    parts += [f"<p class='muted'>{_e(n)}</p>" for n in run.notes]
    parts.append("</div>")
    return "".join(parts)


def _charts(runs: Sequence[RunView]) -> str:
    out = []
    for run in runs:
        out.append(
            f"<div class='card'><h2>{_e(run.kind_title)}: {_e(run.name)}</h2><div class='charts'>"
        )
        out += [chart.svg for chart in run.charts]
        if not run.charts:
            out.append("<p class='muted'>no charts for this run</p>")
        out.append("</div></div>")
    return "".join(out)


def _compare_headlines(runs: Sequence[RunView]) -> str:
    names: list[str] = []
    for run in runs:
        names += [h.name for h in run.headlines if h.name not in names]
    head = "".join(f"<th>{_e(r.name)}<div class='ci'>{_e(r.kind)}</div></th>" for r in runs)
    out = [f"<table class='compare'><tr><th>headline</th>{head}</tr>"]
    for name in names:
        cells = [next((h for h in r.headlines if h.name == name), None) for r in runs]
        present = [h for h in cells if h is not None]
        values = {fmt_number(h.value, h.percent) for h in present}
        differs = len(values) > 1 or len(present) < len(runs)
        row = "".join(
            f"<td>{_headline_cell(h)}</td>" if h is not None else "<td class='muted'>absent</td>"
            for h in cells
        )
        out.append(f"<tr class='{'differs' if differs else ''}'><th>{_e(name)}</th>{row}</tr>")
    out.append("</table>")
    return "".join(out)


def _paired_html(runs: Sequence[RunView]) -> str:
    """Each run against the first, item by item, by the result contract's one paired
    comparison (exact McNemar for per-item yes/no values, else a sign-flip permutation test;
    Holm across the metrics of a pair); a pair the contract cannot compare says why. Runs of
    different data files are paired by item id with the contract's warning shown (the
    ``compare`` command refuses them unless told), so a page of any two runs is readable."""
    from conflicteval.errors import ConflictEvalError
    from conflicteval.results.compare import compare

    out = [
        "<div class='card' id='compare-paired'><h2>Paired comparison with the first run</h2>",
        "<p class='muted'>Over the items both runs answered: B &minus; A with its 95 % paired "
        "bootstrap interval, p of the paired test and p after Holm's adjustment across the "
        "metrics; &ldquo;tied&rdquo; when the adjusted p is not below 0.05.</p>",
    ]
    first = runs[0]
    for run in runs[1:]:
        title = f"A = {_e(first.name)}, B = {_e(run.name)}"
        try:
            cmp = compare(first.path, run.path, allow_different_data=True)
        except ConflictEvalError as exc:
            out.append(f"<p><b>{title}</b>: not compared &mdash; {_e(str(exc))}</p>")
            continue
        out.append(
            f"<p><b>{title}</b>: {cmp.shared} items paired ({cmp.only_a} only in A, "
            f"{cmp.only_b} only in B)</p>"
        )
        out += [f"<p class='warn'>{_e(w)}</p>" for w in cmp.warnings]
        out.append(
            "<div class='table-wrap'><table class='compare paired'><tr><th>metric</th>"
            "<th>n paired</th><th>A</th><th>B</th><th>B &minus; A [95% CI]</th><th>p</th>"
            "<th>p (Holm)</th><th>test</th><th>verdict</th></tr>"
        )
        for m in cmp.metrics:
            ci = "" if m.ci is None else f" [{m.ci[0]:+.4g}, {m.ci[1]:+.4g}]"
            cells = [
                _e(m.name),
                str(m.n),
                "–" if m.a is None else f"{m.a:.4g}",
                "–" if m.b is None else f"{m.b:.4g}",
                "–" if m.diff is None else f"{m.diff:+.4g}{ci}",
                _p(m.p),
                _p(m.p_holm),
                _e(m.test),
                _e(m.verdict),
            ]
            cls = "" if m.verdict == "tied" else " class='differs'"
            out.append(f"<tr{cls}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        out.append("</table></div>")
        if cmp.not_compared:
            out.append(
                "<p class='muted'>not compared (no per-item values): "
                + _e(", ".join(cmp.not_compared))
                + "</p>"
            )
    out.append("</div>")
    return "".join(out)


def _p(p: float | None) -> str:
    return "–" if p is None else ("&lt;1e-4" if p < 1e-4 else f"{p:.4f}")


def compare_rows(runs: Sequence[RunView]) -> dict[str, Any]:
    """Items matched across runs by ``key`` (default: the id): ``[key, [value per run or
    None], differs]``."""
    per_run: list[dict[str, str]] = []
    order: list[str] = []
    seen: set[str] = set()
    for run in runs:
        values: dict[str, str] = {}
        for it in run.items:
            item_id = str(it.get("key") or it["id"])
            value = it.get("value") if it.get("status") == "ok" else it.get("status")
            values[item_id] = "" if value is None else str(value)
            if item_id not in seen:
                seen.add(item_id)
                order.append(item_id)
        per_run.append(values)
    rows = []
    for item_id in order:
        vals = [v.get(item_id) for v in per_run]
        differs = len(set(vals)) > 1
        rows.append([item_id, vals, differs])
    return {"runs": [r.name for r in runs], "rows": rows}


def _trim_cells(cells: list[list[list[Any]]]) -> list[list[list[Any]]]:
    """Grid cells without their trailing None values (``[label, snippet, reasoning, error,
    raw]`` of a labelled pair without snippet is just ``[label]``)."""
    out = []
    for row in cells:
        new_row = []
        for cell in row:
            cell = list(cell)
            while cell and cell[-1] is None:
                cell.pop()
            new_row.append(cell or [None])
        out.append(new_row)
    return out


TEXT_INDEX_LIMIT = 100_000
"""How many distinct document texts the page writer remembers (by digest) to store each
once: a text seen again after this many others is stored again (a larger page, the same
content), so the writer's memory stays bounded however many items a run holds."""


def _slim_item(it: dict[str, Any], text_id: Callable[[str], int]) -> dict[str, Any]:
    """An item as the page stores it: no None values, grid cells trimmed, each document's
    text replaced by its number in the page's list of texts (``text_id(text)``)."""
    it = {k: v for k, v in it.items() if v is not None}  # absent keys: less to load
    if it.get("grid"):
        it["grid"] = {**it["grid"], "cells": _trim_cells(it["grid"]["cells"])}
    docs = it.get("documents")
    if docs:
        slim = []
        for d in docs:
            d = dict(d)
            d["t"] = text_id(str(d.pop("text", "")))
            slim.append(d)
        it["documents"] = slim
    return it


def write_items_data(runs: Sequence[RunView], out: TextIO) -> None:
    """Write the page's JSON blob to ``out`` item by item, as :func:`json_for_script` text:
    ``{"runs": [{"name", "kind", "facets", "items"}], "texts": [...], "compare": ...}``.

    Each item is made, written and let go of in turn (a kind may make its items lazily,
    one record at a time), and documents' texts are stored once each (benchmarks repeat
    them), spooled to a temporary file until the items are written: no list of every
    item, and no page-sized text, is ever held. The texts are remembered by digest, at most
    :data:`TEXT_INDEX_LIMIT` of them.
    """
    index: OrderedDict[bytes, int] = OrderedDict()
    count = 0
    with tempfile.TemporaryFile("w+", encoding="utf-8", newline="") as spool:

        def text_id(text: str) -> int:
            nonlocal count
            key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
            found = index.get(key)
            if found is not None:
                index.move_to_end(key)
                return found
            if len(index) >= TEXT_INDEX_LIMIT:
                index.popitem(last=False)
            index[key] = count
            spool.write(("," if count else "") + json_for_script(text))
            count += 1
            return count - 1

        out.write('{"runs":[')
        for r, run in enumerate(runs):
            head = json_for_script({"name": run.name, "kind": run.kind, "facets": run.facets})
            out.write(("," if r else "") + head[:-1] + ',"items":[')
            for i, it in enumerate(run.items):
                out.write(("," if i else "") + json_for_script(_slim_item(it, text_id)))
            out.write("]}")
        out.write('],"texts":[')
        spool.seek(0)
        shutil.copyfileobj(spool, out)
        out.write("]")
    if len(runs) > 1:
        out.write(',"compare":' + json_for_script(compare_rows(runs)))
    out.write("}")


_ITEMS_HTML = """
<div class='toolbar'>
<label id='run-box'>run <select id='run'></select></label>
<input type='search' id='q' aria-label='search'
 placeholder='search ids, questions, responses, errors'>
<label><input type='checkbox' id='failed'> failed only</label>
<label id='conflicted-box'><input type='checkbox' id='conflicted'> conflicted only</label>
<span id='facets'></span><button id='clear'>clear filters</button>
</div>
<div class='pager'><button id='first'>&laquo; first</button>
<button id='prev'>&larr; previous</button>
<button id='next'>next &rarr;</button><button id='last'>last &raquo;</button>
<label>page <input type='number' id='goto' min='1' value='1' aria-label='go to page'></label>
<span id='count' class='muted' aria-live='polite'></span></div>
<div class='table-wrap'><table class='items'><thead id='item-head'></thead>
<tbody id='item-rows'></tbody></table></div>
"""


def _compare_html(runs: Sequence[RunView]) -> str:
    head = "".join(f"<th>{_e(r.name)}</th>" for r in runs)
    return (
        "<div class='card'><h2>Headline numbers side by side</h2>"
        + _compare_headlines(runs)
        + "</div>"
        + _paired_html(runs)
        + "<div class='card' id='compare-items'><h2>The same items in each run</h2>"
        "<p class='muted'>Each item's short result (verdict, score or status) in every run, "
        "matched across the runs (by id; WikiContradict runs by template and instance); "
        "rows that differ are highlighted.</p>"
        "<div class='toolbar'><label><input type='checkbox' id='diff' checked> differences "
        "only</label><button id='cprev'>&larr; previous</button><button id='cnext'>next "
        "&rarr;</button><span id='ccount' class='muted'></span></div>"
        f"<div class='table-wrap'><table class='compare items'><thead><tr><th>item</th>{head}"
        "</tr></thead><tbody id='compare-rows'></tbody></table></div></div>"
    )


def render_page(runs: Sequence[RunView], title: str | None = None) -> str:
    """The whole report page for ``runs`` (one or more), as HTML text."""
    buf = io.StringIO()
    write_page(runs, buf, title)
    return buf.getvalue()


def write_page(runs: Sequence[RunView], out: TextIO, title: str | None = None) -> None:
    """Write the whole report page for ``runs`` (one or more) to ``out``, streaming: the
    summary, charts and comparison are small and made first; the items are written one at a
    time (:func:`write_items_data`), never all held at once."""
    script = _asset("viewer.js")
    csp = (
        f"default-src 'none'; script-src {script_hash(script)}; style-src 'unsafe-inline'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    title = title or "conflicteval report: " + ", ".join(r.name for r in runs)
    tabs = ["summary", "charts", "items"] + (["compare"] if len(runs) > 1 else [])
    # ARIA tabs; without JavaScript the nav is hidden and every section that needs no script
    # (summary, charts, the headline comparison) is shown one after the other
    nav = "".join(
        f"<button role='tab' id='tab-{t}' aria-controls='view-{t}' data-tab='{t}' "
        f"aria-selected='{'true' if t == 'summary' else 'false'}' "
        f"tabindex='{0 if t == 'summary' else -1}' "
        f"class='{'active' if t == 'summary' else ''}'>{t.title()}</button>"
        for t in tabs
    )
    made = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    bodies = {
        "summary": "".join(_summary(r, i) for i, r in enumerate(runs)),
        "charts": _charts(runs),
        "items": _ITEMS_HTML,
        "compare": _compare_html(runs) if len(runs) > 1 else "",
    }
    sections = [
        f"<section class='view' id='view-{t}' role='tabpanel' aria-labelledby='tab-{t}'>"
        f"{bodies[t]}</section>"
        for t in tabs
    ]
    out.write(
        "<!DOCTYPE html><html lang='en' class='nojs'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{csp}\">"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(title)}</title><style>{_asset('viewer.css')}</style></head><body>"
        f"<header><h1>{_e(title)}</h1><nav role='tablist' aria-label='views'>{nav}</nav>"
        f"<span class='sub'>conflicteval {_e(__version__)} \u00b7 {made}</span></header>"
        "<noscript><p class='nojs-note'>JavaScript is off: the summary, the charts and the "
        "headline comparison are shown; the item list needs the page's own script.</p>"
        "</noscript>"
        f"<main>{''.join(sections)}</main>"
        "<footer>One self-contained file: no server, no network. Click an item (or press Enter "
        "or Space on it) to open it; click a grid cell (or press Enter or Space on it) for the "
        "labeler's snippet and reasoning; click a column's name to sort by it.</footer>"
        "<script type='application/json' id='ce-data'>"
    )
    # the data is JSON, never run (so it is outside the script the policy's hash allows)
    write_items_data(runs, out)
    out.write(f"</script><script>{script}</script></body></html>")
