"""Small hand-written SVG charts for the HTML report (no plotting library needed).

Every chart has a title, axis labels and a subtitle line naming n, the model(s) and the
dataset; every piece of text is escaped. The functions return an SVG element as a string.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

__all__ = [
    "PALETTE",
    "confusion_svg",
    "contrast",
    "hbar_svg",
    "histogram_svg",
    "ink_on",
    "stacked_hbar_svg",
]

PALETTE = ("#2f6fb0", "#e0a030", "#c8453c", "#8a8f98", "#4aa36c", "#8a5cc2", "#3fa7b8")
"""Series colours (blue, amber, red, grey, green, purple, teal)."""

_FONT = "font-family='system-ui,-apple-system,Segoe UI,sans-serif'"


def _t(text: object) -> str:
    return escape(str(text), quote=True)


def _fmt(value: float, digits: int = 1) -> str:
    """An axis tick or a bin edge: trailing zeros dropped (0.25, 0.5, 1)."""
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _fixed(value: float, x_max: float) -> str:
    """A measured value, with the same number of decimals for every value of one chart: one
    decimal on a 0-100 scale (percentages), three on a 0-1 scale."""
    return f"{value:.{1 if x_max > 1 else 3}f}"


def _luminance(color: str) -> float:
    """Relative luminance of a ``#rrggbb`` colour (WCAG 2)."""
    channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """The WCAG contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


INK = "#1d2330"
"""Dark text (on white, 15.6:1)."""
MUTED = "#5b6270"
"""Secondary text (on white, 6.1:1)."""


def _blend(rgb: tuple[int, int, int], alpha: float) -> str:
    """``rgb`` at ``alpha`` over white, as ``#rrggbb``."""
    return "#" + "".join(f"{round(255 - (255 - c) * alpha):02x}" for c in rgb)


def ink_on(fill: str) -> str:
    """White or dark text, whichever reads better on ``fill`` (at least 4.5:1 on the palette)."""
    return "#ffffff" if contrast("#ffffff", fill) >= contrast(INK, fill) else INK


def _wrap(text: str, width: int) -> list[str]:
    """Split a subtitle at its `` \u00b7 `` separators into lines that fit ``width`` pixels."""
    limit = max(20, int((width - 24) / 6.0))
    lines: list[str] = []
    for part in text.split(" \u00b7 "):
        if lines and len(lines[-1]) + 3 + len(part) <= limit:
            lines[-1] += " \u00b7 " + part
        else:
            lines.append(part)
    return lines or [""]


def _head(width: int, height: int, title: str, subtitle: str) -> list[str]:
    """The opening of a chart: title, subtitle (wrapped; the rest moves down to make room)."""
    lines = _wrap(subtitle, width)
    extra = 14 * (len(lines) - 1)
    out = [
        f"<svg xmlns='http://www.w3.org/2000/svg' class='chart' role='img' "
        f"viewBox='0 0 {width} {height + extra}' width='{width}' height='{height + extra}' "
        f"{_FONT}>",
        f"<title>{_t(title)}</title>",
        f"<text x='12' y='20' font-size='14' font-weight='600' fill='#1d2330'>{_t(title)}</text>",
    ]
    for i, line in enumerate(lines):
        out.append(
            f"<text x='12' y='{37 + 14 * i}' font-size='11' fill='#5b6270'>{_t(line)}</text>"
        )
    out.append(f"<g transform='translate(0,{extra})'>")
    return out


def _legend_width(name: object) -> float:
    """Room one legend entry takes: the swatch, the text (about 6.5 px a character at 11 px)
    and a gap."""
    return 22 + 6.5 * len(str(name))


def legend_rows(x: int, width: int, names: Sequence[str]) -> int:
    """How many lines the legend needs to fit between ``x`` and ``width``."""
    rows, at = 1, float(x)
    for name in names:
        if at > x and at + _legend_width(name) > width - 8:
            rows, at = rows + 1, float(x)
        at += _legend_width(name)
    return rows


