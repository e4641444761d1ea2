"""Controller loop acceptance (plan phases 1-2): steps, stop reasons, coverage, item hashes."""

from __future__ import annotations

import re

import pytest
from controller_helpers import FIXTURES, ask, files_index, fixture_index
from route_helpers import route_question

from controller.loop import LoopState, ToolResults, initial_state, step
from helix.core.config import HelixConfig, RetrievalSettings
from helix.core.ports import FakeClock
from indexers.api import IndexReader

MATRIX_QUESTIONS = [
    "What does phase lock mean in this repo?",
    "Define FINESSE_TARGET in this repo.",
    "Is the mirror radiation pressure in pascals?",
    "How does the phase lock relate to the optical cavity?",
    "What does the calibration guide say about drift?",
    "Explain the ingest pipeline.",
    "Where is the denoise stage implemented?",
    "Where is OpticalCavity used?",
]
ITEM_LISTS = {"intent", "selected_trees", "doc_section_hits", "repo_search_hits", "proof_spans",
              "slot_coverage_report", "evidence"}


@pytest.fixture(scope="module")
def matrix() -> IndexReader:
    return fixture_index("matrix_repo")


@pytest.mark.parametrize("question", MATRIX_QUESTIONS)
def test_dry_run_matrix(matrix: IndexReader, question: str) -> None:
    env = ask(matrix, question)
    assert env.llm_steps == 0 and env.answer_mode == "dry_run"
    assert env.controller_steps, "controller steps present when the repo has evidence"
    assert env.evidence and env.answer
    assert "no evidence" not in env.answer.lower()
    assert set(env.item_hashes) == ITEM_LISTS
    coverages = [s.coverage for s in env.controller_steps]
    assert coverages == sorted(coverages), "coverage is monotone"
    assert env.stop_reason in ("coverage_ok", "budget_exhausted", "no_new_evidence")
    # every quote cites path:line: a listed claim at its end, an indented lead quote in the
    # sentence that introduces it
    cited = re.compile(r"[\w./-]+\.\w+:\d+(?:-\d+)?")
    lines = env.answer.splitlines()
    assert cited.search(env.answer)
    for number, line in enumerate(lines):
        if line.startswith("- "):
            assert cited.search(line.rsplit("[", 1)[-1]), line
        if line.startswith("    "):
            assert cited.search(lines[number - 1]), lines[number - 1]


@pytest.mark.parametrize(("question", "expected"), [
    ("Define FINESSE_TARGET in this repo.", "lumen/constants.py"),
    ("Where is the denoise stage implemented?", "lumen/pipeline/stages.py"),
    ("What does the calibration guide say about drift?", "docs/calibration-guide.md"),
    ("Explain the ingest pipeline.", "docs/pipeline.md"),
])
def test_expected_file_in_top_evidence(matrix: IndexReader, question: str, expected: str) -> None:
    env = ask(matrix, question)
    assert expected in [e.path for e in env.evidence[:10]]


def test_steps_and_hashes_deterministic(matrix: IndexReader) -> None:
    q = "How does the phase lock relate to the optical cavity?"
    a, b = ask(matrix, q), ask(fixture_index("matrix_repo"), q)
    assert a.controller_steps == b.controller_steps
    assert a.item_hashes == b.item_hashes
    assert a.evidence == b.evidence


def test_slot_coverage_by_slot_points_at_evidence(matrix: IndexReader) -> None:
    env = ask(matrix, "Define FINESSE_TARGET in this repo.")
    report = env.items.slot_coverage_report
    assert env.stop_reason == "coverage_ok"
    assert report.ratio >= HelixConfig().retrieval.coverage_threshold
    ids = {e.id for e in env.evidence}
    definition = report.by_slot["definition_span"]
    assert any(i in ids for i in definition)
    assert any(e.kind == "definition" and e.path == "lumen/constants.py" for e in env.evidence)


def _config(**retrieval: object) -> HelixConfig:
    return HelixConfig(retrieval=RetrievalSettings(**retrieval))  # type: ignore[arg-type]


