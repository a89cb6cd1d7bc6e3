"""argparse types of the command line: whole numbers and finite numbers with a lower bound
(a bad value is argparse's one-line usage error naming the option)."""

from __future__ import annotations

import argparse
from typing import TypeVar

__all__ = ["not_negative_float", "not_negative_int", "positive_float", "positive_int"]


N = TypeVar("N", int, float)


def _bounded(value: N, ok: bool, rule: str, shown: object) -> N:
    """``value`` when ``ok``; else argparse's usage error ``<rule>, got <shown>``."""
    if not ok:
        raise argparse.ArgumentTypeError(f"{rule}, got {shown}")
    return value


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = _int(text)
    return _bounded(value, value >= 1, "must be at least 1", value)


def not_negative_int(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    value = _int(text)
    return _bounded(value, value >= 0, "must not be negative", value)


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return value


def not_negative_float(text: str) -> float:
    """An argparse type: a finite number of at least 0."""
    value = _float(text)
    return _bounded(value, value >= 0, "must not be negative", text)


def positive_float(text: str) -> float:
    """An argparse type: a finite number above 0."""
    value = _float(text)
    return _bounded(value, value > 0, "must be more than 0", text)