def _legend(
    x: int, y: int, names: Sequence[str], colors: Sequence[str], width: int = 10_000
) -> list[str]:
    """Swatches and names from ``x``, wrapping to a new line (14 px lower) before ``width``."""
    out = []
    at = float(x)
    for name, color in zip(names, colors, strict=False):
        if at > x and at + _legend_width(name) > width - 8:
            at, y = float(x), y + 14
        out.append(f"<rect x='{at:.0f}' y='{y - 9}' width='10' height='10' fill='{color}'/>")
        out.append(f"<text x='{at + 14:.0f}' y='{y}' font-size='11' fill='{INK}'>{_t(name)}</text>")
        at += _legend_width(name)
    return out


def stacked_hbar_svg(
    title: str,
    subtitle: str,
    rows: Sequence[tuple[str, Sequence[float]]],
    segments: Sequence[str],
    *,
    x_label: str,
    y_label: str,
    colors: Sequence[str] = PALETTE,
    x_max: float = 100.0,
    gaps_after: Sequence[int] = (),
) -> str:
    """Horizontal bars, each split into segments (e.g. verdict shares, published beside measured).

    Args:
        title: Chart title.
        subtitle: n, model(s), dataset.
        rows: ``(row label, segment values)``; values in the unit of ``x_max``.
        segments: Segment names (legend), one per value.
        x_label: Label of the value axis.
        y_label: Label of the row axis.
        colors: Segment colours.
        x_max: Full scale of the value axis.
        gaps_after: Row indexes after which a little space separates groups.
    """
    label_w, bar_w, row_h = 240, 440, 18
    gap = 8
    width = label_w + bar_w + 30
    top = 66 + 14 * (legend_rows(label_w, width, segments) - 1)
    height = top + len(rows) * (row_h + 4) + gap * len(gaps_after) + 52
    out = _head(width, height, title, subtitle)
    out += _legend(label_w, 56, segments, colors, width)
    y = top
    for i, (label, values) in enumerate(rows):
        out.append(
            f"<text x='{label_w - 6}' y='{y + 13}' font-size='11' text-anchor='end' "
            f"fill='#1d2330'>{_t(label)}</text>"
        )
        x = float(label_w)
        for seg, (value, color) in enumerate(zip(values, colors, strict=False)):
            w = bar_w * max(0.0, value) / x_max if x_max else 0.0
            if w <= 0:
                continue
            out.append(
                f"<rect x='{x:.1f}' y='{y}' width='{w:.1f}' height='{row_h}' fill='{color}'>"
                f"<title>{_t(label)}: {_t(segments[seg])} {_fmt(value)}</title></rect>"
            )
            if w > 26:
                out.append(
                    f"<text x='{x + w / 2:.1f}' y='{y + 13}' font-size='10' "
                    f"fill='{ink_on(color)}' text-anchor='middle'>{_fmt(value, 0)}</text>"
                )
            x += w
        y += row_h + 4 + (gap if i in gaps_after else 0)
    out += _x_axis(label_w, y + 2, bar_w, x_max, x_label)
    out.append(_y_label(12, top + (y - top) / 2, y_label))
    out.append("</g></svg>")
    return "".join(out)


def _x_axis(x0: int, y: float, length: int, x_max: float, label: str) -> list[str]:
    out = [f"<line x1='{x0}' y1='{y}' x2='{x0 + length}' y2='{y}' stroke='#9aa1ad'/>"]
    for k in range(5):
        v = x_max * k / 4
        x = x0 + length * k / 4
        out.append(f"<line x1='{x:.1f}' y1='{y}' x2='{x:.1f}' y2='{y + 4}' stroke='#9aa1ad'/>")
        out.append(
            f"<text x='{x:.1f}' y='{y + 15}' font-size='10' text-anchor='middle' "
            f"fill='#5b6270'>{_fmt(v, 2)}</text>"
        )
    out.append(
        f"<text x='{x0 + length / 2:.1f}' y='{y + 32}' font-size='11' text-anchor='middle' "
        f"fill='#1d2330'>{_t(label)}</text>"
    )
    return out


