"""The held-apart benchmark's scoring (evals/heldapart.py): alt readings accepted, a T10 scored
on its class, a follow-up searched for without an announcement counted as silent."""

from __future__ import annotations

from controller.continuity.events import ContinuityEvent
from controller.continuity.turn import TurnResult
from evals.heldapart import score_turn, summarize


def _turn(transition: str, lane: str, intent: str, *, announced: bool = False,
          reasons: tuple[str, ...] = ()) -> TurnResult:
    events = [ContinuityEvent(name="turn_routed", data={"intent": intent})]
    if announced:
        events.append(ContinuityEvent(name="reading_announced", reason="Read as ..."))
    return TurnResult(session="s", session_id="s-1", turn_id=2, text="x", lane=lane,
                      transition=transition, intent=intent, answer="", answer_mode="x",
                      retrieval=False, events=tuple(events), reasons=reasons)


def test_alt_readings_and_boundaries_are_scored_by_class():
    meta = {"transition": "T8", "lane": "meta", "alt": [{"transition": "T8", "lane": "semantic"}]}
    assert score_turn(_turn("T8", "semantic", "explain_last_action"), meta)["ok"]
    assert not score_turn(_turn("T4", "graph", "graph_callers"), meta)["ok"]
    boundary = {"transition": "T10", "lane": "boundary"}
    assert score_turn(_turn("T10", "selection", "boundary"), boundary)["ok"]


def test_a_follow_up_searched_for_unannounced_is_silent():
    follow_up = {"transition": "T5", "lane": "selection"}
    silent = score_turn(_turn("T1", "root", "root_question"), follow_up)
    said = score_turn(_turn("T1", "root", "root_question", announced=True), follow_up)
    assert silent["silent_search"] and not said["silent_search"] and said["announced"]
    question = {"transition": "T1", "lane": "root"}
    assert not score_turn(_turn("T1", "root", "root_question"), question)["silent_search"]


def test_misses_are_counted_by_kind_and_reported_texts_are_left_out():
    gated = score_turn(_turn("T10", "selection", "boundary", reasons=(
        "\"q\" found nothing that answers it, so its result is not carried into 'x'",)),
        {"transition": "T4", "lane": "graph"})
    lead = score_turn(_turn("T3", "selection", "graph_callers"),
                      {"transition": "T4", "lane": "graph"})
    assert (gated["miss"], lead["miss"]) == ("gate", "t4_as_t3")
    rows = [{"session": "s", "turn": 2, "text": "secret words", "style": "terse", **gated}]
    hidden = summarize(rows, with_texts=False)
    assert hidden["misses_by_kind"] == {"gate": 1} and "text" not in hidden["misses"][0]
    assert hidden["misses_by_class"] == {"T4 graph": {"gate": 1}}
    assert summarize(rows, with_texts=True)["misses"][0]["text"] == "secret words"


def test_alt_readings_beside_expect_are_accepted(tmp_path):
    """Writers who followed the training files' layout put `alt` beside `expect`, not in it:
    their alternative readings count the same (they were dropped before)."""
    import json

    from evals.heldapart import load_sessions

    turn = {"text": "recap pls", "expect": {"transition": "T9", "lane": "recap"},
            "alt": [{"transition": "T9", "lane": "semantic"}]}
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"id": "w-1", "turns": [{"text": "hi", "expect": {
        "transition": "T0", "lane": "chat"}}, turn]}) + "\n", encoding="utf-8")
    expect = load_sessions(path)[0]["turns"][1]["expect"]
    assert score_turn(_turn("T9", "semantic", "summarize_recent_activity"), expect)["ok"]
    assert not score_turn(_turn("T8", "meta", "explain_last_action"), expect)["ok"]


def test_a_benchmark_home_is_removed_when_the_process_exits(monkeypatch):
    import atexit
    import os

    from evals import heldapart

    at_exit: list[tuple[object, tuple[object, ...], dict[str, object]]] = []
    monkeypatch.setattr(atexit, "register",
                        lambda fn, *args, **kw: at_exit.append((fn, args, kw)))
    home = heldapart.fresh_home(prefix="helix-test-home-")
    with open(os.path.join(home, "sessions.db"), "w") as f:
        f.write("x")
    assert os.path.basename(home).startswith("helix-test-home-")
    for fn, args, kw in at_exit:  # what the interpreter runs at exit
        fn(*args, **kw)  # type: ignore[operator]
    assert not os.path.exists(home)
