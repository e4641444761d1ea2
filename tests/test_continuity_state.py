"""The session aggregate and the transition registry (state-and-transition-contracts.md)."""

from __future__ import annotations

import importlib
import typing

import pytest
from pydantic import ValidationError

from controller.continuity.caps import CAPS
from controller.continuity.state import (
    STATE_OWNERS,
    ActionTraceEntry,
    ClarificationState,
    ContinuityState,
    OptionItem,
    OptionSet,
    PendingState,
    ResolvedAction,
    RootFrameState,
    SelectedObjectFrameState,
    TargetRef,
    TransitionClass,
    initial_state,
)
from controller.continuity.transitions import (
    REGISTRY,
    TransitionContractError,
    apply_transition,
    changed_slots,
)
from helix.core.hashing import canonical_json, hash_obj


def _target(n: int) -> TargetRef:
    return TargetRef(kind="span", id=f"node{n}", label=f"item {n}", path=f"a{n}.py",
                     start_line=1, end_line=2)


def _options(turn: int = 1, n: int = 3) -> OptionSet:
    items = tuple(OptionItem(id=f"c{i}", index=i, label=f"item {i}", target=_target(i))
                  for i in range(1, n + 1))
    return OptionSet(id=f"os-{turn}", kind="evidence", scope="evidence", origin_turn_id=turn,
                     items=items)


def _frame(turn: int = 1) -> RootFrameState:
    return RootFrameState(question="where is x?", domain_id="src", root_route_id="location",
                          path_scope=None, revision="abc", root_result_set_id=f"ev-{turn}",
                          root_answer_object_ref=turn)


def _action(ts: int, turn: int = 1) -> ResolvedAction:
    return ResolvedAction(type="open_span", target_ref=_target(ts), source_scope="evidence",
                          option_set_id="os-1", timestamp=ts, outcome="executed", turn_id=turn,
                          user_text="open it", reason="ordinal")


def _with_root(state: ContinuityState) -> ContinuityState:
    return apply_transition(state, "T1", caps=CAPS, turn_id=1, updates={
        "root_frame": _frame(), "option_sets": _options()}).state


def test_state_round_trips_through_canonical_json():
    state = _with_root(initial_state("s1"))
    again = ContinuityState.model_validate_json(canonical_json(state))
    assert again == state
    assert hash_obj(again) == hash_obj(state)


def test_every_sub_state_declares_an_owner_module():
    owners = set(STATE_OWNERS.values())
    for module in owners:
        assert module.startswith("controller.continuity.")
        importlib.import_module(module)  # the owner exists
    for field in ContinuityState.model_fields:
        if field.endswith("_state") or field in ("focus", "pending", "option_sets"):
            assert field in STATE_OWNERS, field


def test_state_is_frozen():
    state = initial_state("s1")
    with pytest.raises(ValidationError):
        state.turn_count = 3  # type: ignore[misc]


def test_recent_action_trace_max_5_newest_first():
    state = initial_state("s1")
    for n in range(1, 8):
        state = apply_transition(state, "T9", caps=CAPS, turn_id=n, action=None).state
        entry = ActionTraceEntry(type="open_span", target_ref=_target(n), source_scope="e",
                                 option_set_id=None, timestamp=n * 10, outcome="executed")
        state = state.model_copy(update={"recent_action_trace": (
            entry, *state.recent_action_trace)[:CAPS.recent_action_trace_max_entries]})
    stamps = [e.timestamp for e in state.recent_action_trace]
    assert stamps == [70, 60, 50, 40, 30]
    with pytest.raises(ValidationError):
        ContinuityState(session_id="s", recent_action_trace=(
            *state.recent_action_trace, state.recent_action_trace[0]))
    with pytest.raises(ValidationError):  # oldest first is refused
        ContinuityState(session_id="s", recent_action_trace=tuple(
            reversed(state.recent_action_trace)))


