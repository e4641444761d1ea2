"""TruffleHog's detector pattern tests as corpus records (benchmark tool; reads a snapshot,
runs nothing of it).

Each `pkg/detectors/<name>/<name>_test.go` holds a `Test<Name>_Pattern` function with a table
`tests := []struct{name, input string; want []string}{...}`: an input text and the raw secrets
the detector must report. The table is evaluated with `go_literals`. A case with a non-empty
`want` is a true positive; its secrets are the wanted values found in the input (a value the
detector builds from two parts, `id:secret`, counts by its parts). The cases with an empty
`want` are kept out: they are mostly near-misses of the same shape (a character changed), so
masking them is no false positive of a redactor.

    records(root) -> (records, stats)
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.go_literals import (
    Evaluator,
    Unsupported,
    common_builtins,
    declare,
    run_function,
    split_file,
    tokenize,
)
from benchmarks.regex_sample import sample

DETECTORS = Path("pkg/detectors")
PART_SEPARATORS = (":", "|", ";", ",", "/", "@", " ")


def _located(value: str, text: str) -> list[str]:
    if value in text:
        return [value]
    for separator in PART_SEPARATORS:
        parts = [p for p in value.split(separator) if p]
        if len(parts) > 1 and all(p in text for p in parts):
            return parts
    return []


def _cases(path: Path, stats: Counter[str]) -> list[tuple[str, str, list[str]]]:
    source = path.read_text(encoding="utf-8", errors="replace")
    if "//go:build detectors" in source or "integration" in path.name:
        return []
    try:
        decls, funcs = split_file(tokenize(source))
    except Unsupported:
        stats["files_unreadable"] += 1
        return []
    rng = random.Random(f"trufflehog:{path.parent.name}")
    builtins = {**common_builtins(), "secrets.NewSecret": lambda p: sample(str(p), rng)}
    base = Evaluator({}, {f.name: f for f in funcs}, builtins)
    declare(base, decls)
    out = []
    for func in funcs:
        if not (func.name.startswith("Test") and func.name.endswith("_Pattern")):
            continue
        table = run_function(func, base).get("tests")
        if not isinstance(table, list):
            stats["tables_unreadable"] += 1
            continue
        for case in table:
            if not isinstance(case, dict) or not isinstance(case.get("input"), str):
                stats["cases_unreadable"] += 1
                continue
            want = case.get("want")
            wanted = [w for w in want if isinstance(w, str)] if isinstance(want, list) else []
            out.append((str(case.get("name", "")), case["input"], wanted))
    return out


def records(root: Path) -> tuple[list[dict[str, Any]], dict[str, int]]:
    stats: Counter[str] = Counter()
    out: list[dict[str, Any]] = []
    for path in sorted((root / DETECTORS).glob("*/*_test.go")):
        for index, (name, text, wanted) in enumerate(_cases(path, stats)):
            if not wanted:
                stats["negative_cases_kept_out"] += 1
                continue
            located = [part for value in wanted for part in _located(value, text)]
            if not located or len(located) < len(wanted):
                stats["tp_secret_not_located"] += 1
                continue
            out.append({"id": f"trufflehog:{path.parent.name}:{index}", "source": "trufflehog",
                        "rule": path.parent.name, "label": "tp", "text": text,
                        "secrets": sorted(set(located)), "case": name})
            stats["tp"] += 1
    return out, dict(sorted(stats.items()))
