"""The natural-question dev set: `helix eval qa` on SWE-QA's tuning repositories, one run.

    python benchmarks/qa_dev.py --swe-qa DIR --repo reflex=DIR --repo sqlfluff=DIR \\
        --repo streamlink=DIR [--embed]

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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "qa_dev.json"
DEV = {"reflex": "fe0f946", "sqlfluff": "db9801b", "streamlink": "ab1f365"}


def _questions(swe_qa: Path, name: str, into: Path) -> Path:
    data = subprocess.run(["git", "-C", str(swe_qa), "show", f"HEAD:Benchmark/{name}.jsonl"],
                          capture_output=True, check=True).stdout
    target = into / f"{name}.jsonl"
    target.write_bytes(data)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swe-qa", type=Path, required=True)
    parser.add_argument("--repo", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--embed", action="store_true")
    args = parser.parse_args()
    repos = dict(item.split("=", 1) for item in args.repo)
    from evals.qa.run import run_qa

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, rev in DEV.items():
            if name not in repos:
                continue
            questions = _questions(args.swe_qa, name, Path(tmp))
            result = run_qa(questions, Path(repos[name]), rev=rev, no_embed=not args.embed)
            results[name] = result
            summary = result["summary"]
            print(json.dumps({"repo": name, "questions": summary["questions"],
                              "helix": summary["helix"], "bm25": summary["bm25_files"]}))
    OUT.write_text(json.dumps({"embed": args.embed, "results": results}, indent=1,
                              sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
