"""Plan phase 4: dominance decides; a split asks a two-option clarifier with evidence."""

from __future__ import annotations

from controller_helpers import ask, files_index, fixture_index

from controller.channels import Found, Request, RequestResult
from controller.dominance import SenseScore, decide
from controller.driver import file_links, run_controller
from controller.question import read_question
from helix.core.config import HelixConfig, RetrievalSettings
from helix.core.ports import FakeClock, FakeEmbedder


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


def test_a_plain_word_asked_in_other_words_asks_which_sense() -> None:
    """'where is cavity defined?' is about one plain word as much as 'what is a cavity?': with
    the senses split it asks the same two-option clarifier (main searched it as asked)."""
    env = ask(fixture_index("matrix_repo"), "Where is cavity defined in this project?")
    assert env.stop_reason == "dominance_split"
    assert env.clarify is not None and len(env.clarify.options) == 2
    assert [s.phase for s in env.controller_steps] == ["dominance", "dominance"]


def test_a_plain_word_wrapped_in_fillers_asks_which_sense() -> None:
    """Words around the question that never name its subject (an aside, a hedge, the repository
    named) do not turn a one-word sense question into an ordinary search (main answered it)."""
    env = ask(fixture_index("matrix_repo"),
              "ok, totally different topic: what's a cavity in the optics repo, honestly?")
    assert env.stop_reason == "dominance_split"
    assert env.clarify is not None and len(env.clarify.options) == 2


def test_a_sense_check_with_a_dominant_sense_runs_the_question_as_asked() -> None:
    """A dominant sense after a sense check leaves the run as asked: the same evidence in the
    same order as without the check, the check's steps noted first."""
    index = fixture_index("matrix_repo_dominant")
    config = HelixConfig()
    question = read_question("Please explain me the cavity", config.retrieval)
    assert question.plan.sense_check_only
    env = run_controller(question, index, config, query_embedder=FakeEmbedder(),
                         clock=FakeClock())
    assert env.clarify is None and env.items.intent.sense is None
    dominance = [s for s in env.controller_steps if s.phase == "dominance"]
    assert len(dominance) == 2 and "runs as asked" in dominance[-1].note
    unchecked = question.model_copy(update={"plan": question.plan.model_copy(update={
        "ambiguous_term": None, "sense_check_only": False})})
    plain = run_controller(unchecked, index, config, query_embedder=FakeEmbedder(),
                           clock=FakeClock())
    assert [e.id for e in env.evidence] == [e.id for e in plain.evidence]


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


CAVE = '''"""Caves: underground spaces carved into the terrain."""


class Cave:
    """A cave: a hollow in the terrain with an entrance and connected chambers."""

    def __init__(self, entrance, chambers):
        self.entrance = entrance
        self.chambers = chambers


def carve_cave(terrain, seed):
    """Carve a new cave into the terrain from a random seed."""
    return Cave(terrain.surface(seed), terrain.hollow(seed))
'''
CAVE_DOC = """# Caves

A cave is where players go looking for ore, crystals and monsters after nightfall. Players
should bring torches: `Cave` keeps the layout, and `carve_cave` makes a new one for each
world. Explorers who reach the bottom get a reward.

## Exploring a cave

Players explore a cave with torches and pickaxes; monsters spawn in dark chambers of the cave.
"""
LIGHTING = '''"""Lighting of the scene."""


def ambient_light(scene):
    """Ambient light of a scene; dark inside a cave, bright on the surface."""
    return 0.1 if scene.in_cave else 1.0
'''


def test_a_document_that_describes_the_module_is_the_same_sense() -> None:
    """"what is a cave?": the guide that documents `Cave` and the module defining it are one
    concept (their words differ), not two senses to choose between."""
    index = files_index({"world/cave.py": CAVE, "docs/caves.md": CAVE_DOC,
                         "render/lighting.py": LIGHTING})
    env = ask(index, "what is a cave?")
    assert env.clarify is None and env.stop_reason != "dominance_split"
    paths = [e.path for e in env.evidence]
    assert "docs/caves.md" in paths[:3] and "world/cave.py" in paths[:3]


def test_an_overview_documenting_several_files_joins_no_senses() -> None:
    overview = ("# Overview\n\nA cave is dug by `carve_cave`; a dark cave dims "
                "`ambient_light`.\n")
    index = files_index({"world/cave.py": CAVE, "docs/overview.md": overview,
                         "render/lighting.py": LIGHTING})
    results = [RequestResult(request=Request(channel="bm25", query="cave", k=10),
                             found=tuple(Found(chunk=c, rank=n) for n, c in
                                         enumerate(index.chunks(), start=1)))]
    assert file_links(index, results) == ()