def test_apply_transition_pushes_action_newest_first_and_caps_at_5():
    state = _with_root(initial_state("s1"))
    state = apply_transition(state, "T3", caps=CAPS, turn_id=2, updates={
        "selected_object": SelectedObjectFrameState(
            focus_object_ref=_target(1), focus_object_kind="span", source_result_set_id="ev-1",
            compatible_route_family="object", provenance_bundle_ref="os-1",
            temporal_ceiling="abc")}, action=_action(100, 2)).state
    for n in range(3, 10):
        state = apply_transition(state, "T5", caps=CAPS, turn_id=n,
                                 action=_action(100 * n, n)).state
    assert len(state.recent_action_trace) == CAPS.recent_action_trace_max_entries
    assert state.recent_action_trace[0].timestamp == 900
    assert state.last_resolved_action is not None
    assert state.last_resolved_action.turn_id == 9


def test_pending_clarifier_type_enum_is_the_canonical_one():
    args = typing.get_args(typing.get_type_hints(ContinuityState)["pending_clarifier_type"])
    assert set(args) == {"none", "selection_disambiguation", "scope_disambiguation",
                         "missing_slot", "confirmation", "repair"}


def test_active_option_set_must_be_kept():
    with pytest.raises(ValidationError):
        ContinuityState(session_id="s", active_option_set_id="os-missing")


# --- the registry ------------------------------------------------------------------------

def test_every_transition_class_declares_the_six_invariants():
    # T1-T10: the documents' ten classes; T0: small talk (living mode `chat`)
    assert sorted(REGISTRY, key=lambda c: int(c[1:])) == [f"T{n}" for n in range(0, 11)]
    for cls, spec in REGISTRY.items():
        assert spec.cls == cls
        assert spec.entry_condition and spec.must_not and spec.name
        assert spec.allowed_carryover_depth
        assert spec.state_mutations
        assert spec.expected_answer_mode
        assert isinstance(spec.required_prior_state, tuple)
        assert isinstance(spec.forbidden_carryover, tuple)
        assert set(spec.forbidden_carryover) <= set(spec.state_mutations)
        assert spec.lanes


def test_t1_must_not_inherit_stale_focus_object():
    state = _with_root(initial_state("s1"))
    state = apply_transition(state, "T3", caps=CAPS, turn_id=2, updates={
        "selected_object": SelectedObjectFrameState(
            focus_object_ref=_target(1), focus_object_kind="span", source_result_set_id="ev-1",
            compatible_route_family="object", provenance_bundle_ref="os-1",
            temporal_ceiling="abc"), "choices": "c1"}).state
    assert state.selected_object is not None and state.last_accepted_choice_id == "c1"
    result = apply_transition(state, "T1", caps=CAPS, turn_id=3, updates={"root_frame": _frame(3)})
    assert result.state.selected_object is None
    assert result.state.last_accepted_choice_id is None
    assert "selected_object" in result.mutations


def test_t2_requires_a_root_frame():
    with pytest.raises(TransitionContractError, match="requires prior state root_frame"):
        apply_transition(initial_state("s1"), "T2", caps=CAPS, turn_id=1)


def test_t3_requires_an_active_option_set():
    with pytest.raises(TransitionContractError, match="option_sets"):
        apply_transition(initial_state("s1"), "T3", caps=CAPS, turn_id=1)


def test_t4_requires_a_selected_object():
    state = _with_root(initial_state("s1"))
    with pytest.raises(TransitionContractError, match="selected_object"):
        apply_transition(state, "T4", caps=CAPS, turn_id=2)


def test_t7_must_not_forget_the_suspended_route():
    with pytest.raises(TransitionContractError, match="clarification"):
        apply_transition(_with_root(initial_state("s1")), "T7", caps=CAPS, turn_id=2)


def test_t8_meta_cannot_change_the_root_frame_or_replay():
    state = _with_root(initial_state("s1"))
    with pytest.raises(TransitionContractError, match="may not change root_frame"):
        apply_transition(state, "T8", caps=CAPS, turn_id=2, updates={"root_frame": _frame(2)})
    assert REGISTRY["T8"].root_retrieval is False
    assert REGISTRY["T9"].root_retrieval is False


def test_undeclared_mutation_is_refused():
    state = _with_root(initial_state("s1"))
    with pytest.raises(TransitionContractError, match="T9 may not change option_sets"):
        apply_transition(state, "T9", caps=CAPS, turn_id=2, updates={"option_sets": _options(2)})


