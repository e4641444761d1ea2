"""Router precedence, focus (reply anchor / lane recency / pronoun hints) and typed pending state
(focus-context-pending-state.md blockers), all pure."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.continuity.caps import CAPS
from controller.continuity.focus import TurnSummary, resolve_focus
from controller.continuity.pending import (
    make_pending,
    match_pending,
    parse_boolean,
    parse_choice,
    parse_path_scope,
    selection_expected_type,
)
from controller.continuity.router import route_turn
from controller.continuity.state import (
    ClarificationState,
    ContinuityState,
    OptionItem,
    OptionSet,
    RootFrameState,
    SelectedObjectFrameState,
    TargetRef,
    initial_state,
)
from controller.continuity.transitions import apply_transition
from helix.core.config import ContinuitySettings
from helix.core.errors import NotFoundError
from tests.router_states import GROUNDED

ON = ContinuitySettings()


def _target(n: int, kind: str = "symbol") -> TargetRef:
    return TargetRef(kind=kind, id=f"def:a{n}.py::f{n}", label=f"f{n}",  # type: ignore[arg-type]
                     path=f"a{n}.py", start_line=1, end_line=3, symbol=f"f{n}")


def _list(turn: int, n: int = 3, kind: str = "evidence") -> OptionSet:
    items = tuple(OptionItem(id=f"c{turn}-{i}", index=i, label=f"f{i}", target=_target(i))
                  for i in range(1, n + 1))
    return OptionSet(id=f"os-{turn}", kind=kind, scope=kind,  # type: ignore[arg-type]
                     origin_turn_id=turn, items=items)


def _after_root(session: str = "s1") -> ContinuityState:
    frame = RootFrameState(question="where is the BM25 index built?", domain_id="search",
                           root_route_id="location", path_scope=None, revision="r",
                           root_result_set_id="ev-1", root_answer_object_ref=1)
    from controller.continuity.state import AnswerContextState

    answer = AnswerContextState(turn_id=1, question=frame.question, answer_excerpt="...",
                                answer_mode="dry_run", route="location", stop_reason="coverage_ok",
                                evidence_ids=("c1-1",), evidence_paths=("a1.py",), lane="root",
                                transition="T1")
    return apply_transition(initial_state(session), "T1", caps=CAPS, turn_id=1, updates={
        "root_frame": frame, "option_sets": _list(1), "answer_context": answer,
        "coverage_gate": GROUNDED}).state


def _after_open(state: ContinuityState, n: int = 2) -> ContinuityState:
    obj = SelectedObjectFrameState(focus_object_ref=_target(n), focus_object_kind="symbol",
                                   source_result_set_id="ev-1", compatible_route_family="object",
                                   provenance_bundle_ref="os-1", temporal_ceiling="r")
    return apply_transition(state, "T3", caps=CAPS, turn_id=state.turn_count + 1,
                            updates={"selected_object": obj}).state


def _with_clarifier(state: ContinuityState, now_ms: int = 0) -> ContinuityState:
    options = OptionSet(id="os-c", kind="options", scope="options",
                        origin_turn_id=state.turn_count + 1, items=tuple(
                            OptionItem(id=f"sense:{s}", index=i, label=label, sense=s,
                                       target=TargetRef(kind="option", id=f"sense:{s}",
                                                        label=label))
                            for i, (s, label) in enumerate(
                                (("pool", "cavity: pool storage"),
                                 ("optics", "cavity: optical resonator")), start=1)))
    clar = ClarificationState(clarification_kind="selection_disambiguation",
                              missing_anchors=("sense",), candidate_scopes=("pool", "optics"),
                              resume_target_route="definition", resume_target_frame=None,
                              question="what is a cavity?", option_set_id="os-c",
                              asked_turn_id=state.turn_count + 1)
    pending = make_pending(kind="clarification_needed",
                           expected_type=selection_expected_type(
                               tuple(i.label for i in options.items)),
                           clarifier_type="selection_disambiguation",
                           anchor_turn_id=state.turn_count + 1, thread_key=state.session_id,
                           now_ms=now_ms, option_set_id="os-c", caps=CAPS)
    return apply_transition(state, "T1", caps=CAPS, turn_id=state.turn_count + 1, updates={
        "option_sets": options, "clarification": clar, "pending": pending,
        "root_frame": state.root_frame}).state


@pytest.mark.parametrize("text,lane,cls", [
    ("stop", "interrupt", "T6"), ("cancel", "interrupt", "T6"),
    ("never mind", "interrupt", "T6"), ("start over", "interrupt", "T1"),
    ("open the second one", "selection", "T3"), ("option 2", "selection", "T3"),
    ("same question but only in tests/", "root", "T2"),
    ("is that the only place?", "meta", "T8"),
    ("did we talk about the tokenizer?", "recap", "T9"),
    ("what happened last?", "semantic", "T9"), ("summarize what we did", "semantic", "T9"),
    ("why did you open that?", "semantic", "T8"),
    ("where is the tokenizer defined?", "root", "T1"),
    ("back to the list", "interrupt", "T6"),
])
def test_every_major_follow_up_maps_to_a_named_transition_class(text, lane, cls):
    plan = route_turn(_after_root(), text, None, ON)
    assert (plan.lane, plan.transition) == (lane, cls)


def test_graph_follow_ups_on_the_focused_symbol_are_t4_without_retrieval():
    state = _after_open(_after_root())
    for text, intent in (("who calls it?", "graph_callers"),
                         ("where is it tested?", "graph_tests")):
        plan = route_turn(state, text, None, ON)
        assert (plan.lane, plan.transition, plan.intent) == ("graph", "T4", intent)
        assert plan.retrieval is False
        assert plan.target is not None and plan.target.id == "def:a2.py::f2"


def test_t4_must_not_lose_the_selected_object_because_the_wording_is_short():
    plan = route_turn(_after_open(_after_root()), "callers of it", None, ON)
    assert plan.transition == "T4"


def test_open_it_is_the_focused_object_not_an_older_one():
    state = _after_open(_after_open(_after_root(), 1), 3)
    plan = route_turn(state, "open it", None, ON)
    assert (plan.lane, plan.transition) == ("selection", "T5")
    assert plan.target is not None and plan.target.id == "def:a3.py::f3"


def test_t2_keeps_the_root_question_and_narrows_the_scope():
    plan = route_turn(_after_root(), "same question but only in tests/", None, ON)
    assert plan.question == "where is the BM25 index built?"
    assert plan.scope == "tests/" and plan.retrieval


def test_hard_interrupt_preempts_a_pending_clarifier():
    state = _with_clarifier(_after_root())
    assert route_turn(state, "stop", None, ON).lane == "interrupt"
    assert route_turn(state, "Start over!", None, ON).intent == "reset"


def test_pending_clarifier_answer_resumes_the_suspended_route():
    state = _with_clarifier(_after_root())
    plan = route_turn(state, "the first", None, ON)
    assert (plan.lane, plan.transition) == ("clarify_resume", "T7")
    assert plan.question == "what is a cavity?" and plan.sense == "pool"
    plan = route_turn(state, "option 2", None, ON)
    assert plan.sense == "optics"
    plan = route_turn(state, "optical resonator", None, ON)
    assert plan.sense == "optics"


# --- focus-context-pending-state.md blockers ---------------------------------------------

def _turns() -> list[TurnSummary]:
    return [TurnSummary(turn_id=1, user_text="where is x?", lane="root", transition="T1",
                        option_set_id="os-1"),
            TurnSummary(turn_id=2, user_text="open the first one", lane="selection",
                        transition="T3", object_ref=_target(1)),
            TurnSummary(turn_id=3, user_text="open the third one", lane="selection",
                        transition="T3", object_ref=_target(3))]


def test_reply_message_anchors_focus_to_replied_to_content():
    state = _after_open(_after_root(), 3)
    focus = resolve_focus(_turns(), session_id="s1", text="who calls it?", reply_to=2,
                          selected=_target(3), settings=ON)
    assert focus.source == "reply_anchor" and focus.anchor_turn_id == 2
    assert focus.window_turn_ids == (1, 2, 3)
    assert focus.object_ref is not None and focus.object_ref.id == "def:a1.py::f1"
    plan = route_turn(state, "who calls it?", 2, ON, turns=_turns())
    assert plan.target is not None and plan.target.id == "def:a1.py::f1"


def test_without_reply_lane_recency_anchors_the_most_recent_turn():
    focus = resolve_focus(_turns(), session_id="s1", text="who calls it?", reply_to=None,
                          selected=_target(3), settings=ON)
    assert focus.source == "lane_recency" and focus.anchor_turn_id == 3
    assert focus.object_ref is not None and focus.object_ref.id == "def:a3.py::f3"


def test_reply_to_unknown_turn_is_a_user_error():
    with pytest.raises(NotFoundError):
        resolve_focus(_turns(), session_id="s1", text="x", reply_to=9, selected=None,
                      settings=ON)


def test_pronoun_hint_carries_the_focus_anchor():
    focus = resolve_focus(_turns(), session_id="s1", text="do that again", reply_to=None,
                          selected=None, settings=ON)
    assert focus.pronoun_hint is not None
    assert focus.pronoun_hint.focus_anchor_internal_id == 3
    assert focus.pronoun_hint.focus_anchor_channel_id == "s1#3"
    assert "open the third one" in focus.pronoun_hint.focus_anchor_text_snippet
    assert resolve_focus(_turns(), session_id="s1", text="where is x defined", reply_to=None,
                         selected=None, settings=ON).pronoun_hint is None


def test_pending_slot_applies_only_when_expected_type_matches():
    state = _with_clarifier(_after_root())
    pending = state.pending
    assert pending is not None
    hit = match_pending(pending, "the second one", thread_key="s1", turn_id=3, now_ms=1)
    assert hit.status == "applied" and hit.choice == 2
    miss = match_pending(pending, "where is the tokenizer defined?", thread_key="s1",
                         turn_id=3, now_ms=1)
    assert miss.status == "mismatch"
    other = match_pending(pending, "the first", thread_key="s2", turn_id=3, now_ms=1)
    assert other.status == "other_thread"


def test_pending_clears_when_new_message_is_a_different_task():
    state = _with_clarifier(_after_root())
    plan = route_turn(state, "where is the tokenizer defined?", None, ON)
    assert (plan.lane, plan.transition) == ("root", "T1")
    assert plan.pending.status == "mismatch"


def test_pending_expires_by_turns_and_by_time():
    state = _with_clarifier(_after_root(), now_ms=1_000)
    pending = state.pending
    assert pending is not None
    late_turn = pending.anchor_turn_id + CAPS.continuity_ttl_max_turns + 1
    assert match_pending(pending, "the first", thread_key="s1", turn_id=late_turn,
                         now_ms=1_000).status == "expired"
    late_ms = 1_000 + CAPS.continuity_ttl_max_ms + 1
    assert match_pending(pending, "the first", thread_key="s1", turn_id=3,
                         now_ms=late_ms).status == "expired"
    plan = route_turn(state, "the first", None, ON, now_ms=late_ms)
    assert plan.transition != "T7"


def test_do_that_references_the_recent_task_not_an_older_pending():
    # an older clarifier is pending; the user opened something since: "open it" means that
    state = _after_open(_with_clarifier(_after_root()), 2)
    state = state.model_copy(update={"pending": None, "pending_clarifier_type": "none"})
    plan = route_turn(state, "open it", None, ON)
    assert plan.transition == "T5" and plan.target is not None
    assert plan.target.id == "def:a2.py::f2"


def test_strict_choice_parsing():
    labels = ("cavity: pool storage", "cavity: optical resonator")
    assert parse_choice("the first", labels) == 1
    assert parse_choice("option 2", labels) == 2
    assert parse_choice("#2", labels) == 2
    assert parse_choice("2", labels) == 2
    assert parse_choice("the last one", labels) == 2
    assert parse_choice("optical resonator", labels) == 2
    assert parse_choice("the third", labels) is None
    assert parse_choice("cavity", labels) is None  # both labels: not a strict choice
    assert parse_choice("what about the first file in tests?", labels) is None
    assert parse_boolean("yeah go for it") is True
    assert parse_boolean("yes") is True
    assert parse_boolean("yes but only in tests") is None
    assert parse_boolean("nope") is False
    assert parse_path_scope("in tests/") == "tests/"
    assert parse_path_scope("Swansea") is None


@given(st.text(max_size=40))
def test_route_turn_is_total_and_deterministic(text):
    state = _after_open(_after_root())
    if not text.strip():
        return
    first = route_turn(state, text, None, ON)
    assert first == route_turn(state, text, None, ON)
    assert first.transition in {f"T{n}" for n in range(0, 11)}


# --- flag-off behaviour ------------------------------------------------------------------

def test_focus_resolution_off_ignores_the_reply_anchor_and_pronoun_hints():
    off = ContinuitySettings(focus_resolution=False)
    focus = resolve_focus(_turns(), session_id="s1", text="who calls it?", reply_to=2,
                          selected=_target(3), settings=off)
    assert focus.source == "lane_recency" and focus.pronoun_hint is None
    assert focus.object_ref is not None and focus.object_ref.id == "def:a3.py::f3"


def test_pending_state_off_never_resumes():
    state = _with_clarifier(_after_root())
    plan = route_turn(state, "the first", None, ContinuitySettings(pending_state=False))
    assert plan.transition != "T7"


def test_grounding_continuity_off_makes_every_turn_a_root_question():
    off = ContinuitySettings(grounding_continuity=False)
    state = _after_open(_after_root())
    for text in ("open it", "who calls it?", "is that the only place?"):
        plan = route_turn(state, text, None, off)
        assert (plan.lane, plan.transition, plan.disabled) == ("root", "T1", True)
    assert route_turn(state, "stop", None, off).lane == "interrupt"


def test_selection_and_semantic_flags_mark_the_plan_disabled():
    state = _after_open(_after_root())
    assert route_turn(state, "open the second one", None,
                      ContinuitySettings(selection_lane=False)).disabled
    assert route_turn(state, "why did you open that?", None,
                      ContinuitySettings(semantic_lane=False)).disabled


def test_an_out_of_range_ordinal_is_a_selection_not_a_new_question():
    empty = initial_state("s1")
    plan = route_turn(empty, "open the 99th one", None, ON)
    assert (plan.lane, plan.transition) == ("selection", "T10")  # no list: said so
    assert route_turn(_after_root(), "open the 2nd one", None, ON).choice_index == 2


def test_a_position_beyond_the_list_is_a_boundary_even_with_a_source_cue():
    """A position the list does not have is a pick of nothing (T10, the selection lane says
    how long the list is), whichever way it is said, and with a source cue too (an exact
    turn the rules decide alone): never a name handed to the lane to match."""
    for text in ("open the 12th one", "could you open test number 45 from that list?",
                 "open item 40 from the evidence, please"):
        plan = route_turn(_after_root(), text, None, ON)
        assert (plan.lane, plan.transition) == ("selection", "T10"), text
        assert "the list has 3" in plan.reasons[-1], text
    plan = route_turn(_after_root(), "open item 3 from the evidence", None, ON)
    assert (plan.transition, plan.choice_index) == ("T3", 3)


def test_a_reply_to_another_turn_never_answers_the_pending_question():
    state = _with_clarifier(_after_root())
    assert state.pending is not None
    other = state.pending.anchor_turn_id - 1
    plan = route_turn(state, "the first", other, ON, turns=[
        TurnSummary(turn_id=n, user_text="q", lane="root", transition="T1",
                    option_set_id="os-1") for n in range(1, state.turn_count + 1)])
    assert plan.transition != "T7" and plan.pending.status == "mismatch"
    assert plan.lane == "selection" and plan.option_set_id == "os-1"
