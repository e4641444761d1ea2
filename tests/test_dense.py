from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from helix.core.config import IndexSettings
from helix.core.hashing import digest
from helix.core.ports import FakeEmbedder
from helix.core.schemas import Chunk
from indexers.dense import DenseIndex, embed_chunks, embed_text_for, select_for_embedding
from indexers.embed_cache import EmbeddingCache


def _chunk(cid: str, text: str, *, kind: str = "code_def", symbol: str | None = "run",
           def_kind: str | None = "function", lang: str | None = "python",
           heading: tuple[str, ...] = (), path: str = "pkg/mod.py") -> Chunk:
    return Chunk(id=cid, path=path, kind=kind, lang=lang, start_line=1,  # type: ignore[arg-type]
                 end_line=text.count("\n") + 1, text=text, content_hash=f"h-{cid}",
                 heading_path=heading, symbol=symbol, def_kind=def_kind,  # type: ignore[arg-type]
                 node_id=f"n-{cid}")


DOCUMENTED = (
    '@wrap\ndef run(a,\n        b=2) -> int:\n    """Run the job.\n\n    Details.\n    """\n'
    "    return a"
)


def test_card_for_documented_python_function() -> None:
    text = embed_text_for(_chunk("c1", DOCUMENTED), IndexSettings())
    assert text == "pkg/mod.py :: run (function)\ndef run(a,\nb=2) -> int:\nRun the job."


def test_card_uses_leading_comment_in_other_languages() -> None:
    go = "// Retry decides the policy.\n// For every request.\nfunc Retry(n int) error {\n}"
    text = embed_text_for(_chunk("c1", go, symbol="Retry", lang="go"), IndexSettings())
    assert text is not None
    assert text.endswith("func Retry(n int) error {\nRetry decides the policy. For every request.")


def test_doc_sections_embed_heading_path_and_text_truncated() -> None:
    chunk = _chunk("d1", "## Install\n" + "word " * 500, kind="doc_section", symbol=None,
                   def_kind=None, lang="markdown", heading=("Guide", "Install"),
                   path="docs/guide.md")
    text = embed_text_for(chunk, IndexSettings(embed_max_chars=120))
    assert text is not None and len(text) == 120
    assert text.startswith("docs/guide.md\nGuide > Install\n## Install")


def test_skipped_kinds_and_private_undocumented_helpers() -> None:
    s = IndexSettings()
    assert embed_text_for(_chunk("m", "x = 1", kind="code_module", symbol=None,
                                 def_kind=None), s) is None
    assert embed_text_for(_chunk("w", "text", kind="text_window", symbol=None,
                                 def_kind=None), s) is None
    assert embed_text_for(_chunk("p", "def _h(x):\n    return x", symbol="A._h",
                                 def_kind="method"), s) is None
    private_doc = 'def _h(x):\n    """Explains."""\n    return x'
    assert embed_text_for(_chunk("p", private_doc, symbol="_h"), s) is not None
    assert embed_text_for(_chunk("q", "def h(x):\n    return x", symbol="h"), s) is not None


def test_selection_priority_cap_and_ties_by_id() -> None:
    chunks = [
        _chunk("z-method", "def m(self):\n    return 1", symbol="A.m", def_kind="method"),
        _chunk("y-doc", "# Title\nbody", kind="doc_section", symbol=None, def_kind=None,
               lang="markdown", heading=("Title",)),
        _chunk("b-func", DOCUMENTED),
        _chunk("a-func", DOCUMENTED.replace("Run the job", "Start")),
        _chunk("c-class", 'class A:\n    """An A."""', symbol="A", def_kind="class"),
        _chunk("module", "x = 1", kind="code_module", symbol=None, def_kind=None),
    ]
    picked = [cid for cid, _ in select_for_embedding(chunks, IndexSettings())]
    # docs, documented classes, documented functions (tie: digest of the id), then the rest
    functions = sorted(["a-func", "b-func"], key=lambda cid: (digest(cid), cid))
    assert picked == ["y-doc", "c-class", *functions, "z-method"]
    capped = select_for_embedding(list(reversed(chunks)), IndexSettings(embed_max_chunks=2))
    assert [cid for cid, _ in capped] == ["y-doc", "c-class"]
    assert select_for_embedding(list(reversed(chunks)), IndexSettings()) == (
        select_for_embedding(chunks, IndexSettings()))
    assert select_for_embedding(chunks, IndexSettings(embed_max_chunks=0)) == []


