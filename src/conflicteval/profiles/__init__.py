"""Model profiles: every benchmark of a versioned suite for a model, in one command, one card
(``conflicteval profile``; docs/profile.md).

* :mod:`.suite` — the suite as data (``conflicteval-suite/1``) and its seeded, stratified
  item selection;
* :mod:`.subset` — reading a benchmark's items and writing the selected ones;
* :mod:`.runner` — running each cell through its workflow's own command;
* :mod:`.card` — the card in the result contract (kind ``profile``) and the paired comparison;
* :mod:`.export` — the card's runs as Every Eval Ever records;
* the command and :func:`conflicteval.profile` are in :mod:`conflicteval.cli.profile`.
"""

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
    from .card import build_card as build_card
    from .card import compare_models as compare_models
    from .card import read_profile as read_profile
    from .card import same_items as same_items
    from .card import write_card as write_card
    from .export import export_profile as export_profile
    from .suite import Suite as Suite
    from .suite import load_suite as load_suite
    from .suite import select_ids as select_ids

__all__ = _lazy.exports(
    __name__,
    {
        ".card": "build_card compare_models read_profile same_items write_card",
        ".export": "export_profile",
        ".suite": "Suite load_suite select_ids",
    },
)
