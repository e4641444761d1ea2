"""Recall and false positives of the secret detector on public scanners' samples and real code.

    python benchmarks/secret_recall.py --corpus DIR [--skip-code] [--show N] [--out FILE]
        [--note TEXT]

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

from _result import show, write_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "benchmarks" / "results" / "secret_recall.json"
TARGET_SOURCES = ("gitleaks", "detect-secrets")  # the headline recall; TruffleHog apart
TUNED_PARTS = ("gitleaks", "detect-secrets", "trufflehog-tune")  # what misses were studied on
# TruffleHog's detectors split in two by name, fixed before any miss was looked at: a detector
# is held apart when the first hex digit of digest("trufflehog-split:" + name) is odd. The held
# half is measured, never studied or tuned on.
SPLIT_SOURCE = "trufflehog"
SPLIT_SALT = "trufflehog-split:"


def part_of(record: dict[str, Any]) -> str:
    """The part a record is reported in: its source, TruffleHog's as "-tune" or "-held"."""
    from helix.core.hashing import digest

    if record["source"] != SPLIT_SOURCE:
        return str(record["source"])
    held = int(digest(SPLIT_SALT + record["rule"]).split(":")[1][0], 16) % 2 == 1
    return f"{SPLIT_SOURCE}-{'held' if held else 'tune'}"


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


def _recall(by_source: dict[str, Counter[str]], parts: tuple[str, ...]) -> float | None:
    tp = sum(by_source[p]["tp"] for p in parts if p in by_source)
    caught = sum(by_source[p]["caught"] for p in parts if p in by_source)
    return round(caught / tp, 4) if tp else None


def score(records: list[dict[str, Any]]) -> dict[str, Any]:
    from helix.core.secrets import find_secrets

    by_source: dict[str, Counter[str]] = {}
    misses: list[str] = []
    held_misses: list[str] = []  # counted and kept, never printed: not to be studied
    false_positives: list[str] = []
    started = time.perf_counter()
    for record in records:
        counts = by_source.setdefault(part_of(record), Counter())
        findings = find_secrets(record["text"])
        if record["label"] == "tp":
            spans = [(f.start, f.end) for f in findings]
            counts["tp"] += 1
            if all(covered(record["text"], value, spans) for value in record["secrets"]):
                counts["caught"] += 1
            else:
                held = part_of(record).endswith("-held")
                (held_misses if held else misses).append(f"{record['id']} ({record['rule']})")
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
    return {"sources": sources,
            "recall_gitleaks_detect_secrets": _recall(by_source, TARGET_SOURCES),
            "recall_all": _recall(by_source, tuple(by_source)),
            "fp_flagged": sum(c["fp_flagged"] for c in by_source.values()),
            "fp_samples": sum(c["fp_samples"] for c in by_source.values()),
            "recall_tuned_parts": _recall(by_source, TUNED_PARTS),
            "seconds": round(seconds, 2), "misses": sorted(misses),
            "misses_held": sorted(held_misses),
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
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--note", default="", help="kept in the result beside the command")
    args = parser.parse_args()
    lines = (args.corpus / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    result = score(records)
    summary = {k: v for k, v in result.items()
               if k not in ("misses", "misses_held", "false_positives")}
    show(summary, indent=None)
    for title in ("misses", "false_positives"):
        print(f"{title}: {len(result[title])}")
        for line in result[title][: args.show]:
            print("   ", line)
    if not args.skip_code:
        result["real_code"] = real_code()
        for root in result["real_code"]:
            print(json.dumps({k: v for k, v in root.items() if k != "examples"}))
    command = " ".join(["python", "benchmarks/secret_recall.py", "--corpus", str(args.corpus),
                        *(["--skip-code"] if args.skip_code else [])])
    result["note"] = f"{command}; {args.note}" if args.note else command
    write_result(args.out, result)


if __name__ == "__main__":
    main()
