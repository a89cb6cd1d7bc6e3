"""Reading a run back: :func:`load_run` gives its contract and its flat items."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from conflicteval.errors import ConflictEvalError
from conflicteval.results.build import ITEMS_FILE, SUMMARY_FILE
from conflicteval.results.contract import SCHEMA, ItemRecord, RunSummary

__all__ = ["Run", "cost_line", "load_run", "read_summary"]


def read_summary(path: str | os.PathLike[str]) -> RunSummary:
    """The contract in ``path`` (a run directory or its ``summary.json``).

    Raises:
        ConflictEvalError: No summary, not JSON, not of schema ``conflicteval.run/1`` (a
            run made before the contract, or stopped before its end), or a field out of
            shape (named).
    """
    p = Path(path)
    file = p / SUMMARY_FILE if p.is_dir() else p
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConflictEvalError(
            f"{file}: no such file (a run writes its summary when it ends; run its command "
            "again to finish it)"
        ) from None
    except ValueError as exc:
        raise ConflictEvalError(f"{file}: not JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else None
        raise ConflictEvalError(
            f"{file}: schema {found!r}, not {SCHEMA!r} (a run made before the result "
            "contract: run its command again to write it)"
        )
    try:
        return RunSummary.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "(top)"
        raise ConflictEvalError(f"{file}: field {where}: {first['msg']}") from None


class Run:
    """A finished or partial run read from its directory: the contract (:attr:`summary`)
    and its items (one flat :class:`~conflicteval.results.contract.ItemRecord` each)."""

    def __init__(self, path: str | os.PathLike[str], summary: RunSummary) -> None:
        self.path = Path(path)
        self.summary = summary

    @property
    def kind(self) -> str:
        """The run's kind."""
        return self.summary.kind

    def items(self) -> Iterator[ItemRecord]:
        """The run's items in input order, read one at a time (none when the kind wrote
        no ``items.jsonl``).

        Raises:
            ConflictEvalError: A line that is not an item record (file and line named).
        """
        file = self.path / ITEMS_FILE
        if not file.exists():
            return
        with file.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    yield ItemRecord.model_validate_json(line)
                except ValidationError as exc:
                    first = exc.errors()[0]
                    where = ".".join(str(x) for x in first["loc"]) or "(line)"
                    raise ConflictEvalError(
                        f"{file}: line {lineno}: field {where}: {first['msg']}"
                    ) from None

    def item_values(self) -> dict[str, dict[str, float | None]]:
        """``{item id: {metric id: value}}`` of the items that were scored or not scored
        (failed and pending items have no values)."""
        return {it.id: it.values for it in self.items() if it.status in ("ok", "not_scored")}

    def metrics_table(self) -> list[dict[str, Any]]:
        """One flat row per metric (id, name, value, ci_low, ci_high, n, ...)."""
        rows = []
        for m in self.summary.metrics:
            row = m.model_dump(exclude={"ci", "published"})
            row["ci_low"], row["ci_high"] = m.ci if m.ci is not None else (None, None)
            for key, value in m.published.items():
                row[f"published.{key}"] = value
            rows.append(row)
        return rows

    def to_pandas(self, what: str = "items") -> Any:
        """A flat pandas DataFrame: ``"items"`` (one row per item, its metric values as
        columns) or ``"metrics"`` (one row per metric). Needs the ``pandas`` extra."""
        from conflicteval.errors import require

        pd: Any = require("pandas", "pandas")
        if what == "metrics":
            return pd.DataFrame(self.metrics_table())
        if what != "items":
            raise ValueError(f"what={what!r}: 'items' or 'metrics'")
        rows = []
        for it in self.items():
            row = it.model_dump(exclude={"values"})
            row.update(it.values)
            rows.append(row)
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        s = self.summary
        return f"Run({str(self.path)!r}, kind={s.kind!r}, {s.progress.done}/{s.progress.total})"


def load_run(path: str | os.PathLike[str]) -> Run:
    """Read the run in directory ``path`` (its ``summary.json`` in the result contract).

    Example:
        >>> run = load_run("runs/score")                    # doctest: +SKIP
        >>> run.summary.metric("cs_c_mean").value           # doctest: +SKIP
        >>> run.to_pandas()                                 # doctest: +SKIP
    """
    p = Path(path)
    if not p.is_dir():
        raise ConflictEvalError(f"{p}: not a run directory")
    return Run(p, read_summary(p))


def cost_line(summary: RunSummary) -> str:
    """The money of a run's contract on one line (the CLI's closing line and the viewer's
    "estimated cost" say the same)."""
    from conflicteval.pricing import format_usd

    c = summary.cost
    calls = f"{c.sent.calls} calls sent, {c.replayed.calls} replayed from the cache (not priced)"
    if c.usd is None:
        return f"cost: not priced ({', '.join(c.unpriced)} not in the price table); {calls}"
    return f"cost: est. {format_usd(c.usd)} ({calls}; list prices of {c.prices_as_of})"
