"""Same question + same commit + same config = the same item hashes in ANY process.

Python randomises string hashing per process (PYTHONHASHSEED), so anything that depends on a
set's or dict's iteration order differs between two runs of the same command. These tests run
the real code in fresh processes under several hash seeds and compare.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MATRIX = ROOT / "data" / "fixtures" / "matrix_repo"
SEEDS = ("0", "1", "2", "3", "4", "5", "8", "13")

# two small values whose inputs are sets, in one process a seed: the name a definition
# carries (one of four spellings) and a history score (the question's words are a set: a plain
# sum's last bits took the set's order)
_SET_ORDER = """
import json
from controller.evidence import defines
from helix.core.schemas import Chunk
from indexers.history import HistoryIndex
names = frozenset({"EDGE_BETWEENNESS_CENTRALITY", "EdgeBetweennessCentrality",
                   "edge_betweenness_centrality", "edgebetweennesscentrality"})
chunk = Chunk(id="c", path="b.py", lang="python", start_line=1, end_line=2, kind="code_def",
              symbol="edge_betweenness_centrality", text="def edge_betweenness_centrality(G):",
              content_hash="h", node_id="def:b.py::edge_betweenness_centrality")
words = frozenset(f"w{i}" for i in range(40))
index = HistoryIndex.__new__(HistoryIndex)
index.docs = {"n": words}
index.idf = {f"w{i}": 0.1 * (i + 1) + 1.0 / (i + 3) for i in range(40)}
index.average = 40.0
print(json.dumps({"defines": defines(chunk, names), "score": repr(index.score("n", words))}))
"""

# the questions through the controller on an index of a copy of matrix_repo built here, and
# one question as tests/controller_helpers.py asks it of its own build of matrix_repo (what
# test_controller.py's in-process tests read), keyed by CONTROLLER
CONTROLLER = "controller_helpers: Explain the ingest pipeline."
# and the walk and parse of a directory of Python, Markdown and reStructuredText (test_parse.py's
# texts) hashed, keyed by PARSED
PARSED = "walk and parse"
_ASK = """
import json, sys
from pathlib import Path
from controller.driver import run_controller
from helix.core.config import load_config
from helix.core.ports import FakeClock, FakeEmbedder
from indexers.build import ensure_index
from controller.question import read_question
root = Path(sys.argv[1])
config = load_config(root)
index, _ = ensure_index(root, config, embedder=FakeEmbedder(), query_embedder=FakeEmbedder())
out = {}
for question in json.loads(sys.argv[2]):
    env = run_controller(read_question(question, config.retrieval), index, config,
                         query_embedder=FakeEmbedder(), clock=FakeClock())
    out[question] = env.item_hashes
sys.path.insert(0, sys.argv[3])
from controller_helpers import ask, fixture_index
out[sys.argv[4]] = ask(fixture_index("matrix_repo"), "Explain the ingest pipeline.").item_hashes
from helix.core.config import IndexSettings
from helix.core.hashing import hash_obj
from indexers.parse import parse_file
from indexers.walker import walk
s = IndexSettings(); w = walk(Path(sys.argv[5]), s)
out[sys.argv[6]] = hash_obj([w, [parse_file(f.record, f.text, s) for f in w.files]])
print(json.dumps(out, sort_keys=True))
"""

QUESTIONS = ["Where is the denoise stage implemented?", "Define CavityPool.",
             "How does the phase lock relate to the optical cavity?",
             "Is the mirror radiation pressure in pascals?", "Explain the ingest pipeline.",
             "What is the optical cavity in this repo?", "Where is OpticalCavity used?"]


def _run(code: str, seed: str, home: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed, "HELIX_HOME": str(home),
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_a_definitions_name_and_a_history_score_do_not_depend_on_the_hash_seed(
        tmp_path: Path) -> None:
    seen = [json.loads(_run(_SET_ORDER, seed, tmp_path)) for seed in SEEDS]
    names = {s["defines"] for s in seen}
    assert names == {"EDGE_BETWEENNESS_CENTRALITY"} or names == {"edge_betweenness_centrality"}
    assert len({s["score"] for s in seen}) == 1


def test_item_hashes_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    from test_controller import ITEM_LISTS  # the modules as pytest imported them
    from test_parse import MARKDOWN, PYTHON, RST

    repo = tmp_path / "repo"
    shutil.copytree(MATRIX, repo)
    texts = tmp_path / "texts"
    (texts / "pkg").mkdir(parents=True)
    (texts / "pkg" / "retry.py").write_text(PYTHON, encoding="utf-8")
    (texts / "docs.md").write_text(MARKDOWN, encoding="utf-8")
    (texts / "index.rst").write_text(RST, encoding="utf-8")
    asked = (str(repo), json.dumps(QUESTIONS), str(ROOT / "tests"), CONTROLLER, str(texts),
             PARSED)
    first = json.loads(_run(_ASK, "1", tmp_path / "home", *asked))
    second = json.loads(_run(_ASK, "2", tmp_path / "home", *asked))
    assert set(first) == {*QUESTIONS, CONTROLLER, PARSED}
    assert first == second
    # (test_controller.py's test_item_hashes_identical_across_processes, asked here)
    assert set(first[CONTROLLER]) == ITEM_LISTS
    # (test_parse.py's test_same_hashes_in_processes_with_different_hash_seeds, hashed here)
    assert first[PARSED].startswith("sha256:")
