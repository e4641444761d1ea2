"""Session runner over a real fixture repository: lanes, umbrella blockers, persistence,
atomic turns, events and flag-off behaviour (no LLM unless a fake one is handed in)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.continuity.events import ALL_EVENTS
from controller.continuity.lanes.selection import RepoSnapshotEnricher
from controller.continuity.state import (
    OptionItem,
    OptionSet,
    TargetRef,
    initial_state,
)
from controller.continuity.transitions import REGISTRY
from helix.core.errors import ConcurrentTurnError
from helix.core.ports import FakeClock
from helix.session import eventlog
from helix.session.eventlog import read_events
from helix.session.runner import run_turn
from helix.session.store import ensure_schema, get_session, load_turns, state_after
from helix.store.db import open_db
from helix.synthesis.fake_llm import FakeLLM
from tests.lane_fixtures import run_selection_lane
from tests.talk_fixtures import FIXTURE, Q, Talk, indexed_copy
from tests.talk_fixtures import config as _config

OPEN_B = "open the build_bm25_index one"  # by label: independent of the evidence ranking
OPEN_I = "open the BM25Index one"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_copy(tmp_path)


def verdict_llm(verdict: dict) -> FakeLLM:
    """Answers the selection lane's advisory call with a fixed verdict, every time."""
    return FakeLLM(respond=lambda model, messages: json.dumps(verdict))


# --- the umbrella contract's blockers ----------------------------------------------------

def test_open_the_sample2_pls_resolves_without_repeated_clarifier(repo):
    talk = Talk(repo)
    talk(Q)
    turn = talk("open the SearchEngine one pls")
    assert (turn.lane, turn.transition, turn.answer_mode) == ("selection", "T3", "continuity")
    assert turn.opened is not None and turn.opened.path == "search/engine.py"
    assert any(e.name == "selection_deterministic_continuity_resolve" for e in turn.events)


def test_true_ambiguity_still_clarifies(repo):
    talk = Talk(repo)
    talk(Q)
    turn = talk("open the bm25 one")
    assert turn.answer_mode == "clarify" and turn.opened is None
    assert turn.shown is not None and len(turn.shown.items) >= 2


def test_stale_option_set_does_not_force_old_winner(repo):
    talk = Talk(repo)
    talk(Q)
    talk(OPEN_B)
    callers = talk("who calls it?")
    assert callers.shown is not None and callers.shown.kind == "callers"
    turn = talk("open the second one")
    assert turn.opened is not None
    assert turn.opened.target.id == callers.shown.items[1].id  # the new list, not turn 1's


def test_question_intent_and_stop_cancel_still_escape(repo):
    talk = Talk(repo)
    talk(Q)
    talk(OPEN_B)
    why = talk("why did you open that?")
    assert why.lane == "semantic" and why.opened is None and why.retrieval is False
    stop = talk("stop")
    assert (stop.lane, stop.transition) == ("interrupt", "T6")
    assert "selected_object" in stop.state_mutations


def test_no_execution_outside_bounded_candidates(repo):
    talk = Talk(repo)
    talk(Q)
    for text in ("open the 99th one", "open search/tokenizer.py", "open the weather one"):
        turn = talk(text)
        assert turn.opened is None, text


def test_unchanged_evidence_fingerprint_blocks_retry_and_falls_back_to_clarifier(repo):
    # candidates with no file: the repository enricher has nothing to add, fingerprint unchanged
    items = tuple(OptionItem(id=f"sense:{s}", index=i, label=f"cavity {s}",
                             target=TargetRef(kind="option", id=f"sense:{s}", label=s))
                  for i, s in enumerate(("pool", "optics"), start=1))
    options = OptionSet(id="os-1", kind="options", scope="options", origin_turn_id=1,
                        items=items)
    state = initial_state("s").model_copy(update={
        "option_sets": (options,), "active_option_set_id": "os-1", "active_scope": "options",
        "turn_count": 1})
    llm = verdict_llm({"decision": "need_more_info",
                       "needed_evidence_types": ["active_widget_items"]})
    decision = run_selection_lane("pick the cavity one", state, _config(repo).continuity,
                                  now_ms=1, llm=llm, model="fake/model",
                                  enricher=RepoSnapshotEnricher(), root=repo)
    assert decision.kind == "clarify" and decision.fallback_reason == "no_new_evidence"
    assert len(llm.calls) == 1
    assert "selection_enrichment_fingerprint_unchanged" in {e.name for e in decision.events}


