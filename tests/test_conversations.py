"""Issue 12, "Conversations that behave": one test per requirement, named after it, each run
as a real session over the continuity fixture repository (dry run, no network)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cli_helpers import run as run_cli
from talk_fixtures import FIXTURE, Q, Talk, config, indexed_copy, recording_llm

from controller.continuity import router, rules, selection, semantic
from controller.continuity.caps import CAPS
from controller.continuity.pending import make_pending
from controller.continuity.router import route_turn
from controller.continuity.state import ContinuityState, CoverageGateState
from controller.continuity.transitions import CLASS_OF, REGISTRY
from evals.scenarios import SUITE_DIR, load_cases, resolve_repo, run_case
from helix.core.config import ContinuitySettings
from helix.core.ports import FakeClock
from helix.session.runner import run_turn

OPEN_B = "open the build_bm25_index one"
OPEN_I = "open the BM25Index one"
UNANSWERED = "where is the tokenizer cache configured?"  # evidence, but not its subject
# the fixture repository, built once under each configuration (tests/_index_cache.py)
pytestmark = pytest.mark.usefixtures("cached_builds")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


def _events(turn: Any) -> list[str]:
    return [e.name for e in turn.events]


# --- the lanes decide when to retrieve -------------------------------------------------------

@pytest.mark.parametrize("text", ["hello", "thanks!", "ok", "what can you do?", "bye",
                                  "thank you, that helps a lot", "who are you?"])
def test_small_talk_thanks_and_meta_questions_get_a_short_reply_with_no_retrieval(repo, text):
    llm = recording_llm()  # a synthesis model is configured: small talk still never calls it
    talk = Talk(repo, config(repo, **{"synthesis.model": "m-synth"}), llm=llm)
    talk(Q)
    asked = len(talk.asked)
    turn = talk(text)
    assert (turn.lane, turn.transition, turn.transition_name) == ("chat", "T0", "small_talk")
    assert turn.retrieval is False and turn.envelope is None and len(talk.asked) == asked
    assert llm.calls == [] and "closest matches" not in turn.answer
    assert len(turn.answer.splitlines()) <= 8
    # nothing the conversation carries is dropped: the list still opens by number
    assert talk("open the second one").opened is not None


def test_small_talk_calls_a_model_only_when_continuity_chat_model_is_set(repo):
    llm = recording_llm()
    talk = Talk(repo, config(repo, **{"synthesis.model": "m-synth",
                                      "continuity.chat_model": "m-chat"}), llm=llm)
    turn = talk("hello")
    assert llm.models == ["m-chat"]
    assert turn.answer == "Hi! Ask me anything about this repository."
    assert turn.retrieval is False and ContinuitySettings().chat_model is None  # opt-in


def test_a_message_that_only_starts_with_small_talk_is_still_a_question(repo):
    talk = Talk(repo)
    turn = talk("thanks, now where is the tokenizer defined?")
    assert (turn.lane, turn.transition, turn.retrieval) == ("root", "T1", True)
    assert talk.asked[-1][0] == "where is the tokenizer defined?"


def test_ok_answers_a_yes_no_offer_and_is_small_talk_otherwise(repo):
    talk = Talk(repo)
    talk(Q)
    offer = talk("same question but only in nowhere/")
    assert "(yes / no)" in offer.answer
    accepted = talk("ok")
    assert (accepted.lane, accepted.transition, accepted.retrieval) == (
        "clarify_resume", "T7", True)
    asked = len(talk.asked)
    assert talk("ok").lane == "chat" and len(talk.asked) == asked  # no offer left: small talk


def test_tell_me_more_about_that_binds_to_the_focus_and_retrieves_around_it(repo):
    talk = Talk(repo)
    talk(Q)
    talk(OPEN_B)
    before = talk.state()
    turn = talk("tell me more about that")
    assert (turn.lane, turn.transition, turn.retrieval) == ("explain", "T4", True)
    assert talk.asked[-1][0] == "explain build_bm25_index"
    after = talk.state()
    assert after.root_frame == before.root_frame  # an object-level act: the root stays
    assert after.selected_object == before.selected_object
    assert turn.answer.startswith("About build_bm25_index (search/bm25.py:42-51):")


def test_tell_me_more_about_the_first_one_binds_to_the_numbered_item(repo):
    talk = Talk(repo)
    first = talk(Q)
    assert first.shown is not None
    item = first.shown.items[0]
    turn = talk("tell me more about the first one")
    assert (turn.lane, turn.transition, turn.retrieval) == ("selection", "T3", True)
    assert talk.asked[-1][0] == f"explain {item.label}"
    assert "first one" not in turn.answer
    assert talk.state().selected_object.focus_object_ref.id == item.target_id


def test_tell_me_more_after_an_answer_binds_to_what_the_answer_led_with(repo):
    talk = Talk(repo)
    talk(Q)  # "The BM25 index is built in `build_bm25_index`, search/bm25.py:42-51"
    turn = talk("tell me more about that")  # the answer selected its lead: T4 on it
    assert (turn.transition, turn.lane, turn.retrieval) == ("T4", "explain", True)
    assert talk.asked[-1][0] == "explain build_bm25_index"
    assert "Nothing in the repository" not in turn.answer


def test_why_and_is_that_the_only_place_after_tell_me_more_speak_of_what_was_explained(repo):
    talk = Talk(repo)
    talk(Q)
    talk(OPEN_B)
    callers = talk("who calls it?")
    assert callers.shown is not None
    first = callers.shown.items[0].label
    talk("tell me more about the first one")
    why = talk("why did you open that?")
    assert (why.lane, why.answer_mode) == ("semantic", "continuity")
    assert why.answer.startswith(f"I explained {first}") and "(turn 4)" in why.answer
    meta = talk("is that the only place?")
    assert meta.answer.startswith(f'About turn 4 ("explain {first}")')


def test_tell_me_more_with_nothing_to_bind_is_a_boundary_without_retrieval(repo):
    talk = Talk(repo)
    turn = talk("tell me more about that")
    assert (turn.transition, turn.retrieval, talk.asked) == ("T10", False, [])


# --- the coverage gate controls carryover ------------------------------------------------------

def test_coverage_gate_controls_carryover(repo):
    talk = Talk(repo)
    talk(Q)
    grounded = talk.state().coverage_gate_state
    assert (grounded.grounding_status, grounded.carryover_eligibility) == ("grounded", "full")
    answer = talk(UNANSWERED)
    assert answer.envelope is not None and answer.envelope.evidence  # spans, not the subject
    gate = talk.state().coverage_gate_state
    assert (gate.grounding_status, gate.truth_mode, gate.carryover_eligibility) == (
        "ungrounded", "unsupported", "object_only")
    meta = talk("is that the only place?")
    assert "did not find what was asked" in meta.answer and "only place." not in meta.answer
    # the listed object carries (object_only), the claims do not: "that" is read as the
    # closest match shown, and the reply says so first (router26c; refused before)
    more = talk("tell me more about that")
    assert more.transition == "T4", more.answer
    first = more.answer.splitlines()[0]
    assert first.startswith("Read 'that' as ") and "tokenizer cache" in first
    assert talk.state().coverage_gate_state.carryover_eligibility == "object_only"
    asked = len(talk.asked)
    opened = talk("open the first one")  # its listed spans are real: they may still be opened
    assert opened.transition == "T3" and opened.opened is not None
    # re-asking the question in another scope takes nothing from that answer: its own search
    rerun = talk("same question but only in tests/")
    assert (rerun.transition, rerun.retrieval) == ("T2", True), rerun.answer
    assert "coverage gate" not in rerun.answer and len(talk.asked) == asked + 1


def test_prior_state_ok_gates_every_gated_transition():
    from test_continuity_router import _after_open, _after_root

    state = _after_root()
    for eligibility, allowed in (("full", True), ("object_only", True), ("meta_only", False)):
        gated = state.model_copy(update={"coverage_gate_state": CoverageGateState(
            carryover_eligibility=eligibility)})  # type: ignore[arg-type]
        plan = route_turn(gated, "open the second one", None, ContinuitySettings())
        assert (plan.transition == "T3") is allowed, eligibility
        plan = route_turn(_after_open(gated), "who calls it?", None, ContinuitySettings())
        assert (plan.transition == "T4") is allowed, eligibility
    # T2 re-asks the root question (the user's words) with its own search: not gated; without
    # a root question it still needs one
    for eligibility in ("object_only", "meta_only", "none"):
        ungrounded = state.model_copy(update={"coverage_gate_state": CoverageGateState(
            carryover_eligibility=eligibility)})  # type: ignore[arg-type]
        assert route_turn(ungrounded, "same question but only in tests/", None,
                          ContinuitySettings()).transition == "T2", eligibility
    assert route_turn(ContinuityState(session_id="s"), "same question but only in tests/",
                      None, ContinuitySettings()).transition == "T10"


# --- the loop guard works in sessions -------------------------------------------------------

def test_loop_guard_works_in_sessions_repeat_never_opens(repo):
    llm = recording_llm(verdict={"decision": "select", "choice_id": "__unknown__",
                                "confidence": 0.95})
    talk = Talk(repo, config(repo, **{"synthesis.model": "m"}), llm=llm)
    talk(Q)
    first = talk("open the bm25 one")
    assert first.answer_mode == "clarify" and first.opened is None and len(llm.calls) == 1
    second = talk("open the bm25 one")
    assert second.answer_mode == "clarify" and second.opened is None
    assert len(llm.calls) == 1  # the same unresolved cycle: the guard, no second model call
    assert "asked already" in second.answer
    assert [i.label for i in second.shown.items] == [i.label for i in first.shown.items]
    # telemetry: the guard's hit is an event of the turn (and of the run log)
    hits = [e for e in second.events if e.name == "loop_guard_hit"]
    assert len(hits) == 1 and hits[0].reason.startswith("loop_guard")
    assert not [e for e in first.events if e.name == "loop_guard_hit"]


def test_a_failed_model_call_is_an_event(repo):
    from helix.core.errors import LLMRateLimitError
    from helix.session.runner import run_turn
    from helix.synthesis.fake_llm import FakeLLM

    cfg = config(repo, **{"synthesis.model": "m", "synthesis.max_retries": 0})
    turn = run_turn("failing", Q, root=repo, config=cfg,
                    llm=FakeLLM(LLMRateLimitError("slow down")), dry_run=False)
    assert turn.envelope is not None and turn.envelope.fallback_reason == "rate_limited"
    failed = [e for e in turn.events if e.name == "model_call_failed"]
    assert [e.reason for e in failed] == ["rate_limited"]


def test_recent_rejected_choice_ids_are_written_by_corrections(repo):
    talk = Talk(repo)
    listed = talk(Q)
    assert listed.shown is not None
    opened = talk("open the second one")
    wrong = talk("wrong one")
    assert wrong.answer_mode == "clarify" and wrong.opened is None
    state = talk.state()
    assert state.recent_rejected_choice_ids[0] == listed.shown.items[1].id
    assert listed.shown.items[1].label not in [i.label for i in wrong.shown.items]
    assert opened.opened is not None
    again = talk("the first")
    assert again.opened is not None and again.opened.target.id == listed.shown.items[0].target_id


def test_no_the_other_one_picks_the_other_offered_option(repo):
    talk = Talk(repo)
    talk(Q)
    offered = talk("open the bm25.py one")
    assert offered.shown is not None and len(offered.shown.items) == 2
    first = talk("the first")
    other = talk("no, the other one")
    assert first.opened is not None and other.opened is not None
    assert {first.opened.target.id, other.opened.target.id} == {
        i.target_id for i in offered.shown.items}


def test_pending_match_does_not_fire_before_the_guard_and_safe_winner_gates(repo):
    talk = Talk(repo)
    talk(Q)
    talk("open the bm25 one")  # clarifier, with a typed pending state over its options
    state = talk.state()
    assert state.pending is not None and state.pending.option_set_id == state.active_option_set_id
    chosen = talk("the test one")  # resolved by the selection lane, not by the pending match
    assert chosen.opened is not None and chosen.opened.path == "tests/test_bm25.py"
    assert "selection_deterministic_continuity_resolve" in _events(chosen)
    assert "pending_applied" not in _events(chosen)


# --- --reply-to is honoured by the semantic and meta lanes ----------------------------------

def test_reply_to_is_honoured_by_the_semantic_lane(repo):
    talk = Talk(repo)
    talk(Q)
    talk(OPEN_B)
    talk(OPEN_I)
    turn = talk("why did you open that?", reply_to=2)
    assert (turn.lane, turn.transition) == ("semantic", "T8")
    assert "build_bm25_index" in turn.answer and "(turn 2)" in turn.answer
    assert "turn 3" not in turn.answer
    latest = talk("why did you open that?")
    assert "BM25Index" in latest.answer and "(turn 3)" in latest.answer


def test_reply_to_is_honoured_by_the_meta_lane(repo):
    talk = Talk(repo)
    talk(Q)
    talk("where is the tokenizer defined?")
    turn = talk("is that the only place?", reply_to=1)
    assert (turn.lane, turn.transition) == ("meta", "T8")
    assert f'About turn 1 ("{Q}")' in turn.answer


# --- the semantic lane's enrichment runs in real sessions ------------------------------------

def test_semantic_enrichment_runs_in_real_sessions(repo):
    talk = Talk(repo)
    listed = talk(Q)
    assert listed.shown is not None
    # the last listed definition the answer does not name (which one depends on the ranking)
    item = next(i for i in reversed(listed.shown.items)
                if i.target.kind == "symbol" and i.label not in listed.answer)
    turn = talk(f"what does {item.label} mean?")
    assert (turn.lane, turn.transition, turn.answer_mode) == ("semantic", "T8", "continuity")
    retried = [e for e in turn.events if e.name == "semantic_enrichment_retry_called"]
    assert retried and retried[0].fingerprint_before != retried[0].fingerprint_after
    span = (repo / item.target.path).read_text(encoding="utf-8").splitlines()[
        item.target.start_line - 1:item.target.end_line]
    last = next(line.strip() for line in reversed(span) if line.strip())
    assert last in turn.answer  # the item's own span, read from the repo


def test_semantic_enrichment_stops_when_the_fingerprint_does_not_change(repo):
    talk = Talk(repo)
    talk(Q)
    talk(OPEN_B)
    (repo / "search" / "engine.py").unlink()  # the item's span can no longer be read
    turn = talk("what does search/engine.py mean?")
    names = _events(turn)
    assert turn.answer_mode == "clarify"
    assert names.count("semantic_followup_single_clarifier_asked") == 1
    assert "semantic_enrichment_fingerprint_unchanged" in names \
        or "semantic_enrichment_budget_exhausted" in names


# --- T6 is a real root-only pivot ----------------------------------------------------------

def test_t6_is_a_root_only_pivot_that_keeps_the_path_scope(repo):
    talk = Talk(repo)
    talk(Q)
    talk("same question but only in tests/")
    opened = talk("open the first one")
    turn = talk("what about the tokenizer?")
    assert (turn.lane, turn.transition, turn.transition_name, turn.retrieval) == (
        "root", "T6", "pivot_root_only_carryover", True)
    assert talk.asked[-1] == ("where is the tokenizer built?", "tests/", None)
    state = talk.state()
    # the opened object is dropped (at most the pivot's own answer leads with another)
    assert state.chosen_object is None and state.root_frame.path_scope == "tests/"
    assert opened.opened is not None
    assert all(e.path.startswith("tests/") for e in turn.envelope.evidence)


# --- clarifier usability ----------------------------------------------------------------------

def test_sense_number_selects_the_numbered_option(capsys, monkeypatch):
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    base = ["ask", "what is a cavity?", "--repo", str(FIXTURE), "--dry-run"]
    code, out, _ = run_cli(base, capsys)
    assert code == 0 and "choose one: ask again with --sense 1 or --sense 2" in out
    code, out, _ = run_cli([*base, "--json"], capsys)
    keys = [o["sense"] for o in json.loads(out)["clarify"]["options"]]
    for number, key in enumerate(keys, start=1):  # --sense N = the Nth option as printed
        by_number = run_cli([*base, "--json", "--sense", str(number)], capsys)
        by_key = run_cli([*base, "--json", "--sense", key], capsys)
        assert by_number[0] == by_key[0] == 0, by_number[2]
        assert json.loads(by_number[1])["item_hashes"] == json.loads(by_key[1])["item_hashes"]
        assert json.loads(by_number[1])["items"]["intent"]["sense"] == key
    assert keys[0] != keys[1]
    word = run_cli([*base, "--json", "--sense", "storage"], capsys)
    assert json.loads(word[1])["items"]["intent"]["sense"] == keys[1]


@pytest.mark.parametrize("sense,question", [("3", "what is a cavity?"),
                                            ("banana", "what is a cavity?"),
                                            ("1", Q)])
def test_unknown_sense_is_an_error_exit_2(capsys, monkeypatch, sense, question):
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    code, out, err = run_cli(["ask", question, "--repo", str(FIXTURE), "--dry-run",
                              "--sense", sense], capsys)
    assert code == 2 and out == ""
    lines = [line for line in err.splitlines()
             if not line.startswith(("helix: index ", "helix: no index of"))]
    assert len(lines) == 1 and lines[0].startswith("helix: --sense"), err


def test_session_reply_the_second_one_selects_the_second_sense(repo):
    talk = Talk(repo)
    clarifier = talk("what is a cavity?")
    assert clarifier.shown is not None and clarifier.shown.kind == "options"
    turn = talk("the second one")
    assert (turn.lane, turn.transition) == ("clarify_resume", "T7")
    assert talk.asked[-1][2] == clarifier.shown.items[1].id.removeprefix("sense:")


# --- simpler to own -------------------------------------------------------------------------

def test_ttls_live_in_one_settings_table():
    assert not [f for f in ContinuitySettings.model_fields if "ttl" in f]
    pending = make_pending(kind="tool_retry_offer", expected_type="boolean",
                           clarifier_type="confirmation", anchor_turn_id=4, thread_key="s",
                           now_ms=1_000, caps=CAPS)
    assert pending.expires_at_ms == 1_000 + CAPS.continuity_ttl_max_ms
    assert pending.expires_after_turn == 4 + CAPS.continuity_ttl_max_turns


def test_transitions_are_named_not_only_numbered(repo):
    names = [spec.name for spec in REGISTRY.values()]
    assert len(set(names)) == len(names) and all(CLASS_OF[n] == c for c, n in
                                                 ((s.cls, s.name) for s in REGISTRY.values()))
    talk = Talk(repo)
    for text in ("hello", Q, "open the second one", "who calls it?", "stop"):
        turn = talk(text)
        assert turn.transition_name == REGISTRY[turn.transition].name
    source = Path(rules.__file__).read_text(encoding="utf-8")  # the rules router.RULES lists
    body = source[source.index("# --- the rules"):source.index("RULES: tuple")]
    assert not re.findall(r'plan\(\s*"T\d+"', body)  # rules name their transition


def test_route_turn_selection_and_semantic_lanes_are_rule_tables():
    assert [name for name, _ in router.RULES] == [
        "start_over", "cancel", "continuity_off", "pending_answer", "small_talk",
        "scope_rerun", "other_sense", "correction", "never_shown", "tell_me_more", "selection",
        "graph",
        "semantic", "meta", "recap", "back_to_list", "pivot", "root_question"]
    assert [name for name, _ in selection.LADDER] == [
        "hard_interrupt", "question_intent", "scoped_pool", "safe_winner", "lane_off",
        "loop_guard", "no_model", "advisory_model"]
    assert [name for name, _ in semantic.LADDER] == [
        "hard_interrupt", "selection_first", "lane_off", "no_intent", "bind_slots", "answer"]
    for module in (router, selection, semantic):
        for name, _ in getattr(module, "RULES", getattr(module, "LADDER", ())):
            assert name in (module.__doc__ or ""), (module.__name__, name)


def test_lanes_reach_the_llm_through_the_driver(repo, monkeypatch):
    """Small talk, the selection lane's advisory call and the semantic lane's answer all go
    through LiteLLMClient (the one client, which redacts): a secret planted in the opened
    span never reaches litellm."""
    from helix.synthesis.llm import LiteLLMClient, _import_litellm

    secret = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
    path = repo / "search" / "bm25.py"
    path.write_text(path.read_text(encoding="utf-8").replace(
        '"""Postings and statistics of a built BM25 index."""',
        f'"""Postings and statistics of a built BM25 index."""\n\n    KEY = "{secret}"'),
        encoding="utf-8")
    through: list[str] = []
    original = LiteLLMClient.complete

    def spy(self: LiteLLMClient, messages: Any, **kw: Any) -> Any:
        through.append(kw["model"])
        return original(self, messages, **kw)

    sent: list[str] = []

    def completion(**kwargs: Any) -> Any:
        sent.append(json.dumps(kwargs["messages"]))
        system = kwargs["messages"][0]["content"]
        text = ("Hello!" if "small talk" in system else
                json.dumps({"answer": "Postings.", "confidence": 0.9}) if "named entity" in system
                else json.dumps({"decision": "abstain"}))
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=text))],
                               model=kwargs["model"], usage=None)

    monkeypatch.setattr(LiteLLMClient, "complete", spy)
    monkeypatch.setattr(_import_litellm(), "completion", completion)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-used")
    cfg = config(repo, **{"synthesis.model": "gpt-4o-mini", "continuity.chat_model": "chat-m"})
    clock = FakeClock(start=1_700_000_000.0, step=0.001)

    def turn(text: str) -> Any:  # no LLM handed in: the session builds its own client
        return run_turn("s", text, root=repo, config=cfg, clock=clock)

    turn("hello")
    turn(Q)
    turn("open the bm25 one")  # no deterministic winner: the advisory call
    turn(OPEN_I)
    meaning = turn("what does BM25Index mean?")  # the semantic answer-mode call
    assert meaning.answer == "Postings."
    assert {"chat-m", "gpt-4o-mini"} <= set(through) and len(sent) == len(through)
    assert any("named entity" in s for s in sent) and any("numbered candidate" in s
                                                           for s in sent)
    everything = "\n".join(sent)
    assert secret not in everything and "[REDACTED:" in everything


# --- done when: the conversation suite ---------------------------------------------------------

def test_conversation_suite_has_sixty_conversations_that_pass_per_transition_class(
        monkeypatch):
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    cases = load_cases(SUITE_DIR / "conversations.jsonl")
    assert len(cases) >= 60 and all(len(c["turns"]) >= 1 for c in cases)
    assert sum(len(c["turns"]) >= 2 for c in cases) >= 60  # multi-turn conversations
    from evals.runner import continuity_report

    def run(case: dict[str, Any]) -> dict[str, Any]:
        root = resolve_repo(case["repo"])
        from helix.core.config import load_config

        return run_case(case, root=root, config=load_config(root))

    report = continuity_report(cases, run)
    failed = [(c["id"], [t["failures"] for t in c["per_turn"] if not t["passed"]])
              for c in report["cases"] if not c["passed"]]
    assert not failed, failed
    assert set(report["by_class"]) == {f"T{n}" for n in range(0, 11)}
    assert all(row["pass_rate"] == 1.0 for row in report["by_class"].values())


def test_open_and_explain_explains_this_turns_open(repo):
    """"open the third one and explain why" after an earlier open: the explanation is about
    the item this turn opened, not the one opened before."""
    talk = Talk(repo)
    first = talk(Q)
    talk("open the first one")
    turn = talk("open the third one and explain why")
    third = first.shown.items[2]
    assert turn.opened is not None and turn.opened.target.id == third.target_id
    why = turn.answer.split("Why:", 1)[1]
    assert third.label.split(":")[-1].strip() in why
    assert "open the third one and explain why" in why


def test_the_explanation_survives_a_clarifier(repo):
    """"open the bm25 one and explain why" needs a clarifier first; the answer to it opens the
    choice and still explains it."""
    talk = Talk(repo)
    talk(Q)
    asked = talk("open the bm25 one and explain why")
    assert asked.answer_mode == "clarify" and asked.opened is None
    chosen = talk("the first")
    assert chosen.opened is not None and "Why:" in chosen.answer
    assert chosen.opened.target.label in chosen.answer.split("Why:", 1)[1]


@pytest.mark.parametrize("text", ["only in tests please", "same question but only in tests"])
def test_a_scope_named_without_its_slash_reruns_the_question(repo, text):
    """A directory the conversation has shown, named bare in a rerun, is the new scope (T2);
    a bare word in a new question stays a word."""
    talk = Talk(repo)
    talk(Q)
    turn = talk(text)
    assert (turn.transition, turn.intent) == ("T2", "scope_rerun")
    assert talk.asked[-1] == (Q, "tests/", None)
    other = talk("where is it defined in the engine")
    # a new question (with a test in focus, where something is defined asks about another
    # thing); a bare word stays a word: "engine" is never taken for a scope
    assert (other.transition, other.intent) == ("T1", "root_question")
    assert all(scope != "engine" and scope != "engine/" for _, scope, _ in talk.asked)


def test_who_calls_it_after_an_answer_binds_to_what_the_answer_led_with(repo):
    """"who calls it?" with nothing opened: a grounded answer selected the item it led with
    (the one it puts first), so this is a short action on that object (T4): the answer says
    which one, and its callers are listed from the graph (no retrieval)."""
    talk = Talk(repo)
    first = talk(Q)  # leads with build_bm25_index
    lead = next(i for i in first.shown.items if "build_bm25_index" in i.label)
    selected = talk.state().selected_object
    assert selected.from_answer and selected.focus_object_ref.id == lead.target_id
    asked = len(talk.asked)
    turn = talk("who calls it?")
    assert (turn.lane, turn.transition, turn.intent) == ("graph", "T4", "graph_callers")
    assert turn.retrieval is False and len(talk.asked) == asked
    assert turn.answer.startswith("Taking build_bm25_index (search/bm25.py:42-51)")
    assert "the item the last answer led with" in turn.answer.splitlines()[0]
    assert talk.state().selected_object.focus_object_ref.id == lead.target_id
    assert turn.shown is not None and turn.shown.items  # the callers are the new list
    again = talk("tests?")  # the selected object carries on
    assert (again.transition, again.intent) == ("T4", "graph_tests")


def test_who_calls_the_second_one_selects_that_item_first(repo):
    talk = Talk(repo)
    first = talk(Q)
    second = first.shown.items[1]
    turn = talk("who calls the second one?")
    assert (turn.transition, turn.intent) == ("T3", "graph_callers")
    assert turn.answer.startswith("Taking item 2,")
    assert talk.state().selected_object.focus_object_ref.id == second.target_id


def test_who_calls_it_with_no_answer_to_bind_is_a_boundary(repo):
    talk = Talk(repo)
    turn = talk("who calls it?")
    assert turn.transition == "T10" and "open an item first" in turn.answer
    assert talk.asked == []


def test_a_scope_cued_meaning_question_stays_in_the_semantic_lane(repo):
    """Semantic lane blocker 12: "from the evidence, what does X mean?" is answered in the
    semantic lane from X's own span in that list, with no new search."""
    talk = Talk(repo)
    talk(Q)
    asked = len(talk.asked)
    turn = talk("from the evidence, what does build_bm25_index mean?")
    assert (turn.lane, turn.transition, turn.retrieval) == ("semantic", "T8", False)
    assert len(talk.asked) == asked
    assert "def build_bm25_index(documents" in turn.answer
    assert "active widget snapshot" in turn.answer  # the listed item, not the last answer


def test_a_scope_cue_with_no_such_list_is_a_boundary(repo):
    talk = Talk(repo)
    turn = talk("from the evidence, what does build_bm25_index mean?")
    assert (turn.transition, turn.retrieval) == ("T10", False) and talk.asked == []


def test_after_a_recap_a_meaning_question_quotes_the_code_not_the_recap(repo):
    talk = Talk(repo)
    talk(Q)
    talk("did we talk about the BM25 index?")
    turn = talk("what does BM25Index mean?")
    assert turn.lane == "semantic"
    assert "class BM25Index" in turn.answer and "came up in" not in turn.answer
