"""One local Ray instance for every Ray test of the session (starting Ray takes seconds)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HAVE_RAY = all(importlib.util.find_spec(m) is not None for m in ("ray", "pyarrow"))


@pytest.fixture(scope="session")
def ray_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """``ray.init(num_cpus=2, include_dashboard=False)`` once; shut down after the session.

    Workers inherit the environment Ray starts with: no API key, no Ray cluster address,
    usage statistics off, and a default cache directory of the tests' own.
    """
    if not HAVE_RAY:
        pytest.skip("ray is not installed (extra: pip install '.[ray]')")
    import ray

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAY_DISABLE_USAGE_STATS", "1")
        mp.setenv("RAY_USAGE_STATS_ENABLED", "0")
        mp.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path_factory.mktemp("ray-cache")))
        for name in ("RAY_ADDRESS", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
            mp.delenv(name, raising=False)
        _start_ray(ray)
    try:
        yield ray
    finally:
        ray.shutdown()


# The port files Ray's raylet waits for while it starts (its dashboard agent writes them).
_AGENT_PORT_FILES = (
    "metrics_agent_port",
    "metrics_export_port",
    "dashboard_agent_listen_port",
    "runtime_env_agent_port",
)


def _start_ray(ray: Any, attempts: int = 3) -> None:
    """``ray.init``, again when the raylet died while starting (up to ``attempts`` times).

    Ray 2.60's raylet waits a fixed 15 s for its dashboard agent to write its port files and
    exits when they come later (upstream: ray-project/ray#65983); ``ray.init`` then fails
    ("The current node timed out during startup") or returns with a raylet about to die. On a
    machine busy enough that the agent's start-up takes longer, every Ray test of the session
    then failed; here the start is only accepted once the agent has written them with the
    raylet alive.
    """
    import time

    for _ in range(attempts):
        try:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        except Exception:  # "The current node timed out during startup": the same cause
            ray.shutdown()
            continue
        node = ray._private.worker._global_node
        session = Path(node.get_session_dir_path())
        deadline = time.monotonic() + 300  # guards against a hang only
        while time.monotonic() < deadline:
            if any(kind == "raylet" for kind, _ in node.dead_processes()):
                break  # died waiting for the agent: start again
            if all(any(session.glob(f"{name}_*")) for name in _AGENT_PORT_FILES):
                time.sleep(1.0)  # the raylet reads them at once; see it still alive after
                if not any(kind == "raylet" for kind, _ in node.dead_processes()):
                    return
                break
            time.sleep(0.2)
        ray.shutdown()
    pytest.fail(f"Ray's raylet did not survive its start-up in {attempts} attempts")


VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "canal", "opened", "in"]
VOCAB += ["1847", "1851", "cats", "purr", "."]


@pytest.fixture(scope="session")
def tiny_nli_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny randomly initialised BERT classifier saved to a directory (nothing downloaded)."""
    if not all(importlib.util.find_spec(m) is not None for m in ("transformers", "torch")):
        pytest.skip("transformers and torch are not installed (extra: pip install '.[nli]')")
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    torch.manual_seed(0)
    tmp_path = tmp_path_factory.mktemp("nli")
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    id2label = {0: "entailment", 1: "neutral", 2: "contradiction"}
    config = BertConfig(
        vocab_size=len(VOCAB),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
        num_labels=3,
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
    )
    out = tmp_path / "nli-model"
    model = BertForSequenceClassification(config)
    with torch.no_grad():  # larger weights: classes that depend on the input, not ~1/3 each
        for weights in model.parameters():
            if weights.dim() > 1:
                weights.normal_(0.0, 1.0)
    model.save_pretrained(out)
    BertTokenizer(str(vocab)).save_pretrained(out)
    return out
