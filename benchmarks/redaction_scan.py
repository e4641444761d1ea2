"""How much ordinary code the secret detector redacts (false positives), and how fast.

    python benchmarks/redaction_scan.py [--show N] [ROOT ...]

Runs `helix.core.secrets.find_secrets` over every text file (.py .md .rst .txt .toml
.yaml .yml .json .cfg .ini .sh) under each ROOT (default: the installed networkx package, the
standard library without site-packages, and this repository), prints files, lines, spans
redacted by kind and seconds, then the first N spans (path:line kind; never the value).
Writes benchmarks/results/redaction_scan.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SUFFIXES = {".py", ".md", ".rst", ".txt", ".toml", ".yaml", ".yml", ".json", ".cfg", ".ini",
            ".sh"}
MAX_BYTES = 1_000_000
# not part of the tree being measured (the standard library's directory holds site-packages)
EXCLUDED_DIRS = {"site-packages", "__pycache__", "helix.egg-info"}
OUT = ROOT / "benchmarks" / "results" / "redaction_scan.json"


def scan(root: Path) -> dict[str, object]:
    from helix.core.secrets import find_secrets

    files = lines = 0
    kinds: Counter[str] = Counter()
    spans: list[str] = []
    started = time.perf_counter()
    for path in sorted(root.rglob("*")):
        if (not path.is_file() or path.suffix not in SUFFIXES or ".git" in path.parts
                or EXCLUDED_DIRS.intersection(path.relative_to(root).parts)
                or path == OUT or path.stat().st_size > MAX_BYTES):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        files += 1
        lines += text.count("\n")
        for finding in find_secrets(text):
            kinds[finding.kind] += 1
            line = text.count("\n", 0, finding.start) + 1
            spans.append(f"{path.relative_to(root)}:{line} {finding.kind}")
    return {"root": str(root), "files": files, "lines": lines, "spans": len(spans),
            "by_kind": dict(sorted(kinds.items())),
            "seconds": round(time.perf_counter() - started, 2), "examples": spans}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="*", type=Path)
    parser.add_argument("--show", type=int, default=20)
    args = parser.parse_args()
    roots = args.roots
    if not roots:
        import sysconfig

        import networkx

        roots = [Path(networkx.__file__).parent, Path(sysconfig.get_paths()["stdlib"]), ROOT]
    results = []
    for root in roots:
        result = scan(root)
        examples = result.pop("examples")
        assert isinstance(examples, list)
        print(json.dumps(result))
        for line in examples[: args.show]:
            print("   ", line)
        results.append({**result, "examples": examples[: args.show]})
    OUT.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
