"""The model layer in five minutes: a call, the cache, a resumable batch and a dry run.

Needs nothing (offline, no key, no extra): it runs against the library's local test server
and writes its cache and checkpoint under one output directory, printed first (a new
temporary directory, or ``--out DIR``). To use a real endpoint, replace the
``get_model`` line with e.g. ``ce.get_model("openai/gpt-4o-mini")`` or
``ce.get_model("openai/llama3", base_url="http://localhost:11434/v1", api_key="ollama")``.

    python examples/quickstart_models.py
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import conflicteval as ce
from conflicteval.testing import Fault, OpenAICompatServer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="output directory (default: a new temp dir)")
    args = parser.parse_args()
    workdir = Path(args.out or tempfile.mkdtemp(prefix="conflicteval-quickstart-"))
    print("needs: nothing (offline: the library's local test server answers)")
    print(f"output: {workdir}")
    replies = lambda body: "Echo: " + body["messages"][-1]["content"]  # noqa: E731
    with OpenAICompatServer(replies=replies, faults=[Fault.rate_limit(0.2)]) as server:
        model = ce.get_model(
            "openai/demo", base_url=server.base_url, api_key="x", cache=workdir / "cache"
        )
        out = model.generate_sync("Is the sky green?")
        print("reply:", out.text, "| cached:", out.cached, "| requests:", len(server.requests))
        again = model.generate_sync("Is the sky green?")
        print("reply:", again.text, "| cached:", again.cached, "| requests:", len(server.requests))

        async def ask(item: dict[str, str]) -> str:
            return (await model.generate(item["q"])).text

        items = [{"id": str(i), "q": f"question {i}"} for i in range(50)]
        # a dry run is the batch itself under the Count answerer: nothing sent, nothing written
        with ce.answer_with(ce.Count()) as count:
            ce.run_batch_sync(ask, items, checkpoint=workdir / "run.jsonl", progress=False)
        print(count.report().summary())
        result = ce.run_batch_sync(ask, items, checkpoint=workdir / "run.jsonl", progress=False)
        print(result.summary())
        result = ce.run_batch_sync(ask, items, checkpoint=workdir / "run.jsonl", progress=False)
        print("re-run:", result.summary())


if __name__ == "__main__":
    main()
