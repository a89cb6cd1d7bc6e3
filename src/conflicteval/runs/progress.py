"""The progress of a batch: a tqdm bar on a terminal (the notebook bar only when ipywidgets is
installed); a plain line at intervals when standard error is a file or a pipe (a log, ``tee``,
a scheduler's output), so a long run piped away still says how far it is."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

__all__ = ["LINE_INTERVAL", "LineProgress", "line_interval", "progress_bar"]

LINE_INTERVAL = 30.0
"""Seconds between two progress lines when standard error is not a terminal (the environment
variable ``CONFLICTEVAL_PROGRESS_SECONDS`` sets another)."""


def line_interval() -> float:
    """:data:`LINE_INTERVAL`, or ``$CONFLICTEVAL_PROGRESS_SECONDS`` when it is a number >= 0."""
    import os

    raw = os.environ.get("CONFLICTEVAL_PROGRESS_SECONDS")
    try:
        value = float(raw) if raw else LINE_INTERVAL
    except ValueError:
        return LINE_INTERVAL
    return value if value >= 0 else LINE_INTERVAL


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


class LineProgress:
    """Progress as plain lines, one every ``interval`` seconds at most (default:
    :func:`line_interval`), for a log or a pipe.

    ``desc: 1,981 of 10,000 items done (19.8 %), 3m12s elapsed``. A run shorter than one
    interval prints nothing; one that printed a line prints a last one when it closes.
    The clock is a parameter so that tests need not wait.
    """

    def __init__(
        self,
        total: int,
        initial: int,
        desc: str,
        *,
        interval: float | None = None,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.n, self.desc = total, initial, desc
        self._interval = line_interval() if interval is None else interval
        self._stream, self._clock = stream, clock
        self._start = self._last = clock()
        self._printed = False
        self._shown = initial

    def _line(self, now: float) -> None:
        share = f" ({100 * self.n / self.total:.1f} %)" if self.total else ""
        stream = self._stream if self._stream is not None else sys.stderr
        print(
            f"{self.desc}: {self.n:,} of {self.total:,} items done{share}, "
            f"{_duration(now - self._start)} elapsed",
            file=stream,
            flush=True,
        )
        self._last, self._printed, self._shown = now, True, self.n

    def update(self, n: int = 1) -> None:
        """``n`` more items done."""
        self.n += n
        now = self._clock()
        if now - self._last >= self._interval:
            self._line(now)

    def close(self) -> None:
        """The last line, when the run was long enough to print any."""
        if self._printed and self.n != self._shown:
            self._line(self._clock())


def _tqdm_class() -> Any:
    """tqdm's notebook bar when ipywidgets is installed, else the plain text bar.

    ``tqdm.auto`` picks the notebook bar inside Jupyter even without
    ipywidgets, which then warns "IProgress not found" and shows no bar; the
    plain bar works everywhere.
    """
    import importlib.util

    try:
        has_widgets = importlib.util.find_spec("ipywidgets") is not None
    except (ImportError, ValueError):
        has_widgets = False
    if has_widgets:
        from tqdm.auto import tqdm as auto_tqdm

        return auto_tqdm
    from tqdm.std import tqdm as std_tqdm

    return std_tqdm


def progress_bar(total: int, initial: int, desc: str, enabled: bool | None) -> Any:
    """Progress over ``total`` items, ``initial`` of them done: a bar (``enabled`` True, or
    None on a terminal), lines at intervals (None, not on a terminal), nothing (False)."""
    tqdm = _tqdm_class()
    if enabled is None:
        if not sys.stderr.isatty():
            return LineProgress(total, initial, desc)
        enabled = True
    return tqdm(total=total, initial=initial, desc=desc, disable=not enabled, unit="item")