def test_embed_chunks_uses_cache_and_embeds_only_misses(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "cache")
    embedder = FakeEmbedder(dim=16)
    items = [("c1", "alpha beta"), ("c2", "gamma delta"), ("c3", "alpha beta")]
    seen: list[tuple[int, int]] = []
    ids, vectors, stats = embed_chunks(items, embedder, cache,
                                       progress=lambda d, t: seen.append((d, t)))
    assert ids == ["c1", "c2", "c3"]
    assert vectors.shape == (3, 16) and vectors.dtype == np.float32
    assert np.array_equal(vectors[0], vectors[2])
    assert np.allclose(vectors[1], embedder.embed(["gamma delta"])[0])
    assert stats == {"cached": 0, "computed": 3}
    assert embedder.texts_embedded == 3  # 2 unique texts + the check above
    assert seen[0] == (0, 2) and seen[-1] == (2, 2)

    fresh = FakeEmbedder(dim=16)
    ids2, vectors2, stats2 = embed_chunks([*items, ("c4", "new text")], fresh, cache)
    assert stats2 == {"cached": 3, "computed": 1}
    assert fresh.texts_embedded == 1
    assert np.array_equal(vectors2[:3], vectors)
    assert ids2 == ["c1", "c2", "c3", "c4"]


def test_embed_chunks_keys_by_model(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    embed_chunks([("c1", "alpha")], FakeEmbedder(dim=8), cache)
    other = FakeEmbedder(dim=12)
    _, vectors, stats = embed_chunks([("c1", "alpha")], other, cache)
    assert stats == {"cached": 0, "computed": 1} and vectors.shape == (1, 12)


def test_embed_chunks_empty(tmp_path: Path) -> None:
    ids, vectors, stats = embed_chunks([], FakeEmbedder(dim=8), EmbeddingCache(tmp_path))
    assert ids == [] and vectors.shape == (0, 8) and stats == {"cached": 0, "computed": 0}


def test_cache_threads_write_concurrently(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(20):
                cache.put_many("m", {f"t{n}-{i}": np.full(4, n, dtype=np.float32)})
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    got = cache.get_many("m", [f"t{n}-{i}" for n in range(4) for i in range(20)])
    assert len(got) == 80 and float(got["t3-7"][0]) == 3.0


_WRITER = """
import sys
from pathlib import Path
import numpy as np
from indexers.embed_cache import EmbeddingCache
cache = EmbeddingCache(Path(sys.argv[1]))
tag = sys.argv[2]
for i in range(40):
    cache.put_many("m", {f"{tag}-{i}": np.full(8, i, dtype=np.float32)})
    cache.get_many("m", [f"{tag}-{i}"])
"""


def test_cache_two_processes_write_concurrently(tmp_path: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path), tag],
                              stderr=subprocess.PIPE) for tag in ("p1", "p2")]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    cache = EmbeddingCache(tmp_path)
    assert cache.count("m") == 80
    assert float(cache.get_many("m", ["p2-39"])["p2-39"][0]) == 39.0


def test_corrupt_cache_is_moved_aside_and_recreated(tmp_path: Path) -> None:
    (tmp_path / "embeddings.sqlite").write_bytes(b"this is not a database" * 100)
    cache = EmbeddingCache(tmp_path)
    assert cache.get_many("m", ["x"]) == {}
    cache.put_many("m", {"x": np.ones(4, dtype=np.float32)})
    assert list(cache.get_many("m", ["x"])) == ["x"]
    assert (tmp_path / "embeddings.sqlite.corrupt-0").exists()


