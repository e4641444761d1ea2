"""Incremental builds: no-op, one file changed, settings changes, trees, read-only trees."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helix.core.config import HelixConfig, IndexSettings, load_config
from helix.core.errors import BadPathError
from helix.core.paths import index_dir_for
from helix.core.ports import FakeEmbedder
from helix.core.schemas import Chunk
from indexers.build import build_index, ensure_index, index_status
from tests.index_fixtures import TREE_PATH, write_repo

CONFIG = HelixConfig()


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    return write_repo(tmp_path / "repo")


def test_noop_then_one_file_changed(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    embedder = FakeEmbedder()
    first = build_index(repo, CONFIG, index_dir=index_dir, embedder=embedder)
    assert not first.noop and first.files_parsed == 5
    assert first.embeddings["computed"] == first.embeddings["total"] > 0
    assert embedder.texts_embedded == first.embeddings["computed"]

    again = FakeEmbedder()
    noop = build_index(repo, CONFIG, index_dir=index_dir, embedder=again)
    assert noop.noop and not noop.refreshed and noop.changed_files == ()
    assert noop.files_parsed == 0 and again.calls == 0
    assert noop.index_rev == first.index_rev

    util = repo / "pkg" / "util.py"
    util.write_text(util.read_text() + "\n\ndef jitter(x):\n    \"\"\"Random jitter.\"\"\"\n"
                    "    return retry_policy(x)\n", encoding="utf-8")
    third = FakeEmbedder()
    changed = build_index(repo, CONFIG, index_dir=index_dir, embedder=third)
    assert changed.changed_files == ("pkg/util.py",) and changed.modified == ("pkg/util.py",)
    assert changed.files_parsed == 1
    util_chunks = [c for c in ensure_index(repo, CONFIG, index_dir=index_dir,
                                           embedder=FakeEmbedder())[0].chunks()
                   if c.path == "pkg/util.py"]
    assert changed.tokens["computed"] <= len(util_chunks)
    assert changed.tokens["cached"] == changed.chunks["total"] - changed.tokens["computed"]
    # only new embed texts were computed, the rest came from the shared cache
    assert 0 < changed.embeddings["computed"] == third.texts_embedded < first.embeddings["total"]
    assert changed.embeddings["cached"] > 0
    assert changed.index_rev != first.index_rev


def test_added_and_removed_files(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    (repo / "pkg" / "client.py").unlink()
    (repo / "pkg" / "extra.py").write_text("def extra():\n    return 0\n", encoding="utf-8")
    report = build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    assert report.added == ("pkg/extra.py",) and report.removed == ("pkg/client.py",)
    assert report.files_parsed == 1
    idx, _ = ensure_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    assert not idx.find_definitions("fetch") and idx.find_definitions("extra")
    assert "file:pkg/client.py" not in idx.graph


def test_ensure_index_refreshes_and_says_so(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    idx, report = ensure_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    assert report.refreshed and idx.find_definitions("fetch")
    (repo / "docs" / "guide.md").write_text("# Guide\n\nNew text.\n", encoding="utf-8")
    idx2, report2 = ensure_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    assert report2.refreshed and report2.changed_files == ("docs/guide.md",)
    assert idx2.index_rev != idx.index_rev
    _, report3 = ensure_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    assert report3.noop and not report3.refreshed


def test_settings_change_rebuilds(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    windows = HelixConfig(index=IndexSettings(window_lines=20))
    report = build_index(repo, windows, index_dir=index_dir, embedder=FakeEmbedder())
    assert not report.noop and report.files_parsed == 5
    assert "settings changed" in (report.rebuild_reason or "")
    no_embed = HelixConfig(index=IndexSettings(window_lines=20, embed_enabled=False))
    report = build_index(repo, no_embed, index_dir=index_dir)
    assert not report.noop and report.files_parsed == 0  # parse cache kept
    assert report.embeddings["total"] == 0
    status = index_status(repo, windows, index_dir=index_dir)
    assert not status.fresh and "settings" in (status.problem or "")


def test_force_rebuilds_everything(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    first = build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    forced = build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder(), force=True)
    assert forced.files_parsed == 5 and forced.embeddings["computed"] == 0
    assert forced.index_rev == first.index_rev  # same inputs, same index


def test_deterministic_index_rev(repo: Path, tmp_path: Path) -> None:
    a = build_index(repo, CONFIG, index_dir=tmp_path / "a", embedder=FakeEmbedder())
    b = build_index(repo, CONFIG, index_dir=tmp_path / "b", embedder=FakeEmbedder())
    assert a.index_rev == b.index_rev


def test_trees_setting(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "repo", with_tree=True)
    (root / ".helix.toml").write_text('[helix.index]\ntrees = ["docs/trees/*.json"]\n',
                                      encoding="utf-8")
    config = load_config(root)
    report = build_index(root, config, index_dir=tmp_path / "idx", embedder=FakeEmbedder())
    assert report.chunks["tree_node"] == 2
    idx, _ = ensure_index(root, config, index_dir=tmp_path / "idx", embedder=FakeEmbedder())
    assert {f.path: f.kind for f in idx.files()}[TREE_PATH] == "tree"
    node = f"tree:{TREE_PATH}#retries"
    assert idx.graph.nodes[node]["checklist"]["deterministic"] is True
    assert idx.chunk_for_node(node) is not None
    # the tree is reused from the cache when another file changes
    (root / "pkg" / "extra.py").write_text("X = 1\n", encoding="utf-8")
    again = build_index(root, config, index_dir=tmp_path / "idx", embedder=FakeEmbedder())
    assert again.files_parsed == 1 and again.chunks["tree_node"] == 2
    assert f"tree:{TREE_PATH}#backoff" in ensure_index(
        root, config, index_dir=tmp_path / "idx", embedder=FakeEmbedder())[0].graph


def test_bad_tree_file_is_a_warning(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "repo")
    (root / "trees").mkdir()
    (root / "trees" / "bad.json").write_text('{"nodes": 3}', encoding="utf-8")
    config = HelixConfig(index=IndexSettings(trees=("trees/*.json",)))
    report = build_index(root, config, index_dir=tmp_path / "idx", embedder=FakeEmbedder())
    assert any("bad.json" in w for w in report.warnings)
    assert "tree_node" not in report.chunks


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(BadPathError):
        build_index(tmp_path / "nope", CONFIG)
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(BadPathError):
        build_index(tmp_path / "file", CONFIG)


def test_read_only_tree_and_default_location(repo: Path, helix_home: Path) -> None:
    for path in [repo, *repo.rglob("*")]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        report = build_index(repo, CONFIG, embedder=FakeEmbedder())
        assert report.files_indexed == 5
        assert Path(report.index_dir) == index_dir_for(repo)
        assert Path(report.index_dir).is_relative_to(helix_home)
        assert not any(p.name.startswith("gen-") for p in repo.rglob("*"))
    finally:
        for path in [repo, *repo.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)


def test_index_dir_inside_repo_is_not_indexed(repo: Path) -> None:
    inside = repo / ".helix-index"
    build_index(repo, CONFIG, index_dir=inside, embedder=FakeEmbedder())
    report = build_index(repo, CONFIG, index_dir=inside, embedder=FakeEmbedder())
    assert report.noop and report.files_indexed == 5


def test_status_lists_changes(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    assert not index_status(repo, CONFIG, index_dir=index_dir).exists
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    fresh = index_status(repo, CONFIG, index_dir=index_dir)
    assert fresh.fresh and fresh.size_bytes > 0 and fresh.built_repo_rev == "nogit"
    (repo / "pkg" / "util.py").write_text("Z = 2\n", encoding="utf-8")
    stale = index_status(repo, CONFIG, index_dir=index_dir)
    assert not stale.fresh and stale.modified == ("pkg/util.py",)


def test_noop_never_imports_torch(repo: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from helix.core.config import HelixConfig
        from indexers.build import ensure_index
        idx, report = ensure_index(Path({str(repo)!r}), HelixConfig(),
                                   index_dir=Path({str(index_dir)!r}))
        assert report.noop, report
        idx.search_bm25("retry", 3); idx.find_definitions("fetch"); idx.graph
        heavy = [m for m in ("torch", "sentence_transformers", "litellm") if m in sys.modules]
        print("HEAVY", heavy)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=dict(os.environ), cwd=Path(__file__).parent.parent, check=False)
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stdout


@pytest.mark.usefixtures("cached_builds")
def test_networkx_smoke(tmp_path: Path) -> None:
    """networkx under the evals' configuration: one build a session serves this test and
    tests/test_eval_runner.py's networkx questions (tests/_index_cache.py)."""
    from evals.runner import eval_config
    from tests._index_cache import networkx_tree

    root = networkx_tree(tmp_path)
    config = eval_config(root, {}, no_embed=True)
    report = build_index(root, config, index_dir=tmp_path / "idx")
    assert report.files_indexed > 100 and report.symbols["defs"] > 1000
    assert report.graph_edges["imports"] > 100 and report.graph_edges["calls"] > 500
    idx, again = ensure_index(root, config, index_dir=tmp_path / "idx")
    assert again.noop
    found = idx.find_definitions("shortest_path")
    assert any(d.path == "algorithms/shortest_paths/generic.py" for d in found)
    hits = idx.search_bm25("shortest path between two nodes", 10)
    assert any("shortest_paths" in idx.chunk(h.chunk_id).path for h in hits)


