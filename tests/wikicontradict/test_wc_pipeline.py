"""generate → judge → report against the local OpenAI-compatible server, and resuming."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from conflicteval import Count, answer_with
from conflicteval.models import get_model
from conflicteval.runs import read_checkpoint
from conflicteval.testing import Fault, OpenAICompatServer
from conflicteval.wikicontradict import (
    Judge,
    WikiContradictInstance,
    build_report,
    generate,
    generate_sync,
    read_generations,
    render,
)


@pytest.fixture()
def four(wc_instances: list[WikiContradictInstance]) -> list[WikiContradictInstance]:
    """Two explicit and two implicit real instances."""
    exp = [i for i in wc_instances if i.contradiction_type == "explicit"][:2]
    imp = [i for i in wc_instances if i.contradiction_type == "implicit"][:2]
    return [exp[0], exp[1], imp[0], imp[1]]


def _user(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


class Script:
    """Replies for generation prompts (by rendered prompt) and judge prompts (by response)."""

    def __init__(self, insts: list[WikiContradictInstance], templates: list[str]) -> None:
        self.gen: dict[str, str] = {}
        for t in templates:
            for k, inst in enumerate(insts):
                self.gen[render(inst, t).prompt] = f"RESP t{t} #{k}"
        # judge replies keyed by the tested response
        self.judge = {
            "RESP t2 #0": "comment: It gives the answer.\nevaluation: correct",
            "RESP t2 #1": "comment: The answer, plus one more.\nevaluation: partially correct",
            "RESP t2 #2": "comment: No.\nevaluation: incorrect",
            "RESP t2 #3": "**Evaluation:** Correct",
            "RESP t5 #0": "comment: Both answers, said to conflict.\nevaluation: correct",
            "RESP t5 #1": "comment: One answer only (not correct).\nevaluation: partially correct",
            "RESP t5 #2": "I cannot decide.",
        }

    def __call__(self, body: dict[str, Any]) -> str:
        prompt = _user(body)
        if prompt.startswith("Please evaluate the response"):
            response = re.search(r"\nresponse: (.*)\ncomment:$", prompt)
            assert response is not None
            return self.judge[response.group(1)]
        return self.gen[prompt]


def _faults(script: Script, failing_prompt: str) -> Any:
    def pick(n: int, body: dict[str, Any]) -> Fault | None:
        return Fault.status_code(400) if _user(body) == failing_prompt else None

    return pick


def test_generate_judge_report_against_the_test_server(
    openai_server: OpenAICompatServer, four: list[WikiContradictInstance], tmp_path: Path
) -> None:
    templates = ["2", "5"]
    script = Script(four, templates)
    openai_server.set_replies(script)
    openai_server.set_faults(_faults(script, render(four[3], "5").prompt))
    tested = get_model("openai/tested", base_url=openai_server.base_url, cache=False)
    run = tmp_path / "run"

    result = generate_sync(four, templates, [tested], run, progress=False)
    assert result.counts == {"ok": 7, "parse_error": 0, "model_error": 1, "total": 8}
    gen_requests = openai_server.completions()
    assert len(gen_requests) == 8  # a 400 is not retried
    body = gen_requests[0].body or {}
    assert body["temperature"] == 0 and body["max_tokens"] == 250 and body["seed"] == 5
    assert body["messages"][0] == {"role": "system", "content": ""}
    assert body["messages"][1]["role"] == "user" and body["model"] == "tested"

    rows = read_generations(run)
    assert [(r.template, r.instance_id) for r in rows] == [
        (t, i.id) for t in templates for i in four
    ]
    failed = rows[-1]
    assert failed.status == "model_error" and failed.response is None
    assert failed.prompt == render(four[3], "5").prompt and failed.contradiction_type
    assert rows[0].response == "RESP t2 #0" and rows[0].usage.calls == 1
    assert rows[0].answers == [four[0].answer_1]

    judge = Judge(get_model("openai/judge", base_url=openai_server.base_url, cache=False))
    jres = judge.grade_run_sync(run, progress=False)
    assert jres.counts == {"ok": 6, "parse_error": 1, "model_error": 0, "total": 7}
    graded = read_checkpoint(run / "judgements.jsonl")
    pc = graded[rows[1].id].result
    assert (pc["judge_label"], pc["label"]) == ("partially correct", "correct")  # template 2
    assert pc["comment"] == "The answer, plus one more." and pc["judge"] == "openai/judge"
    bad = graded[rows[6].id]
    assert bad.status == "parse_error" and bad.raw == "I cannot decide."
    judge_prompt_sent = _user(openai_server.completions()[-1].body or {})
    assert judge_prompt_sent.endswith("comment:") and "Testing instance" in judge_prompt_sent

    report = build_report(run)
    t2, t5 = report.cell("openai/tested", "2"), report.cell("openai/tested", "5")
    assert (t2.n, t2.correct, t2.partially_correct, t2.incorrect, t2.failed) == (4, 3, 0, 1, 0)
    assert (t2.pct("correct"), t2.pct("incorrect")) == (75.0, 25.0)
    exp2, imp2 = (report.cell("openai/tested", "2", s) for s in ("explicit", "implicit"))
    assert (exp2.n, exp2.correct, imp2.n, imp2.correct, imp2.incorrect) == (2, 2, 2, 1, 1)
    assert (t5.correct, t5.partially_correct, t5.incorrect) == (1, 1, 0)
    assert (t5.failed_generation, t5.failed_judge, t5.ungraded) == (1, 1, 0)
    assert t5.pct("failed") == 50.0
    imp5 = report.cell("openai/tested", "5", "implicit")
    labelled = imp5.correct + imp5.partially_correct + imp5.incorrect
    assert (imp5.n, imp5.failed, labelled) == (2, 2, 0)
    md = report.to_markdown()  # compact: a row per model and subset
    assert "| openai/tested | all | 75.0 (3) | – | 25.0 (1) | 0.0 (0) | 4 |" in md
    assert "| openai/tested | all | 25.0 (1) | 25.0 (1) | 0.0 (0) | 50.0 (2) | 4 |" in md
    wide = report.to_markdown(layout="table5")  # the paper's layout, on request
    assert "| openai/tested | 75.0 (3) | – | 25.0 (1) | 0.0 (0) |" in wide
    assert "| openai/tested | 25.0 (1) | 25.0 (1) | 0.0 (0) | 50.0 (2) |" in wide
    assert "1 generation failures, 1 judge failures, 0 not graded" in md
    assert report.generation_usage.calls == 7 and report.judge_usage.calls == 7
    data = json.loads(report.to_json())
    assert data["judge"] == "openai/judge" and len(data["cells"]) == 6

    # a re-run sends nothing for finished rows; retrying failures sends only those
    before = len(openai_server.completions())
    assert generate_sync(four, templates, [tested], run, progress=False).resumed == 8
    assert judge.grade_run_sync(run, progress=False).resumed == 7
    assert len(openai_server.completions()) == before
    openai_server.set_faults(None)
    again = generate_sync(four, templates, [tested], run, progress=False, retry_failed=True)
    assert again.counts["ok"] == 8
    assert [_user(r.body or {}) for r in openai_server.completions()[before:]] == [
        render(four[3], "5").prompt
    ]


def test_interrupted_generate_resumes_without_repeating_finished_rows(
    wc_instances: list[WikiContradictInstance], tmp_path: Path
) -> None:
    insts = wc_instances[:12]
    with OpenAICompatServer(replies=lambda body: "A: " + _user(body)[-30:], latency=0.05) as srv:
        model = get_model("openai/m", base_url=srv.base_url, cache=False)
        run = tmp_path / "run"

        async def interrupted() -> None:
            task = asyncio.ensure_future(
                generate(insts, ["1", "4"], [model], run, concurrency=2, progress=False)
            )
            while len(read_checkpoint(run / "generations.jsonl")) < 6:
                await asyncio.sleep(0.02)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(interrupted())
        finished = read_checkpoint(run / "generations.jsonl")
        assert 6 <= len(finished) < 24
        first_run = len(srv.completions())
        finished_prompts = {r.result["prompt"] for r in finished.values()}

        result = generate_sync(insts, ["1", "4"], [model], run, concurrency=2, progress=False)
        assert result.counts["ok"] == 24 and result.resumed == len(finished)
        second = [_user(r.body or {}) for r in srv.completions()[first_run:]]
        assert not finished_prompts & set(second)
        # every unfinished row is asked again (a request of the interrupted run that the
        # server logs late, on a loaded machine, is one of those rows: counted once)
        assert len(set(second)) == 24 - len(finished)
        assert len(read_checkpoint(run / "generations.jsonl")) == 24


def test_dry_run_counts_without_calling(
    openai_server: OpenAICompatServer, four: list[WikiContradictInstance], tmp_path: Path
) -> None:
    model = get_model("openai/m", base_url=openai_server.base_url)
    with answer_with(Count()) as count:
        generate_sync(four, ["1", "5"], [model], tmp_path / "none", progress=False)
    rep = count.report()
    assert rep.calls == 8 and rep.cached == 0 and rep.prompt_tokens > 0
    assert openai_server.completions() == []
    assert not (tmp_path / "none").exists()  # a dry run writes nothing
    generate_sync(four[:1], ["1"], [model], tmp_path / "r", progress=False)
    before = sorted(p.name for p in (tmp_path / "r").iterdir())
    with answer_with(Count()) as count:
        generate_sync(four, ["1"], [model], tmp_path / "r", progress=False)
    rep2 = count.report()  # the finished row's call is served by the cache
    assert rep2.calls == 4 and rep2.cached == 1 and rep2.uncached == 3
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == before


def test_lexical_judge_over_a_run(
    openai_server: OpenAICompatServer, four: list[WikiContradictInstance], tmp_path: Path
) -> None:
    a1, a2 = four[0].answer_1.strip(), four[0].answer_2.strip()
    reply = f"One passage says {a1}; however, another source says {a2}."
    openai_server.set_replies([reply])
    run = tmp_path / "run"
    model = get_model("openai/x", base_url=openai_server.base_url)
    generate_sync(four[:1], ["5", "3"], [model], run, progress=False)
    res = Judge("lexical").grade_run_sync(run, progress=False)
    assert res.counts["ok"] == 2 and res.usage.calls == 0
    report = build_report(run)
    assert report.cell("openai/x", "5").correct == 1
    assert report.cell("openai/x", "3").correct == 1  # answer 2 is in the reply
    assert report.judge == "lexical"
    with pytest.raises(Exception, match="holds grades by judge 'lexical'"):
        Judge(get_model("scripted", replies=["x"])).grade_run_sync(run, progress=False)


def test_two_models_and_the_response_cache(
    openai_server: OpenAICompatServer, four: list[WikiContradictInstance], tmp_path: Path
) -> None:
    models = [get_model(f"openai/{n}", base_url=openai_server.base_url) for n in ("a", "b")]
    res = generate_sync(four[:2], ["1", "3"], models, tmp_path / "r1", progress=False)
    assert res.counts["ok"] == 8
    sent = sorted((r.body or {})["model"] for r in openai_server.completions())
    assert sent == ["a"] * 4 + ["b"] * 4
    rows = read_generations(tmp_path / "r1")
    assert {r.model for r in rows} == {"openai/a", "openai/b"} and not any(
        r.response is None for r in rows
    )
    # a fresh run directory: every request is served from the cache (same prompt version)
    res2 = generate_sync(four[:2], ["1", "3"], models, tmp_path / "r2", progress=False)
    assert len(openai_server.completions()) == 8 and res2.usage.cached_calls == 8
    assert all(r.result["cached"] for r in res2.records)
    with pytest.raises(ValueError, match="same name"):
        generate_sync(four[:1], ["1"], [models[0], models[0]], tmp_path / "r3", progress=False)


def test_resuming_with_changed_inputs_makes_exactly_those_rows_again(
    wc_instances: list[WikiContradictInstance], tmp_path: Path
) -> None:
    from conflicteval.wikicontradict import default_templates

    insts = wc_instances[:2]
    run = tmp_path / "run"
    model = get_model("scripted", replies=["first"] * 6)  # no cache: every row made calls
    assert generate_sync(insts, ["5", "1"], [model], run, progress=False).counts["ok"] == 4
    # The same prompts resume without a call.
    again = generate_sync(insts, ["5", "1"], [model], run, progress=False)
    assert again.resumed == 4 and again.changed == 0
    # A corrected gold answer of one instance: its two rows are made again and carry the
    # corrected answer; the other instance's rows resume.
    fixed = [insts[0].model_copy(update={"answer_1": "a corrected answer"}), insts[1]]
    res = generate_sync(fixed, ["5", "1"], [model], run, progress=False)
    assert res.changed == 2 and res.resumed == 2
    assert "2 recomputed because their inputs changed" in res.report()
    rows = {(r.template, r.instance_id): r for r in read_generations(run)}
    assert "a corrected answer" in rows[("5", insts[0].id)].answers
    assert "a corrected answer" not in rows[("5", insts[1].id)].answers
    # An edited template: its rows only are sent again (the dry run counts them too).
    changed = default_templates().override({"5": "Answer: {question}\n{context}"})
    with answer_with(Count()) as count:
        generate_sync(fixed, ["5"], [model], run, template_set=changed, progress=False)
    assert count.report().calls == 2
    second = get_model("scripted", replies=["second"] * 2)
    res = generate_sync(fixed, ["5"], [second], run, template_set=changed, progress=False)
    assert res.changed == 2 and res.usage.calls == 2
    by_template = {(r.template, r.instance_id): r.response for r in read_generations(run)}
    assert sorted(map(str, by_template.values())) == ["first", "first", "second", "second"]
    assert all(by_template[("5", i.id)] == "second" for i in insts)
