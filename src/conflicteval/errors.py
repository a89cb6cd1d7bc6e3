"""Exceptions raised by conflicteval.

Every error a user can cause with bad input names where the problem is: the
file, the row or record, and the field.
"""

from __future__ import annotations

from os import PathLike


class ConflictEvalError(Exception):
    """Base class of every error conflicteval raises on purpose."""


class UsageError(ConflictEvalError, ValueError):
    """A mistake in how the library or the command line was called (a bad option value)."""


class CheckpointMismatch(ConflictEvalError):
    """A checkpoint was made by another configuration than the run resuming it.

    Attributes:
        path: The checkpoint.
        differences: ``[(field, recorded value, value of this run), ...]``.
    """

    def __init__(self, path: str, differences: list[tuple[str, object, object]]) -> None:
        shown = "; ".join(f"{f}: {_short(old)} -> {_short(new)}" for f, old, new in differences[:6])
        more = f" (and {len(differences) - 6} more)" if len(differences) > 6 else ""
        super().__init__(
            f"{path} was made with another configuration ({shown}{more}); resuming would mix "
            "two runs' results. Use another output, or start over with --restart "
            "(restart=True), which moves the old checkpoint aside"
        )
        self.path = path
        self.differences = differences


class BatchAborted(ConflictEvalError):
    """A batch stopped early because every further call would fail the same way.

    Attributes:
        error: The failure that stopped it (a ModelError for a refused key).
        finished: Items finished (and kept in the checkpoint) before it stopped.
    """

    def __init__(self, message: str, error: BaseException | None = None, finished: int = 0):
        super().__init__(message)
        self.error = error
        self.finished = finished


def _short(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class DataError(ConflictEvalError, ValueError):
    """A dataset file is malformed.

    Args:
        path: The file being read (or a description such as ``"<stdin>"``).
        row: The row, line or record (1-based line number, or an id), if known.
        field: The field at fault, if known.
        message: What is wrong.
    """

    def __init__(
        self,
        path: str | PathLike[str] | None,
        row: int | str | None,
        field: str | None,
        message: str,
    ) -> None:
        self.path = str(path) if path is not None else None
        self.row = row
        self.field = field
        self.message = message
        where = []
        if self.path is not None:
            where.append(self.path)
        if row is not None:
            where.append(f"row {row}")
        if field is not None:
            where.append(f"field {field!r}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class ModelError(ConflictEvalError):
    """A model call failed for good (after retries, or with a non-retryable error).

    Attributes:
        status: The HTTP status when there was one.
        retryable: Whether the last failure was of a retryable kind.
        attempts: How many attempts were made.
        fatal: Every further call would fail the same way (a refused or
            missing API key, an endpoint that is not there): a batch stops at
            the first such failure.
        hint: What to check, when the failure says it (a dead endpoint).
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        attempts: int = 1,
        fatal: bool = False,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.attempts = attempts
        self.fatal = fatal
        self.hint = hint


class ParseFailure(ConflictEvalError):
    """A model reply could not be parsed into what was asked for.

    Raised inside a batch item function, it ends that item with status
    ``parse_error``, keeping ``raw``.
    """

    def __init__(self, reason: str, raw: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw


class PendingCall(ConflictEvalError):
    """A model call that waits for a batch result (batch export mode).

    Raised by :meth:`conflicteval.models.Model.generate` on a cache miss while
    a batch export is active: the request has been recorded for the batch
    file, and the item that made it cannot finish in this round. The runner
    counts such an item as ``pending`` and leaves it out of the checkpoint, so
    the next run (after the results are imported) does it again. It is not a
    :class:`ModelError`: no workflow may record it as a failed call.

    Attributes:
        custom_id: The request's id in the batch file (its cache key).
        model: The model the call is for (``provider/model``).
    """

    def __init__(self, custom_id: str, model: str) -> None:
        super().__init__(f"{model}: call {custom_id[:12]} waits for a batch result")
        self.custom_id = custom_id
        self.model = model


class MissingDependency(ConflictEvalError, ImportError):
    """An optional dependency is not installed; the message says what to install."""

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(
            f"{package} is required for this feature: install the {extra!r} extra "
            f"(from a checkout of conflicteval: pip install '.[{extra}]')"
        )
        self.package = package
        self.extra = extra


def require(module: str, extra: str) -> object:
    """Import an optional module lazily, or raise MissingDependency with an install hint."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependency(module.split(".")[0], extra) from exc
