"""Fault soak and kill-and-resume of ``run_batch`` against a faulty local server.

Part 1, soak: N items (default 2,000) run through ``run_batch`` in a child
process against a local OpenAI-compatible server (in this process, so its request
log can be read) that injects, at random with a fixed seed, 429 with
Retry-After, 500, 503, replies slower than the client's timeout, dropped
connections, malformed bodies and truncated replies on about 20 % of requests.
Some items also fail for good (HTTP 400, insufficient quota, 503 on every
attempt, or a reply with no JSON). Checked: every item ends ``ok`` or a recorded
failure with its reason (zero lost), the checkpoint is valid JSON lines with one
line per item, and no call was requested again after it had succeeded.

Part 2, kill-and-resume: the same batch on a fresh checkpoint, SIGKILLed at a
random point and resumed, three times, then resumed to the end. Checked: the
final records equal part 1's uninterrupted records, and the server log shows no
request, after a kill, for any item finished before that kill.

Determinism: a reply is a pure function of the item's prompt, and whether a
request gets a fault (and which) is a seeded hash of the call's messages and its
attempt number within one job process. Each job process tags its requests with
its own ``user`` request field, so attempt numbers restart with each process as
the library's own attempt counter does, and an interrupted-then-resumed item
sees the same fault sequence as in an uninterrupted run.

Usage::

    python benchmarks/soak.py [--items 2000] [--kills 3] [--seed 7]
    python benchmarks/soak.py --job BASE_URL CHECKPOINT RUN_ID ...   (internal)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _common import emit, log, machine  # noqa: E402

from conflicteval.fingerprint import canonical_json  # noqa: E402
from conflicteval.runs import Record, read_checkpoint  # noqa: E402
from conflicteval.testing import Fault, LoggedRequest, OpenAICompatServer  # noqa: E402

SCHEMA = {"type": "object", "required": ["label"], "properties": {"label": {"type": "string"}}}
ITEM_RE = re.compile(r"^Soak item (\d+):")


@dataclass(frozen=True)
class SoakConfig:
    """Everything that decides a soak run's outcome (shared by server and jobs).

    Attributes:
        items: Number of items.
        seed: Seed of the fault hash.
        rate: Share of requests that get a random (retryable) fault.
        timeout: Client timeout per attempt (seconds).
        slow: Delay of a "slow" fault (beyond the timeout).
        retry_after: Retry-After seconds sent with a 429.
        concurrency: Items in flight (run_batch) and calls in flight (model).
        max_attempts: Attempts per call.
    """

    items: int = 2000
    seed: int = 7
    rate: float = 0.2
    timeout: float = 2.5
    slow: float = 5.0
    retry_after: float = 0.05
    concurrency: int = 32
    max_attempts: int = 6


# -- the deterministic server side ------------------------------------------------


def item_prompt(n: int) -> str:
    """The prompt of item ``n``."""
    return f"Soak item {n}: reply with the item's label as a JSON object"


def item_of(body: dict[str, Any] | None) -> int | None:
    """The item number behind a request body (from its first message)."""
    msgs = (body or {}).get("messages") or []
    if not msgs:
        return None
    m = ITEM_RE.match(str(msgs[0].get("content", "")))
    return int(m.group(1)) if m else None


def reply_for(body: dict[str, Any]) -> str:
    """The reply: a pure function of the item (every 37th item replies without JSON)."""
    n = item_of(body)
    if n is None:
        return "OK"
    if n % 37 == 36:
        return "I am not able to give a label for this one, sorry."
    return json.dumps({"label": f"L{n}", "note": "a label for the soak benchmark"})


def permanent_fault(n: int) -> Fault | None:
    """Items that fail for good whatever the attempt."""
    if n % 97 == 5:
        return Fault.status_code(400)  # not retryable
    if n % 101 == 7:
        return Fault.quota()  # 429 insufficient_quota: not retryable
    if n % 103 == 11:
        return Fault.status_code(503)  # retryable, on every attempt: attempts run out
    return None


def _unit(*parts: object) -> float:
    """A uniform number in [0, 1) from a hash of ``parts``."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class SoakFaults:
    """The server's fault function: seeded hash of (call messages, attempt within a job)."""

    def __init__(self, cfg: SoakConfig) -> None:
        self.cfg = cfg
        self.kinds = [
            Fault.rate_limit(cfg.retry_after),
            Fault.status_code(500),
            Fault.status_code(503),
            Fault.slow(cfg.slow),
            Fault.drop(),
            Fault.malformed(),
            Fault.truncate(),
        ]
        self._attempts: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def __call__(self, n: int, body: dict[str, Any]) -> Fault | None:
        """The fault for the request numbered ``n`` with this body (or None)."""
        item = item_of(body)
        if item is not None:
            fixed = permanent_fault(item)
            if fixed is not None:
                return fixed
        call = canonical_json(body.get("messages") or [])
        run = str(body.get("user", ""))
        with self._lock:
            attempt = self._attempts.get((run, call), 0) + 1
            self._attempts[(run, call)] = attempt
        if _unit(self.cfg.seed, call, attempt) >= self.cfg.rate:
            return None
        pick = _unit(self.cfg.seed, "kind", call, attempt)
        return self.kinds[int(pick * len(self.kinds))]


