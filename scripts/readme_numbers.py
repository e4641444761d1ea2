"""Rewrite the README's "How well it works" numbers from benchmarks/results/qa_dev.json.

    python scripts/readme_numbers.py

`tests/test_docs.py` reads the same numbers back, so a result without this run fails the tests.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
RESULT = ROOT / "benchmarks" / "results" / "qa_dev.json"


def section(pooled: dict) -> str:
    helix, bm25 = pooled["helix"], pooled["bm25_files"]
    return f"""## How well it works

Measured with `python benchmarks/qa_dev.py` (SWE-QA's natural questions on reflex, sqlfluff,
streamlink, shiro and Strata at their pinned commits: {pooled['questions']} questions, no
embeddings, no model): a file the reference answer cites comes first for {helix['file@1']:.2f} of
the questions (whole-file BM25 in the same run: {bm25['file@1']:.2f}) and is in the top 5 for
{helix['file@5']:.2f} ({bm25['file@5']:.2f}); the span it cites is in Helix's top 5 for
{helix['span@5']:.2f}, and anywhere in the evidence sent to a model for {helix['recall']:.2f}.
What was measured step by step, and what was tried and not kept (following calls downward,
file-level BM25 weighted up, a lower weight for vectors, abbreviations as query expansion,
promoting a definition over a leading function, a file leading by its definitions' names,
definitions' name words as a vote for short questions too), is one generated table,
[docs/tries.md](docs/tries.md); what was kept and why is in docs/architecture.md.
Every benchmark's latest numbers: [docs/benchmarks.md](docs/benchmarks.md)
(`python scripts/benchmarks_doc.py` writes it from `benchmarks/results/*.json`;
`tests/test_docs.py` reads the numbers above back from the same file).
"""


def main() -> None:
    pooled = json.loads(RESULT.read_text(encoding="utf-8"))["pooled"]
    text = README.read_text(encoding="utf-8")
    new = re.sub(r"(?ms)^## How well it works\n.*?(?=^## )", section(pooled) + "\n", text)
    README.write_text(new, encoding="utf-8")


if __name__ == "__main__":
    main()
