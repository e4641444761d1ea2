"""Which object a follow-up about an object means (router12, issue 32): a number in a sentence
is a value, not a list position; a listed item that is part of the focused object (or its
whole) keeps the follow-up on the selected object (T4). Pure: the meaning router's reading is
given."""

from __future__ import annotations

import pytest

from controller.continuity.caps import CAPS
from controller.continuity.item_names import item_position
from controller.continuity.meaning import Features
from controller.continuity.router import route_turn
from controller.continuity.state import (
    SelectedObjectFrameState,
    TargetRef,
)
from controller.continuity.transitions import apply_transition
from controller.continuity.turn_plan import Reading
from helix.core.config import ContinuitySettings
from tests.router_states import answered, focused

ON = ContinuitySettings()
PATH = "search/bm25.py"
TARGETS = (
    TargetRef(kind="file", id=f"file:{PATH}", label=PATH, path=PATH),
    TargetRef(kind="symbol", id=f"def:{PATH}::BM25Index", label="BM25Index", path=PATH,
              start_line=5, end_line=40, symbol="BM25Index"),
    TargetRef(kind="symbol", id=f"def:{PATH}::BM25Index.idf", label="BM25Index.idf",
              path=PATH, start_line=20, end_line=24, symbol="BM25Index.idf"),
    TargetRef(kind="symbol", id=f"def:{PATH}::BM25Index.score", label="BM25Index.score",
              path=PATH, start_line=26, end_line=40, symbol="BM25Index.score"),
    TargetRef(kind="symbol", id="def:search/cli.py::main", label="main", path="search/cli.py",
              start_line=1, end_line=9, symbol="main"),
)


def _state(focus: int | None):
    state = answered("how is a document scored?", "search", TARGETS, 4, PATH)
    return state if focus is None else focused(state, TARGETS[focus - 1])



def _read(meaning: str):
    def reader(f: Features) -> Reading:
        return Reading(meaning=meaning, confidence=0.97, alternatives=(("new_question", 0.02),))
    return reader


@pytest.mark.parametrize("text", [
    "why is there a 1 + inside the log?", "the +0.5 bit, why", "why does it return 2 there",
    "Why is there max with 1?", "is 10 always the default?",
    "Why log of 1 plus? Explain.", "what is the log of 2 doing there"])  # router20: "of N"
def test_a_number_in_an_explanation_is_a_value_not_an_item(text):
    plan = route_turn(_state(focus=3), text, None, ON, reader=_read("explain"))
    assert (plan.transition, plan.lane, plan.intent) == ("T4", "explain", "explain_focused")
    assert plan.target is not None and plan.target.id == TARGETS[2].id


@pytest.mark.parametrize(("text", "index"), [
    ("explain the second one", 2), ("explain 3", 3), ("who calls number 4?", 4),
    ("tests for #2", 2), ("explain the 3rd result", 3)])
def test_a_position_still_picks_the_item(text, index):
    meaning = "explain" if text.startswith("explain") else "callers"
    plan = route_turn(_state(focus=5), text, None, ON, reader=_read(meaning))
    assert (plan.transition, plan.lane) == ("T3", "selection")
    # the item by its index, or the words the selection lane resolves ("open the second one")
    assert plan.choice_index == index or (plan.choice_index is None and plan.selection_text)


@pytest.mark.parametrize("text", ["Why 0.75 for B?", "why is k1 1.5", "why 0 there"])
def test_a_decimal_or_zero_is_no_position_with_nothing_in_focus(text):
    # router20: with nothing in focus the question is about the answer's lead; "0.75" was
    # taken for item 0 (a clarifier over the whole list: "Which one do you mean?")
    plan = route_turn(_state(focus=None), text, None, ON, reader=_read("explain"))
    assert plan.choice_index == 4  # the item the answer led with
    assert (plan.transition, plan.lane, plan.intent) == ("T3", "selection", "explain_item")


def test_a_part_of_the_focused_file_is_asked_about_on_the_selected_object():
    # storage of the whole file is open; "score" is a listed definition inside it
    plan = route_turn(_state(focus=1), "who calls score?", None, ON, reader=_read("callers"))
    assert (plan.transition, plan.lane) == ("T4", "graph")
    assert plan.target is not None and plan.target.id == TARGETS[3].id
    # a method of the focused class, and the class of the focused method
    plan = route_turn(_state(focus=2), "explain idf", None, ON, reader=_read("explain"))
    assert (plan.transition, plan.lane, plan.target.id) == ("T4", "explain", TARGETS[2].id)
    plan = route_turn(_state(focus=3), "who uses BM25Index?", None, ON,
                      reader=_read("callers"))
    assert (plan.transition, plan.lane, plan.target.id) == ("T4", "graph", TARGETS[1].id)


