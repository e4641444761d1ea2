"""Small test helpers that stand in for nothing real: a repository written from a dict.

(The in-memory FakeIndex that lived here, with its own chunker and BM25, is gone: controller
tests index their repositories with the real indexer, see tests/controller_helpers.py. What
crosses a port - the LLM, the clock, the embedder - has its fakes in helix/core/ports.py.)
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def write_repo(root: Path, files: Mapping[str, str]) -> Path:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root
