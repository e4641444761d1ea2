"""Search-side benchmark on this interpreter's standard library (engineer B's stage).

Chunks the stdlib (`lib/python3.X` without site-packages and test dirs) with the real walker and
parser, then in one process measures:
- tokenize time; BM25 build / save / load for Helix's `BM25Index`, bm25s and rank-bm25, and
  `BM25Index.build + save` on ~50k chunks (the corpus twice, distinct ids);
- query p50/p95 over 100 queries for the three engines, and top-10 agreement with rank-bm25;
- BM25 retrieval quality (file hit@5, MRR) on the stdlib and networkx eval suites, for the bare
  chunk text and for `bm25_text_for` (path + qualified name + headings + text);
- how many chunks the dense selection picks (by tier) under the default settings;
- embedding throughput on the same 300 selected texts: bare `SentenceTransformer.encode` vs
  Helix's `embed_chunks` + `SentenceTransformerEmbedder` with an empty cache (alternated, best
  of two each), and the warm-cache pass;
- the numpy query encoder in a fresh process: import + load + first query (median of 3),
  and its cosine against sentence-transformers on those 300 texts.
Writes benchmarks/results/search_bench.json. The machine is shared: timings are noisy.

    python benchmarks/search_bench.py [STDLIB_DIR] [--no-embed]
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _result import load_1m, show, write_result

from helix.core.config import IndexSettings
from helix.core.schemas import Chunk
from indexers.bm25 import BM25Index, RankBM25Reference, bm25_text_for
from indexers.dense import _card, embed_chunks, select_for_embedding
from indexers.embed_cache import EmbeddingCache
from indexers.encoder import SentenceTransformerEmbedder, default_model_path
from indexers.parse import parse_file
from indexers.tokenize import tokenize
from indexers.walker import walk

EXCLUDED = ("site-packages", "test", "tests", "idle_test", "__pycache__")
RESULT = Path(__file__).parent / "results" / "search_bench.json"
N_QUERIES = 100
N_EMBED_TEXTS = 300
TOP_K = 10
QUALITY_DEPTH = 30  # chunks fetched per eval question before folding them into files

NATURAL_QUERIES = [
    "open file with encoding", "parse http headers", "thread pool executor shutdown",
    "json decoder error", "regular expression compile flags", "socket timeout",
    "decimal context rounding", "csv reader dialect", "zip file extract", "email message parser",
    "where is the retry policy decided", "how are environment variables read",
    "subprocess pipe communicate timeout", "logging handler rotate file", "unittest mock patch",
    "asyncio event loop run until complete", "tarfile extract members safely", "ssl certificate",
    "pickle protocol version", "datetime timezone utc offset", "argparse subcommand parser",
    "shutil copy tree ignore", "sqlite3 connection commit", "urllib request proxy",
    "hashlib sha256 digest", "random seed shuffle", "heapq merge sorted", "typing generic alias",
    "dataclass field default factory", "enum flag members", "inspect signature parameters",
    "importlib find spec loader", "pathlib glob pattern", "tempfile named temporary file",
    "textwrap dedent", "string template substitute", "functools lru cache wrapper",
    "contextlib exit stack", "weakref finalize callback", "xml element tree parse",
]


def _bm25_text(chunk: Chunk) -> str:
    return (" / ".join(chunk.heading_path) + "\n" + chunk.text) if chunk.heading_path else (
        chunk.text)


def _queries(chunks: Sequence[Chunk]) -> list[str]:
    names = sorted({c.symbol.rsplit(".", 1)[-1] for c in chunks
                    if c.symbol and re.fullmatch(r"[A-Za-z]\w{5,}", c.symbol.rsplit(".", 1)[-1])})
    step = max(1, len(names) // (N_QUERIES - len(NATURAL_QUERIES)))
    return (NATURAL_QUERIES + names[::step])[:N_QUERIES]


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _latencies(search: Callable[[str], Any], queries: Sequence[str]) -> dict[str, float]:
    times = []
    for query in queries:
        start = time.perf_counter()
        search(query)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {"p50_ms": round(statistics.median(times), 3),
            "p95_ms": round(times[int(0.95 * (len(times) - 1))], 3)}


def _overlap(a: Sequence[tuple[str, float]], b: Sequence[tuple[str, float]]) -> float:
    """Shared top-10 ids, scaled to 10 when a query has fewer than 10 matching chunks."""
    both = len({x for x, _ in a} & {x for x, _ in b})
    most = max(len(a), len(b))
    return TOP_K * both / most if most else float(TOP_K)


def bench_bm25(chunks: Sequence[Chunk], queries: Sequence[str], tmp: Path) -> dict[str, Any]:
    import bm25s

    ids = [c.id for c in chunks]
    token_lists, t_tok = _timed(lambda: [tokenize(_bm25_text(c)) for c in chunks])
    out: dict[str, Any] = {"chunks": len(chunks), "tokens": sum(map(len, token_lists)),
                           "tokenize_s": round(t_tok, 3)}
    helix, t_build = _timed(lambda: BM25Index.build(ids, token_lists))
    _, t_save = _timed(lambda: helix.save(tmp / "helix"))
    loaded, t_load = _timed(lambda: BM25Index.load(tmp / "helix"))
    okapi = BM25Index.build(ids, token_lists, idf="okapi")
    ref, t_ref = _timed(lambda: RankBM25Reference.build(ids, token_lists))

    def build_bm25s() -> Any:
        model = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
        model.index(token_lists, show_progress=False)
        return model

    b25, t_b25 = _timed(build_bm25s)
    _, t_b25_save = _timed(lambda: b25.save(str(tmp / "bm25s")))
    _, t_b25_load = _timed(lambda: bm25s.BM25.load(str(tmp / "bm25s"), mmap=True))

    def bm25s_search(query: str) -> list[tuple[str, float]]:
        tokens = [t for t in tokenize(query) if t in b25.vocab_dict]
        if not tokens:
            return []
        docs, scores = b25.retrieve([tokens], k=TOP_K, show_progress=False, n_threads=1)
        return [(ids[int(d)], float(s)) for d, s in zip(docs[0], scores[0], strict=True)
                if s > 0]

    agreement: dict[str, list[float]] = {"helix": [], "helix_okapi": [], "bm25s": []}
    for query in queries:
        reference = ref.search(query, TOP_K)
        agreement["helix"].append(_overlap(loaded.search(query, TOP_K), reference))
        agreement["helix_okapi"].append(_overlap(okapi.search(query, TOP_K), reference))
        agreement["bm25s"].append(_overlap(bm25s_search(query), reference))
    out["engines"] = {
        "helix": {"build_s": round(t_build, 3), "save_s": round(t_save, 3),
                  "load_s": round(t_load, 3),
                  **_latencies(lambda q: loaded.search(q, TOP_K), queries)},
        "bm25s": {"build_s": round(t_b25, 3), "save_s": round(t_b25_save, 3),
                  "load_s": round(t_b25_load, 3), **_latencies(bm25s_search, queries)},
        "rank_bm25": {"build_s": round(t_ref, 3),
                      **_latencies(lambda q: ref.search(q, TOP_K), queries)},
    }
    out["top10_agreement_with_rank_bm25"] = {
        name: round(sum(v) / len(v), 2) for name, v in agreement.items()}
    # ~50k chunks: the corpus twice (distinct ids), as a large repository's refresh would see
    big_ids = ids + [f"{i}~2" for i in ids]
    big_tokens = token_lists + token_lists
    big, t_big = _timed(lambda: BM25Index.build(big_ids, big_tokens))
    _, t_big_save = _timed(lambda: big.save(tmp / "big"))
    out["build_save_large"] = {"chunks": len(big_ids), "build_s": round(t_big, 3),
                               "save_s": round(t_big_save, 3),
                               "build_plus_save_s": round(t_big + t_big_save, 3)}
    return out


def _file_hits(chunks: Sequence[Chunk], cases: Sequence[dict[str, Any]],
               text_of: Callable[[Chunk], str]) -> dict[str, float]:
    """File-level hit@5 and MRR of BM25 chunk search (chunks folded to their files)."""
    path_of = {c.id: c.path for c in chunks}
    index = BM25Index.build([c.id for c in chunks], [tokenize(text_of(c)) for c in chunks])
    hit = rr = 0.0
    for case in cases:
        files = set(case["expect"]["files"])
        ranked: list[str] = []
        for chunk_id, _ in index.search(case["question"], QUALITY_DEPTH):
            if path_of[chunk_id] not in ranked:
                ranked.append(path_of[chunk_id])
        hit += bool(files & set(ranked[:5]))
        rr += next((1.0 / r for r, p in enumerate(ranked, 1) if p in files), 0.0)
    return {"hit@5": round(hit / len(cases), 3), "mrr": round(rr / len(cases), 3)}


def bench_bm25_quality(suites: dict[str, tuple[Sequence[Chunk], Path]]) -> dict[str, Any]:
    """Chunk text alone vs `bm25_text_for` (path + qualname + headings + text)."""
    out: dict[str, Any] = {}
    for name, (chunks, suite) in sorted(suites.items()):
        cases = [json.loads(line) for line in suite.read_text("utf-8").splitlines() if line]
        out[name] = {"cases": len(cases), "chunk_text": _file_hits(chunks, cases, _bm25_text),
                     "bm25_text_for": _file_hits(chunks, cases, bm25_text_for)}
    return out


def _chunks_of(root: Path, settings: IndexSettings) -> list[Chunk]:
    walked = walk(root, settings)
    return sorted((c for item in walked.files
                   for c in parse_file(item.record, item.text, settings).chunks),
                  key=lambda c: (c.path, c.start_line, c.id))


def bench_selection(chunks: Sequence[Chunk], settings: IndexSettings) -> dict[str, Any]:
    tiers: Counter[str] = Counter()
    for chunk in chunks:
        _, tier = _card(chunk, settings)
        tiers["skipped" if tier is None else f"tier{tier}"] += 1
    picked = select_for_embedding(chunks, settings)
    return {"eligible_by_tier": dict(sorted(tiers.items())), "selected": len(picked),
            "embed_max_chunks": settings.embed_max_chunks,
            "mean_chars": round(sum(len(t) for _, t in picked) / max(len(picked), 1), 1)}


_COLD = """
import time, sys
t0 = time.perf_counter()
from helix.core.config import IndexSettings
from indexers.encoder import query_embedder
enc = query_embedder(IndexSettings())
t1 = time.perf_counter()
enc.embed(["where is the retry policy decided?"])
t2 = time.perf_counter()
enc.embed(["how is the http connection pool sized?"])
t3 = time.perf_counter()
print(t1 - t0, t2 - t0, t3 - t2, "torch" in sys.modules)
"""


def bench_cold_encoder() -> dict[str, Any]:
    runs = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", _COLD], capture_output=True, text=True,
                             check=True).stdout.split()
        runs.append((float(out[0]), float(out[1]), float(out[2]), out[3] == "True"))
    return {"import_load_s_median": round(statistics.median(r[0] for r in runs), 3),
            "import_load_first_query_s_median": round(statistics.median(r[1] for r in runs), 3),
            "warm_query_ms_median": round(statistics.median(r[2] for r in runs) * 1000, 1),
            "torch_imported": any(r[3] for r in runs)}


class _TimedEmbedder:
    """Forwards to an embedder, adding up the seconds spent inside the model."""

    def __init__(self, inner: SentenceTransformerEmbedder) -> None:
        self.inner = inner
        self.model_s = 0.0

    @property
    def model_key(self) -> str:
        return self.inner.model_key

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors, seconds = _timed(lambda: self.inner.embed(texts))
        self.model_s += seconds
        return vectors


def bench_embedding(items: Sequence[tuple[str, str]], tmp: Path) -> dict[str, Any]:
    from indexers.encoder import NumpyMiniLMEncoder

    settings = IndexSettings()
    texts = [text for _, text in items]
    embedder = SentenceTransformerEmbedder.from_settings(settings)
    model, t_load = _timed(embedder._load)  # import sentence_transformers + load, not counted
    model.encode(texts[:8], batch_size=settings.embed_batch_size)  # warm-up
    bare_times, ours_times, outside_model = [], [], []
    bare_vectors = ours = np.zeros(0)
    for attempt in range(2):
        bare_vectors, t_bare = _timed(lambda: model.encode(
            texts, batch_size=settings.embed_batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False))
        bare_times.append(t_bare)
        cache = EmbeddingCache(tmp / f"cache{attempt}")
        timed = _TimedEmbedder(embedder)
        (_, ours, stats), t_ours = _timed(
            lambda cache=cache, timed=timed: embed_chunks(items, timed, cache))  # type: ignore[misc]
        ours_times.append(t_ours)
        outside_model.append(t_ours - timed.model_s)
        assert stats["computed"] == len(items)
    (_, _, warm_stats), t_warm = _timed(lambda: embed_chunks(items, embedder, cache))
    bare, mine = min(bare_times), min(ours_times)
    numpy_vectors, t_numpy = _timed(
        lambda: NumpyMiniLMEncoder(default_model_path(settings)).embed(texts))
    cosines = (numpy_vectors * bare_vectors).sum(axis=1)
    return {
        "texts": len(texts), "mean_chars": round(sum(map(len, texts)) / len(texts), 1),
        "st_import_and_load_s": round(t_load, 2),
        "bare_encode_s": [round(t, 2) for t in bare_times],
        "helix_embed_chunks_s": [round(t, 2) for t in ours_times],
        "bare_texts_per_s": round(len(texts) / bare, 1),
        "helix_texts_per_s": round(len(texts) / mine, 1),
        "overhead_pct": round((mine - bare) / bare * 100, 1),
        # cache lookups, hashing, ordering: Helix's own cost, immune to the machine's noise
        "helix_outside_model_s": [round(t, 3) for t in outside_model],
        "helix_outside_model_pct": round(min(outside_model) / bare * 100, 2),
        "max_abs_diff_vs_bare": float(np.abs(ours - bare_vectors).max()),
        "warm_cache_s": round(t_warm, 3), "warm_cache_stats": warm_stats,
        "numpy_encoder_min_cosine_vs_st": round(float(cosines.min()), 6),
        "numpy_encoder_texts_per_s": round(len(texts) / t_numpy, 1),
    }


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    source = Path(args[0]) if args else Path(sysconfig.get_paths()["stdlib"])
    settings = IndexSettings()
    result: dict[str, Any] = {"source": str(source), "note": "2-core machine shared by 8 "
                              "engineers; one run; timings are noisy",
                              "loadavg_1min_start": load_1m()}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        root = tmp / "stdlib"
        shutil.copytree(source, root, symlinks=True, ignore=shutil.ignore_patterns(*EXCLUDED))
        chunks = _chunks_of(root, settings)
        queries = _queries(chunks)
        result["queries"] = len(queries)
        result["bm25"] = bench_bm25(chunks, queries, tmp)
        import networkx

        evals = Path(__file__).resolve().parent.parent / "data" / "evals"
        nx_chunks = _chunks_of(Path(networkx.__file__).parent, settings)
        result["bm25_quality"] = bench_bm25_quality({
            "stdlib_bench": (chunks, evals / "stdlib_bench.jsonl"),
            "networkx": (nx_chunks, evals / "networkx.jsonl")})
        result["dense_selection"] = bench_selection(chunks, settings)
        result["numpy_encoder_cold"] = bench_cold_encoder()
        if "--no-embed" not in sys.argv:
            picked = select_for_embedding(chunks, settings)
            step = max(1, len(picked) // N_EMBED_TEXTS)
            result["embedding"] = bench_embedding(picked[::step][:N_EMBED_TEXTS], tmp)
    result["loadavg_1min_end"] = load_1m()
    write_result(RESULT, result)
    show(result)


if __name__ == "__main__":
    main()