def test_enrichment_budget_exhausted_blocks_further_retry(repo):
    llm = verdict_llm({"decision": "need_more_info"})
    talk = Talk(repo, _config(repo, **{"synthesis.model": "fake/model"}), llm=llm)
    talk(Q)
    turn = talk("open the bm25 one")
    assert turn.answer_mode == "clarify" and turn.opened is None
    names = [e.name for e in turn.events]
    assert "selection_enrichment_retry_called" in names
    assert "selection_enrichment_budget_exhausted" in names
    # SELECTION_MAX_LLM_CALLS, the retry only after a changed fingerprint
    assert len(llm.calls) == 2
    retry = next(e for e in turn.events if e.name == "selection_enrichment_retry_called")
    assert retry.fingerprint_before != retry.fingerprint_after
    assert retry.loop_cycle_id and retry.retry_budget_remaining is not None


def test_the_continuity_limits_are_settings_and_each_turn_names_them(repo):
    """`continuity.caps` in the settings: one advisory call allowed, one made; the turn
    records the settings' hash."""
    llm = verdict_llm({"decision": "need_more_info"})
    capped = _config(repo, **{"synthesis.model": "fake/model",
                              "continuity.caps": {"selection_max_llm_calls": 1}})
    talk = Talk(repo, capped, llm=llm, name="capped")
    talk(Q)
    turn = talk("open the bm25 one")
    assert turn.answer_mode == "clarify" and len(llm.calls) == 1
    assert turn.continuity_hash == capped.continuity_hash != _config(repo).continuity_hash


# --- lanes over the real index -----------------------------------------------------------

def test_graph_follow_ups_use_the_index_graph_without_root_retrieval(repo):
    talk = Talk(repo)
    talk(Q)
    talk(OPEN_B)
    asked = len(talk.asked)
    callers = talk("who calls it?")
    tests = talk("where is it tested?")
    assert len(talk.asked) == asked  # no root retrieval
    assert (callers.lane, callers.transition, callers.retrieval) == ("graph", "T4", False)
    assert {"SearchEngine.__init__", "SearchEngine.rebuild"} <= {
        i.label for i in callers.shown.items}
    assert tests.shown is not None
    assert any(i.label == "test_build_bm25_index_counts_documents" for i in tests.shown.items)


def test_t2_reruns_with_narrowed_scope_and_keeps_the_root_frame(repo):
    talk = Talk(repo)
    first = talk(Q)
    turn = talk("same question but only in tests/")
    assert (turn.lane, turn.transition, turn.retrieval) == ("root", "T2", True)
    assert talk.asked[-1] == (Q, "tests/", None)
    assert turn.envelope is not None
    assert all(e.path.startswith("tests/") for e in turn.envelope.evidence)
    assert first.envelope is not None
    frames = [state_after(open_db(), turn.session_id, n).root_frame for n in (1, 2)]
    assert frames[0] is not None and frames[1] is not None
    assert frames[1].question == frames[0].question == Q
    assert frames[1].domain_id == frames[0].domain_id  # root domain preserved
    assert (frames[0].path_scope, frames[1].path_scope) == (None, "tests/")


def test_clarifier_then_the_first_resumes_with_that_sense(repo):
    talk = Talk(repo)
    clar = talk("what is a cavity?")
    assert clar.answer_mode == "clarify" and clar.shown is not None
    assert len(clar.shown.items) == 2
    resumed = talk("the first")
    assert (resumed.lane, resumed.transition, resumed.retrieval) == ("clarify_resume", "T7", True)
    question, _, sense = talk.asked[-1]
    assert question == "what is a cavity?" and sense is not None
    assert sense in clar.shown.items[0].id


