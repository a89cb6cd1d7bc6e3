"""The card as Every Eval Ever records: one per benchmark run, each written by the result
contract's own export (:func:`conflicteval.results.eee.export_eee`)."""

from __future__ import annotations

import os
from pathlib import Path

from conflicteval.errors import ConflictEvalError

from .card import read_profile

__all__ = ["export_profile"]


def export_profile(profile_dir: str | os.PathLike[str], out: str | os.PathLike[str]) -> list[Path]:
    """Export every run of the profile in ``profile_dir`` that wrote its contract as an Every
    Eval Ever record under ``out``; return the files written.

    Raises:
        ConflictEvalError: Not a profile directory, or no run of it has a contract.
    """
    from conflicteval.results.eee import export_eee
    from conflicteval.results.load import load_run

    root = Path(profile_dir)
    written: list[Path] = []
    for cell in read_profile(root)["cells"]:
        if cell.get("status") != "ran":
            continue
        try:
            run = load_run(root / cell["run"])
        except ConflictEvalError:
            continue  # a run without the contract has nothing to export
        written += export_eee(run, out)
    if not written:
        raise ConflictEvalError(f"{root}: no run of the profile has a result contract to export")
    return written
