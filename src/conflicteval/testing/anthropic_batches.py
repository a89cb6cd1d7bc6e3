"""The test server's Message Batches endpoints (Anthropic's batch API).

``POST /v1/messages/batches`` (the requests inline: ``custom_id`` and ``params``),
``GET /v1/messages/batches/{id}``, ``GET /v1/messages/batches`` (a page),
``POST /v1/messages/batches/{id}/cancel`` and ``GET /v1/messages/batches/{id}/results``
(JSON Lines; only once the batch has ended). Each request is answered from the
server's reply script; an invalid ``params`` is that request's ``errored`` result,
as the real API reports it; scripted outcomes expire or cancel the requests after
the first ``answered``.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from typing import Any

from conflicteval.testing.anthropic_rules import check_batch_create, check_message_body, error_body

__all__ = ["MessageBatchOutcome", "MessageBatchesMixin"]


@dataclass(frozen=True)
class MessageBatchOutcome:
    """How one Message Batch ends (batches take outcomes in order).

    Attributes:
        polls: Retrieves that show the batch ``in_progress`` before it has ended.
        answered: Requests answered (``succeeded`` or ``errored``); the rest are
            ``expired`` (or ``canceled`` with ``cancel``). None: all.
        cancel: The unanswered requests are ``canceled`` instead of ``expired``.
        errored: custom_ids answered with an ``errored`` result (an API error).
    """

    polls: int = 1
    answered: int | None = None
    cancel: bool = False
    errored: tuple[str, ...] = ()


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat().replace("+00:00", "Z")


class MessageBatchesMixin:
    """Message Batches on a server that answers single messages (``message_reply``)."""

    batches: dict[str, dict[str, Any]]
    batch_outcomes: list[MessageBatchOutcome]
    host: str
    port: int

    def message_reply(self, n: int, body: dict[str, Any], *, truncate: bool = False) -> Any:
        raise NotImplementedError

    def _batches_route(
        self,
        method: str,
        route: str,
        path: str,
        body: Any,
        raw: bytes,
        headers: dict[str, str],
    ) -> tuple[int, Any]:
        parts = [p for p in route.split("/") if p]
        tail = parts[parts.index("batches") + 1 :]
        if method == "POST" and not tail:
            refusal = check_batch_create(body)
            if refusal is not None:
                return refusal[0], error_body(refusal[1], refusal[2])
            return 200, self._create_message_batch(body["requests"])
        if method == "GET" and not tail:
            data = [self._batch_view(b) for b in reversed(self.batches.values())]
            return 200, {
                "data": data,
                "has_more": False,
                "first_id": data[0]["id"] if data else None,
                "last_id": data[-1]["id"] if data else None,
            }
        batch = self.batches.get(tail[0]) if tail else None
        if batch is None:
            return 404, error_body("not_found_error", "message batch not found")
        if method == "GET" and len(tail) == 1:
            self._advance_message_batch(batch)
            return 200, self._batch_view(batch)
        if method == "POST" and tail[1:] == ["cancel"]:
            if batch["processing_status"] == "in_progress":
                batch["cancel_initiated_at"] = _now()
                self._end_message_batch(batch, answered=0, unanswered="canceled")
            return 200, self._batch_view(batch)
        if method == "GET" and tail[1:] == ["results"]:
            if batch["processing_status"] != "ended":
                return 400, error_body("invalid_request_error", "batch has not ended yet")
            lines = "".join(json.dumps(r) + "\n" for r in batch["results"])
            return 200, lines.encode()
        return 404, error_body("not_found_error", "Not found")

    def _create_message_batch(self, requests: list[dict[str, Any]]) -> dict[str, Any]:
        batch_id = f"msgbatch_{len(self.batches) + 1:06d}"
        outcome = self.batch_outcomes.pop(0) if self.batch_outcomes else MessageBatchOutcome()
        batch = {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": "in_progress",
            "created_at": _now(),
            "ended_at": None,
            "expires_at": None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": None,
            "requests": requests,
            "outcome": outcome,
            "retrieves": 0,
            "results": [],
            "request_counts": {
                "processing": len(requests),
                "succeeded": 0,
                "errored": 0,
                "canceled": 0,
                "expired": 0,
            },
        }
        self.batches[batch_id] = batch
        return self._batch_view(batch)

    def _advance_message_batch(self, batch: dict[str, Any]) -> None:
        if batch["processing_status"] == "ended":
            return
        batch["retrieves"] += 1
        outcome: MessageBatchOutcome = batch["outcome"]
        if batch["retrieves"] <= outcome.polls:
            return
        answered = len(batch["requests"]) if outcome.answered is None else outcome.answered
        self._end_message_batch(batch, answered, "canceled" if outcome.cancel else "expired")

    def _end_message_batch(self, batch: dict[str, Any], answered: int, unanswered: str) -> None:
        outcome: MessageBatchOutcome = batch["outcome"]
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        results = []
        for k, request in enumerate(batch["requests"]):
            custom_id, params = request["custom_id"], request["params"]
            if k >= answered:
                result: dict[str, Any] = {"type": unanswered}
            elif custom_id in outcome.errored:
                result = {"type": "errored", "error": error_body("api_error", "internal error")}
            else:
                refusal = check_message_body(params)
                if refusal is not None:
                    error = error_body(refusal[1], refusal[2])
                    result = {"type": "errored", "error": error}
                else:
                    message = self.message_reply(k, params)
                    result = {"type": "succeeded", "message": message}
            counts[result["type"]] += 1
            results.append({"custom_id": custom_id, "result": result})
        batch["results"] = results
        batch["request_counts"] = counts
        batch["processing_status"] = "ended"
        batch["ended_at"] = _now()
        batch["results_url"] = (
            f"http://{self.host}:{self.port}/v1/messages/batches/{batch['id']}/results"
        )

    @staticmethod
    def _batch_view(batch: dict[str, Any]) -> dict[str, Any]:
        hidden = ("requests", "outcome", "retrieves", "results")
        return {k: v for k, v in batch.items() if k not in hidden}