def test_stop_budget_exhausted_by_steps(matrix: IndexReader) -> None:
    env = ask(matrix, "Explain the ingest pipeline.", _config(max_steps=1,
                                                             coverage_threshold=1.01))
    assert env.stop_reason == "budget_exhausted"
    assert [s.phase for s in env.controller_steps if s.phase != "align"] == ["seed"]


def test_stop_budget_exhausted_by_evidence(matrix: IndexReader) -> None:
    env = ask(matrix, "Explain the ingest pipeline.", _config(max_evidence=3,
                                                             coverage_threshold=1.01))
    assert env.stop_reason == "budget_exhausted"


def test_stop_budget_exhausted_by_time(matrix: IndexReader) -> None:
    from controller.driver import run_controller
    from controller.question import read_question
    from helix.core.ports import FakeEmbedder

    config = _config(time_budget_ms=5, coverage_threshold=1.01)
    env = run_controller(read_question("Explain the ingest pipeline.", config.retrieval), matrix,
                         config, query_embedder=FakeEmbedder(), clock=FakeClock(step=1.0))
    assert env.stop_reason == "budget_exhausted"
    assert len([s for s in env.controller_steps if s.phase != "align"]) == 1
    assert "clock safety stop" in env.controller_steps[0].note  # said where it acted
    assert env.clock_stopped is not None and env.clock_stopped.budget_ms == 5  # a typed fact


def test_a_clock_that_jumps_changes_no_evidence(matrix: IndexReader) -> None:
    """Steps and evidence bound the work; a clock 5 s slower at every read (a loaded or
    suspended machine) gives the same evidence and item hashes as a still one."""
    from controller.driver import run_controller
    from controller.question import read_question
    from helix.core.ports import FakeEmbedder

    for question in ("Explain the ingest pipeline.", "where is the finesse target set?"):
        asked = read_question(question, _config().retrieval)
        still = run_controller(asked, matrix, _config(), query_embedder=FakeEmbedder(),
                               clock=FakeClock())
        jumping = run_controller(asked, matrix, _config(), query_embedder=FakeEmbedder(),
                                 clock=FakeClock(step=5.0))
        assert jumping.item_hashes == still.item_hashes
        assert [e.id for e in jumping.evidence] == [e.id for e in still.evidence]
        assert not any("clock" in s.note for s in jumping.controller_steps)


def test_stop_no_new_evidence() -> None:
    index = files_index({"a.py": "def alpha():\n    return 1\n", "README.md": "# Alpha\n\nhi\n"})
    env = ask(index, "Where is the zorblax frobnicator configured?")
    assert env.stop_reason == "no_new_evidence"
    assert env.evidence == ()
    assert "no evidence was found" in env.answer


def test_stop_coverage_ok(matrix: IndexReader) -> None:
    env = ask(matrix, "What does the calibration guide say about drift?")
    assert env.stop_reason == "coverage_ok"


def test_pure_step_loop_without_driver(matrix: IndexReader) -> None:
    from controller.channels import execute

    state: LoopState = initial_state(route_question("Explain the ingest pipeline."),
                                     RetrievalSettings())
    state, action = step(state, None)
    assert action is not None and action.phase == "seed"
    phases = []
    while action is not None:
        phases.append(action.phase)
        results = tuple(execute(matrix, r, None) for r in action.requests)
        state, action = step(state, ToolResults(action=action, results=results, elapsed_ms=0.0))
    assert state.stop_reason is not None
    assert phases[0] == "seed"


def test_scope_restricts_evidence(matrix: IndexReader) -> None:
    env = ask(matrix, "how is the cavity tested in tests/?")
    assert env.items.intent.scope == "tests/"
    assert env.evidence and all(e.path.startswith("tests/") for e in env.evidence
                                if "path hint" not in e.reasons)


def test_a_scope_keeps_aligned_code_out() -> None:
    """"same question for docs/": the code a doc section names is not evidence outside the
    scope (it was, through doc-to-code alignment)."""
    index = files_index({"docs/search.md": "# Search\n\nThe index is built by "
                                           "`build_index` in `search/build.py`.\n",
                         "search/build.py": "def build_index(docs):\n"
                                            "    \"\"\"Build the index.\"\"\"\n"
                                            "    return {}\n"})
    env = ask(index, "where is the index built?", scope="docs/")
    assert env.evidence and all(e.path.startswith("docs/") for e in env.evidence)


