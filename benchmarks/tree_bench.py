"""Tree JSON parsing cost against the file's size: linear, measured (issue 28).

For trees of 1,000 to 28,000 nodes (compact JSON; 28,000 nodes stay under 1 MiB), as a binary
tree and as a chain (the chain with the depth bound lifted, to time the parse itself), times
`parse_tree_file` + `containment_edges` and, as the baseline in the same run, `json.loads` of
the same text. Linear parsing keeps `ratio` (parse / json.loads) flat as the size grows, and
the growth exponent between the smallest and the largest size near 1 (a quadratic parse: 2).
Then indexes a repository holding the 28,000-node tree (embeddings off) end to end. Best of
`--repeat` runs. Writes benchmarks/results/tree_bench.json.

    python benchmarks/tree_bench.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _result import load_1m, show, write_result

from helix.core.config import HelixConfig, IndexSettings
from indexers.trees import containment_edges, parse_tree_file

RESULT = Path(__file__).parent / "results" / "tree_bench.json"
SIZES = (1_000, 2_000, 4_000, 8_000, 16_000, 28_000)
SHAPES = ("binary", "chain")


def tree_text(count: int, shape: str) -> str:
    nodes = []
    for i in range(count):
        kids = ([i + 1] if i + 1 < count else []) if shape == "chain" else [
            j for j in (2 * i + 1, 2 * i + 2) if j < count]
        nodes.append({"id": f"{i:x}", "children": [f"{j:x}" for j in kids]})
    return json.dumps({"version": 1, "rootId": "0", "nodes": nodes}, separators=(",", ":"))


def best_of(repeat: int, call: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return min(times)


def _parse(text: str) -> None:
    _, nodes = parse_tree_file("t.json", text, max_nodes=None, max_depth=None)
    containment_edges(nodes)


def measure_shape(shape: str, repeat: int) -> dict[str, Any]:
    rows = []
    for size in SIZES:
        text = tree_text(size, shape)
        parse_s = best_of(repeat, lambda text=text: _parse(text))  # type: ignore[misc]
        json_s = best_of(repeat, lambda text=text: json.loads(text))  # type: ignore[misc]
        rows.append({"nodes": size, "bytes": len(text.encode("utf-8")),
                     "parse_s": round(parse_s, 4), "json_loads_s": round(json_s, 5),
                     "ratio": round(parse_s / json_s, 1)})
    first, last = rows[0], rows[-1]
    exponent = (math.log(last["parse_s"] / first["parse_s"])
                / math.log(last["nodes"] / first["nodes"]))
    return {"sizes": rows, "growth_exponent": round(exponent, 2)}


def index_repo(repeat: int) -> dict[str, Any]:
    from indexers.build import build_index

    config = HelixConfig(index=IndexSettings(embed_enabled=False))
    times, report = [], None
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp) / "repo"
            (repo / "trees").mkdir(parents=True)
            (repo / "trees" / "big.json").write_text(tree_text(SIZES[-1], "binary"),
                                                     encoding="utf-8")
            started = time.perf_counter()
            report = build_index(repo, config, index_dir=Path(tmp) / "index")
            times.append(time.perf_counter() - started)
    assert report is not None
    return {"nodes": SIZES[-1], "index_s": round(min(times), 3),
            "tree_node_chunks": report.chunks.get("tree_node", 0),
            "seconds": report.seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    result = {"shapes": {shape: measure_shape(shape, args.repeat) for shape in SHAPES},
              "index_28000_nodes": index_repo(args.repeat),
              "repeat": args.repeat, "load_average_1m": load_1m()}
    write_result(RESULT, result)
    show(result)


if __name__ == "__main__":
    main()
