"""Export a run to the Every Eval Ever format (schema 0.3.0): the aggregate record
``<uuid>.json`` and its instance-level ``<uuid>_samples.jsonl``, laid out as that project's
datastore lays them out (``data/<evaluation>/<developer>/<model>/``).

What goes where:

* every metric with a value becomes one ``evaluation_results`` entry (``metric_id``
  ``conflicteval.<kind>.<id>``), with its 95 % interval, ``n`` and bootstrap resamples; a
  metric with nothing measured has no score to give and is listed by id in
  ``source_metadata.additional_details.not_measured`` instead;
* every item's value of a metric of 0/1 outcomes (``items: binary``) becomes one instance
  record (score 0 or 1, ``is_correct``); metrics that are means of real values (CS-C,
  CS-R) have no instance records, as the format's instances are correct or not;
* the run contract keeps item ids and values, not the items' text: an instance's
  ``input.raw`` is its id, ``reference`` and ``output.raw`` are empty (the inputs are the
  run's data files, named with their sha256 in ``source_data``).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

from conflicteval._atomic import atomic_open, atomic_write_text
from conflicteval.results.contract import RunSummary
from conflicteval.results.load import Run, load_run

__all__ = ["EEE_SCHEMA_VERSION", "eee_records", "export_eee"]

EEE_SCHEMA_VERSION = "0.3.0"
_UNITS = {"share": "proportion", "percent": "percent", "score": "points"}


def _slug(text: str) -> str:
    out = "".join(c if c.isalnum() or c in "-._" else "-" for c in text).strip("-")
    return out or "unknown"


def _model(summary: RunSummary) -> tuple[str, str, str]:
    """(name, id, developer) of the model the run evaluates: the answering model, else the
    instrument (judge, labeler) whose output the metrics are."""
    order = ("answering", "labeler", "judge", "decomposer", "scorer")
    models = sorted(summary.models, key=lambda m: order.index(m.role) if m.role in order else 9)
    if models:
        spec = models[0].spec
        provider, _, name = spec.partition("/")
        return (name or spec), spec, (provider if name else "unknown")
    if summary.instruments:
        name = summary.instruments[0].name
        return name, f"conflicteval/{name}", "conflicteval"
    return "none", "conflicteval/none", "conflicteval"


def _details(values: dict[str, Any]) -> dict[str, str]:
    return {
        k: v if isinstance(v, str) else json.dumps(v) for k, v in values.items() if v is not None
    }


def eee_records(run: Run | str | os.PathLike[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The aggregate record and the instance records of a run (see the module's text)."""
    r = run if isinstance(run, Run) else load_run(run)
    s = r.summary
    name, model_id, developer = _model(s)
    retrieved = str(int(time.time()))
    evaluation_name = f"conflicteval-{s.kind}"
    evaluation_id = f"{evaluation_name}/{model_id}/{retrieved}"
    data = s.data[0] if s.data else None
    source_data = {
        "dataset_name": data.name if data else s.kind,
        "source_type": "other",
        "additional_details": _details(
            {"sha256": data.sha256, "path": data.path, "items": data.items} if data else {}
        ),
    }
    results = [
        _result(m, s, evaluation_name, source_data) for m in s.metrics if m.value is not None
    ]
    binary = [m for m in s.metrics if m.items == "binary" and m.value is not None]
    samples = _samples(r, binary, evaluation_id, model_id, evaluation_name)
    not_measured = [m.id for m in s.metrics if m.value is None]
    aggregate: dict[str, Any] = {
        "schema_version": EEE_SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "retrieved_timestamp": retrieved,
        "source_metadata": {
            "source_name": f"conflicteval {s.kind} run",
            "source_type": "evaluation_run",
            "source_organization_name": "unknown",
            "evaluator_relationship": "third_party",
            "additional_details": _details(
                {
                    "run_contract": s.schema_,
                    "status": s.status,
                    "progress": f"{s.progress.done} of {s.progress.total}",
                    "instruments": ", ".join(
                        f"{i.role} {i.name}: {i.status}" for i in s.instruments
                    ),
                    "cost_usd": s.cost.usd,
                    "not_measured": ", ".join(not_measured) or None,
                }
            ),
        },
        "eval_library": {"name": "conflicteval", "version": s.library_version or "unknown"},
        "model_info": {
            "name": name,
            "id": model_id,
            "developer": developer,
            "additional_details": {"deployment_type": "unknown", "model_availability": "unknown"},
        },
        "evaluation_results": results,
    }
    if s.started_at:
        aggregate["evaluation_timestamp"] = s.started_at
    return aggregate, samples