def test_another_listed_object_is_still_a_drilldown_into_it():
    plan = route_turn(_state(focus=3), "who calls main?", None, ON, reader=_read("callers"))
    assert (plan.transition, plan.lane, plan.choice_index) == ("T3", "selection", 5)
    plan = route_turn(_state(focus=3), "explain score", None, ON, reader=_read("explain"))
    assert (plan.transition, plan.lane, plan.choice_index) == ("T3", "selection", 4)


def _turn(text: str):
    from controller.continuity.router import _turn as make

    return make(_state(focus=None), text, None, ON, (), 0, None)


@pytest.mark.parametrize(("text", "position"), [
    ("2", 2), ("the second", 2), ("the seocnd one", 2), ("number two", 2), ("option to", 2),
    ("#3", 3), ("the 3rd", 3), ("explain 4", 4), ("tests for 2", 2), ("second one please", 2),
    ("why return 2", None), ("the +0.5 bit", None), ("why 1 - r in the denominator", None),
    ("the two can get out of sync", None), ("One thing: what is the sort order?", None),
    ("First fit over a sorted list is best fit, right?", None), ("B is 0.75, why?", None),
    ("what is the blast radius of that", None)])
def test_item_position(text, position):
    assert item_position(_turn(text)) == position


def _unsure(meaning: str, p: float, second: str, q: float):
    def reader(f: Features) -> Reading:
        return Reading(meaning=meaning, confidence=p, alternatives=((second, q),))
    return reader


@pytest.mark.parametrize("text", ["and teh Cavity class itslef?",
                                  "And about the Tokenizer class, is same thing?",
                                  "what about tokenize() itself"])
def test_a_continuing_lead_read_as_a_pivot_is_the_pivot_however_unsure(text):
    # router18: every tune turn that opens with "and" / "what about" and is read as a pivot
    # first is a T6 (29 of 29); below the rescue bar they became searches for their own words
    # or a two-readings clarifier
    plan = route_turn(_state(focus=3), text, None, ON, reader=_unsure("pivot", 0.31, "callers",
                                                                      0.30))
    assert (plan.transition, plan.lane, plan.intent) == ("T6", "root", "pivot")
    # without the lead the unsure reading does not carry it: the message is searched as asked
    plan = route_turn(_state(focus=3), "teh Cavity class itslef?", None, ON,
                      reader=_unsure("pivot", 0.31, "new_question", 0.30))
    assert plan.intent == "root_question" and plan.announce


@pytest.mark.parametrize("text", ["Also, how does the engine rebuild things?",
                                  "And, relatedly, what does the engine module contain?"])
def test_a_continuing_lead_read_as_a_new_question_is_the_pivot(text):
    # router20: the reader took the clause after the lead for a question of its own (T1, the
    # root scope dropped); the lead says it continues the conversation: the root question of
    # that subject, root scope kept (T6), as a pivot read first is (writer59's two such turns)
    plan = route_turn(_state(focus=3), text, None, ON, reader=_unsure("new_question", 0.6,
                                                                      "pivot", 0.2))
    assert (plan.transition, plan.lane, plan.intent) == ("T6", "root", "pivot")
    # without the lead it is the new question it reads as
    plan = route_turn(_state(focus=3), "how does the engine rebuild things?", None, ON,
                      reader=_unsure("new_question", 0.6, "pivot", 0.2))
    assert (plan.transition, plan.intent) == ("T1", "root_question")


@pytest.mark.parametrize(("text", "first", "second"), [
    ("Okay, is enough, thank you very much.", "chat", "cancel"),
    ("never mind that's all for now thanks", "chat", "cancel"),
    ("plugin: abort current request chain", "cancel", "chat")])
def test_a_closing_read_as_small_talk_and_as_a_cancel_is_no_search(text, first, second):
    # router18: both readings end the exchange without retrieval, so together they clear the
    # bar against a new question; neither is a two-readings clarifier
    plan = route_turn(_state(focus=3), text, None, ON, reader=_unsure(first, 0.39, second, 0.35))
    assert plan.intent in ("small_talk", "cancel") and plan.retrieval is False
    assert (plan.transition, plan.lane) == (("T0", "chat") if first == "chat"
                                            else ("T6", "interrupt"))


