"""How a batch runs: :class:`RunOptions`, one frozen value handed down from the front end.

A front end (the command line) builds one ``RunOptions`` from its arguments and
every batch of the command gets it, so nothing in the library is configured
through a module global. From Python, pass the same keywords to a workflow (or to
:func:`~conflicteval.runs.runner.run_batch`), or one ``options=RunOptions(...)``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, TypedDict

__all__ = ["RunKeywords", "RunOptions"]


class RunKeywords(TypedDict, total=False):
    """The run keywords every workflow takes (``**run``), each as on :class:`RunOptions`.

    ``concurrency`` (items in flight; each workflow documents its default),
    ``progress``, ``restart``, ``retry_failed``, ``executor``, ``item_timeout``,
    ``adopt`` and ``keep_replies`` mean what the :class:`RunOptions` attributes of those names
    mean; ``options`` is a whole :class:`RunOptions` (the command line builds
    one), and a keyword that is set wins over it (see :meth:`RunOptions.of`).
    """

    concurrency: int
    progress: bool | None
    restart: bool
    retry_failed: bool
    executor: Any
    item_timeout: float | None
    adopt: bool | None
    keep_replies: bool | None
    options: RunOptions | None


@dataclass(frozen=True)
class RunOptions:
    """The settings of a batch run that do not change its results.

    Attributes:
        concurrency: Items in flight at once (None: the workflow's own default).
            Model calls are further bounded by each model's own limit.
        progress: Show a progress bar (None: only when stderr is a terminal).
        restart: Start over: move an existing checkpoint aside
            (``<checkpoint>.old``) instead of resuming it.
        retry_failed: On resume, run items whose record is ``model_error``
            again (they are otherwise kept as they are).
        executor: How the items' results are computed: None or ``"local"``
            (this process, asyncio), ``"ray"`` (a pool of Ray actors, see
            :mod:`conflicteval.runs.ray`) or an executor object. The
            checkpoint, failure accounting and result are the same for all.
        item_timeout: Seconds one item may take in all; an item still running
            then is stopped and recorded ``model_error`` with the reason (None or
            ``math.inf``: no bound). Each model call is bounded anyway by its
            model's ``timeout`` per attempt and its retry limits; this bounds
            the item as a whole.
        adopt: Take over a checkpoint that cannot be vouched for: finished
            items without an identity record (``<checkpoint>.meta.json``
            missing) or without input fingerprints are trusted as made by this
            configuration from these inputs.
        keep_replies: Keep every model call's reply with its item's record (the first
            4,000 characters of each, up to 200 calls an item; the view shows them).
            False keeps only a failed item's reply that could not be read (``raw``).
    """

    concurrency: int | None = None
    progress: bool | None = None
    restart: bool = False
    retry_failed: bool = False
    executor: Any = None
    item_timeout: float | None = None
    adopt: bool = False
    keep_replies: bool = True

    @classmethod
    def of(cls, run: RunKeywords, *, concurrency: int) -> RunOptions:
        """The settings a workflow's ``**run`` keywords give (``concurrency``: its default).

        The same as :meth:`combine` of ``run["options"]`` with the other keywords.
        """
        return cls.combine(
            run.get("options"),
            concurrency=run.get("concurrency", concurrency),
            progress=run.get("progress"),
            restart=run.get("restart", False),
            retry_failed=run.get("retry_failed", False),
            executor=run.get("executor"),
            item_timeout=run.get("item_timeout"),
            adopt=run.get("adopt"),
            keep_replies=run.get("keep_replies"),
        )

    @classmethod
    def combine(
        cls,
        options: RunOptions | None,
        *,
        concurrency: int,
        progress: bool | None = None,
        restart: bool = False,
        retry_failed: bool = False,
        executor: Any = None,
        item_timeout: float | None = None,
        adopt: bool | None = None,
        keep_replies: bool | None = None,
    ) -> RunOptions:
        """``options`` with the keywords a caller set on top of it.

        A keyword counts when it is set (``True``, or not None); a keyword left
        at its default leaves ``options``' value. ``concurrency`` always has a
        value (the caller's default): it applies when ``options.concurrency``
        is None.
        """
        base = options if options is not None else cls()
        return replace(
            base,
            concurrency=base.concurrency if base.concurrency is not None else concurrency,
            progress=progress if progress is not None else base.progress,
            restart=restart or base.restart,
            retry_failed=retry_failed or base.retry_failed,
            executor=executor if executor is not None else base.executor,
            item_timeout=item_timeout if item_timeout is not None else base.item_timeout,
            adopt=adopt if adopt is not None else base.adopt,
            keep_replies=keep_replies if keep_replies is not None else base.keep_replies,
        )