def test_t6_keeps_root_and_drops_object_and_pending():
    state = _with_root(initial_state("s1"))
    pending = PendingState(kind="clarification_needed", expected_type="selection:a|b",
                           clarifier_type="selection_disambiguation", created_at_ms=0,
                           expires_at_ms=None, expires_after_turn=None, anchor_turn_id=1,
                           thread_key="s1")
    state = state.model_copy(update={"pending": pending,
                                     "pending_clarifier_type": "selection_disambiguation"})
    result = apply_transition(state, "T6", caps=CAPS, turn_id=2)
    assert result.state.root_frame == state.root_frame
    assert result.state.pending is None
    assert result.state.pending_clarifier_type == "none"
    assert "pending" in result.mutations


def test_t7_clears_clarification_and_pending():
    state = _with_root(initial_state("s1"))
    clar = ClarificationState(clarification_kind="selection_disambiguation",
                              missing_anchors=("sense",), candidate_scopes=("a", "b"),
                              resume_target_route="definition", resume_target_frame=None,
                              question="what is a cavity?", option_set_id="os-1",
                              asked_turn_id=1)
    pending = PendingState(kind="clarification_needed", expected_type="selection:a|b",
                           clarifier_type="selection_disambiguation", created_at_ms=0,
                           expires_at_ms=None, expires_after_turn=None, anchor_turn_id=1,
                           thread_key="s1")
    state = state.model_copy(update={"clarification_state": clar, "pending": pending})
    result = apply_transition(state, "T7", caps=CAPS, turn_id=2, updates={"root_frame": _frame(2)})
    assert result.state.clarification_state is None and result.state.pending is None
    assert result.state.living_mode_state.living_mode == "address_data"


def test_pending_left_behind_means_clarification_mode():
    state = initial_state("s1")
    pending = PendingState(kind="clarification_needed", expected_type="selection:a|b",
                           clarifier_type="selection_disambiguation", created_at_ms=0,
                           expires_at_ms=None, expires_after_turn=None, anchor_turn_id=1,
                           thread_key="s1")
    result = apply_transition(state, "T1", caps=CAPS, turn_id=1, updates={"pending": pending})
    assert result.state.living_mode_state.living_mode == "clarification"


def test_changed_slots_lists_only_real_changes():
    state = _with_root(initial_state("s1"))
    assert changed_slots(state, state) == ()
    later = apply_transition(state, "T9", caps=CAPS, turn_id=2).state
    assert set(changed_slots(state, later)) <= {"living_mode"}


@pytest.mark.parametrize("cls", [f"T{n}" for n in range(0, 11)])
def test_each_transition_class_has_a_scenario_family(cls: TransitionClass):
    from evals.scenarios import SUITE_DIR, load_cases

    cases = load_cases(SUITE_DIR / f"{cls}.jsonl")
    assert cases
    classes = {turn.get("expect", {}).get("transition") for c in cases for turn in c["turns"]}
    assert cls in classes


def test_a_state_kept_under_a_configured_choice_window_is_stored_and_reloads(tmp_path,
                                                                             helix_home):
    """`continuity.caps.recent_choice_window = 8`: the transitions keep the eight newest
    choices (the configured window, not the default five), and the state stored by the
    session store reloads (no schema sized from the defaults refuses it)."""
    from controller.continuity.turn import TurnResult
    from helix.core.config import load_config
    from helix.session.store import commit_turn, ensure_schema, get_session, open_session
    from helix.store.db import open_db

    (helix_home / "config.toml").write_text("[continuity.caps]\nrecent_choice_window = 8\n",
                                            encoding="utf-8")
    caps = load_config(None).continuity.caps
    assert caps.recent_choice_window == 8 != CAPS.recent_choice_window
    state = _with_root(initial_state("s1"))
    for n in range(1, 11):
        state = apply_transition(state, "T3", caps=caps, turn_id=n + 1,
                                 updates={"choices": f"c{n}"}).state
    assert state.recent_accepted_choice_ids == tuple(f"c{n}" for n in range(10, 2, -1))
    db = open_db(tmp_path / "sessions.db")
    ensure_schema(db)
    record = open_session(db, "s", str(tmp_path), now=0)
    state = state.model_copy(update={"session_id": record.id, "turn_count": 1})
    turn = TurnResult(session="s", session_id=record.id, turn_id=1, text="open 10",
                      lane="selection", transition="T3", intent="open", answer="",
                      answer_mode="continuity", retrieval=False)
    commit_turn(db, record, turn, state, [])
    again = get_session(db, "s")
    assert again is not None and again.state == state