def test_cache_corrupted_while_open_recovers(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    cache.put_many("m", {"x": np.ones(4, dtype=np.float32)})
    cache.close()
    (tmp_path / "embeddings.sqlite").write_bytes(b"garbage" * 1000)
    for side in ("embeddings.sqlite-wal", "embeddings.sqlite-shm"):
        (tmp_path / side).unlink(missing_ok=True)
    _, vectors, stats = embed_chunks([("c1", "alpha")], FakeEmbedder(dim=4), cache)
    assert stats == {"cached": 0, "computed": 1} and vectors.shape == (1, 4)


def _unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_dense_index_search_ties_by_id_and_round_trip(tmp_path: Path) -> None:
    ids = ["e", "c", "a", "d", "b"]
    vectors = np.stack([_unit(1, 0), _unit(1, 0), _unit(0, 1), _unit(1, 0), _unit(1, 1)])
    index = DenseIndex.build(ids, vectors)
    hits = index.search(_unit(1, 0), 2)
    assert [h[0] for h in hits] == ["c", "d"]
    assert hits[0][1] == pytest.approx(1.0)
    assert [h[0] for h in index.search(_unit(1, 0), 10)] == ["c", "d", "e", "b", "a"]
    index.save(tmp_path / "dense")
    loaded = DenseIndex.load(tmp_path / "dense")
    assert len(loaded) == 5
    assert loaded.search(_unit(1, 1), 5) == index.search(_unit(1, 1), 5)


def test_dense_index_empty_and_bad_input(tmp_path: Path) -> None:
    empty = DenseIndex.build([], np.zeros((0, 4), dtype=np.float32))
    assert len(empty) == 0 and empty.search(np.ones(4, dtype=np.float32), 3) == []
    empty.save(tmp_path)
    assert len(DenseIndex.load(tmp_path)) == 0
    index = DenseIndex.build(["a"], np.ones((1, 4), dtype=np.float32))
    with pytest.raises(ValueError):
        index.search(np.ones(3, dtype=np.float32), 1)
    with pytest.raises(ValueError):
        DenseIndex.build(["a", "b"], np.ones((1, 4), dtype=np.float32))


def test_dense_with_fake_embedder_ranks_similar_text_first(tmp_path: Path) -> None:
    embedder = FakeEmbedder(dim=64)
    items = [("c1", "retry policy backoff"), ("c2", "json parser errors"),
             ("c3", "graph shortest path")]
    ids, vectors, _ = embed_chunks(items, embedder, EmbeddingCache(tmp_path))
    index = DenseIndex.build(ids, vectors)
    assert index.search(embedder.embed(["json errors"])[0], 1)[0][0] == "c2"


@pytest.mark.parametrize("name", ["dense_vectors.npy", "dense_ids.json"])
@pytest.mark.parametrize("damage", [b"", b"garbage", b"{}"])
def test_dense_damaged_files_raise_value_or_os_error(tmp_path: Path, name: str,
                                                     damage: bytes) -> None:
    DenseIndex.build(["a", "b"], np.eye(2, dtype=np.float32)).save(tmp_path)
    (tmp_path / name).write_bytes(damage)
    with pytest.raises((ValueError, OSError)):
        DenseIndex.load(tmp_path).search(np.ones(2, dtype=np.float32), 1)


def test_card_skips_rust_attributes_and_reads_doc_comments() -> None:
    rust = ("/// A retry budget per host.\n#[derive(Debug, Clone)]\n"
            "pub struct RetryBudget {\n    max: u32,\n}")
    text = embed_text_for(_chunk("r", rust, symbol="RetryBudget", def_kind="struct",
                                 lang="rust"), IndexSettings())
    assert text == ("pkg/mod.py :: RetryBudget (struct)\npub struct RetryBudget {\n"
                    "A retry budget per host.")


def test_select_with_known_cards_equals_without() -> None:
    """The builder passes the previous generation's cards of unchanged chunks: the selection
    is the same, computed cards are added, known ones are not recomputed."""
    from indexers.dense import card_of, select_for_embedding
    from tests.index_fixtures import FILES

    settings = IndexSettings()
    chunks = [c for path, text in sorted(FILES.items()) if path.endswith((".py", ".md"))
              for c in _parse_chunks(path, text, settings)]
    plain = select_for_embedding(chunks, settings)
    cards: dict = {}
    assert select_for_embedding(chunks, settings, cards) == plain and plain
    assert cards == {c.id: card_of(c, settings) for c in chunks}
    known = {cid: card for cid, card in cards.items()}
    first = next(cid for cid, card in known.items() if card is not None)
    known[first] = (known[first][0], known[first][1], "a known card is not recomputed")
    again = select_for_embedding(chunks, settings, known)
    assert dict(again)[first] == "a known card is not recomputed"


def _parse_chunks(path: str, text: str, settings: IndexSettings) -> list:
    from helix.core.hashing import digest
    from helix.core.schemas import FileRecord
    from indexers.parse import parse_file

    python = path.endswith(".py")
    record = FileRecord.model_validate({
        "path": path, "content_hash": digest(text), "size": len(text),
        "kind": "code" if python else "doc", "lang": "python" if python else "markdown"})
    return list(parse_file(record, text, settings).chunks)
