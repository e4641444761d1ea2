"""Walk + parse benchmark on this interpreter's standard library (engineer A's stage only).

Copies `lib/python3.X` without the top-level `site-packages` and `test` and without any
`__pycache__` (the corpus of benchmarks/index_bench.py) to a temp directory (not timed), then
times `walk` and `parse_file` over every walked file in one process, and a second walk (the
no-op refresh's walk + hash). Writes benchmarks/results/parse_bench.json.

    python benchmarks/parse_bench.py [STDLIB_DIR]
"""

from __future__ import annotations

import sys
import sysconfig
import tempfile
import time
from collections import Counter
from pathlib import Path

from _result import cpu_seconds, load_1m, show, write_result
from _trees import STDLIB_EXCLUDED_TOP, copy_tree

from helix.core.config import IndexSettings
from indexers.parse import parse_file
from indexers.walker import walk

RESULT = Path(__file__).parent / "results" / "parse_bench.json"


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(sysconfig.get_paths()["stdlib"])
    settings = IndexSettings()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "stdlib"
        copy_tree(source, root, STDLIB_EXCLUDED_TOP)
        c0, t0 = cpu_seconds(), time.perf_counter()
        walked = walk(root, settings)
        t1 = time.perf_counter()
        parsed = [parse_file(item.record, item.text, settings) for item in walked.files]
        c2, t2 = cpu_seconds(), time.perf_counter()
        again = walk(root, settings)
        t3 = time.perf_counter()
    chunk_kinds = Counter(chunk.kind for p in parsed for chunk in p.chunks)
    result = {
        "source": str(source),
        "files_walked": len(walked.files),
        "files_skipped": {reason: len(paths) for reason, paths in walked.skipped.items()},
        "walk_s": round(t1 - t0, 3),
        "parse_s": round(t2 - t1, 3),
        "walk_parse_s": round(t2 - t0, 3),
        # CPU seconds of this process: the figure that does not depend on the machine's load.
        "walk_parse_cpu_s": round(c2 - c0, 3),
        "load_average_1m": load_1m(),
        "rewalk_s": round(t3 - t2, 3),
        "rewalk_same": again == walked,
        "chunks": sum(chunk_kinds.values()),
        "chunks_by_kind": dict(sorted(chunk_kinds.items())),
        "defs": sum(len(p.defs) for p in parsed),
        "refs": sum(len(p.refs) for p in parsed),
        "files_per_s": round(len(walked.files) / max(t2 - t0, 1e-9), 1),
    }
    write_result(RESULT, result)
    show(result)


if __name__ == "__main__":
    main()
