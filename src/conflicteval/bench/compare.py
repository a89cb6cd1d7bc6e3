"""Paired comparison of two bench runs on the same gold items (``bench compare``).

When two runs measured different labelers on the same gold file (the same sha256, not
merely the same gold set name) and both output directories hold ``records.jsonl``, the
items both runs labelled are compared *paired*: each bootstrap resample draws the same
gold items for both labelers (:func:`conflicteval.stats.classification_difference`), and
a difference of accuracy or macro-F1 is called larger than its interval when the 95 %
interval excludes 0 and has a width. Two runs sharing fewer than
:data:`~conflicteval.stats.MIN_INTERVAL_UNITS` items get no verdict. The accuracy
difference also gets the exact McNemar p over the gold pairs (each right or wrong in both
runs) from :func:`conflicteval.results.compare.compare_values`, the test ``conflicteval
compare`` uses; McNemar treats the pairs as independent, which pairs of one item need not be.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conflicteval.stats import MIN_INTERVAL_UNITS, classification_difference
from conflicteval.tables import markdown_table
from conflicteval.types import RELATIONS

__all__ = ["paired_differences", "read_records", "same_gold_file"]


def same_gold_file(first: dict[str, Any], second: dict[str, Any]) -> str | None:
    """Why two bench results cannot be paired (None: they measured the same gold file)."""
    a, b = first.get("gold_sha256"), second.get("gold_sha256")
    if not a or not b:
        return "a result does not record its gold file's sha256 (made by an earlier version)"
    if a != b:
        return f"different gold files (sha256 {str(a)[:12]}… and {str(b)[:12]}…)"
    return None


def read_records(directory: Path) -> dict[str, dict[str, Any]] | None:
    """The per-item records of a bench output directory (None when it has none).

    Raises:
        DataError: A line is not a record ``bench labeler`` writes (names the file,
            line and field).
    """
    from conflicteval.jsonio import get_list, iter_json_lines, require_mapping
    from conflicteval.readers import id_text

    path = directory / "records.jsonl"
    if not path.is_file():
        return None
    out = {}
    for lineno, value in iter_json_lines(path):
        row = require_mapping(path, lineno, value)
        if row.get("status") != "pending":
            get_list(path, lineno, row, "gold")
            get_list(path, lineno, row, "labels")
            out[id_text(path, lineno, "id", row.get("id"))] = row
    return out


def paired_differences(
    first: dict[str, dict[str, Any]], second: dict[str, dict[str, Any]]
) -> dict[str, Any] | None:
    """Second minus first on the items both labelled with the same gold (None: no such item)."""
    gold: list[str] = []
    a: list[str | None] = []
    b: list[str | None] = []
    groups: list[str] = []
    shared = [i for i in first if i in second and first[i]["gold"] == second[i]["gold"]]
    for item_id in shared:
        gold += first[item_id]["gold"]
        a += first[item_id]["labels"]
        b += second[item_id]["labels"]
        groups += [item_id] * len(first[item_id]["gold"])
    if not gold:
        return None
    result = classification_difference(gold, a, b, RELATIONS, groups=groups)
    result["accuracy"].update(_accuracy_test(first, second, shared))
    verdict = len(shared) >= MIN_INTERVAL_UNITS
    if not verdict:
        for figure in ("accuracy", "macro_f1"):
            result[figure]["larger_than_interval"] = False
    return {"items": len(shared), "pairs": len(gold), "verdict": verdict, **result}


def _accuracy_test(
    first: dict[str, dict[str, Any]], second: dict[str, dict[str, Any]], shared: list[str]
) -> dict[str, Any]:
    """The exact McNemar p of the accuracy difference, each gold pair right or wrong (a
    failed pair wrong) in both runs: the paired test ``conflicteval compare`` uses."""
    from conflicteval.results.compare import compare_values
    from conflicteval.results.contract import Metric

    def values(records: dict[str, dict[str, Any]]) -> dict[str, dict[str, float | None]]:
        return {
            f"{i}\t{k}": {"accuracy": float(g == p)}
            for i in shared
            for k, (g, p) in enumerate(zip(records[i]["gold"], records[i]["labels"], strict=False))
        }

    metric = Metric(
        id="accuracy", name="accuracy", value=None, n=0, n_counts="pairs", items="binary"
    )
    (row,) = compare_values([metric], values(first), values(second))
    return {"p": row.p, "test": row.test, "discordant": row.discordant}


def difference_lines(name_a: str, name_b: str, diff: dict[str, Any]) -> list[str]:
    """Readable lines of one paired comparison."""
    lines = [
        f"{name_b} minus {name_a}, paired on {diff['items']} shared items ({diff['pairs']} pairs):"
    ]
    for figure in ("accuracy", "macro_f1"):
        d = diff[figure]
        low, high = d["difference_ci"]
        verdict = "larger than its interval" if d["larger_than_interval"] else "within noise"
        if not diff.get("verdict", True):
            verdict = (
                f"no verdict (fewer than {MIN_INTERVAL_UNITS} shared items: too few to compare)"
            )
        test = f"; {d['test']} p = {d['p']:.4g}" if d.get("p") is not None else ""
        lines.append(
            f"  {figure} {d['difference']:+.4f} [{low:+.4f}, {high:+.4f}]: {verdict}{test}"
        )
    return lines


def read_result(path: str | Path) -> dict[str, Any]:
    """A saved bench result: ``bench.json`` itself or the directory holding it.

    Raises:
        UsageError: No bench.json there.
        DataError: The file is not a bench result.
    """
    from conflicteval.errors import DataError, UsageError
    from conflicteval.jsonio import load_json

    p = Path(path)
    if p.is_dir():
        p = p / "bench.json"
    if not p.is_file():
        raise UsageError(f"{path}: no bench.json (give a 'bench labeler' output directory)")
    data = load_json(p)
    if not isinstance(data, dict) or "macro_f1" not in data or "gold" not in data:
        raise DataError(p, None, "macro_f1", "not a bench result (bench.json)")
    for name in ("accuracy", "macro_f1", "cost_usd"):
        if data.get(name) is not None and not _is_number(data[name]):
            raise DataError(p, None, name, f"expected a number, got {type(data[name]).__name__}")
    for name in ("accuracy_ci", "macro_f1_ci"):
        ci = data.get(name)
        if ci and not (isinstance(ci, list) and len(ci) == 2 and all(map(_is_number, ci))):
            raise DataError(p, None, name, "expected an interval [low, high] of two numbers")
    return data


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _ci_text(value: Any, ci: Any) -> str:
    if value is None:
        return "–"
    return f"{value:.4f} [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else f"{value:.4f}"


def results_table(rows: list[dict[str, Any]]) -> str:
    """Bench results side by side: a Markdown table, one row per result."""
    head = ["labeler", "model", "gold", "pairs", "failed", "accuracy [95% CI]"]
    head += ["macro-F1 [95% CI]", "cost"]
    table = []
    for r in rows:
        cost = "–" if r.get("cost_usd") is None else f"${r['cost_usd']:.4f}"
        table.append(
            [
                r.get("labeler"),
                r.get("model") or "–",
                r.get("gold"),
                r.get("n"),
                r.get("failed"),
                _ci_text(r.get("accuracy"), r.get("accuracy_ci")),
                _ci_text(r.get("macro_f1"), r.get("macro_f1_ci")),
                cost,
            ]
        )
    left = ["left", "left", "left", "right", "right", "left", "left", "right"]
    return markdown_table(head, table, left)
