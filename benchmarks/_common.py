"""Shared helpers for the benchmark scripts (not part of the installed package).

Every benchmark prints human-readable lines while it runs and a JSON summary as
its last line, so ``python benchmarks/<name>.py | tail -n 1`` is machine-readable.
"""

from __future__ import annotations

import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("CONFLICTEVAL_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))


def machine() -> dict[str, Any]:
    """The machine a figure was taken on: cores, RAM, Python and OS (no host names)."""
    ram_gib: float | None = None
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    ram_gib = round(int(line.split()[1]) / 1024 / 1024, 1)
                    break
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "ram_gib": ram_gib,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "system": platform.system(),
    }


def emit(summary: dict[str, Any]) -> None:
    """Print the JSON summary as the last line of output."""
    print(json.dumps(summary, sort_keys=True), flush=True)


def log(message: str) -> None:
    """A progress line on stderr (keeps stdout's last line the JSON summary)."""
    print(message, file=sys.stderr, flush=True)


def median(values: Sequence[float]) -> float:
    """The median of a non-empty sequence."""
    return float(statistics.median(values))


@dataclass(frozen=True)
class ServerProcess:
    """A benchmark server running in its own process."""

    base_url: str
    pid: int

    def cpu_seconds(self) -> float:
        """CPU seconds the server process has used so far."""
        return child_cpu_seconds(self.pid)


@contextmanager
def server_process(
    latency: float = 0.0, *, echo: bool = False, extra: Sequence[str] = ()
) -> Iterator[ServerProcess]:
    """Run ``python -m conflicteval.testing.server`` in its own process.

    The server binds to 127.0.0.1 on an ephemeral port. It is stopped (SIGINT,
    then SIGKILL by pid if needed) when the block ends.
    """
    cmd = [
        sys.executable,
        "-m",
        "conflicteval.testing.server",
        "--port",
        "0",
        "--latency",
        str(latency),
        *(["--echo"] if echo else []),
        *extra,
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("benchmark server did not start")
        yield ServerProcess(str(json.loads(line)["base_url"]), proc.pid)
    finally:
        stop_process(proc)


def stop_process(proc: subprocess.Popen[Any], grace: float = 5.0) -> None:
    """Stop a child process this benchmark started: SIGINT, then SIGKILL by its pid."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(grace)


def child_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds used so far by process ``pid`` (Linux /proc)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


class Timer:
    """Wall-clock and process-CPU seconds of a block (``with Timer() as t: ...``)."""

    def __enter__(self) -> Timer:
        self.wall0 = time.perf_counter()
        self.cpu0 = time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall0
        self.cpu = time.process_time() - self.cpu0
