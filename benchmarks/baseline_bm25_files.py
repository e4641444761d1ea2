"""The plain BM25-over-whole-files baseline on an eval suite (default: networkx).

    python benchmarks/baseline_bm25_files.py [SUITE] [--helix RESULT.json]

Ranks whole files with rank-bm25 (simple lowercase `\\w+` tokens, no chunks, symbols, graph or
embeddings) and scores file_hit@1/3/5/10 and MRR on the suite's cases with expected files.
`helix eval` computes the same baseline in the same run and prints it next to Helix's numbers;
with `--helix` this script adds Helix's numbers from a saved `helix eval --out` result.
Writes benchmarks/results/baseline_bm25_files.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from _result import show, write_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    from evals.runner import bm25_files_report, resolve_repo
    from evals.suites import load_suite

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("suite", nargs="?", default="networkx")
    parser.add_argument("--helix", help="a `helix eval --out` JSON result to compare with")
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/baseline_bm25_files.json"))
    args = parser.parse_args()
    suite = load_suite(args.suite)
    result: dict[str, object] = {"suite": suite.name,
                                 "bm25_files": bm25_files_report(suite.cases, resolve_repo)}
    if args.helix:
        saved = json.loads(Path(args.helix).read_text(encoding="utf-8"))
        result["helix"] = saved["summary"].get(suite.name, {}).get("helix_vs_bm25_files")
    write_result(args.out, result)
    shown = dict(result)
    shown["bm25_files"] = {k: v for k, v in result["bm25_files"].items()  # type: ignore[union-attr]
                           if k != "ranks"}
    show(shown)


if __name__ == "__main__":
    main()