def _y_label(x: float, y: float, label: str) -> str:
    return (
        f"<text transform='translate({x + 4},{y:.1f}) rotate(-90)' font-size='11' "
        f"text-anchor='middle' fill='#1d2330'>{_t(label)}</text>"
    )


def hbar_svg(
    title: str,
    subtitle: str,
    rows: Sequence[tuple[str, float | None]],
    *,
    x_label: str,
    y_label: str,
    x_max: float = 1.0,
    reference: Sequence[float | None] | None = None,
    reference_name: str = "paper",
    intervals: Sequence[tuple[float, float] | None] | None = None,
) -> str:
    """Horizontal bars with their value (None: drawn as "n/a"), optional reference ticks and
    optional interval whiskers.

    ``reference`` holds one value per row (e.g. the paper's number), drawn as a dark tick;
    ``intervals`` one ``(low, high)`` or None per row (e.g. the run's bootstrap interval),
    drawn as a whisker across the bar. Every measured value is printed with the same number
    of decimals (one on a 0-100 scale, three on a 0-1 scale).
    """
    label_w, bar_w, row_h = 240, 400, 18
    whiskers = bool(intervals) and any(iv is not None for iv in intervals or ())
    keys = [("measured", PALETTE[0]), (reference_name, INK)] if reference else []
    keys += [("interval of the measured value", MUTED)] if whiskers else []
    width = label_w + bar_w + 70
    lines = legend_rows(label_w, width, [k for k, _ in keys]) if keys else 0
    top = 52 + 14 * lines
    height = top + len(rows) * (row_h + 5) + 50
    out = _head(width, height, title, subtitle)
    if keys:
        out += _legend(label_w, 56, [k for k, _ in keys], [c for _, c in keys], width)

    def at(v: float) -> float:
        return label_w + bar_w * max(0.0, min(v, x_max)) / x_max

    y = top
    for i, (label, value) in enumerate(rows):
        out.append(
            f"<text x='{label_w - 6}' y='{y + 13}' font-size='11' text-anchor='end' "
            f"fill='{INK}'>{_t(label)}</text>"
        )
        interval = intervals[i] if intervals and i < len(intervals) else None
        if value is None:
            out.append(
                f"<text x='{label_w + 4}' y='{y + 13}' font-size='11' fill='{MUTED}'>n/a</text>"
            )
        else:
            w = at(value) - label_w
            out.append(
                f"<rect x='{label_w}' y='{y}' width='{w:.1f}' height='{row_h}' fill='{PALETTE[0]}'>"
                f"<title>{_t(label)}: {_fixed(value, x_max)}</title></rect>"
            )
            end = label_w + w
            if interval is not None:
                lo, hi = at(interval[0]), at(interval[1])
                text = f"{_fixed(interval[0], x_max)}, {_fixed(interval[1], x_max)}"
                out.append(_whisker(lo, hi, y, row_h, f"{label}: interval [{text}]"))
                end = max(end, hi)
            ref_at = reference[i] if reference and i < len(reference) else None
            if ref_at is not None:  # the number goes past the paper's tick too
                end = max(end, at(ref_at) + 2)
            out.append(
                f"<text x='{end + 4:.1f}' y='{y + 13}' font-size='10' "
                f"fill='{INK}'>{_fixed(value, x_max)}</text>"
            )
        ref = reference[i] if reference and i < len(reference) else None
        if ref is not None:
            x = at(ref)
            out.append(
                f"<line x1='{x:.1f}' y1='{y - 2}' x2='{x:.1f}' y2='{y + row_h + 2}' "
                f"stroke='{INK}' stroke-width='3'><title>{_t(reference_name)}: "
                f"{_fixed(ref, x_max)}</title></line>"
            )
        y += row_h + 5
    out += _x_axis(label_w, y + 2, bar_w, x_max, x_label)
    out.append(_y_label(12, top + (y - top) / 2, y_label))
    out.append("</g></svg>")
    return "".join(out)