def test_meta_answer_does_not_replay(repo):
    talk = Talk(repo)
    talk(Q)
    asked = len(talk.asked)
    meta = talk("is that the only place?")
    assert (meta.lane, meta.transition, meta.retrieval) == ("meta", "T8", False)
    assert len(talk.asked) == asked and meta.envelope is None
    assert "without re-running" in meta.answer
    only = "that is the only place" in meta.answer  # one place: says so; several: "No." first
    assert meta.answer.splitlines()[1].startswith("It rests on" if only else "No. It rests on")


def test_recap_is_truthful_and_never_invented(repo):
    talk = Talk(repo)
    talk("where is the tokenizer defined?")
    yes = talk("did we talk about the tokenizer?")
    no = talk("did we talk about the weather?")
    assert (yes.lane, yes.transition) == ("recap", "T9")
    assert yes.answer.startswith("Yes") and "turn 1" in yes.answer
    assert no.answer.startswith("No")


def test_semantic_lane_answers_from_last_resolved_action_and_trace(repo):
    talk = Talk(repo)
    talk(Q)
    talk(OPEN_I)
    why = talk("why did you open that?")
    assert (why.lane, why.transition, why.answer_mode) == ("semantic", "T8", "continuity")
    assert "BM25Index" in why.answer and OPEN_I in why.answer
    last = talk("what happened last?")
    assert (last.lane, last.transition) == ("semantic", "T9")
    assert last.answer.index("BM25Index") < last.answer.index("answered")  # newest first


def test_mixed_intent_selects_first_then_explains(repo):
    talk = Talk(repo)
    first = talk(Q)
    turn = talk("open 2 and explain why")
    assert first.shown is not None and turn.opened is not None
    assert turn.opened.target.id == first.shown.items[1].target_id
    assert "Why:" in turn.answer
    # the clause is answered by the semantic lane (run_mixed_intent) from the new action
    why = turn.answer.split("Why: ", 1)[1]
    assert why.startswith("I opened ") and "item 2 of the evidence list" in why
    assert "semantic_followup_answered" in {e.name for e in turn.events}
    assert "explanation" in turn.state_mutations


def test_reply_to_anchors_an_earlier_list(repo):
    talk = Talk(repo)
    first = talk(Q)
    talk(OPEN_B)
    talk("who calls it?")
    turn = talk("open the second one", reply_to=1)
    assert first.shown is not None and turn.opened is not None
    assert turn.opened.target.id == first.shown.items[1].target_id


def test_reply_to_a_list_pushed_out_by_newer_lists(repo):
    talk = Talk(repo)
    first = talk(Q)
    for text in ("open the second one", "who calls it?", "where is it tested?",
                 "same question but only in tests/", "what is a cavity?"):
        talk(text)
    turn = talk("open the first one", reply_to=1)  # turn 1's list is no longer kept
    assert first.shown is not None and turn.opened is not None
    assert turn.opened.target.id == first.shown.items[0].target_id
    assert "reply_anchor_list_readmitted" in {e.name for e in turn.events}


def test_start_over_preempts_everything(repo):
    talk = Talk(repo)
    talk("what is a cavity?")
    reset = talk("start over")
    assert (reset.lane, reset.transition, reset.retrieval) == ("interrupt", "T1", False)
    assert talk("the first").transition == "T10"


def test_every_turn_changes_only_what_its_class_declares(repo):
    talk = Talk(repo)
    for text in (Q, "open the second one", OPEN_B, "open it", "who calls it?",
                 "why did you open that?",
                 "same question but only in tests/", "what is a cavity?", "the first",
                 "is that the only place?", "did we talk about the tokenizer?", "stop",
                 "start over"):
        turn = talk(text)
        assert set(turn.state_mutations) <= set(REGISTRY[turn.transition].state_mutations) | {
            "pending", "clarification"}, (text, turn.state_mutations)


# --- persistence, atomicity, events ------------------------------------------------------

def test_session_survives_reopening_the_store(repo):
    talk = Talk(repo)
    talk(Q)
    talk("open the second one")
    db = open_db()
    ensure_schema(db)
    record = get_session(db, "s")
    assert record is not None and record.turn_count == 2
    assert record.state.selected_object is not None
    assert [t.turn_id for t in load_turns(db, record.id)] == [1, 2]
    assert talk("open it").turn_id == 3


