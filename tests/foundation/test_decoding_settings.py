"""One decoding settings object: the protocols' settings and the generate defaults."""

from __future__ import annotations

import inspect

from conflicteval.conflictbench.report_benchmark import REPORT_SETTINGS
from conflicteval.conflictscore.decompose import DECOMPOSE_SETTINGS
from conflicteval.conflictscore.labelers import LABEL_SETTINGS
from conflicteval.models import Model
from conflicteval.models.base import ProviderRequest
from conflicteval.types import DEFAULT_DECODING, Decoding
from conflicteval.wikicontradict.generate import PAPER_SETTINGS
from conflicteval.wikicontradict.judge import JUDGE_SETTINGS


def test_settings_read_as_the_keyword_arguments_of_generate() -> None:
    assert LABEL_SETTINGS == {"temperature": 0.0, "max_tokens": 512, "seed": 5}
    assert dict(LABEL_SETTINGS) == {"temperature": 0.0, "max_tokens": 512, "seed": 5}
    assert LABEL_SETTINGS["max_tokens"] == 512 and "top_p" not in LABEL_SETTINGS
    assert {**Decoding(top_p=0.9)} == {
        "temperature": 0.0,
        "max_tokens": 250,
        "seed": 5,
        "top_p": 0.9,
    }
    assert LABEL_SETTINGS.get("top_p") is None


def test_every_protocol_setting_is_one_object_and_generate_takes_the_defaults_from_one() -> None:
    for settings in (
        LABEL_SETTINGS,
        DECOMPOSE_SETTINGS,
        PAPER_SETTINGS,
        JUDGE_SETTINGS,
        REPORT_SETTINGS,
    ):
        assert isinstance(settings, Decoding)
    assert PAPER_SETTINGS == DEFAULT_DECODING  # Model.generate's defaults are the paper's
    params = inspect.signature(Model.generate).parameters
    request = ProviderRequest(messages=[])
    for name in ("temperature", "max_tokens", "seed"):
        assert params[name].default == DEFAULT_DECODING[name] == getattr(request, name)