def _whisker(lo: float, hi: float, y: float, row_h: int, title: str) -> str:
    """An interval drawn across a bar: a line from ``lo`` to ``hi`` with end caps."""
    mid = y + row_h / 2
    return (
        f"<g class='whisker' stroke='{INK}' stroke-width='1.5'><title>{_t(title)}</title>"
        f"<line x1='{lo:.1f}' y1='{mid:.1f}' x2='{hi:.1f}' y2='{mid:.1f}'/>"
        f"<line x1='{lo:.1f}' y1='{y + 4}' x2='{lo:.1f}' y2='{y + row_h - 4}'/>"
        f"<line x1='{hi:.1f}' y1='{y + 4}' x2='{hi:.1f}' y2='{y + row_h - 4}'/></g>"
    )


def histogram_svg(
    title: str,
    subtitle: str,
    series: Sequence[tuple[str, Sequence[float]]],
    *,
    x_label: str,
    y_label: str = "share of responses (%)",
    bins: int = 10,
    lo: float = 0.0,
    hi: float = 1.0,
) -> str:
    """Distributions of values in [lo, hi] as grouped bars per bin, one colour per series.

    Bars show the share (%) of each series' values in the bin, so series of different sizes
    compare; the legend gives each series' n.
    """
    plot_w, plot_h, left = 490, 170, 56
    names = [f"{name} (n={len(vals)})" for name, vals in series]
    width = left + plot_w + 24
    top = 62 + 14 * (legend_rows(left, width, names) - 1)
    height = top + plot_h + 52
    out = _head(width, height, title, subtitle)
    out += _legend(left, 54, names, PALETTE, width)
    shares: list[list[float]] = []
    for _, vals in series:
        counts = [0] * bins
        for v in vals:
            k = int((v - lo) / (hi - lo) * bins) if hi > lo else 0
            counts[min(max(k, 0), bins - 1)] += 1
        total = len(vals) or 1
        shares.append([100.0 * c / total for c in counts])
    peak = max([s for row in shares for s in row] + [1.0])
    y_max = min(100.0, 20.0 * -(-peak // 20))  # a multiple of 20: ticks every 5
    base = top + plot_h
    for k in range(5):
        v = y_max * k / 4
        y = base - plot_h * k / 4
        out.append(
            f"<line x1='{left}' y1='{y:.1f}' x2='{left + plot_w}' y2='{y:.1f}' "
            f"stroke='#e3e6eb'/><text x='{left - 5}' y='{y + 4:.1f}' font-size='10' "
            f"text-anchor='end' fill='#5b6270'>{_fmt(v)}</text>"
        )
    bin_w = plot_w / bins
    bar_w = max(2.0, (bin_w - 6) / max(1, len(series)))
    for b in range(bins):
        for s, row in enumerate(shares):
            h = plot_h * row[b] / y_max
            x = left + b * bin_w + 3 + s * bar_w
            edge_lo = lo + (hi - lo) * b / bins
            edge_hi = lo + (hi - lo) * (b + 1) / bins
            out.append(
                f"<rect x='{x:.1f}' y='{base - h:.1f}' width='{bar_w:.1f}' height='{h:.1f}' "
                f"fill='{PALETTE[s % len(PALETTE)]}'><title>{_t(names[s])}: "
                f"{_fmt(row[b])}% in [{_fmt(edge_lo, 2)}, {_fmt(edge_hi, 2)}"
                f"{']' if b == bins - 1 else ')'}</title></rect>"
            )
    out.append(f"<line x1='{left}' y1='{base}' x2='{left + plot_w}' y2='{base}' stroke='#9aa1ad'/>")
    for b in range(bins + 1):
        if b % 2 and bins > 6:
            continue
        x = left + b * bin_w
        out.append(
            f"<text x='{x:.1f}' y='{base + 14}' font-size='10' text-anchor='middle' "
            f"fill='#5b6270'>{_fmt(lo + (hi - lo) * b / bins, 2)}</text>"
        )
    out.append(
        f"<text x='{left + plot_w / 2:.1f}' y='{base + 32}' font-size='11' "
        f"text-anchor='middle' fill='#1d2330'>{_t(x_label)}</text>"
    )
    out.append(_y_label(10, top + plot_h / 2, y_label))
    out.append("</g></svg>")
    return "".join(out)


def confusion_svg(
    title: str,
    subtitle: str,
    labels: Sequence[str],
    matrix: Sequence[Sequence[int]],
    *,
    x_label: str = "predicted",
    y_label: str = "gold",
    columns: Sequence[str] | None = None,
) -> str:
    """A confusion matrix as a shaded grid with counts (rows gold, columns predicted;
    ``columns`` when they differ from the rows, e.g. an extra "failed" column)."""
    cell = 64
    cols = list(columns) if columns is not None else list(labels)
    k, m = len(labels), len(cols)
    # column names wider than a cell are set at an angle, and the grid moves down for them
    slant = any(6.2 * len(str(name)) > cell - 6 for name in cols)
    rise = int(max(6.2 * len(str(name)) for name in cols) * 0.6) if slant and cols else 0
    left, top = 150, 80 + rise
    width, height = max(420, left + m * cell + 30 + (rise if slant else 0)), top + k * cell + 40
    out = _head(width, height, title, subtitle)
    peak = max([v for row in matrix for v in row] + [1])
    for j, name in enumerate(cols):
        x = left + j * cell + cell / 2
        if slant:
            out.append(
                f"<text transform='translate({x:.0f},{top - 8}) rotate(-35)' font-size='10' "
                f"text-anchor='start' fill='{INK}'>{_t(name)}</text>"
            )
        else:
            out.append(
                f"<text x='{x:.0f}' y='{top - 8}' font-size='10' text-anchor='middle' "
                f"fill='{INK}'>{_t(name)}</text>"
            )
    out.append(
        f"<text x='{left + m * cell / 2}' y='{top - 26 - rise}' font-size='11' font-weight='600' "
        f"text-anchor='middle' fill='{INK}'>{_t(x_label)}</text>"
    )
    for i, name in enumerate(labels):
        y = top + i * cell
        out.append(
            f"<text x='{left - 8}' y='{y + cell / 2 + 4}' font-size='11' text-anchor='end' "
            f"fill='{INK}'>{_t(name)}</text>"
        )
        for j in range(m):
            v = matrix[i][j] if i < len(matrix) and j < len(matrix[i]) else 0
            # agreement blue, disagreement red, shaded by count; an empty cell is untinted,
            # so a zero off the diagonal does not look like an error
            base = (47, 111, 176) if cols[j] == name else (200, 69, 60)
            fill = _blend(base, 0.08 + 0.85 * v / peak) if v else "#f3f4f6"
            # the count sits on a white label, so it reads at every shade (no shade of a
            # continuous scale gives 4.5:1 with both white and dark text)
            label_w = 8 + 8 * len(str(v))
            cx = left + j * cell + cell / 2 - 1
            out.append(
                f"<rect x='{left + j * cell}' y='{y}' width='{cell - 2}' height='{cell - 2}' "
                f"fill='{fill}'><title>gold {_t(name)}, predicted "
                f"{_t(cols[j])}: {v}</title></rect>"
                f"<rect x='{cx - label_w / 2:.1f}' y='{y + cell / 2 - 9}' width='{label_w}' "
                f"height='18' rx='3' fill='#ffffff'/><text x='{cx:.1f}' y='{y + cell / 2 + 4}' "
                f"font-size='13' text-anchor='middle' fill='{INK}'>{v}</text>"
            )
    out.append(_y_label(left - 110, top + k * cell / 2, y_label))
    out.append("</g></svg>")
    return "".join(out)
