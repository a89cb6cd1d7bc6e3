"""``conflicteval profile --out DIR`` directories: the card of one or more models.

Read from the card's contract (``summary.json``, kind ``profile``) and, with two or more
models, ``compare.json``; nothing is computed here. The page shows one row per benchmark and
method (value, interval, n, the papers' values, the instrument's measured accuracy, money and
time), a chart per model with intervals and the papers' values, each row's name linking to its
run's own report (``<model>/<benchmark>/report.html``, written by ``conflicteval profile``),
the paired comparison, and every benchmark that was not run with the reason and what provides
its data.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from conflicteval.formatting import number

from ..model import Chart, Headline, RunView
from ..registry import RunKind, has_files
from ..svg import INK, MUTED, PALETTE

REPORT = "report.html"


def _t(text: object) -> str:
    return escape(str(text), quote=True)


def _fmt(value: float | None, scale: float) -> str:
    """A cell's value: a share in percent (it is stored so), else three decimals."""
    return number(value, 1, unit="%") if scale == 100 else number(value, 3)


def _instrument_text(cell: dict[str, Any]) -> str:
    parts = []
    for inst in cell.get("instruments") or []:
        acc = inst.get("accuracy") or {}
        if acc.get("macro_f1") is not None:
            ci = acc.get("macro_f1_ci")
            span = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
            text = f"macro-F1 {acc['macro_f1']:.3f}{span} on {acc.get('gold')}"
        else:
            text = "unmeasured"
        parts.append(f"{inst.get('role')} {inst.get('name')}: {text}")
    return "; ".join(parts) or "none (the model's own answers scored by rule)"


def _chart(model: str, rows: list[dict[str, Any]]) -> str:
    """One model's cells: a bar per metric on its own 0-to-full scale, its interval, the
    papers' values as ticks, the name linking to the run's report."""
    label_w, bar_w, row_h = 330, 360, 20
    height = 56 + row_h * len(rows)
    width = label_w + bar_w + 120
    out = [
        f"<svg xmlns='http://www.w3.org/2000/svg' class='chart' role='img' "
        f"viewBox='0 0 {width} {height}' width='{width}' height='{height}' "
        "font-family='system-ui,-apple-system,Segoe UI,sans-serif'>",
        f"<title>{_t('Conflict profile: ' + model)}</title>",
        f"<text x='12' y='20' font-size='14' font-weight='600' fill='{INK}'>"
        f"{_t('Conflict profile: ' + model)}</text>",
        f"<text x='12' y='37' font-size='11' fill='{MUTED}'>bars: value (0 to 100 % or 0 to 1) "
        "with its 95% interval; dark ticks: the papers' reference models</text>",
    ]
    for i, row in enumerate(rows):
        m, scale = row["metric"], row["metric"].get("scale") or 1.0
        y = 48 + i * row_h
        link = f"{row['run']}/{REPORT}"
        out.append(
            f"<a href='{_t(link)}'><text x='12' y='{y + 14}' font-size='11' fill='#2f6fb0'>"
            f"{_t(m['id'])}</text></a>"
        )
        value = m.get("value")
        x0 = label_w
        out.append(
            f"<rect x='{x0}' y='{y + 3}' width='{bar_w}' height='{row_h - 6}' fill='#eef0f4'/>"
        )
        if value is not None:
            w = max(0.0, min(1.0, value / scale)) * bar_w
            out.append(
                f"<rect x='{x0}' y='{y + 3}' width='{w:.1f}' height='{row_h - 6}' "
                f"fill='{PALETTE[0]}'/>"
            )
        ci = m.get("ci")
        if ci:
            lo, hi = (x0 + max(0.0, min(1.0, c / scale)) * bar_w for c in ci)
            mid = y + row_h / 2
            out.append(
                f"<line x1='{lo:.1f}' y1='{mid}' x2='{hi:.1f}' y2='{mid}' stroke='{INK}' "
                "stroke-width='1.5'/>"
            )
        for name, ref in (m.get("published") or {}).items():
            if ref is None:
                continue
            x = x0 + max(0.0, min(1.0, ref / scale)) * bar_w
            out.append(
                f"<line x1='{x:.1f}' y1='{y + 1}' x2='{x:.1f}' y2='{y + row_h - 1}' "
                f"stroke='{INK}' stroke-width='2'><title>{_t(name)}: {ref:g}</title></line>"
            )
        out.append(
            f"<text x='{x0 + bar_w + 8}' y='{y + 14}' font-size='11' fill='{INK}'>"
            f"{_t(_fmt(value, scale))} (n={m.get('n')})</text>"
        )
    out.append("</svg>")
    return "\n".join(out)


