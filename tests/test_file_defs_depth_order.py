"""Round 20: a leading file's next definitions (the depth and reach picks, and the place-5
pick's test) are ordered by the in-file measure with a name part weighing a body word
(`file_defs.depth_name_weight`). On the validation set the answering definition shared fewer
of the question's words by its name than the sibling in front of it in 16 of 24 such misses,
so a name part counting three body words put the sibling first. Fails on round 19's code (no
`depth_name_weight`; the picks ordered by the in-file measure)."""

from __future__ import annotations

from controller_helpers import def_chunk

from controller.file_defs import deeper, depth_order, in_file_order, picks_ahead
from helix.core.policy import FileDefsPolicy

POLICY = FileDefsPolicy(enabled=True)
QUESTION = frozenset({"retry", "state", "iteration", "bookkeeping", "reset", "action", "list"})
HEAD = def_chunk("retry/core.py", "RetryCore", "class RetryCore:\n    pass\n", 1)
# two name parts the question holds, little else
NAMED = def_chunk("retry/core.py", "RetryStateAction",
                  "class RetryStateAction:\n    sleep = 0\n", 10)
# one name part, but a body of the question's own words
ANSWER = def_chunk("retry/core.py", "Attempt.clear",
                   "def clear(self):\n    # reset the per iteration bookkeeping of the retry\n"
                   "    # state before the next action\n    self.done = list()\n", 20)


def test_the_answering_body_goes_before_a_sibling_named_by_the_question() -> None:
    one = POLICY.model_copy(update={"depth": 1, "reach": 1})
    assert deeper(QUESTION, [HEAD], {"retry/core.py": [HEAD, NAMED, ANSWER]}, one) == (
        [ANSWER], [NAMED])
    old = one.model_copy(update={"depth_name_weight": one.name_weight})  # round 19's order
    assert deeper(QUESTION, [HEAD], {"retry/core.py": [HEAD, NAMED, ANSWER]}, old) == (
        [NAMED], [ANSWER])


def test_the_place_five_pick_is_tested_by_the_same_measure() -> None:
    lead = POLICY.model_copy(update={"depth_lead": 1, "depth_at": 1, "depth_repeats": False})
    assert picks_ahead(QUESTION, [ANSWER], [HEAD, NAMED], lead) == 1
    old = lead.model_copy(update={"depth_name_weight": lead.name_weight})
    assert picks_ahead(QUESTION, [ANSWER], [HEAD, NAMED], old) == 0


def test_the_in_file_measure_itself_is_unchanged_and_reports_keep_it() -> None:
    assert POLICY.depth_name_weight == 1.0 and POLICY.name_weight == 3.0
    assert depth_order(POLICY).name_weight == 1.0
    kept = in_file_order(POLICY)
    assert kept.depth_name_weight == kept.name_weight == 3.0 and depth_order(kept) is kept


def test_a_report_keeps_the_in_file_order_of_its_tail() -> None:
    """The driver orders a report's (not a question's) depth picks by the in-file measure:
    the depth measure was chosen on questions only."""
    import networkx as nx

    from controller.driver import _with_file_definitions
    from controller.evidence import Candidate
    from controller.reasons import Reason
    from controller.route import route_question
    from helix.core.config import HelixConfig
    from helix.core.policy import RoutingPolicy

    chunks = {"retry/core.py": [HEAD, NAMED, ANSWER]}

    class Index:
        graph = nx.MultiDiGraph()

        def chunks_for_path(self, path: str) -> list:
            return chunks.get(path, [])

    found = Reason(code="rank", channel="bm25", rank=1)
    for text, asks, first in (
            ("Where is the per-iteration bookkeeping list of the retry state reset before "
             "the next action?", True, ANSWER),
            ("Fix retry state: the iteration bookkeeping list is not reset when the retry "
             "action runs again", False, NAMED)):
        plan = route_question(text, routing=RoutingPolicy())
        assert plan.asked.reads_as_question is asks
        out = _with_file_definitions(plan, [Candidate(chunk=HEAD, score=1.0, reasons=(found,),
                                                      step=1)],
                                     Index(), HelixConfig())  # type: ignore[arg-type]
        picks = [c.chunk for c in out if c.chunk is not HEAD]
        assert picks and picks[0] == first, (text, [c.symbol for c in picks])