@pytest.mark.slow
def test_real_model_small_refresh_without_torch(repo: Path, tmp_path: Path) -> None:
    """A build that embeds a handful of texts uses the numpy encoder: real vectors, no torch."""
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from helix.core.config import HelixConfig
        from indexers.build import ensure_index
        idx, report = ensure_index(Path({str(repo)!r}), HelixConfig(),
                                   index_dir=Path({str(tmp_path / "idx")!r}))
        assert report.embeddings["computed"] == report.embeddings["total"] > 0, report
        hits = idx.search_dense("how often do we retry?", 3)
        assert hits and hits[0].channel == "dense", hits
        print("TOP", idx.chunk(hits[0].chunk_id).path)
        print("HEAVY", [m for m in ("torch", "sentence_transformers") if m in sys.modules])
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=dict(os.environ), cwd=Path(__file__).parent.parent, check=False)
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stdout


def test_incremental_equals_fresh_build(repo: Path, tmp_path: Path) -> None:
    """Parse cache, token cache and graph rebuild give the index a fresh build gives."""
    build_index(repo, CONFIG, index_dir=tmp_path / "inc", embedder=FakeEmbedder())
    (repo / "pkg" / "util.py").write_text("def retry_policy(n):\n    return n\n",
                                          encoding="utf-8")
    (repo / "docs" / "extra.md").write_text("# Extra\n\nSee `fetch()`.\n", encoding="utf-8")
    incremental = build_index(repo, CONFIG, index_dir=tmp_path / "inc", embedder=FakeEmbedder())
    fresh = build_index(repo, CONFIG, index_dir=tmp_path / "fresh", embedder=FakeEmbedder())
    assert incremental.files_parsed == 2 and fresh.files_parsed == 6
    assert incremental.index_rev == fresh.index_rev


