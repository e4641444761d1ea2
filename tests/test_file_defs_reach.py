"""Round 16: the first files' definitions past the depth picks (`file_defs.reach`), and the
place-5 pick chosen among every shown file's picks (`file_defs.reach_lead`). Both fail on
round 15's code (no `deeper`, `lead_first` or `reach_places`)."""

from __future__ import annotations

from controller_helpers import def_chunk

from controller.file_defs import deeper, depth_picks, lead_first, reach_places
from helix.core.policy import FileDefsPolicy

POLICY = FileDefsPolicy(enabled=True)
QUESTION = frozenset({"merge", "spacing", "value", "override"})


HEAD = def_chunk("reflow/config.py", "ReflowConfig", "class ReflowConfig:\n    pass\n", 1)
BEST = def_chunk("reflow/config.py", "merge_spacing_value", "def merge_spacing_value(o):\n", 10)
NEXT = def_chunk("reflow/config.py", "merge_spacing", "def merge_spacing(o):\n", 20)
THIRD = def_chunk("reflow/config.py", "spacing", "def spacing(self):\n    return 1\n", 30)
NONE = def_chunk("reflow/cli.py", "main", "def main():\n    run()\n", 5)
DOC = def_chunk("README.md", "", "Nothing of the question here.\n", 1, kind="doc_section")


def test_reach_takes_the_definitions_after_the_depth_picks() -> None:
    chunks = {"reflow/config.py": [HEAD, BEST, NEXT, THIRD]}
    one = POLICY.model_copy(update={"depth": 1, "reach": 2})
    assert deeper(QUESTION, [HEAD], chunks, one) == ([BEST], [NEXT, THIRD])
    assert deeper(QUESTION, [HEAD], chunks, one.model_copy(update={"reach": 0})) == ([BEST], [])
    assert depth_picks(QUESTION, [HEAD], chunks, one) == [BEST]  # the depth picks unchanged
    assert deeper(QUESTION, [HEAD], chunks, one.model_copy(update={"depth": 0})) == (
        [], [BEST, NEXT])


def test_a_reach_pick_replaces_only_a_weaker_code_item_past_the_first_places() -> None:
    ranked = [HEAD, HEAD, NONE, DOC, NONE.model_copy(update={"id": "cli:2"})]
    anywhere = POLICY.model_copy(update={"depth_repeats": False})
    places = reach_places(QUESTION, ranked, [NEXT], 2, 5, anywhere)
    assert places == {4: NEXT}  # the later of the two weakest code items; the doc stays
    assert reach_places(QUESTION, ranked, [NEXT, BEST], 2, 5, anywhere) == {4: BEST, 2: NEXT}
    assert reach_places(QUESTION, ranked, [NEXT], 2, 4, anywhere) == {2: NEXT}  # the limit
    assert reach_places(QUESTION, [HEAD, BEST, NEXT], [THIRD], 1, 3, anywhere) == {}  # better


def test_a_reach_pick_never_takes_a_files_only_place() -> None:
    """With `depth_repeats` (the default) a reach pick replaces an item only while its file
    keeps another place in the evidence: the suites' gate lost a file's only place at 14."""
    cli2 = NONE.model_copy(update={"id": "cli:2"})
    ranked = [HEAD, HEAD, NONE, DOC, cli2]
    assert reach_places(QUESTION, ranked, [NEXT, BEST], 2, 5, POLICY) == {4: BEST}
    assert reach_places(QUESTION, ranked, [NEXT], 2, 4, POLICY) == {}  # cli.py's only place
    web = def_chunk("reflow/web.py", "main", "def main():\n    run()\n", 5)
    assert reach_places(QUESTION, [HEAD, HEAD, web, NONE, cli2], [NEXT], 2, 5, POLICY) == {
        4: NEXT}  # not web.py's only place, though it answers as little


def test_the_lead_pick_is_the_best_of_the_shown_files_picks() -> None:
    other = def_chunk("reflow/cli.py", "spacing_value_override_merge",
                   "def spacing_value_override_merge():\n", 50)
    picks, reach = lead_first(QUESTION, [THIRD], [BEST, other], [HEAD, NONE], POLICY)
    assert picks == [other, THIRD] and reach == [BEST]  # cli.py is shown: its best leads
    picks, reach = lead_first(QUESTION, [THIRD], [BEST, other], [HEAD], POLICY)
    assert picks == [BEST, THIRD] and reach == [other]  # cli.py not shown
    tests = other.model_copy(update={"path": "tests/test_cli.py"})
    assert lead_first(QUESTION, [THIRD], [tests], [HEAD, tests], POLICY) == ([THIRD], [tests])


def test_reach_reads_past_the_depth_picks_least_score() -> None:
    """A reach pick needs `reach_min` of the question, not the depth picks' `min_score`: the
    answering definition past a file's first few often holds few of a long question's words."""
    chunks = {"reflow/config.py": [HEAD, BEST, NEXT, THIRD]}
    strict = POLICY.model_copy(update={"depth": 1, "reach": 2, "min_score": 2.5,
                                       "reach_min": 2.5})
    assert deeper(QUESTION, [HEAD], chunks, strict) == ([BEST], [])  # NEXT: 2 of BEST's 3 names
    wide = strict.model_copy(update={"reach_min": 0.5})
    assert deeper(QUESTION, [HEAD], chunks, wide) == ([BEST], [NEXT, THIRD])
    assert deeper(QUESTION, [HEAD], chunks, wide.model_copy(update={"reach": 0})) == ([BEST], [])


def _driver_run(reads_as_question: bool, reach: int) -> list[str]:
    """`controller.driver._with_file_definitions` on a three-item evidence list: the first
    file's reach picks take the weakest repeat place past the first `depth_at` + 1."""
    from types import SimpleNamespace
    from typing import Any, cast

    from controller.driver import _with_file_definitions
    from controller.evidence import Candidate
    from helix.core.config import HelixConfig

    cli = [NONE.model_copy(update={"id": f"cli:{i}"}) for i in range(3)]
    ranked = [Candidate(chunk=c, score=1.0, reasons=(), step=0) for c in (HEAD, *cli)]
    files = {"reflow/config.py": [HEAD, BEST, NEXT, THIRD], "reflow/cli.py": cli}
    index = SimpleNamespace(chunks_for_path=lambda path: files.get(path, []))
    plan = SimpleNamespace(term_words=QUESTION, intent=SimpleNamespace(route="explanation"),
                           asked=SimpleNamespace(reads_as_question=reads_as_question))
    config = HelixConfig().model_copy(deep=True)
    policy = config.retrieval.file_defs.model_copy(update={
        "reach": reach, "depth": 0, "depth_at": 1, "depth_lead": 0, "lead_files": 1,
        "callees": 0, "recut": False})
    config = config.model_copy(update={"retrieval": config.retrieval.model_copy(
        update={"file_defs": policy})})
    out = _with_file_definitions(cast(Any, plan), ranked, cast(Any, index), config)
    return [c.chunk.id for c in out]


def test_the_driver_gives_a_question_reach_picks_and_a_report_none() -> None:
    """Off (reach 0), and for a text that does not read as a question, the evidence stays as
    retrieval ranked it; on, the first file's next two definitions take cli.py's repeats past
    place 2, the best one the weakest (the later of a tie), cli.py keeping its first place."""
    plain = _driver_run(True, 0)
    assert plain == ["reflow/config.py:1", "cli:0", "cli:1", "cli:2"]
    assert _driver_run(False, 2) == plain
    assert _driver_run(True, 2) == ["reflow/config.py:1", "cli:0", "reflow/config.py:20",
                                    "reflow/config.py:10"]
