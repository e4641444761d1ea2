"""A tool's call of several lines asks the one question it quotes (router29, issue 32): the sense
check reads that question, as it does for a quoted question on one line, so a one-word question
passed as an argument ends in the two-option clarifier; main read every message of several lines
as a pasted report and never checked the word's senses. A traceback quoting text stays a report."""

from __future__ import annotations

from controller.route import route_question
from helix.core.policy import RoutingPolicy

CALL = 'tool: helix.ask\nargs:\n  question: "what is a cavity in this codebase"\n  top_k: 5'
TRACE = ('Traceback (most recent call last):\n  File "pool/carve.py", line 12, in carve\n'
         '    raise LookupError("what is a cavity doing here")\nLookupError')


def test_a_one_word_question_quoted_in_a_tool_call_is_sense_checked() -> None:
    plan = route_question(CALL, routing=RoutingPolicy())
    assert plan.ambiguous_term == "cavity" and plan.sense_check_only


def test_a_traceback_quoting_a_question_is_no_sense_question() -> None:
    plan = route_question(TRACE, routing=RoutingPolicy())
    assert plan.intent.route == "issue" and plan.ambiguous_term is None
