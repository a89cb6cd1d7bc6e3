"""Saved bench results, so that a score travels with its instrument's measured accuracy.

Every finished bench run (nothing pending) is also saved under the user's cache
directory (``$CONFLICTEVAL_CACHE_DIR`` or the user cache dir)::

    <cache dir>/bench/<labeler key>/<gold set>/<gold file sha256, 16 digits>-<pairs>.json

where the labeler key is the first 16 hex digits of the sha256 of the labeler's
identity as a run's checkpoint records it (:func:`conflicteval.runs.identity.describe`:
its kind, model, endpoint, prompt version and decoding settings). Each measurement is
kept with its gold file's sha256 and size (pairs): a later run replaces only the
measurement on the same gold file and the same number of pairs, so a run on a one-item
file or with ``--limit`` never replaces a measurement on the whole set. ``score`` and
``conflictbench detect`` look their labeler up here (:func:`measured_lines`) and show
the measurement on the most pairs, naming its gold file; one under
:data:`MIN_RELIABLE_PAIRS` pairs is marked as too small to rely on.

This module imports no workflow, so any command may use it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from conflicteval._atomic import write_json
from conflicteval.fingerprint import fingerprint

__all__ = [
    "MIN_RELIABLE_PAIRS",
    "bench_dir",
    "best_measurement",
    "labeler_key",
    "load_measurements",
    "measured_lines",
    "save_measurement",
]

MIN_RELIABLE_PAIRS = 100
"""A saved measurement on fewer gold pairs is shown as too small to rely on."""


def bench_dir(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where saved bench results live: ``<cache dir>/bench``."""
    from conflicteval.cache import default_cache_dir

    return (Path(cache_dir) if cache_dir is not None else default_cache_dir()) / "bench"


def labeler_key(labeler: Any) -> str:
    """The key of a labeler (or of its described identity) in the store."""
    from conflicteval.runs.identity import describe

    ident = labeler if isinstance(labeler, dict) else describe(labeler)
    return fingerprint(ident, 16)


def save_measurement(
    result: dict[str, Any], cache_dir: str | os.PathLike[str] | None = None
) -> Path:
    """Save one bench result (``BenchResult.to_dict()``) under its labeler's key; its path.

    The file is named by the gold set, its file's sha256 and the pairs measured, so only a
    measurement of the same size on the same gold file is replaced.
    """
    ident = result.get("labeler_identity")
    if ident is None:
        raise ValueError("a bench result without a labeler identity cannot be saved")
    sha = str(result.get("gold_sha256") or "unknown")[:16]
    name = f"{sha}-{int(result.get('n') or 0)}.json"
    path = bench_dir(cache_dir) / labeler_key(ident) / str(result["gold"]) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, result)
    return path


def load_measurements(
    labeler: Any, cache_dir: str | os.PathLike[str] | None = None
) -> list[dict[str, Any]]:
    """Every saved bench result of this labeler (any gold set or file), most pairs first.

    Unreadable files are skipped: a damaged store never stops a scoring run.
    """
    folder = bench_dir(cache_dir) / labeler_key(labeler)
    out = []
    for path in sorted(folder.rglob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("macro_f1"), int | float):
            out.append(data)
    return sorted(out, key=_pairs, reverse=True)


def _pairs(result: dict[str, Any]) -> int:
    n = result.get("n")
    return n if isinstance(n, int) and not isinstance(n, bool) else 0


def best_measurement(
    labeler: Any, cache_dir: str | os.PathLike[str] | None = None
) -> dict[str, Any] | None:
    """The saved measurement of this labeler on the most gold pairs (None: unmeasured)."""
    found = load_measurements(labeler, cache_dir)
    return found[0] if found else None


def measurement_text(result: dict[str, Any]) -> str:
    """``macro-F1 0.6123 [0.5510, 0.6702] on gold set ramdocs (file sha256 1a2b...,
    119 pairs, 0 failed; <created>)``, marked when it is too small to rely on."""
    ci = result.get("macro_f1_ci")
    interval = f" [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else ""
    sha = result.get("gold_sha256")
    where = f"file sha256 {str(sha)[:12]}…" if sha else "gold file not recorded"
    n = _pairs(result)
    small = (
        f"; too small to rely on (under {MIN_RELIABLE_PAIRS} pairs)"
        if n < MIN_RELIABLE_PAIRS
        else ""
    )
    return (
        f"macro-F1 {result['macro_f1']:.4f}{interval} on gold set {result.get('gold')} "
        f"({where}, {n} pairs, {result.get('failed', '?')} failed; "
        f"{result.get('created', '')}){small}"
    )


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

    The measurement on the most pairs: ``labeler ...: measured macro-F1 0.6123 [0.5510,
    0.6702] on gold set ramdocs (file sha256 ..., 119 pairs, 0 failed; ...)``, marked
    when under :data:`MIN_RELIABLE_PAIRS` pairs, and how many other measurements are kept;
    without one, a line saying the labeler is unmeasured and the exact command that
    measures it.
    """
    found = load_measurements(labeler, cache_dir)
    name = getattr(labeler, "name", type(labeler).__name__)
    if not found:
        return [  # the command on a line of its own: it stays whole to copy
            f"labeler {name}: unmeasured (no saved bench result for this labeler, model and "
            "settings)",
            f"  measure it with: {unmeasured_command(labeler)}",
        ]
    line = f"labeler {name}: measured {measurement_text(found[0])}"
    if len(found) > 1:
        line += f" (the largest of {len(found)} saved measurements)"
    return [line]
