"""The natural-question dev set: `helix eval qa` on SWE-QA's tuning repositories, one run.

    python benchmarks/qa_dev.py --swe-qa DIR --repo reflex=DIR --repo sqlfluff=DIR \\
        --repo streamlink=DIR --repo shiro=DIR --repo strata=DIR [--embed] [--out FILE] \\
        [--candidate-config TOML]

DIR for --swe-qa is a clone or bare snapshot of peng-weihan/SWE-QA (its Benchmark/NAME.jsonl
are read at HEAD); each --repo is a clone or bare snapshot of that project. The commits are the
benchmark's own (repo_with_version.txt). Repositories reserved for checks run elsewhere are
never listed here. Writes benchmarks/results/qa_dev.json (summary per repository, the
per-question rows) and prints one line per repository.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from _result import write_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "qa_dev.json"
# name -> (the benchmark's file under Benchmark/, the pinned commit). fineract's pinned commit
# (f193bbb) is not in the public snapshot, so it is left out.
DEV = {"reflex": ("reflex.jsonl", "fe0f946"), "sqlfluff": ("sqlfluff.jsonl", "db9801b"),
       "streamlink": ("streamlink.jsonl", "ab1f365"), "shiro": ("java/shiro.jsonl", "4102f1f"),
       "strata": ("java/Strata.jsonl", "ae28264")}


def _questions(swe_qa: Path, name: str, file: str, into: Path) -> Path:
    data = subprocess.run(["git", "-C", str(swe_qa), "show", f"HEAD:Benchmark/{file}"],
                          capture_output=True, check=True).stdout
    target = into / f"{name}.jsonl"
    target.write_bytes(data)
    return target


def _share(rows: list[dict], key: str, k: int | None = None) -> float | None:
    if not rows:
        return None
    hits = [r[key] is True or (k is not None and r[key] is not None and r[key] <= k)
            for r in rows]
    return round(sum(hits) / len(rows), 4)


def _pooled(results: dict) -> dict:
    """Every repository's questions as one set (each question counts once)."""
    cases = [c for r in results.values() for c in r["cases"] if not c.get("error")]
    spans = [c for c in cases if c["gold_spans"]]
    symbols = [c for c in cases if c["gold_symbols"]]
    plain = [c for c in cases if not c["identifier"]]
    return {"questions": len(cases),
            "helix": {"file@1": _share(cases, "helix_file_rank", 1),
                      "file@5": _share(cases, "helix_file_rank", 5),
                      "span@5": _share(spans, "helix_span_rank", 5),
                      "symbol@5": _share(symbols, "helix_symbol_rank", 5),
                      "recall": _share(spans, "helix_recall"),
                      "no_identifier_file@1": _share(plain, "helix_file_rank", 1)},
            "bm25_files": {"file@1": _share(cases, "bm25_file_rank", 1),
                           "file@5": _share(cases, "bm25_file_rank", 5),
                           "no_identifier_file@1": _share(plain, "bm25_file_rank", 1)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swe-qa", type=Path, required=True)
    parser.add_argument("--repo", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--embed", action="store_true")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--candidate-config", metavar="TOML",
                        help="settings to try (as `helix eval qa --candidate-config`)")
    args = parser.parse_args()
    repos = dict(item.split("=", 1) for item in args.repo)
    from evals.cli.run_common import candidate_overrides
    from evals.qa.run import run_qa

    overrides = candidate_overrides(args.candidate_config)

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (file, rev) in DEV.items():
            if name not in repos:
                continue
            questions = _questions(args.swe_qa, name, file, Path(tmp))
            result = run_qa(questions, Path(repos[name]), rev=rev, no_embed=not args.embed,
                            overrides=overrides)
            results[name] = result
            summary = result["summary"]
            print(json.dumps({"repo": name, "questions": summary["questions"],
                              "helix": summary["helix"], "bm25": summary["bm25_files"]}))
    pooled = _pooled(results)
    print(json.dumps({"pooled": pooled}))
    payload = {"embed": args.embed, "pooled": pooled, "results": results}
    write_result(args.out, payload, indent=1)


if __name__ == "__main__":
    main()
