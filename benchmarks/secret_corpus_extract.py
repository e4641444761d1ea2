"""Extract the public secret scanners' rule samples into a tuning corpus (JSONL), outside the
repository: their text is theirs, so it is never committed.

    python benchmarks/secret_corpus_extract.py --gitleaks PATH [--detect-secrets PATH]
        [--trufflehog PATH] [--out DIR]

Each PATH is a snapshot of the scanner's repository: a work tree, or a git directory (as the
`fetch` tool leaves it), whose HEAD is read with `git archive`. Nothing of the snapshots is run:
gitleaks' and TruffleHog's Go sample tables are evaluated by `go_literals`, detect-secrets'
Python tests are parsed with `ast` (see each `corpus_*.py`). Random parts of gitleaks' samples
are drawn from generators seeded with the rule's name, so two extractions write the same file.

Writes DIR/corpus.jsonl (default DIR: /work/shared/data/secret_corpus), one record a line,
sorted by id, duplicates (same source, label and text) dropped:
    {"id", "source", "rule", "label": "tp"|"fp", "text", "secrets": [values] (tp only)}
and DIR/stats.json: per source the samples kept and the ones it could not use, and why.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import corpus_detect_secrets, corpus_gitleaks, corpus_trufflehog  # noqa: E402

DEFAULT_OUT = Path("/work/shared/data/secret_corpus")
# what each scanner's extractor reads from its snapshot
PARTS = {"gitleaks": ("cmd/generate/config", "testdata/config"),
         "detect-secrets": ("tests", "test_data"), "trufflehog": ("pkg/detectors",)}
Extractor = Callable[[Path], tuple[list[dict[str, Any]], dict[str, int]]]
EXTRACTORS: dict[str, Extractor] = {"gitleaks": corpus_gitleaks.records,
                                    "detect-secrets": corpus_detect_secrets.records,
                                    "trufflehog": corpus_trufflehog.records}


@contextlib.contextmanager
def snapshot(path: Path, parts: tuple[str, ...]) -> Iterator[tuple[Path, str]]:
    """(a directory holding the snapshot's files, its commit or "work tree")."""
    if (path / parts[0]).exists():
        yield path, "work tree"
        return
    git = ["git", f"--git-dir={path}"]
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="secret-corpus-") as tmp:
        archive = subprocess.run([*git, "archive", "--format=tar", "HEAD", *parts],
                                 capture_output=True, check=True).stdout
        tar_path = Path(tmp) / "snapshot.tar"
        tar_path.write_bytes(archive)
        with tarfile.open(tar_path) as tar:
            tar.extractall(Path(tmp) / "tree", filter="data")
        yield Path(tmp) / "tree", commit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gitleaks", type=Path, required=True)
    parser.add_argument("--detect-secrets", type=Path)
    parser.add_argument("--trufflehog", type=Path)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    sources = {"gitleaks": args.gitleaks, "detect-secrets": args.detect_secrets,
               "trufflehog": args.trufflehog}
    records: dict[tuple[str, str, str], dict[str, Any]] = {}
    stats: dict[str, Any] = {}
    for name, path in sources.items():
        if path is None:
            continue
        with snapshot(path, PARTS[name]) as (tree, commit):
            found, counts = EXTRACTORS[name](tree)
        duplicates = 0
        for record in found:
            key = (record["source"], record["label"], record["text"])
            if key in records:
                duplicates += 1
                continue
            records[key] = record
        stats[name] = {"commit": commit, "duplicates_dropped": duplicates, **counts}
        print(name, json.dumps(stats[name], sort_keys=True))
    args.out.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r, sort_keys=True, ensure_ascii=False)
             for r in sorted(records.values(), key=lambda r: r["id"])]
    (args.out / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (args.out / "stats.json").write_text(json.dumps(stats, indent=2, sort_keys=True) + "\n",
                                         encoding="utf-8")
    print(f"{len(lines)} records -> {args.out / 'corpus.jsonl'}")


if __name__ == "__main__":
    main()
