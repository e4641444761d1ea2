"""The hand order's file@1 and span@5 misses grouped into causes, per project (round 30).

    python benchmarks/miss_causes.py --set NAME=FILE_MISSES,QA_MISSES ... [--out FILE]

Reads `benchmarks/file_misses.py` results (each file@1 miss: what leads, where the first gold
file is among the evidence's files, the leading file's best channel and the channels that rank
it above the gold file) and `benchmarks/qa_misses.py` results (each span@5 miss: the stage
that lost it, the gold span's place, the reasons of the items in front) for one set of
questions, and counts every miss under one cause (a question counts once per measure):

  file@1   test_lead      a test module leads a question whose first gold file is code
           code_lead_test code leads a question whose first gold file is a test
           same_package   another code module of the gold file's directory or top package
                          leads, the gold file at 2-10 (by the leading file's best channel)
           doc_example    a documentation or example file leads
           gold_far       the gold file is past the tenth file, a candidate only, or nowhere
           other          anything else
  span@5   span_in_file   the gold file is shown, the cited definition is another one of it
           rank           the gold span is in the evidence past place 5
           pool           no candidate, or cut by compaction or the budget
           other          a gold span the checker could not place

Project names drop the set's style suffix (`arrow_process` -> arrow). Writes per cause the
questions, the projects and the per-project counts.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _result import write_result  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "miss_causes_round30.json"
STYLES = ("_process", "_report", "_hidden", "_tests")


def project(name: str) -> str:
    for suffix in STYLES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def file_cause(row: dict[str, Any]) -> str:
    from indexers.graph import is_test_path

    gold_test = bool(row["gold"]) and is_test_path(row["gold"][0])
    if row["what"] == "test" and not gold_test:
        return "test_lead"
    if gold_test:
        return "code_lead_test"
    if row["gold_at"] in ("later", "pool", "none"):
        return "gold_far"
    if row["what"] in ("sibling", "package"):
        return "same_package"
    if row["what"] in ("doc", "example"):
        return "doc_example"
    return "other"


def span_cause(row: dict[str, Any]) -> str:
    stage = row["stage"]
    if stage in ("span_in_file", "rank"):
        return str(stage)
    if stage in ("pool", "compaction", "budget"):
        return "pool"
    return "other"


def causes(file_misses: dict[str, Any], qa_misses: dict[str, Any]) -> dict[str, Any]:
    table: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    lead_channel: dict[str, Counter[str]] = defaultdict(Counter)
    for name, res in file_misses["results"].items():
        for row in res["rows"]:
            cause = file_cause(row)
            table["file@1"][cause][project(name)] += 1
            lead_channel[cause][row["channel"]] += 1
    for name, res in qa_misses["results"].items():
        for row in res["misses"]:
            if row["stage"] is not None:
                table["span@5"][span_cause(row)][project(name)] += 1
    return {measure: {cause: {"questions": sum(per.values()), "projects": len(per),
                              "per_project": dict(sorted(per.items())),
                              **({"lead_channel": dict(lead_channel[cause].most_common())}
                                 if measure == "file@1" else {})}
                      for cause, per in sorted(by.items())}
            for measure, by in sorted(table.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", required=True,
                        metavar="NAME=FILE_MISSES[+FILE_MISSES],QA_MISSES[+QA_MISSES]")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    out: dict[str, Any] = {}
    for item in args.set:
        name, files = item.split("=", 1)
        fm_paths, qm_paths = (part.split("+") for part in files.split(","))
        fm = {"results": {k: v for p in fm_paths
                          for k, v in json.loads(Path(p).read_text())["results"].items()}}
        qm = {"results": {k: v for p in qm_paths
                          for k, v in json.loads(Path(p).read_text())["results"].items()}}
        out[name] = causes(fm, qm)
        for measure, by in out[name].items():
            print(name, measure, {c: (v["questions"], v["projects"]) for c, v in by.items()})
    write_result(args.out, out, indent=1)


if __name__ == "__main__":
    main()
