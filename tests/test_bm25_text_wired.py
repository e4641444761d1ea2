"""docs/architecture.md says `bm25_text_for(chunk)` is what BM25 indexes: the build must agree.

It once was documented and called by nothing (the build indexed headings and text only), so a
file whose name carried the concept was not found by its name.
"""

from __future__ import annotations

import re
from pathlib import Path

from controller_helpers import files_index

from indexers.bm25 import bm25_text_for
from indexers.build_lexical import bm25_text

README = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def test_the_readme_names_the_function_the_build_uses() -> None:
    text = README.read_text(encoding="utf-8")
    assert re.search(r"`bm25_text_for\(chunk\)` is what gets indexed", text)
    index = files_index({"pkg/ledger.py": "class Book:\n    def post(self):\n        return 1\n",
                         "docs/guide.md": "# Guide\n\n## Install\n\nRun it.\n"})
    chunks = [c for f in index.files() for c in index.chunks_for_path(f.path)]
    assert chunks and all(bm25_text(c) == bm25_text_for(c) for c in chunks)


def test_a_file_is_found_by_the_words_of_its_path_alone() -> None:
    index = files_index({"billing/zebra_stripes.py": "def render(x):\n    return x * 2\n",
                         "billing/other.py": "def render_other(x):\n    return x\n"})
    hits = index.search_bm25("zebra stripes", 5)
    assert hits and index.chunk(hits[0].chunk_id).path == "billing/zebra_stripes.py"
    assert index.search_files("zebra stripes", 5)[0][0] == "billing/zebra_stripes.py"
