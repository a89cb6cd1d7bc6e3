"""Nothing in the results changed: fixed items give the records the code gave before.

``data/same_results_expected.json`` holds the records (and the request bodies)
of the fixed items of ``same_results_items.py`` as the code made them before
the per-call speed-ups (schema memo, spliced cache keys, prompt filling,
``Usage.add``) and before the lean HTTP transport, when every online call went
through the openai SDK. The same items now run on the scripted provider and
through the real test server on both transports; every record, score, error
and token count must be the same. The reference was made by the code just before
the speed-ups landed, so it already has the paper's Table 7 text and the stricter
label parser that landed beside them.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conflicteval import get_model
from conflicteval.testing import OpenAICompatServer

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import same_results_items as fixed  # noqa: E402

EXPECTED: dict[str, Any] = json.loads(
    (HERE / "data" / "same_results_expected.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("labeler", ["llm", "per-document"])
def test_the_scripted_backend_gives_the_records_it_gave_before(
    labeler: str, tmp_path: Path
) -> None:
    model = get_model("scripted", replies=fixed.scripted_reply, cache=False)
    records = fixed.run(model, labeler, tmp_path / "checkpoint.jsonl")
    assert records == EXPECTED[f"scripted/{labeler}"]


@pytest.mark.parametrize("labeler", ["llm", "per-document"])
def test_both_transports_give_the_records_the_sdk_gave_before(labeler: str, tmp_path: Path) -> None:
    raw: dict[str, list[bytes]] = {}
    for transport in ("http", "sdk"):
        with OpenAICompatServer(replies=fixed.server_reply) as server:
            model = get_model(
                "openai/test-model",
                base_url=server.base_url,
                api_key="k",
                cache=False,  # hits would depend on timing (two equal calls in flight)
                transport=transport,
            )
            records = fixed.run(model, labeler, tmp_path / f"{transport}.jsonl")
            assert records == EXPECTED[f"server/{labeler}"], transport
            bodies = sorted(
                hashlib.sha256(
                    json.dumps(r.body, sort_keys=True, ensure_ascii=False).encode()
                ).hexdigest()
                for r in server.completions()
            )
            assert bodies == EXPECTED[f"server/{labeler}/bodies"], transport
            raw[transport] = sorted(r.raw for r in server.completions())
            # a run that fills a cache, then a re-run from it: no request, the same labels
            cached = {"cache": tmp_path / f"cache-{transport}", "transport": transport}
            url = server.base_url
            fill = get_model("openai/test-model", base_url=url, api_key="k", **cached)
            fixed.run(fill, labeler, tmp_path / f"{transport}-fill.jsonl")
            sent = len(server.completions())
            again = get_model("openai/test-model", base_url=url, api_key="k", **cached)
            rerun = fixed.run(again, labeler, tmp_path / f"{transport}-rerun.jsonl")
            assert len(server.completions()) == sent
            assert again.usage.calls == again.usage.cached_calls > 0
        expected = EXPECTED[f"server/{labeler}"]
        assert [r["result"]["labels"] for r in rerun] == [r["result"]["labels"] for r in expected]
        assert [(r["result"]["cs_c"], r["result"]["cs_r"]) for r in rerun] == [
            (r["result"]["cs_c"], r["result"]["cs_r"]) for r in expected
        ]
    assert raw["http"] == raw["sdk"]  # byte for byte
