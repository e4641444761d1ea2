"""Index build benchmark on this interpreter's standard library (engineer C's stage).

Copies `lib/python3.X` (without site-packages, test and __pycache__) to a temp dir, points
HELIX_HOME at a fresh temp dir (cold embedding cache), then in one process measures:
- cold full build, split by stage (walk, parse, bm25, embed, graph, write); files/s, chunks/s;
- rebuild of the same files into a fresh index dir with the embedding cache warm (< 30 s);
- no-op refresh (< 1 s); one-file-changed refresh in process (< 3 s) and as `helix index` in
  a new process (what a user waits for);
- BM25 query p50/p95 over 100 queries through `Index.search_bm25`;
- peak RSS, index size on disk;
- in a fresh process: open + each part's load time, and `ensure_index` (no-op) + the parts a
  question reads (the cold start of `helix ask --dry-run`).
Writes benchmarks/results/index_bench.json. The machine is shared: timings are noisy.

    python benchmarks/index_bench.py [STDLIB_DIR] [--no-embed]
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

from _result import load_average, show, write_result
from _trees import STDLIB_EXCLUDED_TOP, copy_tree

RESULT = Path(__file__).parent / "results" / "index_bench.json"
CHANGED_FILE = "json/encoder.py"
N_QUERIES = 100

LOAD_SCRIPT = """
import json, sys, time
t0 = time.perf_counter()
from pathlib import Path
from helix.core.config import load_config
from indexers.build import ensure_index
from indexers.reader import Index
from indexers.store import IndexStore
root, index_dir, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
config = load_config(root, flags={"index.embed_enabled": sys.argv[4] == "1"})
out = {"import": time.perf_counter() - t0}
t = time.perf_counter()
def lap(name, fn):
    global t
    fn()
    now = time.perf_counter()
    out[name] = round(now - t, 4)
    t = now
if mode == "parts":
    holder = {}
    lap("open", lambda: holder.setdefault("i", Index.open(IndexStore(index_dir), root,
                                                           config.index)))
else:
    holder = {}
    lap("ensure_index_noop", lambda: holder.setdefault("i", ensure_index(
        root, config, index_dir=index_dir)[0]))
idx = holder["i"]
lap("files", idx.files)
lap("chunks", idx.chunks)
lap("chunk_maps", lambda: idx.chunk_for_node("repo:"))
lap("bm25", lambda: idx.search_bm25("json encoder", 5))
lap("defs", lambda: idx.find_definitions("dumps"))
lap("graph", lambda: idx.graph)
lap("dense", lambda: idx._dense())
if mode == "parts":
    lap("refs", lambda: idx.references_to("dumps"))
    lap("tokens", idx.tokens)