def make_server(cfg: SoakConfig) -> OpenAICompatServer:
    """The (not yet started) faulty server of a soak run."""
    return OpenAICompatServer(replies=reply_for, faults=SoakFaults(cfg))


# -- the job (child process) -------------------------------------------------------


def job(base_url: str, checkpoint: str, run_id: str, cfg: SoakConfig) -> dict[str, int]:
    """Run the batch once (resuming from ``checkpoint``); returns the counts."""
    from conflicteval import ParseFailure, get_model, run_batch_sync

    model = get_model(
        "openai/soak",
        base_url=base_url,
        api_key="soak-key",
        cache=False,
        max_concurrency=cfg.concurrency,
        timeout=cfg.timeout,
        max_attempts=cfg.max_attempts,
        backoff_initial=0.01,
        backoff_max=0.1,
    )

    async def work(item: dict[str, Any]) -> dict[str, str]:
        out = await model.generate(item["prompt"], response_schema=SCHEMA, user=run_id)
        if out.parse_error:
            raise ParseFailure(out.parse_error, raw=out.text)
        if out.finish_reason == "length":
            raise ParseFailure("reply truncated (finish_reason=length)", raw=out.text)
        return {"label": str(out.parsed["label"])}

    items = [{"id": f"i{n:05d}", "prompt": item_prompt(n)} for n in range(cfg.items)]
    result = run_batch_sync(
        work, items, checkpoint=checkpoint, concurrency=cfg.concurrency, progress=False
    )
    return result.counts


def job_command(base_url: str, checkpoint: Path, run_id: str, cfg: SoakConfig) -> list[str]:
    """The command line that runs :func:`job` in a child process."""
    return [
        sys.executable,
        str(Path(__file__).resolve()),
        "--job",
        base_url,
        str(checkpoint),
        run_id,
        "--config",
        json.dumps(asdict(cfg)),
    ]