def _result(
    m: Any, s: RunSummary, evaluation_name: str, source_data: dict[str, Any]
) -> dict[str, Any]:
    """One ``evaluation_results`` entry: a metric with its value, interval and n."""
    score: dict[str, Any] = {
        "score": m.value,
        "details": _details({"n": m.n, "n_counts": m.n_counts, "note": m.note}),
    }
    if m.ci is not None:
        score["uncertainty"] = {
            "confidence_interval": {
                "lower": m.ci[0],
                "upper": m.ci[1],
                "confidence_level": 0.95,
                "method": m.interval or "bootstrap",
            },
            "num_samples": m.n,
            "num_bootstrap_samples": 1000,
        }
    return {
        "evaluation_result_id": m.id,
        "evaluation_name": f"{evaluation_name}.{m.id}",
        "source_data": source_data,
        "evaluation_timestamp": s.finished_at or "",
        "metric_config": {
            "evaluation_description": f"{m.name} over {m.n_counts}",
            "metric_id": f"conflicteval.{s.kind}.{m.id}",
            "metric_name": m.name,
            "metric_unit": _UNITS.get(m.unit, m.unit),
            "lower_is_better": m.lower_is_better,
            "score_type": "continuous",
            "min_score": 0.0,
            "max_score": m.scale,
        },
        "score_details": score,
    }


def _samples(
    r: Run, binary: list[Any], evaluation_id: str, model_id: str, evaluation_name: str
) -> list[dict[str, Any]]:
    """One instance record per item and metric of 0/1 outcomes the item has a value for."""
    samples: list[dict[str, Any]] = []
    for item in r.items():
        for m in binary:
            value = item.values.get(m.id)
            if value is None:
                continue
            samples.append(
                {
                    "schema_version": EEE_SCHEMA_VERSION,
                    "evaluation_id": evaluation_id,
                    "model_id": model_id,
                    "evaluation_name": f"{evaluation_name}.{m.id}",
                    "evaluation_result_id": m.id,
                    "sample_id": item.id,
                    "interaction_type": "single_turn",
                    "input": {"raw": item.id, "reference": []},
                    "output": {"raw": []},  # the contract keeps no reply text
                    "answer_attribution": [],
                    "evaluation": {"score": value, "is_correct": value == 1.0},
                    "token_usage": {
                        "input_tokens": item.prompt_tokens,
                        "output_tokens": item.completion_tokens,
                        "total_tokens": item.prompt_tokens + item.completion_tokens,
                    },
                    "error": item.error,
                }
            )
    return samples


def export_eee(run: Run | str | os.PathLike[str], out: str | os.PathLike[str]) -> list[Path]:
    """Write a run as an Every Eval Ever record under ``out``; return the files written.

    The record's name is a UUID (version 4 layout) derived from the run's summary, so
    exporting the same run again names the same files.
    """
    r = run if isinstance(run, Run) else load_run(run)
    aggregate, samples = eee_records(r)
    digest = hashlib.sha256(r.summary.model_dump_json().encode("utf-8")).digest()
    name = str(uuid.UUID(bytes=digest[:16], version=4))
    model = aggregate["model_info"]
    rel = Path(
        "data", f"conflicteval-{r.summary.kind}", _slug(model["developer"]), _slug(model["name"])
    )
    folder = Path(out) / rel
    written = []
    if samples:
        samples_path = folder / f"{name}_samples.jsonl"
        with atomic_open(samples_path) as fh:
            for row in samples:
                fh.write(json.dumps(row) + "\n")
        text = samples_path.read_bytes()
        aggregate["detailed_evaluation_results"] = {
            "format": "jsonl",
            "file_path": f"{rel.as_posix()}/{name}_samples.jsonl",
            "hash_algorithm": "sha256",
            "checksum": hashlib.sha256(text).hexdigest(),
            "total_rows": len(samples),
        }
        written.append(samples_path)
    path = folder / f"{name}.json"
    atomic_write_text(path, json.dumps(aggregate, indent=2) + "\n")
    return [path, *written]
