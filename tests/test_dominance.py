"""Plan phase 4: dominance decides; a split asks a two-option clarifier with evidence."""

from __future__ import annotations

from controller_helpers import ask, fixture_index

from controller.dominance import SenseScore, decide
from helix.core.config import RetrievalSettings


def test_balanced_senses_split_with_two_option_clarifier() -> None:
    env = ask(fixture_index("matrix_repo"), "What is a cavity?")
    assert env.stop_reason == "dominance_split"
    assert env.clarify is not None
    assert len(env.clarify.options) == 2
    for option in env.clarify.options:
        assert option.label and option.sense and option.evidence
    assert "cavity" in env.clarify.searched_terms
    assert env.clarify.top_candidates
    first, second = env.clarify.options
    assert first.sense != second.sense
    storage = [o for o in env.clarify.options if any("storage" in e.path for e in o.evidence)]
    assert len(storage) == 1, "one option is the storage sense, the other is not"
    assert {e.id for e in first.evidence}.isdisjoint({e.id for e in second.evidence})
    assert env.llm_steps == 0
    assert [s.phase for s in env.controller_steps] == ["dominance", "dominance"]


def test_dominant_sense_answers_without_clarifier() -> None:
    env = ask(fixture_index("matrix_repo_dominant"), "What is a cavity?")
    assert env.clarify is None
    assert env.stop_reason != "dominance_split"
    assert env.items.intent.sense is not None
    paths = [e.path for e in env.evidence]
    assert "optics/cavity.py" in paths or "docs/cavity.md" in paths
    assert "buffers/ring.py" not in paths[:3]


def test_qualified_question_never_clarifies() -> None:
    env = ask(fixture_index("matrix_repo"), "What is the optical cavity in this repo?")
    assert env.clarify is None
    assert not any(s.phase == "dominance" for s in env.controller_steps)


def test_resume_with_a_chosen_sense() -> None:
    index = fixture_index("matrix_repo")
    split = ask(index, "What is a cavity?")
    assert split.clarify is not None
    chosen = split.clarify.options[0].sense
    env = ask(index, "What is a cavity?", sense=chosen)
    assert env.clarify is None
    assert env.items.intent.sense == chosen
    allowed = tuple(chosen.split(","))
    assert env.evidence and all(e.path.startswith(allowed) for e in env.evidence
                                if not any(r.startswith(("defines", "tests"))
                                           for r in e.reasons))


def test_decide_ratio() -> None:
    s = RetrievalSettings(dominance_ratio=1.6)
    assert decide([SenseScore(key="a", mass=8, proofs=1, score=10.0),
                   SenseScore(key="b", mass=5, proofs=0, score=5.0)], s) == "a"
    assert decide([SenseScore(key="a", mass=6, proofs=0, score=6.0),
                   SenseScore(key="b", mass=5, proofs=0, score=5.0)], s) is None
    assert decide([SenseScore(key="a", mass=1, proofs=0, score=1.0)], s) == "a"
