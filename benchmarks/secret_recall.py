"""Recall and false positives of the secret detector on public scanners' samples and real code.

    python benchmarks/secret_recall.py --corpus DIR [--skip-code] [--show N]

DIR holds corpus.jsonl as `benchmarks/secret_corpus_extract.py` writes it. A true positive is
caught when every character of every occurrence of each of its secrets lies inside a span
`find_secrets` returns, that is when `redact_text` masks the whole value (a finding elsewhere
in the sample, or half the value masked, is a miss). A false-positive sample (a scanner's `fps`)
counts when anything at all is found in it. Real code: the spans found in the installed
networkx package and the standard library (`redaction_scan.scan`).

Writes benchmarks/results/secret_recall.json: recall per source and overall, the ids and rules
of every miss and every false-positive sample (never their text: the corpus is not ours to
commit), and the real-code spans (path:line kind).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "benchmarks" / "results" / "secret_recall.json"
TARGET_SOURCES = ("gitleaks", "detect-secrets")  # the headline recall; TruffleHog apart


def covered(text: str, value: str, spans: list[tuple[int, int]]) -> bool:
    start = text.find(value)
    if start == -1:
        return False
    while start != -1:
        end = start + len(value)
        at = start
        for s, e in spans:  # sorted, not overlapping
            if s <= at < e:
                at = e
            if at >= end:
                break
        if at < end:
            return False
        start = text.find(value, start + 1)
    return True


def score(records: list[dict[str, Any]]) -> dict[str, Any]:
    from helix.core.secrets import find_secrets

    by_source: dict[str, Counter[str]] = {}
    misses: list[str] = []
    false_positives: list[str] = []
    started = time.perf_counter()
    for record in records:
        counts = by_source.setdefault(record["source"], Counter())
        findings = find_secrets(record["text"])
        if record["label"] == "tp":
            spans = [(f.start, f.end) for f in findings]
            counts["tp"] += 1
            if all(covered(record["text"], value, spans) for value in record["secrets"]):
                counts["caught"] += 1
            else:
                misses.append(f"{record['id']} ({record['rule']})")
        else:
            counts["fp_samples"] += 1
            if findings:
                counts["fp_flagged"] += 1
                kinds = ",".join(sorted({f.kind for f in findings}))
                false_positives.append(f"{record['id']} ({record['rule']}) {kinds}")
    seconds = time.perf_counter() - started
    sources = {name: {"tp": c["tp"], "caught": c["caught"],
                      "recall": round(c["caught"] / c["tp"], 4) if c["tp"] else None,
                      "fp_samples": c["fp_samples"], "fp_flagged": c["fp_flagged"]}
               for name, c in sorted(by_source.items())}
    target_tp = sum(by_source[s]["tp"] for s in TARGET_SOURCES if s in by_source)
    target_caught = sum(by_source[s]["caught"] for s in TARGET_SOURCES if s in by_source)
    all_tp = sum(c["tp"] for c in by_source.values())
    all_caught = sum(c["caught"] for c in by_source.values())
    return {"sources": sources,
            "recall_gitleaks_detect_secrets": round(target_caught / target_tp, 4)
            if target_tp else None,
            "recall_all": round(all_caught / all_tp, 4) if all_tp else None,
            "fp_flagged": sum(c["fp_flagged"] for c in by_source.values()),
            "fp_samples": sum(c["fp_samples"] for c in by_source.values()),
            "seconds": round(seconds, 2), "misses": sorted(misses),
            "false_positives": sorted(false_positives)}


def real_code() -> list[dict[str, Any]]:
    import sysconfig

    import networkx

    from benchmarks.redaction_scan import scan

    return [scan(Path(networkx.__file__).parent), scan(Path(sysconfig.get_paths()["stdlib"]))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--skip-code", action="store_true", help="no real-code scan")
    parser.add_argument("--show", type=int, default=20)
    args = parser.parse_args()
    lines = (args.corpus / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    result = score(records)
    summary = {k: v for k, v in result.items() if k not in ("misses", "false_positives")}
    print(json.dumps(summary, sort_keys=True))
    for title in ("misses", "false_positives"):
        print(f"{title}: {len(result[title])}")
        for line in result[title][: args.show]:
            print("   ", line)
    if not args.skip_code:
        result["real_code"] = real_code()
        for root in result["real_code"]:
            print(json.dumps({k: v for k, v in root.items() if k != "examples"}))
    OUT.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
