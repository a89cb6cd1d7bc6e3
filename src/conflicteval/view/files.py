"""The report's charts as files, for papers and slides: the same SVG the page draws.

``conflicteval view RUN --charts DIR`` writes each chart of each run as an ``.svg`` file (and
with ``--png`` also as a PNG, photographed by the operating system's headless Chromium, so the
picture is exactly the page's: one drawing code for both).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from conflicteval._atomic import atomic_write_text
from conflicteval.errors import ConflictEvalError

from .model import Chart, RunView

__all__ = ["BROWSERS", "find_chromium", "write_chart", "write_charts"]

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
"""Executable names of the headless browser, in the order they are looked for on ``PATH``."""


def find_chromium() -> str | None:
    """The Chromium (or Chrome) executable on ``PATH``, or None."""
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "chart"


def _size(svg: str) -> tuple[int, int]:
    found = re.search(r"viewBox='0 0 (\d+) (\d+)'", svg)
    return (int(found.group(1)), int(found.group(2))) if found else (800, 600)


def _png(browser: str, svg: Path, png: Path) -> None:
    width, height = _size(svg.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="conflicteval-chromium-") as profile:
        argv = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
        argv += ["--disable-background-networking", "--disable-component-update"]
        argv += ["--disable-sync", "--no-first-run", f"--user-data-dir={profile}"]
        argv += ["--force-device-scale-factor=2", f"--window-size={width},{height}"]
        proc = subprocess.run(
            [*argv, f"--screenshot={png}", svg.resolve().as_uri()],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    if proc.returncode != 0 or not png.is_file():
        raise ConflictEvalError(f"{png}: Chromium could not draw {svg}: {proc.stderr[-300:]}")


def write_chart(chart: Chart, path: str | Path) -> Path:
    """Write one chart of the page to ``path``: ``.svg`` as drawn, ``.png`` photographed by
    the operating system's headless Chromium (the same picture). Returns ``path``.

    Raises:
        ConflictEvalError: Another suffix, or ``.png`` without a Chromium on ``PATH``.
    """
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in (".svg", ".png"):
        raise ConflictEvalError(f"{target}: a chart is written as .svg or .png")
    browser = find_chromium() if suffix == ".png" else None
    if suffix == ".png" and browser is None:
        raise ConflictEvalError(
            f"{target}: a .png needs the operating system's Chromium (apt-get install "
            "chromium); a .svg needs nothing"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    text = chart.svg.replace("<svg ", "<svg style='background:#fff' ", 1)
    text = "<?xml version='1.0' encoding='utf-8'?>\n" + text + "\n"
    if browser is None:
        atomic_write_text(target, text)
        return target
    with tempfile.TemporaryDirectory(prefix="conflicteval-chart-") as tmp:
        svg = Path(tmp) / "chart.svg"
        svg.write_text(text, encoding="utf-8")
        _png(browser, svg, target)
    return target


def write_charts(runs: Sequence[RunView], out: str | Path, *, png: bool = False) -> list[Path]:
    """Write every chart of ``runs`` into the folder ``out``; returns the files written.

    Files are named ``<run>-<n>-<chart title>.svg`` (and ``.png`` with ``png``). The SVG is
    the page's own chart, given a white background so that it reads on any slide.

    Raises:
        ConflictEvalError: ``png`` without a Chromium on ``PATH``, or Chromium failing.
    """
    browser = find_chromium() if png else None
    if png and browser is None:
        raise ConflictEvalError(
            "--png needs the operating system's Chromium (apt-get install chromium); "
            "the .svg files need nothing"
        )
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for run in runs:
        for i, chart in enumerate(run.charts, 1):
            stem = f"{_slug(run.name)}-{i}-{_slug(chart.title)}"
            svg = folder / f"{stem}.svg"
            text = chart.svg.replace("<svg ", "<svg style='background:#fff' ", 1)
            atomic_write_text(svg, "<?xml version='1.0' encoding='utf-8'?>\n" + text + "\n")
            written.append(svg)
            if browser is not None:
                _png(browser, svg, folder / f"{stem}.png")
                written.append(folder / f"{stem}.png")
    return written
