"""The earlier import paths of the execution layer still work for one release, and warn."""

from __future__ import annotations

import importlib
import sys

import pytest

import conflicteval.batch
import conflicteval.batch.openai_batch
import conflicteval.runs


def _fresh(name: str) -> object:
    sys.modules.pop(name, None)
    with pytest.warns(DeprecationWarning, match=name.replace(".", r"\.")):
        return importlib.import_module(name)


def test_runner_path_is_the_runs_package() -> None:
    old = _fresh("conflicteval.runner")
    for name in conflicteval.runs.__all__:
        assert getattr(old, name) is getattr(conflicteval.runs, name), name


def test_rounds_path_is_the_batch_package() -> None:
    old = _fresh("conflicteval.executors.rounds")
    assert old.run_rounds is conflicteval.batch.run_rounds  # type: ignore[attr-defined]
    assert old.wait_for_user is conflicteval.batch.wait_for_user  # type: ignore[attr-defined]


def test_openai_batch_path_reaches_every_name_of_the_new_module() -> None:
    old = _fresh("conflicteval.executors.openai_batch")
    new = conflicteval.batch.openai_batch
    assert old.make_client is new.make_client  # type: ignore[attr-defined]
    assert old._file_sha256 is new._file_sha256  # type: ignore[attr-defined]  # not in __all__
    with pytest.raises(AttributeError):
        _ = old.no_such_name  # type: ignore[attr-defined]