def run_job(
    base_url: str, checkpoint: Path, run_id: str, cfg: SoakConfig, timeout: float = 600.0
) -> dict[str, int]:
    """Run one job process to the end; returns its counts."""
    out = subprocess.run(
        job_command(base_url, checkpoint, run_id, cfg),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if out.returncode != 0:
        raise RuntimeError(f"soak job {run_id} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    counts: dict[str, int] = json.loads(out.stdout.strip().splitlines()[-1])
    return counts


def _line_count(path: Path) -> int:
    try:
        with path.open("rb") as fh:
            return fh.read().count(b"\n")
    except FileNotFoundError:
        return 0


def kill_job_at(
    base_url: str,
    checkpoint: Path,
    run_id: str,
    cfg: SoakConfig,
    lines: int,
    extra_delay: float,
    timeout: float = 300.0,
) -> bool:
    """Start a job and SIGKILL it once the checkpoint has ``lines`` lines (+ a delay).

    Returns False when the job finished before the kill point was reached.
    """
    proc = subprocess.Popen(
        job_command(base_url, checkpoint, run_id, cfg),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + timeout
    try:
        while _line_count(checkpoint) < lines:
            if proc.poll() is not None:
                return False
            if time.monotonic() > deadline:
                raise RuntimeError("soak job made no progress before the deadline")
            time.sleep(0.005)
        time.sleep(extra_delay)
        proc.kill()  # SIGKILL, by this child's pid
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)
    return True


# -- checks --------------------------------------------------------------------------


def checkpoint_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of a checkpoint, parsed strictly as JSON (raises on any bad line)."""
    rows = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.endswith("\n"):
                raise ValueError(f"{path}: line {lineno} has no newline (partial write)")
            rows.append(json.loads(line))
    return rows


def check_records(cfg: SoakConfig, checkpoint: Path) -> dict[str, Any]:
    """Zero lost, every failure with a reason, valid JSON lines, one line per item."""
    rows = checkpoint_lines(checkpoint)
    ids = [r["id"] for r in rows]
    records = read_checkpoint(checkpoint)
    expected = {f"i{n:05d}" for n in range(cfg.items)}
    statuses = Counter(r.status for r in records.values())
    reasons = Counter(_reason(r) for r in records.values() if r.status != "ok")
    problems = []
    if set(records) != expected:
        problems.append(f"{len(expected - set(records))} items lost")
    if len(ids) != len(set(ids)):
        problems.append(f"{len(ids) - len(set(ids))} ids written twice")
    for r in records.values():
        if r.status != "ok" and not r.error:
            problems.append(f"{r.id}: failure without a reason")
        if r.status == "ok" and r.result != {"label": "L" + str(int(r.id[1:]))}:
            problems.append(f"{r.id}: wrong result {r.result!r}")
    return {
        "checkpoint_lines": len(rows),
        "statuses": dict(statuses),
        "failure_reasons": dict(reasons),
        "problems": problems,
    }


def _reason(rec: Record) -> str:
    """A short class of a failure reason, for the summary."""
    error = rec.error or ""
    for key in ("HTTP 400", "HTTP 429", "HTTP 503", "truncated", "timed out", "connection"):
        if key in error:
            return key
    if rec.status == "parse_error":
        return "no JSON in reply"
    return error[:40]


def _delivered(req: LoggedRequest) -> bool:
    """Whether the client received a usable reply for this request."""
    return req.status == 200 and req.fault in (None, "truncate")


def check_no_repeat_after_success(requests: list[LoggedRequest]) -> list[str]:
    """Per (job, call): nothing was requested after the reply was delivered."""
    problems = []
    delivered: set[tuple[str, str]] = set()
    for req in requests:
        body = req.body or {}
        key = (str(body.get("user", "")), canonical_json(body.get("messages") or []))
        if key in delivered:
            problems.append(f"request {req.n}: call of item {item_of(body)} asked again")
        if _delivered(req):
            delivered.add(key)
    return problems


def fault_stats(requests: list[LoggedRequest]) -> dict[str, Any]:
    """Requests per fault kind, and the share of randomly faulted requests."""
    kinds = Counter(r.fault or "none" for r in requests)
    permanent = sum(
        1 for r in requests if (n := item_of(r.body)) is not None and permanent_fault(n)
    )
    random_faults = sum(v for k, v in kinds.items() if k != "none") - permanent
    return {
        "requests": len(requests),
        "by_fault": dict(kinds),
        "random_fault_share": round(random_faults / max(1, len(requests) - permanent), 3),
    }


# -- the two parts -------------------------------------------------------------------


def soak(cfg: SoakConfig, workdir: Path) -> tuple[dict[str, Any], dict[str, Record]]:
    """Part 1: one uninterrupted run; returns its summary and records."""
    ck = workdir / "uninterrupted.jsonl"
    with make_server(cfg) as server:
        t0 = time.perf_counter()
        counts = run_job(server.base_url, ck, "run-0", cfg)
        wall = time.perf_counter() - t0
        requests = server.completions()
    checks = check_records(cfg, ck)
    repeats = check_no_repeat_after_success(requests)
    summary = {
        "wall_s": round(wall, 1),
        "counts": counts,
        **checks,
        "faults": fault_stats(requests),
        "repeated_after_success": len(repeats),
        "repeat_examples": repeats[:5],
    }
    summary["passed"] = not checks["problems"] and not repeats and counts["total"] == cfg.items
    return summary, read_checkpoint(ck)


def kill_and_resume(
    cfg: SoakConfig, workdir: Path, reference: dict[str, Record], kills: int, seed: int
) -> dict[str, Any]:
    """Part 2: SIGKILL at random points ``kills`` times, resume, compare with ``reference``."""
    rng = random.Random(seed)
    ck = workdir / "killed.jsonl"
    finished_before: list[set[str]] = []
    kill_points = []
    with make_server(cfg) as server:
        t0 = time.perf_counter()
        for k in range(kills):
            done = _line_count(ck)
            remaining = cfg.items - done
            target = done + max(1, int(remaining * rng.uniform(0.1, 0.5)))
            delay = rng.uniform(0.0, 0.05)
            killed = kill_job_at(server.base_url, ck, f"run-{k}", cfg, target, delay)
            partial = ck.exists() and ck.stat().st_size > 0 and not ck.read_bytes().endswith(b"\n")
            finished = set(read_checkpoint(ck))
            finished_before.append(finished)
            kill_points.append(
                {"killed": killed, "finished": len(finished), "partial_last_line": partial}
            )
            log(f"kill {k + 1}: killed={killed} with {len(finished)} items finished")
        counts = run_job(server.base_url, ck, f"run-{kills}", cfg)
        wall = time.perf_counter() - t0
        requests = server.completions()
    checks = check_records(cfg, ck)
    final = read_checkpoint(ck)
    # every field, each call's reply too, but how long each call took (a measurement of its run)
    same = {"calls": {"__all__": {"latency_s"}}}
    differing = sorted(
        i
        for i in reference
        if i not in final
        or final[i].model_dump(exclude=same) != reference[i].model_dump(exclude=same)
    )
    repeated: list[str] = []
    for k, finished in enumerate(finished_before):
        later_runs = {f"run-{j}" for j in range(k + 1, kills + 1)}
        for req in requests:
            body = req.body or {}
            n = item_of(body)
            if body.get("user") in later_runs and n is not None and f"i{n:05d}" in finished:
                repeated.append(f"kill {k + 1}: item {n} requested again by {body.get('user')}")
    summary = {
        "wall_s": round(wall, 1),
        "kills": kill_points,
        "final_counts": counts,
        **checks,
        "records_differing_from_uninterrupted": len(differing),
        "differing_examples": differing[:5],
        "finished_items_requested_again": len(repeated),
        "repeat_examples": repeated[:5],
    }
    summary["passed"] = (
        not checks["problems"]
        and not differing
        and not repeated
        and all(p["killed"] for p in kill_points)
    )
    return summary


def main(argv: list[str] | None = None) -> None:
    """Run the soak and kill-and-resume benchmark (or one job with ``--job``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--job", nargs=3, metavar=("BASE_URL", "CHECKPOINT", "RUN_ID"))
    parser.add_argument("--config", help="SoakConfig as JSON (job mode)")
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.job:
        cfg = SoakConfig(**json.loads(args.config)) if args.config else SoakConfig()
        counts = job(*args.job, cfg)
        print(json.dumps(counts), flush=True)
        return
    cfg = SoakConfig(items=args.items, seed=args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        part1, reference = soak(cfg, Path(tmp))
        log(f"soak: {json.dumps(part1)}")
        part2 = kill_and_resume(cfg, Path(tmp), reference, args.kills, seed=args.seed)
        log(f"kill-and-resume: {json.dumps(part2)}")
    emit(
        {
            "benchmark": "soak",
            "machine": machine(),
            "config": asdict(cfg),
            "soak": part1,
            "kill_and_resume": part2,
            "targets": {"soak": part1["passed"], "kill_and_resume": part2["passed"]},
        }
    )


if __name__ == "__main__":
    main()
