"""Golden answers: the whole deterministic answer for questions covering every route, the
clarifier and the zero-evidence case, on fixture repositories indexed by the real indexer
(no embeddings: the lexical channels, the graph and the controller as shipped).

Each golden (tests/golden/answers/<name>.txt) was read and reviewed as an answer; a change shows
as a diff. Rewrite after an intended change, then read the diff:

    UPDATE_GOLDEN=1 python -m pytest -q tests/test_answer_golden.py

data/fixtures/answer_repo is a tiny HTTP client whose CHANGELOG, LICENSE and README example
command all mention the retry policy: none of them may lead an answer about it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from golden_files import RealIndex, check_golden, real_index

LONG_QUESTION = ("When I call fetch on a flaky server the download sometimes hangs for a long "
                 "time before it fails, and sometimes it gives up at once on a 404 response "
                 "without trying again, why does that happen and can the waiting be made "
                 "shorter?")
TRACEBACK = ("fetch gives up too early\n\nTraceback (most recent call last):\n"
             '  File "/srv/app/fetchy/client.py", line 20, in fetch\n'
             "    raise RuntimeError('gave up')\nRuntimeError: gave up\n")
# name -> (fixture, question)
CASES: dict[str, tuple[str, str]] = {
    "definition_class": ("continuity_repo", "what is BM25Index?"),
    "definition_doc": ("matrix_repo", "What does phase lock mean in this repo?"),
    "definition_constant": ("matrix_repo", "Define FINESSE_TARGET in this repo."),
    "location": ("continuity_repo", "where is the BM25 index built?"),
    "location_past_changelog": ("answer_repo", "where is the retry policy decided?"),
    "explanation_code": ("continuity_repo", "how does the tokenizer split words?"),
    "explanation_past_changelog": ("answer_repo", "how does the retry policy work?"),
    "issue_long_question": ("answer_repo", LONG_QUESTION),
    "issue_traceback": ("answer_repo", TRACEBACK),
    "relation": ("matrix_repo", "How does the phase lock relate to the optical cavity?"),
    "value_unit": ("matrix_repo", "Is the mirror radiation pressure in pascals?"),
    "value_default": ("matrix_repo", "what is the default finesse target?"),
    "usage": ("answer_repo", "who calls decide_retry?"),
    "doc_summary": ("matrix_repo", "What does the calibration guide say about drift?"),
    "doc_summary_named_changelog": ("answer_repo",
                                    "what does the changelog say about the retry policy?"),
    "clarifier": ("continuity_repo", "what is a cavity?"),
    "nothing_names_it": ("answer_repo", "where is the retry capacitor configured?"),
    "zero_evidence": ("continuity_repo",
                      "where is the zyxwvut quantum flux capacitor configured?"),
}
ROUTES = {"definition", "location", "explanation", "relation", "value_check", "usage",
          "doc_summary", "issue"}


@pytest.fixture(scope="module")
def indexes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RealIndex]:
    work = tmp_path_factory.mktemp("golden-answers")
    names = sorted({fixture for fixture, _ in CASES.values()})
    return {name: real_index(name, work, embed=False) for name in names}


def render(fixture: str, question: str, index: RealIndex) -> str:
    env = index.ask(question)
    header = [f"question: {question}", f"repository: data/fixtures/{fixture} (no embeddings)",
              f"route: {env.route}; stop: {env.stop_reason}; evidence: {len(env.evidence)}"]
    return "\n".join([*header, "", env.answer, ""])


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_answer(name: str, indexes: dict[str, RealIndex]) -> None:
    fixture, question = CASES[name]
    check_golden(f"answers/{name}.txt", render(fixture, question, indexes[fixture]))


def test_the_cases_cover_every_route_the_clarifier_and_no_evidence(
        indexes: dict[str, RealIndex]) -> None:
    envs = {name: indexes[fixture].ask(question) for name, (fixture, question) in CASES.items()}
    assert {env.route for env in envs.values()} == ROUTES
    assert envs["clarifier"].clarify is not None
    assert envs["zero_evidence"].evidence == ()
    assert envs["nothing_names_it"].evidence != ()
    # the changelog is in the evidence of the questions it must not lead
    for name in ("location_past_changelog", "explanation_past_changelog"):
        paths = [e.path for e in envs[name].evidence]
        assert "CHANGELOG.md" in paths and not envs[name].answer.startswith("CHANGELOG")


def test_goldens_on_disk_are_exactly_the_cases() -> None:
    on_disk = {p.stem for p in (Path(__file__).parent / "golden" / "answers").glob("*.txt")}
    assert on_disk == set(CASES)


def test_a_missing_golden_fails_and_writes_nothing(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import golden_files

    monkeypatch.setattr(golden_files, "GOLDEN", tmp_path)
    monkeypatch.delenv("UPDATE_GOLDEN", raising=False)
    with pytest.raises(pytest.fail.Exception, match="missing"):
        check_golden("answers/absent.txt", "text\n")
    assert not (tmp_path / "answers" / "absent.txt").exists()
    with pytest.raises(pytest.fail.Exception, match=r"-old\n\+new"):
        (tmp_path / "changed.txt").write_text("old\n", encoding="utf-8")
        check_golden("changed.txt", "new\n")
