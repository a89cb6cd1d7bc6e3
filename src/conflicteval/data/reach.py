"""Decide once, quickly, whether a dataset host can be reached (online or offline).

Without this, a machine without network waits for ``huggingface_hub``'s retries (about
24 s of warnings) before learning that a dataset is not cached. One short request per
host and process settles it: any HTTP answer (even an error status) means online; no
answer within :data:`PROBE_SECONDS` (no route, DNS failure, connection refused, silence)
means offline, and the caller works from its cache, or says plainly that the file is not
there. Proxies from the environment are honoured, as for the download itself.
"""

from __future__ import annotations

import logging
import threading
from urllib.parse import urlsplit

__all__ = ["PROBE_SECONDS", "unreachable"]

log = logging.getLogger("conflicteval.data")

PROBE_SECONDS = 3.0
"""How long the one probe of a host may take before the host counts as unreachable."""

_verdicts: dict[str, str | None] = {}
_lock = threading.Lock()


def unreachable(url: str) -> str | None:
    """Why ``url``'s host cannot be reached (e.g. ``"huggingface.co: no answer within
    3 s"``), or None when it answered. Probed once per host and process."""
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    with _lock:
        if origin in _verdicts:
            return _verdicts[origin]
    verdict = _probe(origin, parts.hostname or parts.netloc)
    with _lock:
        _verdicts[origin] = verdict
    if verdict is not None:
        log.warning("working offline: %s", verdict)
    return verdict


def _probe(origin: str, host: str) -> str | None:
    import httpx

    try:
        httpx.head(origin, timeout=PROBE_SECONDS, follow_redirects=False)
    except httpx.TimeoutException:
        return f"{host}: no answer within {PROBE_SECONDS:g} s"
    except (httpx.HTTPError, OSError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        return f"{host} could not be reached ({reason})"
    return None


def forget() -> None:
    """Forget the verdicts (tests, or a network that came back)."""
    with _lock:
        _verdicts.clear()
