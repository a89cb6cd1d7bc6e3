"""The one exclusive file lock of the library: an advisory ``flock``, taken without waiting.

A checkpoint (its ``.lock`` file and the checkpoint file itself) and a ``batch run``'s
export each have one owner at a time. Where the platform has no ``flock`` (not POSIX),
there is no lock, as the docs say (models.md, batch.md).
"""

from __future__ import annotations

from conflicteval.errors import ConflictEvalError

__all__ = ["lock_exclusive"]


def lock_exclusive(fd: int, busy: str) -> None:
    """Lock the open file ``fd`` for this process alone, or raise at once.

    The lock goes when the descriptor is closed (or the process ends).

    Raises:
        ConflictEvalError: ``busy``, when another process holds the lock.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock, documented
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        raise ConflictEvalError(busy) from exc
