"""How much ordinary code the secret detector redacts (false positives), and how fast.

    python benchmarks/redaction_scan.py [--show N] [--baseline-ref REF] [--no-prefilter] [ROOT ...]

Runs `helix.core.secrets.find_secrets` over every text file (.py .md .rst .txt .toml
.yaml .yml .json .cfg .ini .sh) under each ROOT (default: the installed networkx package, the
standard library without site-packages, and this repository), prints files, lines, spans
redacted by kind, `values` (distinct values flagged per file: the detector's decisions; a
value masked again where it recurs is one), `seconds` (reading and scanning), `scan_seconds`
and `scan_cpu_seconds` (inside find_secrets only, wall and CPU), then the first N spans
(path:line kind; never the value).

`--baseline-ref REF` also times the detector of another commit (its `helix/` tree from
`git archive REF`) against this tree's over the same files in the same run: each in a fresh
process, alternating, `--repeat` times (default 3), the least time of each kept (the machine
is shared: the least is the one least disturbed); reports `scan_ratio` = baseline / this
tree (`scan_cpu_ratio` the same in CPU seconds). `--no-prefilter` times this tree with
every detector on the whole text (`find_secrets(..., prefilter=False)`).
Writes benchmarks/results/redaction_scan.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

from _result import cpu_seconds, write_result

ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = {".py", ".md", ".rst", ".txt", ".toml", ".yaml", ".yml", ".json", ".cfg", ".ini",
            ".sh"}
MAX_BYTES = 1_000_000
# not part of the tree being measured (the standard library's directory holds site-packages)
EXCLUDED_DIRS = {"site-packages", "__pycache__", "helix.egg-info"}
OUT = ROOT / "benchmarks" / "results" / "redaction_scan.json"


def files_of(root: Path) -> list[Path]:
    return [path for path in sorted(root.rglob("*"))
            if path.is_file() and path.suffix in SUFFIXES and ".git" not in path.parts
            and not EXCLUDED_DIRS.intersection(path.relative_to(root).parts)
            and path != OUT and path.stat().st_size <= MAX_BYTES]


def scan(root: Path, prefilter: bool = True) -> dict[str, object]:
    from helix.core.hashing import digest
    from helix.core.secrets import find_secrets

    files = lines = 0
    kinds: Counter[str] = Counter()
    spans: list[str] = []
    find_secrets("password = 'warm-up-1'")  # imports and compiled patterns: not the scan
    scanning = scanning_cpu = 0.0
    values: set[tuple[str, str]] = set()  # (path, digest of the value): the FP decisions
    started = time.perf_counter()
    for path in files_of(root):
        text = path.read_text(encoding="utf-8", errors="replace")
        files += 1
        lines += text.count("\n")
        at, at_cpu = time.perf_counter(), cpu_seconds()
        found = find_secrets(text) if prefilter else find_secrets(text, prefilter=False)
        scanning += time.perf_counter() - at
        scanning_cpu += cpu_seconds() - at_cpu
        for finding in found:
            kinds[finding.kind] += 1
            values.add((str(path), digest(text[finding.start:finding.end])))
            line = text.count("\n", 0, finding.start) + 1
            spans.append(f"{path.relative_to(root)}:{line} {finding.kind}")
    return {"root": str(root), "files": files, "lines": lines, "spans": len(spans),
            "values": len(values), "scan_cpu_seconds": round(scanning_cpu, 2),
            "by_kind": dict(sorted(kinds.items())),
            "seconds": round(time.perf_counter() - started, 2),
            "scan_seconds": round(scanning, 2), "examples": spans}


def _timed(src: Path, root: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, __file__, "--src", str(src), "--time-only",
                           str(root)], capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def compare(ref: str, roots: list[Path], repeat: int) -> list[dict[str, object]]:
    """This tree's detector and commit `ref`'s, timed over the same roots in fresh
    processes, alternating; the least scan time of each."""
    out = []
    with tempfile.TemporaryDirectory(prefix="redaction-baseline-") as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref,
                                  "helix"], capture_output=True, check=True).stdout
        (Path(tmp) / "src.tar").write_bytes(archive)
        with tarfile.open(Path(tmp) / "src.tar") as tar:
            tar.extractall(Path(tmp) / "src", filter="data")
        for root in roots:
            ours, theirs = [], []
            for _ in range(repeat):
                ours.append(_timed(ROOT, root))
                theirs.append(_timed(Path(tmp) / "src", root))
            best = min(float(r["scan_seconds"]) for r in ours)  # type: ignore[arg-type]
            old = min(float(r["scan_seconds"]) for r in theirs)  # type: ignore[arg-type]
            best_cpu = min(float(r["scan_cpu_seconds"]) for r in ours)  # type: ignore[arg-type]
            old_cpu = min(float(r["scan_cpu_seconds"]) for r in theirs)  # type: ignore[arg-type]
            out.append({"ref": ref, "baseline_spans": theirs[0]["spans"],
                        "baseline_values": theirs[0]["values"],
                        "baseline_scan_seconds": old, "scan_seconds_fresh": best,
                        "scan_ratio": round(old / best, 2) if best else None,
                        "baseline_scan_cpu_seconds": old_cpu, "scan_cpu_seconds_fresh": best_cpu,
                        "scan_cpu_ratio": round(old_cpu / best_cpu, 2) if best_cpu else None})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="*", type=Path)
    parser.add_argument("--show", type=int, default=20)
    parser.add_argument("--baseline-ref", help="also time this commit's detector")
    parser.add_argument("--no-prefilter", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--src", type=Path, help=argparse.SUPPRESS)  # the tree to import
    parser.add_argument("--time-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(args.src or ROOT))
    roots = args.roots
    if not roots:
        import sysconfig

        import networkx

        roots = [Path(networkx.__file__).parent, Path(sysconfig.get_paths()["stdlib"]), ROOT]
    if args.time_only:
        for root in roots:
            result = scan(root)
            print(json.dumps({k: result[k] for k in ("root", "spans", "values", "scan_seconds",
                                                     "scan_cpu_seconds")}))
        return
    results = []
    for root in roots:
        result = scan(root, prefilter=not args.no_prefilter)
        examples = result.pop("examples")
        assert isinstance(examples, list)
        print(json.dumps(result))
        for line in examples[: args.show]:
            print("   ", line)
        results.append({**result, "examples": examples[: args.show]})
    if args.baseline_ref:
        for result, timing in zip(results, compare(args.baseline_ref, roots, args.repeat),
                                  strict=True):
            result["baseline"] = timing
            print(json.dumps({"root": result["root"], **timing}))
    write_result(OUT, results)


if __name__ == "__main__":
    main()
