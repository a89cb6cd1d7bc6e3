"""Saved bench results, so that a score travels with its instrument's measured accuracy.

Every finished bench run (nothing pending) is also saved under the user's cache
directory (``$CONFLICTEVAL_CACHE_DIR`` or the user cache dir)::

    <cache dir>/bench/<labeler key>/<gold set>.json

where the labeler key is the first 16 hex digits of the sha256 of the labeler's
identity as a run's checkpoint records it (:func:`conflicteval.identity.describe`:
its kind, model, endpoint, prompt version and decoding settings). A later run of the
same labeler on the same gold set replaces the file. ``score`` and ``conflictbench
detect`` look their labeler up here (:func:`measured_lines`).

This module imports no workflow, so any command may use it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from conflicteval._atomic import atomic_write_text

__all__ = ["bench_dir", "labeler_key", "load_measurements", "measured_lines", "save_measurement"]


def bench_dir(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where saved bench results live: ``<cache dir>/bench``."""
    from conflicteval.cache import default_cache_dir

    return (Path(cache_dir) if cache_dir is not None else default_cache_dir()) / "bench"


def labeler_key(labeler: Any) -> str:
    """The key of a labeler (or of its described identity) in the store."""
    from conflicteval.identity import describe

    ident = labeler if isinstance(labeler, dict) else describe(labeler)
    text = json.dumps(ident, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def save_measurement(
    result: dict[str, Any], cache_dir: str | os.PathLike[str] | None = None
) -> Path:
    """Save one bench result (``BenchResult.to_dict()``) under its labeler's key; its path."""
    ident = result.get("labeler_identity")
    if ident is None:
        raise ValueError("a bench result without a labeler identity cannot be saved")
    path = bench_dir(cache_dir) / labeler_key(ident) / f"{result['gold']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(result, indent=2) + "\n")
    return path


def load_measurements(
    labeler: Any, cache_dir: str | os.PathLike[str] | None = None
) -> list[dict[str, Any]]:
    """The saved bench results of this labeler (any gold set), by gold set name.

    Unreadable files are skipped: a damaged store never stops a scoring run.
    """
    folder = bench_dir(cache_dir) / labeler_key(labeler)
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and "macro_f1" in data:
            out.append(data)
    return out


def unmeasured_command(labeler: Any) -> str:
    """The command that measures this labeler (for the "unmeasured" note)."""
    name = getattr(labeler, "name", "lexical")
    model = getattr(getattr(labeler, "model", None), "name", None)
    spec = str(name)
    if spec == "nli":
        spec = "nli:DIR"
    parts = ["conflicteval bench labeler --gold ramdocs --labeler", spec]
    if isinstance(model, str):
        parts += ["--model", model]
        base_url = getattr(getattr(labeler.model, "provider", None), "base_url", None)
        own_apis = ("api.openai.com", "api.anthropic.com")  # the providers' defaults
        if isinstance(base_url, str) and not any(api in base_url for api in own_apis):
            parts += ["--base-url", base_url]  # the endpoint is part of the labeler's identity
        if getattr(labeler, "structured", True) is False:
            parts.append("--plain-json")
    parts += ["--out", "bench-run"]
    return " ".join(parts)


def measured_lines(labeler: Any, cache_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """What to print beside CS-C and CS-R about the labeler that produced them.

    One line per saved gold set: ``labeler ...: macro-F1 0.6123 [0.5510, 0.6702] on
    ramdocs (119 pairs, 0 failed; measured ...)``; without one, a line saying the
    labeler is unmeasured and the exact command that measures it.
    """
    found = load_measurements(labeler, cache_dir)
    name = getattr(labeler, "name", type(labeler).__name__)
    if not found:
        return [
            f"labeler {name}: unmeasured (no saved bench result for this labeler, model and "
            f"settings); measure it with: {unmeasured_command(labeler)}"
        ]
    lines = []
    for r in found:
        ci = r.get("macro_f1_ci")
        interval = f" [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else ""
        lines.append(
            f"labeler {name}: measured macro-F1 {r['macro_f1']:.4f}{interval} on gold set "
            f"{r['gold']} ({r.get('n', '?')} pairs, {r.get('failed', '?')} failed; "
            f"{r.get('created', '')})"
        )
    return lines
