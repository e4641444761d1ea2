"""Dense coverage that scales (issue 13): the budget picks the first cards by priority, the index,
`helix status` and the envelope say how much of the repository has vectors, and
`helix index --embed-all` (now, or through the background worker over time) reaches 100 %,
kept by the index from then on."""

from __future__ import annotations

from pathlib import Path

import pytest

from helix.cli.index_cmd import coverage_line
from helix.core.config import HelixConfig, IndexSettings
from helix.core.envelope import DenseState
from helix.core.ports import FakeEmbedder
from indexers import dense_worker
from indexers.build import build_index, ensure_index, index_status
from indexers.store import IndexStore
from tests.cli_helpers import run
from tests.index_fixtures import write_repo

BUDGET = 5
CONFIG = HelixConfig(index=IndexSettings(embed_max_chunks=BUDGET))


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = write_repo(tmp_path / "repo")
    body = "".join(f'def helper_{n}(x):\n    """Helper number {n} turns x into {n}."""\n'
                   f"    return x + {n}\n\n\n" for n in range(20))
    (root / "pkg" / "helpers.py").write_text(body, encoding="utf-8")
    return root


def _build(repo: Path, index_dir: Path, **kwargs: object) -> dict:
    report = build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder(),
                         **kwargs)  # type: ignore[arg-type]
    assert report.dense_state is not None
    return report.dense_state


def test_the_budget_embeds_the_first_cards_and_says_how_much_is_covered(
        repo: Path, tmp_path: Path) -> None:
    state = _build(repo, tmp_path / "idx")
    assert state["vectors"] == state["total"] == BUDGET and state["complete"]
    assert state["eligible"] > 20 > BUDGET and state["chunks"] >= state["eligible"]
    assert "all" not in state
    status = index_status(repo, CONFIG, index_dir=tmp_path / "idx")
    assert status.dense_state == state
    line = coverage_line(status.dense_state, BUDGET)
    assert line == (f"dense coverage: {BUDGET} of {state['eligible']} embeddable chunks have "
                    f"vectors ({100 * BUDGET / state['eligible']:.1f}%; {state['chunks']} "
                    f"chunks in all); the {BUDGET} first by priority selected "
                    f"(index.embed_max_chunks = {BUDGET}; `helix index --embed-all` selects "
                    "every one)")
    index, _ = ensure_index(repo, CONFIG, index_dir=tmp_path / "idx", embedder=FakeEmbedder())
    assert index.dense_state is not None
    assert DenseState(**index.dense_state) == DenseState(  # what the envelope carries
        vectors=BUDGET, total=BUDGET, complete=True, eligible=state["eligible"],
        chunks=state["chunks"], generation=index.dense_state["generation"])


def test_embed_all_reaches_every_eligible_chunk_and_is_kept(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    budgeted = _build(repo, index_dir)
    widened = _build(repo, index_dir, embed_all=True)  # files unchanged: vectors only
    eligible = budgeted["eligible"]
    assert widened == {**budgeted, "vectors": eligible, "total": eligible, "all": True}
    assert coverage_line(widened, BUDGET) == (
        f"dense coverage: {eligible} of {eligible} embeddable chunks have vectors (100.0%; "
        f"{budgeted['chunks']} chunks in all); every one selected (helix index --embed-all)")
    index, _ = ensure_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    assert len(index._dense()) == eligible  # type: ignore[arg-type]
    # kept by later builds (a file changed; the config still says 5) ...
    (repo / "pkg" / "util.py").write_text("def retry_rule(n):\n    return n\n", encoding="utf-8")
    kept = _build(repo, index_dir)
    assert kept["all"] and kept["vectors"] == kept["total"] == kept["eligible"] > BUDGET
    # ... until a forced rebuild, which goes back to the budget
    forced = _build(repo, index_dir, force=True)
    assert forced["total"] == BUDGET and "all" not in forced


def test_embed_all_in_the_background_publishes_the_selection_for_the_worker(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[Path] = []

    def fake_start(store: IndexStore, root: Path, config: HelixConfig) -> int | None:
        started.append(store.directory)
        return None

    monkeypatch.setattr(dense_worker, "start", fake_start)
    index_dir = tmp_path / "idx"
    budgeted = _build(repo, index_dir)
    monkeypatch.setenv("HELIX_HOME", str(tmp_path / "cold_cache"))  # no vector cached
    state = _build(repo, index_dir, embed_all=True, dense="background")
    assert state["all"] and state["total"] == budgeted["eligible"] and not state["complete"]
    assert state["vectors"] == 0 and started == [index_dir.resolve()]
    # the worker's pass (complete_dense) then reaches 100 %
    from indexers.build_dense import complete_dense

    with IndexStore(index_dir).locked():
        done = complete_dense(IndexStore(index_dir), repo, CONFIG, embedder=FakeEmbedder())
    assert done is not None and done["complete"] and done["vectors"] == budgeted["eligible"]
    assert done["all"] and done["eligible"] == budgeted["eligible"]


def test_embed_all_without_embeddings_is_refused(repo: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["index", str(repo), "--embed-all", "--no-embed"], capsys)
    assert code == 2 and err.strip() == "helix: --embed-all does not combine with --no-embed"
