"""Claims denying what a plain line of the evidence states (issue 32, absence32;
helix/synthesis/absence_held.py): "it shows A, but not B", "there's no rule for B", "whether B
happens isn't stated", where B is the asked thing and one line or sentence of the evidence
states it with no negation of its own. A ferry ticket scenario of this file's own; every
wording here is of no data set."""

from __future__ import annotations

import pytest

from helix.core.envelope import EvidenceItem
from helix.core.hashing import digest, short_id
from helix.synthesis.absence_held import HELD, held


def _item(path: str, start: int, kind: str, body: str) -> EvidenceItem:
    end = start + body.count("\n")
    return EvidenceItem(id=short_id(path, start, end, digest(body)), path=path,
                        start_line=start, end_line=end, kind=kind, score=1.0,
                        content_hash=digest(body), node_id=f"file:{path}", reasons=(),
                        heading=None, symbol=None, text=body)


EVIDENCE = (
    _item("ferry/tickets.py", 20, "definition",
          "TICKET_VALID_HOURS = 48\n\n"
          "def refund_amount(ticket: Ticket, now: datetime) -> Decimal:\n"
          "    \"\"\"Unused tickets are refunded in full until the sailing departs.\"\"\"\n"
          "    if ticket.scanned or now >= ticket.sailing.departs_at:\n"
          "        return Decimal(0)\n"
          "    return ticket.price\n"),
    _item("docs/tickets.md", 7, "doc",
          "## Tickets\n\nA ticket is valid for 48 hours after purchase. Unused tickets are "
          "refunded in full until the sailing departs.\n"))
QUESTION = "how long is a ferry ticket valid, and can it be refunded?"


def _read(text: str, question: str = QUESTION) -> float:
    return dict(zip(HELD, held(text, question, EVIDENCE), strict=True))["held_denied"]


@pytest.mark.parametrize("text", [
    # a bare negation after what was shown: its words follow it
    "The code shows the 48-hour validity, but not whether a ticket can be refunded.",
    "Tickets last 48 hours; there's no rule for refunds.",
    # nothing after the negation but a verb of telling: the words before it are denied
    "It is valid for 48 hours. Whether a ticket is refunded isn't stated.",
    "48 hours. TICKET_VALID_HOURS sets it, but nothing covers refunding a ticket."])
def test_a_denied_asked_thing_a_plain_line_states_is_held(text: str) -> None:
    assert _read(text) > 0, text


@pytest.mark.parametrize("text", [
    # a negation about what the evidence does not hold
    "48 hours; season passes aren't covered.",
    # words the evidence holds, but nothing the question asks
    "48 hours; the docs don't name a sailing schedule."])
def test_a_negation_of_no_asked_plain_line_is_not_held(text: str) -> None:
    assert _read(text) == 0.0, text


def test_no_question_no_evidence_or_no_plain_line_gives_nothing() -> None:
    claim = "The code shows the validity, but not whether a ticket can be refunded."
    assert held(claim, None, EVIDENCE) == (0.0,)
    assert held(claim, QUESTION, None) == (0.0,)
    negating = (_item("a.py", 1, "definition", "REFUNDS = None  # tickets are not refunded\n"),)
    assert held(claim, QUESTION, negating) == (0.0,)
