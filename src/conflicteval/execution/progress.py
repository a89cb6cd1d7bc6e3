"""The progress bar of a batch (tqdm; the notebook bar only when ipywidgets is installed)."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["progress_bar"]


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
    """A bar over ``total`` items, ``initial`` of them done (None: shown on a terminal only)."""
    tqdm = _tqdm_class()
    if enabled is None:
        enabled = sys.stderr.isatty()
    return tqdm(total=total, initial=initial, desc=desc, disable=not enabled, unit="item")
