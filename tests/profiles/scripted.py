"""Scripted models of known behaviour for the profile tests (served by the project's real
local OpenAI-compatible server: the ``scripted_server`` fixture).

A scripted model reads the question out of each prompt (the last ``Question: `` line; the
FEVEROUS labeler prompt's claim) and answers from the data file itself:

* ``gold``: lists every gold answer (RAMDocs), or both WikiContradict answers with a
  conflict cue; labels every FEVEROUS claim with its gold label; in ConflictQA, remembers
  "True" and then always chooses option A, "True." (its memory);
* ``first``: repeats the answer of the question's first document (RAMDocs), or WikiContradict's
  first answer alone; labels every FEVEROUS claim SUPPORTS; in ConflictQA, remembers "True"
  and then always chooses C, "Uncertain.".
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

RAMDOCS = "ramdocs/RAMDocs_test_first30.jsonl"
WIKICONTRADICT = "wikicontradict/WikiContradict_dataset_v1_rag_qa.csv"
FEVEROUS_S = "feverous/feverous_s_dev_first5.json"


def _norm(text: str) -> str:
    return " ".join(text.split())


class Scripted:
    """Replies of a scripted model (``gold`` or ``first``) over the shared data files; a
    request for the model named ``gold`` or ``first`` is answered as that one, so one server
    serves both."""

    def __init__(self, behaviour: str, data: Path) -> None:
        self.behaviour = behaviour
        self.ramdocs: dict[str, dict[str, Any]] = {}
        for line in (data / RAMDOCS).read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            self.ramdocs[_norm(rec["question"])] = rec
        with (data / WIKICONTRADICT).open(encoding="utf-8-sig", newline="") as fh:
            self.wc = {_norm(r["question"]): r for r in csv.DictReader(fh)}
        self.claims = {
            _norm(r["claim"]): r
            for r in json.loads((data / FEVEROUS_S).read_text(encoding="utf-8"))
        }
        self.calls = 0

    def __call__(self, request: dict[str, Any]) -> str:
        self.calls += 1
        model = str(request.get("model", ""))
        behaviour = model if model in ("gold", "first") else self.behaviour
        text = request["messages"][-1]["content"]
        if "Document-Claim Conflict Detection" in text:
            return self._label(text, behaviour)
        if text.rstrip().endswith("A:"):  # ConflictQA: the memory elicited, always True
            return "True\n\nScripted evidence."
        if "\nOptions:\nA: True.\nB: False.\nC: Uncertain." in text:  # ConflictQA's choice
            return "A" if behaviour == "gold" else "C"
        questions = re.findall(r"Question: (.*)", text)
        if not questions:
            raise ValueError("scripted model: no question in the prompt")
        q = _norm(questions[-1])
        if q in self.ramdocs:
            rec = self.ramdocs[q]
            answers = (
                rec["gold_answers"] if behaviour == "gold" else [rec["documents"][0]["answer"]]
            )
            joined = ", ".join(answers)
            return (
                f"Answer: {joined}. Explanation: scripted.\n"
                f"All Correct Answers: [{joined}]. Explanation: scripted."
            )
        row = self.wc.get(q)
        if row is None:
            raise ValueError(f"scripted model: unknown question {q[:60]!r}")
        if behaviour == "gold":
            return (
                f"Passage 1 says {row['answer1']}; however, another source says {row['answer2']}."
            )
        return f"{row['answer1']}."

    def _label(self, text: str, behaviour: str) -> str:
        for claim, rec in self.claims.items():
            if claim in _norm(text):
                label = rec["label"].upper() if behaviour == "gold" else "SUPPORTS"
                label = {"REFUTES": "CONTRADICTS"}.get(label, label)
                return json.dumps({"answer": label, "reasoning": "scripted", "snippet": ""})
        raise ValueError("scripted model: unknown claim")


def data_args(shared: Path) -> dict[str, str]:
    """The shared data files by dataset name, for ``--data NAME=PATH``."""
    return {
        "ramdocs": str(shared / RAMDOCS),
        "wikicontradict": str(shared / WIKICONTRADICT),
        "feverous-s": str(shared / FEVEROUS_S),
        "conflictqa-strategyqa-chatgpt": str(
            shared / "conflictqa/conflictQA-strategyQA-chatgpt_first30.json"
        ),
    }


def chat_calls(server: Any) -> int:
    """Chat completions the server was sent (the /v1/models look-up is not a model call)."""
    return sum(1 for r in server.requests if r.path.endswith("/chat/completions"))
