"""One way to write a figure: digits, scale, unit, and what a missing one is called."""

from __future__ import annotations

import pytest

from conflicteval.formatting import MISSING, NOT_AVAILABLE, UNDEFINED, format_ci, interval, number
from conflicteval.stats import format_ci as format_ci_from_stats


def test_a_number_has_its_digits_scale_and_unit() -> None:
    assert number(0.123456) == "0.1235"
    assert number(0.5, 1, scale=100, unit="%") == "50.0%"
    assert number(42.25, 2, unit="%") == "42.25%"
    assert number(3, 2) == "3.00"  # an integer is written as a figure too


@pytest.mark.parametrize("missing", [MISSING, UNDEFINED, NOT_AVAILABLE])
def test_a_missing_number_is_named_never_zero(missing: str) -> None:
    assert number(None, missing=missing) == missing
    assert number(0.0) == "0.0000"


def test_an_interval_is_written_end_by_end() -> None:
    assert interval([0.1, 0.25]) == "[0.1000, 0.2500]"
    assert interval([0.1, 0.25], 1, scale=100, unit="%") == "[10.0%, 25.0%]"
    assert interval([0.1, 0.2], 1, scale=100, sep="-") == "[10.0-20.0]"
    assert interval(None) == "[–]"
    assert interval(None, missing=MISSING) == MISSING


def test_format_ci_is_the_interval_and_stats_still_offers_it() -> None:
    assert format_ci_from_stats is format_ci
    assert format_ci([0.25, 0.75], 1, 100) == "[25.0, 75.0]"
    assert format_ci(None) == "[–]"