def _lead_state():
    """The grounded answer's lead (item 4) selected by the answer, nothing chosen yet."""
    from controller.continuity.state import ANSWER_LEAD_FAMILY

    state = _state(focus=None)
    obj = SelectedObjectFrameState(focus_object_ref=TARGETS[3], focus_object_kind="symbol",
                                   source_result_set_id="ev-1",
                                   compatible_route_family=ANSWER_LEAD_FAMILY,
                                   provenance_bundle_ref="os-1", temporal_ceiling="r")
    return apply_transition(state, "T1", caps=CAPS, turn_id=1,
                            updates={"selected_object": obj}).state


@pytest.mark.parametrize("text", ["y is there +0.5 evreywhere",
                                  "I'd appreciate an explanation of the max(1, ...) part."])
def test_a_number_in_a_question_about_the_answers_lead_is_a_value(text):
    # router18: the lead a grounded answer selected is what the question is about, as a chosen
    # object is; "0.5" and "max(1, ...)" were taken for items 0 / 1 of the list (T3)
    plan = route_turn(_lead_state(), text, None, ON, reader=_read("explain"))
    assert (plan.transition, plan.lane, plan.intent) == ("T4", "explain", "explain_focused")
    assert plan.target is not None and plan.target.id == TARGETS[3].id


@pytest.mark.parametrize(("text", "index"), [("2, explain", 2), ("1 — what does it do", 1),
                                             ("explain the second one", 2), ("#3 explain", 3)])
def test_a_position_said_first_or_as_one_still_picks_with_the_lead_in_focus(text, index):
    plan = route_turn(_lead_state(), text, None, ON, reader=_read("explain"))
    assert (plan.transition, plan.lane) == ("T3", "selection")
    assert plan.choice_index == index or (plan.choice_index is None and plan.selection_text)


@pytest.mark.parametrize("text", ["um how do we send text messages to customers",
                                  "migrations, how do I run them, quick"])
def test_a_question_read_as_small_talk_and_as_a_cancel_is_still_searched(text):
    # a clause that asks ("how do I run them") is no closing: the two readings do not add up
    plan = route_turn(_state(focus=3), text, None, ON, reader=_unsure("chat", 0.30, "cancel",
                                                                      0.25))
    assert plan.intent == "root_question"


@pytest.mark.parametrize(("text", "meaning"), [
    ("show that file again", "pick"), ("can you show me the bm25.py file again please", "pick"),
    ("reopen BM25Index.score", "pick"), ("pull the score code up once more", "pick")])
def test_showing_the_object_in_focus_again_is_the_pronoun_follow_up(text, meaning):
    # router19: the object is selected already (T3's output); asked for again by a pronoun,
    # its name, its file or a part of it, it is shown again (T5), not picked anew from the list
    plan = route_turn(_state(focus=4), text, None, ON, reader=_read(meaning))
    assert (plan.transition, plan.lane, plan.intent) == ("T5", "selection", "select_focused")
    assert plan.target is not None and plan.target.id == TARGETS[3].id


def test_another_item_asked_for_again_is_still_a_pick():
    # main is listed but not in focus: "again" does not make it the focused object
    plan = route_turn(_state(focus=4), "show main again", None, ON, reader=_read("pick"))
    assert (plan.transition, plan.lane) == ("T3", "selection")
    plan = route_turn(_state(focus=4), "open number 5 again", None, ON, reader=_read("pick"))
    assert (plan.transition, plan.choice_index) == ("T3", 5)


def test_a_listed_file_named_in_a_question_about_the_answer_is_no_other_code():
    # router19: the files the lists on screen drew from are what the answer rests on ("did you
    # look at all the test files or just test_cavity_pool?"); a definition nothing showed is
    # still other code (tests/test_no_secret_reaches_model.py's deploy_key_body)
    plan = route_turn(_state(focus=None), "sure? did you read all of them or just cli.py?",
                      None, ON, reader=_read("meta"))
    assert (plan.transition, plan.lane) == ("T8", "meta")
    plan = route_turn(_state(focus=None), "what does deploy_key_body return?", None, ON,
                      reader=_read("meta"))
    assert plan.lane != "meta"
