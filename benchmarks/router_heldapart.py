"""The continuity router on follow-ups written by someone who never saw its vocabulary: the
held-apart sessions (data/evals/continuity/heldapart_tune.jsonl, heldapart_report.jsonl), run
through the real session path and scored per follow-up (`evals.heldapart`).

    python benchmarks/router_heldapart.py [--out FILE] [--routers rules,meaning]

Each router configuration runs both files in the same run: `rules` is the vocabulary router
alone (`continuity.router = "rules"`: the router before the meaning classifier), `meaning` the
default. Reported per file: lane+transition accuracy (alt readings accepted), accuracy per
expected class and per writing style, silent new searches (a follow-up searched for as a new
question with no announcement of how it was read), announcements. The misses of the reported
file are listed without their texts. Writes benchmarks/results/router_heldapart.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "router_heldapart.json"
FILES = ("heldapart_tune", "heldapart_report")
ROUTERS: dict[str, dict[str, Any]] = {"rules": {"continuity.router": "rules"},
                                      "meaning": {"continuity.router": "meaning"}}


def run_router(name: str) -> dict[str, Any]:
    from evals.heldapart import heldapart_path, run_file, summarize

    out: dict[str, Any] = {}
    for file in FILES:
        started = time.perf_counter()
        rows = list(run_file(heldapart_path(file), ROUTERS[name]))
        out[file] = summarize(rows, with_texts=file != "heldapart_report")
        out[file]["seconds"] = round(time.perf_counter() - started, 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--routers", default=",".join(ROUTERS))
    args = parser.parse_args()
    from evals.heldapart import fresh_home

    os.environ["HELIX_HOME"] = fresh_home()
    result: dict[str, Any] = {"routers": {}}
    for name in args.routers.split(","):
        result["routers"][name] = run_router(name)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps({router: {file: {k: r[k] for k in ("turns", "accuracy",
                                                       "silent_new_searches")}
                               for file, r in files.items()}
                      for router, files in result["routers"].items()}))


if __name__ == "__main__":
    main()