def _compare_chart(comparison: dict[str, Any]) -> str:
    """The paired comparison as a table: metric, n, A, B, B - A, p, Holm's p, verdict."""
    rows = [(pair, m) for pair in comparison.get("pairs", []) for m in pair["metrics"]]
    row_h, width = 18, 900
    height = 60 + row_h * (len(rows) + 1)
    cols = [12, 340, 390, 460, 530, 620, 700, 780]
    heads = ["metric", "n", "A", "B", "B - A", "p", "p (Holm)", "verdict"]
    pairs = "; ".join(f"A = {p['a']}, B = {p['b']}" for p in comparison.get("pairs", []))
    out = [
        f"<svg xmlns='http://www.w3.org/2000/svg' class='chart' role='img' "
        f"viewBox='0 0 {width} {height}' width='{width}' height='{height}' "
        "font-family='system-ui,-apple-system,Segoe UI,sans-serif'>",
        "<title>Paired comparison</title>",
        f"<text x='12' y='20' font-size='14' font-weight='600' fill='{INK}'>Paired comparison "
        "(exact McNemar / paired permutation, Holm across every cell)</text>",
        f"<text x='12' y='37' font-size='11' fill='{MUTED}'>{_t(pairs)}</text>",
    ]
    y = 56
    out += [
        f"<text x='{x}' y='{y}' font-size='11' font-weight='600' fill='{INK}'>{h}</text>"
        for x, h in zip(cols, heads, strict=True)
    ]
    for _, m in rows:
        y += row_h

        def num(v: Any) -> str:
            return "–" if v is None else f"{v:.4g}"

        cells = [m["id"], m["n"], num(m["a"]), num(m["b"]), num(m["diff"])]
        cells += [num(m["p"]), num(m["p_holm"]), m["verdict"]]
        bold = m["verdict"] != "tied"
        for x, v in zip(cols, cells, strict=True):
            weight = " font-weight='600'" if bold and x == cols[-1] else ""
            out.append(f"<text x='{x}' y='{y}' font-size='11'{weight} fill='{INK}'>{_t(v)}</text>")
    out.append("</svg>")
    return "\n".join(out)


def _provenance(prof: dict[str, Any]) -> list[tuple[str, str]]:
    """The suite, size, models, instruments and each dataset's selection."""
    out = [
        ("suite", str(prof.get("suite"))),
        ("size", str(prof.get("size"))),
        ("models", ", ".join(prof.get("models") or [])),
        ("WikiContradict judge", str(prof.get("judge"))),
        ("ConflictScore labeler", str(prof.get("labeler"))),
    ]
    for name, sel in sorted((prof.get("selections") or {}).items()):
        if not sel.get("file"):
            continue
        pin = sel.get("pinned_sha256")
        match = "no pin"
        if pin:
            match = "the pinned file" if pin == sel["source_sha256"] else "NOT the pinned file"
        out.append(
            (
                f"data {name}",
                f"{len(sel.get('ids') or [])} items ({sel.get('ids_from')}) of "
                f"{sel.get('source')} sha256 {sel.get('source_sha256')} ({match})",
            )
        )
    return out


def _item(cell: dict[str, Any], m: dict[str, Any]) -> dict[str, Any]:
    """One metric of one cell, with everything the card says about it."""
    ci = m.get("ci")
    scale = m.get("scale") or 1.0
    published = ", ".join(f"{k}: {v}" for k, v in (m.get("published") or {}).items())
    money = cell.get("cost_usd")
    return {
        "id": m["id"],
        "status": "ok",
        "title": f"{cell['benchmark']} · {m['name']} · {cell['model']}",
        "value": _fmt(m.get("value"), scale),
        "facets": {"benchmark": cell["benchmark"], "model": cell["model"]},
        "fields": [
            ["value", _fmt(m.get("value"), scale)],
            ["95% interval", "–" if not ci else f"[{ci[0]:.4g}, {ci[1]:.4g}]"],
            ["n", f"{m.get('n')} {m.get('n_counts')}"],
            ["papers' values", published or "none stored"],
            ["instrument accuracy", _instrument_text(cell)],
            ["money", "not priced" if money is None else f"${money:.4f}"],
            ["time", f"{cell.get('wall_s')} s (its commands' wall time)"],
            ["run", cell["run"]],
            ["report", f"{cell['run']}/{REPORT}"],
        ],
    }


def _headline(m: dict[str, Any]) -> Headline:
    ci = m.get("ci")
    return Headline(
        m["id"],
        m["value"],
        ci[0] if ci else None,
        ci[1] if ci else None,
        n=m.get("n"),
        percent=(m.get("scale") or 1.0) == 100,
        unit=str(m.get("n_counts") or ""),
    )


def _read(path: Path) -> RunView:
    import json

    from conflicteval.results.load import read_summary

    s = read_summary(path)
    prof: dict[str, Any] = (s.model_extra or {}).get("profile") or {}
    run = RunView("profile", "Conflict profile (conflicteval profile)", str(path))
    run.dataset = f"{prof.get('suite')}, size {prof.get('size')}"
    run.provenance = _provenance(prof)
    run.counts = {"total": s.counts.total, "ok": s.counts.scored}
    metrics = {m.id: m.model_dump(mode="json") for m in s.metrics}
    by_model: dict[str, list[dict[str, Any]]] = {}
    items: list[dict[str, Any]] = []
    run.items = items
    for cell in prof.get("cells", []):
        if not cell.get("metrics"):
            run.notes.append(
                f"{cell['model']} · {cell['benchmark']}: {cell['status']}"
                + (f": {cell['reason']}" if cell.get("reason") else "")
                + (f" — provide the data: {cell['provide']}" if cell.get("provide") else "")
            )
            continue
        for mid in cell["metrics"]:
            m = metrics[mid]
            by_model.setdefault(cell["model"], []).append({"metric": m, "run": cell["run"]})
            items.append(_item(cell, m))
            if m.get("value") is not None and mid == cell["metrics"][0]:
                run.headlines.append(_headline(m))
    run.facets = ["benchmark", "model"]
    for model, rows in by_model.items():
        run.charts.append(Chart(f"Conflict profile: {model}", _chart(model, rows)))
    compare_file = path / "compare.json"
    if compare_file.exists():
        comparison = json.loads(compare_file.read_text(encoding="utf-8"))
        run.charts.append(Chart("Paired comparison", _compare_chart(comparison)))
    return run


KIND = RunKind(
    "profile",
    "Conflict profile (conflicteval profile)",
    has_files("profile.json", "summary.json"),
    _read,
    priority=100,
)
