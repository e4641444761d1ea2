"""The feedback pass's vote for the leading file (`controller.file_vote`,
`retrieval.file_defs.vote_terms`, off by default): which file wins, that only its first item
moves, that an anchored first file keeps the lead, and that nothing moves when it is off or
the question is a report."""

from __future__ import annotations

from controller_helpers import files_index, function_candidate
from test_prf import FILES, QUESTION

from controller.evidence import Candidate
from controller.file_vote import apply, voted_files, winner
from controller.reasons import Reason
from helix.core.policy import FileDefsPolicy

ON = FileDefsPolicy(vote_terms=10, vote_weight=0.5, vote_k=5, vote_files=5)
A, B, C = "pkg/a.py", "pkg/b.py", "pkg/c.py"



RANK = Reason(code="rank", channel="bm25", rank=1)
# places 1-6: A, A's repeat, B, C, B's repeat, A's third
ORDER = [function_candidate(A, "lead", RANK), function_candidate(A, "again", line=10),
         function_candidate(B, "other", RANK), function_candidate(C, "third", RANK),
         function_candidate(B, "more", line=20), function_candidate(A, "last", line=30)]


def _names(ranked: list[Candidate]) -> list[str]:
    return [c.chunk.symbol or "" for c in ranked]


def test_the_voted_file_wins_when_the_lead_has_no_vote() -> None:
    # B second in place, first in the vote; A not voted: 1/7 + 0.5/6 > 1/6
    assert winner([A, B, C], [B, C], 0.5, 5) == 1
    # A voted too (second): 1/6 + 0.5/7 > 1/7 + 0.5/6, the lead stays
    assert winner([A, B, C], [B, A], 0.5, 5) == 0
    # a small weight never lifts a file from third place over an unvoted lead: 1/8 + 0.1/6
    assert winner([A, B, C], [C], 0.1, 5) == 0
    assert winner([A, B], [], 0.5, 5) == 0


def test_only_the_winners_first_item_moves_to_the_front() -> None:
    out = apply(ORDER, [B, C], ON)
    assert _names(out) == ["other", "lead", "again", "third", "more", "last"]
    assert sorted(_names(out)) == sorted(_names(ORDER))  # the same items: recall cannot move
    assert apply(ORDER, [A, B], ON) == ORDER  # the lead is voted first: nothing moves


def test_an_anchored_lead_off_or_one_file_keeps_the_order() -> None:
    anchored = [function_candidate(A, "lead", Reason(code="symbol_exact", name="lead")), *ORDER[1:]]
    assert apply(anchored, [B, C], ON) == anchored
    assert apply(ORDER, [B, C], FileDefsPolicy()) == ORDER  # the default: off
    assert FileDefsPolicy().vote_terms == 0
    assert apply(ORDER[:2], [B], ON) == ORDER[:2]  # one file
    assert apply(ORDER, [B, C], ON.model_copy(update={"vote_files": 2})) == apply(
        ORDER, [B, C], ON)
    # with two files looked at, C (third) cannot win even when voted alone
    assert apply(ORDER, [C], ON.model_copy(update={"vote_files": 2, "vote_weight": 5.0})) \
        == ORDER


def test_test_files_have_no_vote() -> None:
    assert voted_files(["tests/test_a.py", B, B, A]) == [B, A]


def test_the_step_runs_the_feedback_pass_for_questions_only() -> None:
    """On: the pass's files vote (here the retry module, which the question has no word of);
    off, or a report: the order is returned as it is."""
    from controller.file_vote import step
    from controller.prf import prf_chunks
    from controller.route import route_question
    from helix.core.config import HelixConfig
    from helix.core.policy import RoutingPolicy

    index = files_index(FILES)
    on = HelixConfig.model_validate({"retrieval": {"file_defs": {
        "vote_terms": 5, "vote_weight": 2.0, "vote_k": 1}, "pools": {"prf_docs": 2}}})
    asked = route_question(QUESTION + "?", routing=RoutingPolicy())
    report = route_question("Fix the client: it waits too long before a failed request is "
                            "tried again", routing=RoutingPolicy())
    assert asked.asked.reads_as_question and not report.asked.reads_as_question
    pools = on.retrieval.pools.model_copy(update={"prf_terms": 5, "prf_weight": 0.6})
    votes = voted_files([c.path for c in prf_chunks(index, asked.text, 60, pools,
                                                   lambda h: True)])
    assert "pkg/retry.py" in votes
    order = [function_candidate(p, f"f{n}", RANK) for n, p in enumerate(
        ["pkg/extra1.py", *(p for p in votes if p != "pkg/extra1.py")][:4])]
    out = step(asked, order, index, on)
    assert out[0].chunk.path == votes[0] != order[0].chunk.path
    assert step(report, order, index, on) == order
    assert step(asked, order, index, HelixConfig()) == order
