"""An answer that answers and notes a side detail the evidence does not show (issue 32,
meaning8): the contract accepts it and keeps the note (`limits`); the envelope carries it
(`answer_limits`, left out of the JSON when empty), the session gate is `limited`, "are you
sure?" says so, and the CLI, the turn view and the HTTP/MCP reply show it. Every test fails on
the code before meaning8 (no `limits`, no `answer_limits`)."""

from __future__ import annotations

import json
from typing import Any

from helpers_synthesis import envelope
from rich.console import Console

from helix.core.config import SynthesisSettings
from helix.core.ports import Completion, FakeClock
from helix.synthesis.answer import synthesize
from helix.synthesis.contract import check_answer
from helix.synthesis.prompt import citation_refs

NOTED = ("Retries are decided by `decide_retry` [E1]. The excerpts don't show how the backoff "
         "cap was chosen.")
PLAIN = "Retries are decided by `decide_retry` [E1], documented in docs/retries.md:1-3."


class Answering:
    def __init__(self, text: str) -> None:
        self.text = text

    def complete(self, messages: Any, **kwargs: Any) -> Completion:
        return Completion(text=self.text, model=kwargs["model"], prompt_tokens=1,
                          completion_tokens=1)


def _answered(text: str) -> Any:
    return synthesize(envelope(), llm=Answering(text),
                      settings=SynthesisSettings(model="gpt-4o-mini"), clock=FakeClock(),
                      sleep=lambda _: None).envelope


def test_the_contract_keeps_a_note_on_a_side_detail() -> None:
    env = envelope()
    refs = citation_refs(env.evidence)
    result = check_answer(NOTED, refs, evidence=env.evidence, question=env.question)
    assert result.ok and result.limits == ("The excerpts don't show how the backoff cap was "
                                           "chosen",)
    assert check_answer(PLAIN, refs, evidence=env.evidence, question=env.question).limits == ()


def test_the_envelope_and_the_gate_say_limited() -> None:
    from controller.continuity.optionsets import coverage_of

    noted, plain = _answered(NOTED), _answered(PLAIN)
    assert noted.answer_mode == "llm" and noted.answer_limits
    assert json.loads(noted.model_dump_json())["answer_limits"] == list(noted.answer_limits)
    assert "answer_limits" not in json.loads(plain.model_dump_json())
    gate = coverage_of(noted, threshold=0.5)
    assert gate.truth_mode == "limited" and "answer_limits" in gate.reason_codes
    assert coverage_of(plain, threshold=0.5).truth_mode == "confirmed"


def test_are_you_sure_says_what_the_answer_noted() -> None:
    from controller.continuity.recall import meta_answer
    from controller.continuity.turn import TurnResult

    turn = TurnResult.model_construct(turn_id=1, intent="ask", envelope=_answered(NOTED),
                                      shown=None)
    text, truth = meta_answer(turn, "are you sure?")
    assert truth == "limited"
    assert "does not show: The excerpts don't show how the backoff cap was chosen" in text


def test_the_cli_the_turn_view_and_the_server_reply_show_it() -> None:
    from controller.continuity.turn import TurnResult
    from helix.cli.ask_cmd import render_answer
    from helix.cli.turn_view import render_turn
    from helix.servers.workspace import _answer

    env = _answered(NOTED)
    console = Console(record=True, width=200)
    render_answer(env, console)
    assert "limited: the answer notes the evidence does not show: The excerpts don't show " \
           "how the backoff cap was chosen" in console.export_text()
    turn = TurnResult.model_construct(turn_id=1, lane="root", transition="T1",
                                      transition_name="", retrieval=True, reply_to=None,
                                      answer=env.answer, envelope=env, shown=None,
                                      opened=None, answer_mode="llm")
    assert "limited: the answer notes" in render_turn(turn)
    reply = _answer(env, repo="/repo", run_id="r1", dry_run=False)
    assert reply["answer_limits"] == list(env.answer_limits)


def test_helix_ask_shows_the_limit_and_json_lists_it(tmp_path: Any,
                                                     monkeypatch: Any) -> None:
    from click.testing import CliRunner
    from retry_fixture import RETRIES_MD, RETRY_PY

    from helix.cli.main import cli

    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "src" / "retry.py").write_text(RETRY_PY, encoding="utf-8")
    (root / "docs" / "retries.md").write_text(RETRIES_MD, encoding="utf-8")
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    model = ("fake/say:The policy is `decide_retry` [E1]. The excerpts don't show who wrote "
             "the jitter tables.")
    args = ["ask", "--repo", str(root), "--model", model, "where is the retry policy decided?"]
    out = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert "limited: the answer notes the evidence does not show: The excerpts don't show " \
           "who wrote the jitter tables" in out.stdout
    shown = CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False)
    assert json.loads(shown.stdout)["answer_limits"] == [
        "The excerpts don't show who wrote the jitter tables"]