def test_fixture_dir_exists() -> None:
    assert (FIXTURES / "matrix_repo").is_dir()


BUILT = {
    "search/index.py": "class SearchIndex:\n    \"\"\"The search index.\"\"\"\n\n"
                       "    def query(self, text):\n        return []\n",
    "search/builder.py": "from search.index import SearchIndex\n\n\n"
                         "def build_search_index(docs):\n"
                         "    \"\"\"Build the search index from documents.\"\"\"\n"
                         "    return SearchIndex()\n",
}


def test_where_is_x_built_searches_code_for_the_action() -> None:
    """"where is X built?" also searches code for X with the action's base form, so the code
    that builds X is in the evidence, not only the class that names it."""
    index = files_index(BUILT)
    env = ask(index, "where is the search index built?")
    assert any(e.symbol == "build_search_index" for e in env.evidence)
    assert "search index build" in {q for s in env.controller_steps for q in s.queries}


def test_live_trace_streams_steps_stop_and_tree_walk(matrix: IndexReader) -> None:
    """Plan phase 6: tree-walk events in the live trace; the trace never changes the result."""
    events: list[tuple[str, dict[str, object]]] = []
    env = ask(matrix, "Define FINESSE_TARGET in this repo.",
              trace=lambda name, data: events.append((name, data)))
    names = [name for name, _ in events]
    steps = [data for name, data in events if name == "controller_step"]
    assert [s["index"] for s in steps] == [s.index for s in env.controller_steps]
    assert names.index("stop") > max(i for i, n in enumerate(names) if n == "controller_step")
    assert events[names.index("stop")][1] == {"stop_reason": env.stop_reason}
    walk = events[names.index("tree_walk")][1]
    assert walk["binding_rate"] == env.tree_walk.binding_rate > 0
    nodes = [data for name, data in events if name == "tree_walk_node"]
    assert [n["node_id"] for n in nodes] == [n.node_id for n in env.tree_walk.nodes]
    assert any(n["bound_evidence"] for n in nodes)
    assert ask(matrix, "Define FINESSE_TARGET in this repo.").item_hashes == env.item_hashes


OWNERS = {
    "pkg/live.py": "class Live:\n    \"\"\"A live display.\"\"\"\n\n"
                   "    def __init__(self, refresh_rate: float = 4):\n"
                   "        self.refresh_rate = refresh_rate\n",
    "pkg/progress.py": "class Progress:\n    \"\"\"Progress bars.\"\"\"\n\n"
                       "    def __init__(self, refresh_rate: float = 10):\n"
                       "        self.refresh_rate = refresh_rate\n",
    "pkg/status.py": "def status(refresh_rate: float = 12.5):\n    return refresh_rate\n",
}


def test_a_default_value_question_looks_up_its_owner() -> None:
    """"the default X of Live": X is set in several places; the owner's definition decides."""
    plan = route_question("What is the default refresh_rate of Live?")
    assert plan.subjects["owner"] == ("Live",)
    env = ask(files_index(OWNERS), "What is the default refresh_rate of Live?")
    assert env.evidence[0].path == "pkg/live.py"


CLASSES = {
    "core/graph.py": "class Graph:\n    \"\"\"A graph.\"\"\"\n\n    def __init__(self):\n"
                     "        self._adj = {}\n",
    "io/adjacency_dump.py": "def dump_adjacency(graph, store):\n    \"\"\"Store the adjacency "
                            "of a graph in a store.\"\"\"\n    store.write(graph)\n",
}


def test_a_capitalised_word_in_an_explanation_is_looked_up_as_a_class() -> None:
    env = ask(files_index(CLASSES), "How does Graph store its adjacency?")
    assert (env.evidence[0].path, env.evidence[0].symbol) == ("core/graph.py", "Graph")
    assert "symbol:exact" in env.evidence[0].reasons
