"""The natural-question validation set: `helix eval qa` over data/evals/qa_validation/, the hand
order and each candidate configuration in one run.

    python benchmarks/qa_validation.py --mirrors DIR [--candidate NAME=TOML ...] [--only NAME ...]
        [--embed] [--out FILE]

The set (data/evals/qa_validation/manifest.json, each file checked against its digest) is
questions in SWE-QA's format written by people who never saw Helix about validation-split
projects; gold is read from each answer as SWE-QA dev's is (`evals.qa.gold.derive_gold`: here
the fenced blocks' START:END:path info strings and the backticked names defined in those
files). Each project's tree is written at the commit its answers cite and asked under the
default configuration (questions in the hand order: the baseline), then under each candidate,
on the same index. DIR holds the snapshots (DIR/<owner>+<name>/repo). Writes
benchmarks/results/qa_validation.json: per configuration, qa_dev.py's shape (pooled shares,
per-project results with their per-question rows), the questions right per project
(`qa_gate.per_repo`) and each candidate's comparison with the hand order (`qa_gate.decide`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from _result import load_1m, write_result
from qa_dev import _pooled
from qa_gate import decide, per_repo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "qa_validation.json"
MANIFEST = ROOT / "data" / "evals" / "qa_validation" / "manifest.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--candidate", action="append", default=[], metavar="NAME=TOML",
                        help="a configuration to try beside the hand order (repeatable)")
    parser.add_argument("--only", nargs="*", default=None, metavar="NAME")
    parser.add_argument("--list", type=Path, default=MANIFEST, metavar="MANIFEST")
    parser.add_argument("--embed", action="store_true")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    from evals.cli.run_common import candidate_overrides
    from evals.corpus.qa_cases import load_question_list
    from evals.corpus.repos import mirror_dir
    from evals.qa.run import run_qa

    configs: dict[str, dict] = {"hand": {}}
    for item in args.candidate:
        name, _, toml = item.partition("=")
        if not name or not toml or name in configs:
            parser.error(f"--candidate {item!r}: NAME=TOML, each name once, not 'hand'")
        configs[name] = candidate_overrides(toml)
    entries = [e for e in load_question_list(args.list)
               if args.only is None or e.name in args.only]
    results: dict[str, dict[str, dict]] = {name: {} for name in configs}
    loads = [load_1m()]
    for entry in entries:
        repo = mirror_dir(args.mirrors, entry.source)
        for name, overrides in configs.items():
            result = run_qa(args.list.parent / entry.file, repo, rev=entry.revision,
                            no_embed=not args.embed, overrides=overrides)
            results[name][entry.name] = result
            print(json.dumps({"config": name, "project": entry.name,
                              "helix": result["summary"]["helix"]}), flush=True)
        loads.append(load_1m())
    counts = {name: per_repo({"results": res}) for name, res in results.items()}
    payload = {"embed": args.embed, "projects": [e.name for e in entries],
               "load_1m": [min(loads), max(loads)],
               "configs": {name: {"pooled": _pooled(res), "results": res,
                                  "counts": counts[name]} for name, res in results.items()},
               "against_hand": {name: decide(counts["hand"], counts[name])
                                for name in configs if name != "hand"}}
    for name in configs:
        print(json.dumps({"config": name, "pooled": counts[name]["pooled"]}))
    write_result(args.out, payload, indent=1)


if __name__ == "__main__":
    main()