def test_modified_files_update_the_graph_equal_to_a_fresh_build(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Graph updated in place and embed cards of unchanged chunks reused: same index_rev
    (dense vectors included) as a fresh build."""
    from indexers import dense

    build_index(repo, CONFIG, index_dir=tmp_path / "inc", embedder=FakeEmbedder())
    (repo / "pkg" / "util.py").write_text("def retry_rule(n):\n    return n\n", encoding="utf-8")
    (repo / "docs" / "guide.md").write_text("# Guide\n\nSee `retry_rule`.\n", encoding="utf-8")
    carded: list[str] = []
    real_card = dense.card_of

    def counting_card(chunk: Chunk, settings: IndexSettings) -> dense.Card:
        carded.append(chunk.path)
        return real_card(chunk, settings)

    monkeypatch.setattr(dense, "card_of", counting_card)
    incremental = build_index(repo, CONFIG, index_dir=tmp_path / "inc", embedder=FakeEmbedder())
    assert carded and set(carded) == {"pkg/util.py", "docs/guide.md"}
    fresh = build_index(repo, CONFIG, index_dir=tmp_path / "fresh", embedder=FakeEmbedder())
    assert incremental.graph_updated and not fresh.graph_updated
    assert incremental.files_parsed == 2 and incremental.index_rev == fresh.index_rev
    assert incremental.graph_edges == fresh.graph_edges


def test_token_cache_merge_is_canonical() -> None:
    from indexers.token_cache import merge, token_lists

    fresh = merge([["b", "a"], ["c", "a"]], None)
    assert fresh.vocab == ["a", "b", "c"] and token_lists(fresh) == [["b", "a"], ["c", "a"]]
    # reuse row 1 by number, replace row 0 with new tokens
    again = merge([["d"], 1], fresh)
    direct = merge([["d"], ["c", "a"]], None)
    assert token_lists(again) == [["d"], ["c", "a"]]
    assert again.vocab == direct.vocab == ["a", "c", "d"]
    assert again.flat.tolist() == direct.flat.tolist()
    assert again.offsets.tolist() == direct.offsets.tolist() == [0, 1, 3]
    # runs of old rows (in and out of order), no new token: the old vocabulary kept as is
    three = merge([["x", "y"], ["y"], ["z", "x", "x"]], None)
    mixed = merge([2, 0, 1, 2, ["y", "y"]], three)
    assert token_lists(mixed) == [["z", "x", "x"], ["x", "y"], ["y"], ["z", "x", "x"], ["y", "y"]]
    assert mixed.vocab == ["x", "y", "z"]
    assert merge([1], three).vocab == ["y"]
    with pytest.raises(ValueError):
        merge([3], three)


def test_refreshed_index_is_seeded_with_what_reading_gives(tmp_path: Path) -> None:
    """ensure_index hands the refresh's in-memory search structures to the Index (rows and
    the graph are read by key from disk: the builder's copies are not kept); everything
    equals what a new process reads from disk."""
    from indexers.reader import Index
    from indexers.store import IndexStore

    repo = write_repo(tmp_path / "repo", with_tree=True)
    config = load_config(repo, flags={"index.trees": ["docs/trees/*.json"]})
    index_dir = tmp_path / "idx"
    ensure_index(repo, config, index_dir=index_dir, embedder=FakeEmbedder())
    (repo / "pkg" / "util.py").write_text("def retry_rule(n):\n    return n\n", encoding="utf-8")
    seeded, report = ensure_index(repo, config, index_dir=index_dir, embedder=FakeEmbedder(),
                                  query_embedder=FakeEmbedder())
    assert report.refreshed and seeded._cache.keys() >= {"bm25", "dense", "tokens"}
    assert not seeded._cache.keys() & {"chunks", "defs", "refs", "graph", "files", "trees"}
    read = Index.open(IndexStore(index_dir), repo, config.index, FakeEmbedder())
    assert read.index_rev == seeded.index_rev and not read._cache
    assert list(seeded.files()) == list(read.files())
    assert list(seeded.chunks()) == list(read.chunks())
    assert seeded.definitions() == read.definitions() and seeded.refs() == read.refs()
    assert seeded.tree_nodes() == read.tree_nodes() and seeded.tree_nodes()
    assert list(seeded.graph.edges(keys=True)) == list(read.graph.edges(keys=True))
    assert list(seeded.graph.nodes(data=True)) == list(read.graph.nodes(data=True))
    assert seeded.tokens().vocab == read.tokens().vocab
    assert seeded.tokens().flat.tolist() == read.tokens().flat.tolist()
    for query in ("retry rule", "fetch url", "guide"):
        assert seeded.search_bm25(query, 5) == read.search_bm25(query, 5)
        assert seeded.search_dense(query, 5) == read.search_dense(query, 5)
        assert seeded.search_files(query, 5) == read.search_files(query, 5)
    noop_index, noop = ensure_index(repo, config, index_dir=index_dir, embedder=FakeEmbedder())
    assert noop.noop and not noop_index._cache


def test_indexing_code_change_rebuilds(repo: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """An index built by other indexing code is never reused as if current: the no-op check,
    the parse cache and `helix status` all see the code digest."""
    index_dir = tmp_path / "idx"
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    monkeypatch.setattr("indexers.version.index_code_digest", lambda: "sha256:" + "0" * 64)
    status = index_status(repo, CONFIG, index_dir=index_dir)
    assert not status.fresh and "indexing code changed" in (status.problem or "")
    embedder = FakeEmbedder()
    report = build_index(repo, CONFIG, index_dir=index_dir, embedder=embedder)
    assert not report.noop and report.files_parsed == 5
    assert "indexing code changed" in (report.rebuild_reason or "")
    assert embedder.calls == 0  # embeddings are keyed by text: all cached
    assert build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder()).noop


def test_code_digest_follows_the_source(tmp_path: Path) -> None:
    from indexers.version import code_digest_of, index_code_digest

    package = tmp_path / "pkg"
    (package / "queries").mkdir(parents=True)
    (package / "a.py").write_bytes(b"x = 1\n")
    (package / "queries" / "python.scm").write_bytes(b"(function_definition) @def\n")
    first = code_digest_of(package)
    (package / "a.py").write_bytes(b"x = 1\r\n")
    assert code_digest_of(package) == first  # newline convention does not count
    (package / "queries" / "python.scm").write_bytes(b"(class_definition) @def\n")
    assert code_digest_of(package) != first
    (package / "b.txt").write_bytes(b"not code")
    second = code_digest_of(package)
    (package / "b.txt").write_bytes(b"still not code")
    assert code_digest_of(package) == second
    assert index_code_digest() == index_code_digest().lower().strip()
    assert index_code_digest().startswith("sha256:")


def test_file_bm25_is_persisted_refreshed_and_rebuilt_for_old_generations(
        repo: Path, tmp_path: Path) -> None:
    """Whole-file BM25 is a part of the generation, follows an incremental refresh exactly as
    a fresh build, and is built from the token cache for a generation written without it."""
    from indexers.reader import Index
    from indexers.store import DIR_BM25_FILES, IndexStore

    index_dir = tmp_path / "inc"
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    store = IndexStore(index_dir)
    index = Index.open(store, repo, CONFIG.index)
    assert any(rel.startswith(DIR_BM25_FILES + "/") for rel in index.manifest.parts)
    hits = index.search_files("decide retry policy reset", 10)
    assert hits[0][0] == "pkg/util.py" and len({p for p, _ in hits}) == len(hits)
    assert [h[1] for h in hits] == sorted((h[1] for h in hits), reverse=True)
    assert index.search_files("", 5) == [] and index.search_files("retry", 0) == []
    (repo / "pkg" / "client.py").write_text(
        "def fetch(url):\n    return jitter_window(url)\n", encoding="utf-8")
    build_index(repo, CONFIG, index_dir=index_dir, embedder=FakeEmbedder())
    build_index(repo, CONFIG, index_dir=tmp_path / "fresh", embedder=FakeEmbedder())
    inc = Index.open(store, repo, CONFIG.index)
    fresh = Index.open(IndexStore(tmp_path / "fresh"), repo, CONFIG.index)
    assert [p for p, _ in inc.search_files("jitter window", 5)] == ["pkg/client.py"]
    for query in ("jitter window", "retry policy", "guide retries fetch"):
        assert inc.search_files(query, 5) == fresh.search_files(query, 5)
    old_parts = {k: v for k, v in inc.manifest.parts.items()
                 if not k.startswith(DIR_BM25_FILES + "/")}
    old = Index(repo, inc.generation, inc.manifest.model_copy(update={"parts": old_parts}),
                CONFIG.index)
    for query in ("jitter window", "retry policy", "guide retries fetch"):
        assert old.search_files(query, 5) == inc.search_files(query, 5)