out["total"] = round(time.perf_counter() - t0, 4)
print(json.dumps(out))
"""


def _timed(fn: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    value = fn()
    return value, round(time.perf_counter() - start, 4)


def _report(report: Any) -> dict[str, Any]:
    keep = ("files_seen", "files_indexed", "files_skipped", "files_parsed", "chunks", "symbols",
            "graph_nodes", "graph_edges", "graph_updated", "embeddings", "tokens", "seconds",
            "noop")
    data = report.model_dump(mode="json")
    return {**{k: data[k] for k in keep}, "changed_files": len(data["changed_files"])}


def _queries(index: Any) -> list[str]:
    """100 deterministic queries: definition names as words, plus a few prose questions."""
    names = sorted({d.name for d in index.definitions() if len(d.name) > 4})
    step = max(len(names) // (N_QUERIES - 4), 1)
    picked = [n.replace("_", " ") for n in names[::step]][: N_QUERIES - 4]
    return [*picked, "parse a url into components", "json encoder for python objects",
            "thread pool executor shutdown", "read a zip archive member"]


def _fresh_process(root: Path, index_dir: Path, mode: str, embed: bool) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", LOAD_SCRIPT, str(root), str(index_dir), mode,
         "1" if embed else "0"],
        capture_output=True, text=True, check=True, env=dict(os.environ))
    return json.loads(done.stdout.strip().splitlines()[-1])


def _touch(root: Path, n: int) -> None:
    path = root / CHANGED_FILE
    path.write_text(path.read_text("utf-8") + f"\n\ndef bench_added_{n}(value):\n"
                    f'    """Benchmark edit number {n}."""\n    return value\n', "utf-8")


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    embed = "--no-embed" not in sys.argv
    source = Path(args[0]) if args else Path(sysconfig.get_paths()["stdlib"])
    tmp = Path(tempfile.mkdtemp(prefix="helix-index-bench-"))
    os.environ["HELIX_HOME"] = str(tmp / "home")
    from helix.core.config import load_config
    from indexers.build import build_index, ensure_index
    from indexers.store import IndexStore

    root = tmp / "stdlib"
    _, copy_s = _timed(lambda: copy_tree(source, root, STDLIB_EXCLUDED_TOP))
    config = load_config(root, flags={"index.embed_enabled": embed})
    results: dict[str, Any] = {"source": str(source), "copy_s": copy_s, "embed": embed,
                               "cpu_count": os.cpu_count(),
                               "load_avg_start": load_average(None)}
    try:
        cold, cold_s = _timed(lambda: build_index(root, config, index_dir=tmp / "idx-cold"))
        results["cold_build"] = {
            **_report(cold), "wall_s": cold_s,
            "files_per_s": round(cold.files_indexed / cold.seconds["total"], 1),
            "chunks_per_s": round(cold.chunks["total"] / cold.seconds["total"], 1),
            "embedded_per_s": round(cold.embeddings["computed"] / cold.seconds["embed"], 2)
            if cold.embeddings["computed"] else None,
        }
        warm, warm_s = _timed(lambda: build_index(root, config, index_dir=tmp / "idx"))
        results["warm_cache_rebuild"] = {**_report(warm), "wall_s": warm_s}
        noop, noop_s = _timed(lambda: build_index(root, config, index_dir=tmp / "idx"))
        results["noop_refresh"] = {"wall_s": noop_s, "noop": noop.noop,
                                   "seconds": noop.seconds}
        _touch(root, 1)
        one, one_s = _timed(lambda: build_index(root, config, index_dir=tmp / "idx"))
        results["one_file_refresh"] = {**_report(one), "wall_s": one_s}
        _touch(root, 2)
        flag = [] if embed else ["--no-embed"]
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "helix.cli.main", "index", str(root), "--json",
                        "--index-dir", str(tmp / "idx"), *flag],
                       capture_output=True, text=True, check=True, env=dict(os.environ))
        results["one_file_refresh_cli_wall_s"] = round(time.perf_counter() - start, 4)

        index, _ = ensure_index(root, config, index_dir=tmp / "idx")
        queries = _queries(index)
        index.search_bm25(queries[0], 10)  # load once
        latencies = []
        for query in queries:
            _, seconds = _timed(lambda q=query: index.search_bm25(q, 10))
            latencies.append(seconds * 1000)
        results["bm25_query_ms"] = {"n": len(latencies),
                                    "p50": round(statistics.median(latencies), 3),
                                    "p95": round(sorted(latencies)[int(0.95 * len(latencies))
                                                                   - 1], 3)}
        results["peak_rss_mb"] = round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        store = IndexStore(tmp / "idx")
        results["index_size_mb"] = round(store.size_bytes() / 1e6, 2)  # current + previous
        current = store.current_dir()
        results["current_generation_mb"] = round(sum(
            p.stat().st_size for p in current.rglob("*") if p.is_file()) / 1e6, 2) if current else 0
        results["embedding_cache_mb"] = round(sum(
            p.stat().st_size for p in (tmp / "home" / "embeddings").rglob("*") if p.is_file())
            / 1e6, 2) if (tmp / "home" / "embeddings").exists() else 0
        results["fresh_process_part_load_s"] = _fresh_process(root, tmp / "idx", "parts", embed)
        results["fresh_process_ask_path_s"] = _fresh_process(root, tmp / "idx", "ensure",
                                                             embed)
        results["load_avg_end"] = load_average(None)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    write_result(RESULT, results)
    show(results)


if __name__ == "__main__":
    main()