def test_failed_write_leaves_no_partial_turn(repo, monkeypatch):
    talk = Talk(repo)
    talk(Q)

    def boom(conn, events):
        raise RuntimeError("disk full")

    monkeypatch.setattr("helix.session.store.insert_events", boom)
    with pytest.raises(RuntimeError):
        talk("open the second one")
    monkeypatch.setattr("helix.session.store.insert_events", eventlog.insert_events)
    db = open_db()
    record = get_session(db, "s")
    assert record is not None and record.turn_count == 1 and record.state.chosen_object is None
    assert len(load_turns(db, record.id)) == 1
    assert talk("open the second one").turn_id == 2


def test_kill_mid_write_keeps_the_previous_turn(repo, tmp_path):
    talk = Talk(repo)
    talk(Q)
    script = f"""
import os
from pathlib import Path
from helix.core.config import load_config
from helix.session import runner, store
real = store.insert_events
def die(conn, events):
    real(conn, events)
    os._exit(9)  # killed inside the turn's transaction
store.insert_events = die
runner.run_turn("s", "open the second one", root=Path({str(repo)!r}),
                config=load_config(Path({str(repo)!r}), flags={{"index.embed_enabled": False}}),
                dry_run=True)
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 9, proc.stderr
    db = open_db()
    record = get_session(db, "s")
    assert record is not None and record.turn_count == 1
    assert len(load_turns(db, record.id)) == 1
    assert talk("open the second one").turn_id == 2


def test_concurrent_writer_is_refused(repo):
    from helix.session.store import commit_turn, open_session

    talk = Talk(repo)
    talk(Q)
    db = open_db()
    stale = open_session(db, "s", str(repo.resolve()), now=0)
    talk("open the second one")
    turn = load_turns(db, stale.id)[-1]
    with pytest.raises(ConcurrentTurnError):
        commit_turn(db, stale, turn, get_session(db, "s").state, [])


def test_events_are_stored_with_loop_cycle_fields(repo):
    llm = verdict_llm({"decision": "need_more_info"})
    talk = Talk(repo, _config(repo, **{"synthesis.model": "fake/model"}), llm=llm)
    talk(Q)
    talk("open the bm25 one")
    db = open_db()
    record = get_session(db, "s")
    assert record is not None
    events = read_events(db, session_id=record.id)
    names = {e.name for e in events}
    assert {"turn_routed", "focus_resolved", "transition_applied", "retrieval_run",
            "selection_llm_need_more_info"} <= names
    assert names <= set(ALL_EVENTS)
    cycle = [e for e in events if e.name.startswith("selection_")]
    assert all(e.loop_cycle_id for e in cycle)
    assert all(e.session_id == record.id and e.turn_id == 2 for e in cycle)
    assert all(e.active_option_set_id for e in cycle)


def test_session_name_is_bound_to_its_repository(repo, tmp_path):
    from helix.core.errors import UserError

    Talk(repo)(Q)
    other = tmp_path / "other"
    shutil.copytree(FIXTURE, other)
    with pytest.raises(UserError, match="belongs to another repository") as refused:
        Talk(other)(Q)
    assert str(repo) not in str(refused.value)  # the other repository's path is not told


# --- flag-off behaviour ------------------------------------------------------------------

def test_semantic_lane_off_gives_one_safe_clarifier(repo):
    talk = Talk(repo, _config(repo, **{"continuity.semantic_lane": False}))
    talk(Q)
    talk("open the second one")
    turn = talk("why did you open that?")
    assert (turn.lane, turn.answer_mode) == ("semantic", "clarify")
    assert "lane_disabled" in {e.name for e in turn.events}


def test_selection_lane_off_runs_explicit_matches_only(repo):
    talk = Talk(repo, _config(repo, **{"continuity.selection_lane": False}))
    talk(Q)
    explicit = talk("open the second one")
    assert explicit.opened is not None  # an explicit ordinal needs no continuity
    pronoun = talk("open it")
    assert pronoun.opened is None and pronoun.answer_mode == "clarify"


def test_pending_state_off_leaves_no_pending_and_no_t7(repo):
    talk = Talk(repo, _config(repo, **{"continuity.pending_state": False}))
    talk("what is a cavity?")
    turn = talk("the first")
    assert turn.transition != "T7"
    record = get_session(open_db(), "s")
    assert record is not None and record.state.pending is None


def test_grounding_continuity_off_every_turn_is_a_root_question(repo):
    talk = Talk(repo, _config(repo, **{"continuity.grounding_continuity": False}))
    talk(Q)
    turn = talk("open the second one")
    assert (turn.lane, turn.retrieval, turn.opened) == ("root", True, None)
    assert turn.transition in ("T1", "T10")  # a root question; T10 when it finds nothing


def test_focus_resolution_off_ignores_reply_to(repo):
    talk = Talk(repo, _config(repo, **{"continuity.focus_resolution": False}))
    talk(Q)
    talk(OPEN_B)
    callers = talk("who calls it?")
    turn = talk("open the second one", reply_to=1)
    assert callers.shown is not None and turn.opened is not None
    assert turn.opened.target.id == callers.shown.items[1].id  # lane recency, not turn 1


# --- T10: failures are said, never dressed as answers -----------------------------------

def test_execution_failure_is_a_t10_boundary(repo):
    from helix.core.errors import IndexCorruptError

    def broken(question, *, scope, sense):
        raise IndexCorruptError("index part bm25 is unreadable")

    turn = run_turn("f", Q, root=repo, config=_config(repo), dry_run=True, asker=broken,
                    clock=FakeClock())
    assert (turn.transition, turn.answer_mode, turn.retrieval) == ("T10", "boundary", False)
    assert "unreadable" in turn.answer
    record = get_session(open_db(), "f")
    assert record is not None and record.state.root_frame is None
    assert record.state.coverage_gate_state.truth_mode != "confirmed"


def test_open_span_never_reads_outside_the_root(repo, tmp_path):
    from helix.core.errors import BadPathError
    from helix.session.lane_driver import open_span

    outside = tmp_path / "secret.txt"
    outside.write_text("token=abc\n", encoding="utf-8")
    (repo / "link.txt").symlink_to(outside)
    for path in ("../secret.txt", "link.txt", str(outside)):
        with pytest.raises(BadPathError):
            open_span(repo, TargetRef(kind="span", id="x", path=path, start_line=1,
                                      end_line=1), max_lines=5, max_bytes=10_000)
    opened = open_span(repo, TargetRef(kind="span", id="x", path="search/bm25.py",
                                       start_line=1, end_line=200), max_lines=5,
                       max_bytes=10_000)
    assert opened.truncated and opened.end_line == 5


def test_open_span_refuses_a_file_larger_than_the_index_reads(repo):
    # one request must not make Helix read and mask a file of gigabytes
    from helix.core.errors import BadPathError
    from helix.session.lane_driver import open_span

    big = repo / "big.log"
    big.write_bytes(b"x = 1\n" * 2000)  # 12,000 bytes
    target = TargetRef(kind="span", id="x", path="big.log", start_line=1, end_line=3)
    with pytest.raises(BadPathError, match=r"more than index\.max_file_bytes"):
        open_span(repo, target, max_lines=5, max_bytes=10_000)
    assert open_span(repo, target, max_lines=5, max_bytes=20_000).end_line == 3


def test_boolean_retry_offer_applies_only_to_a_yes_or_no(repo):
    talk = Talk(repo)
    talk(Q)
    empty = talk("same question but only in nowhere/")
    assert (empty.transition, empty.answer_mode) == ("T10", "boundary")
    assert "whole repository instead? (yes / no)" in empty.answer
    accepted = talk("yeah go for it")
    assert (accepted.lane, accepted.transition, accepted.retrieval) == (
        "clarify_resume", "T7", True)
    assert talk.asked[-1] == (Q, None, None)
    talk("same question but only in nowhere/")
    declined = talk("no")
    assert (declined.lane, declined.transition, declined.retrieval) == ("interrupt", "T6", False)
    talk("same question but only in nowhere/")
    other = talk("where is the tokenizer defined?")  # a different task drops the offer
    assert other.transition == "T1" and "pending_cleared_mismatch" in {
        e.name for e in other.events}
