"""A weakly backed file's only item yields its place in the first five (`controller.weak_leads`,
`retrieval.file_defs.weak_channels`, off by default): which item yields, to which, how often,
and that nothing moves when it is off or the question is a report."""

from __future__ import annotations

from controller_helpers import function_candidate

from controller.evidence import Candidate
from controller.reasons import Reason
from controller.weak_leads import apply, channels, weak
from helix.core.policy import FileDefsPolicy

ON = FileDefsPolicy(weak_channels=2)



def _rank(*names: str) -> tuple[Reason, ...]:
    return tuple(Reason(code="rank", channel=n, rank=k + 1) for k, n in enumerate(names))


PICK = Reason(code="in_file")
MORE = Reason(code="in_file_more")
A, B, C, D = "pkg/a.py", "pkg/b.py", "pkg/c.py", "pkg/d.py"
# places 1-5: A (strong), A's in-file pick, B (strong), C (files + file_bm25 only: weak), B's
# repeat; 6: D (a file not shown); 7: A's next definition; 8: C's; 9: A's next again
ORDER = [
    function_candidate(A, "lead", *_rank("bm25", "files", "file_bm25")),
    function_candidate(A, "pick", PICK, line=10),
    function_candidate(B, "other", *_rank("bm25", "files", "file_bm25", "name_words")),
    function_candidate(C, "weak", *_rank("files", "file_bm25")),
    function_candidate(B, "again", *_rank("bm25"), line=20),
    function_candidate(D, "elsewhere", *_rank("bm25", "files", "file_bm25")),
    function_candidate(A, "deeper", MORE, line=30),
    function_candidate(C, "more", MORE, line=40),
    function_candidate(A, "deepest", MORE, line=50),
]


def _names(ranked: list[Candidate]) -> list[str]:
    return [c.chunk.symbol or "" for c in ranked]


def test_a_weak_only_item_trades_with_the_first_later_item_of_a_shown_file() -> None:
    out = apply(ORDER, ON, 24)
    assert _names(out) == ["lead", "pick", "other", "deeper", "again", "weak", "elsewhere",
                           "more", "deepest"]
    assert sorted(_names(out)) == sorted(_names(ORDER))  # the same items: recall cannot move


def test_which_items_are_weak() -> None:
    assert channels(ORDER[3]) == frozenset({"files", "file_bm25"})
    assert [k for k in range(5) if weak(ORDER, k, 2)] == [3]
    assert [k for k in range(5) if weak(ORDER, k, 3)] == [3]
    assert [k for k in range(5) if weak(ORDER, k, 4)] == [2, 3]  # B's lead has four
    assert not weak(ORDER, 0, 9)  # the first item never
    assert not weak(ORDER, 1, 9)  # an in-file pick never
    assert not weak(ORDER, 4, 9)  # B's repeat: not its file's first item
    assert not weak(ORDER, 3, 1)


def test_the_weakest_place_goes_first_and_trades_are_counted() -> None:
    two = apply(ORDER, FileDefsPolicy(weak_channels=4, weak_trades=2), 24)
    # C's (place 4) first, to A's deeper; then B's lead (place 3), to A's deepest
    assert _names(two) == ["lead", "pick", "deepest", "deeper", "again", "other", "weak",
                           "elsewhere", "more"]
    one = apply(ORDER, FileDefsPolicy(weak_channels=4, weak_trades=1), 24)
    assert _names(one) == _names(apply(ORDER, ON, 24))


def test_nothing_moves_when_off_or_when_no_shown_file_has_a_laterfunction_candidate() -> None:
    assert apply(ORDER, FileDefsPolicy(), 24) == ORDER  # the default: off
    assert FileDefsPolicy().weak_channels == 0
    assert apply(ORDER, ON, 6) == ORDER  # the search stops before A's next definition
    assert apply(ORDER[:5], ON, 24) == ORDER[:5]


def test_the_step_runs_for_questions_only() -> None:
    """A question the in-file steps run for is reordered; a report, or the default, is not."""
    from controller.route import route_question
    from controller.weak_leads import step
    from helix.core.config import HelixConfig
    from helix.core.policy import RoutingPolicy

    on = HelixConfig.model_validate({"retrieval": {"file_defs": {"weak_channels": 2}}})
    asked = route_question("Where is the per-iteration bookkeeping list of the retry state "
                           "reset before the next action?", routing=RoutingPolicy())
    report = route_question("Fix retry state: the iteration bookkeeping list is not reset "
                            "when the retry action runs again", routing=RoutingPolicy())
    assert asked.asked.reads_as_question and not report.asked.reads_as_question
    assert _names(step(asked, ORDER, on)) == _names(apply(ORDER, ON, 24)) != _names(ORDER)
    assert step(report, ORDER, on) == ORDER
    assert step(asked, ORDER, HelixConfig()) == ORDER
