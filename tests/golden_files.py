"""Golden files and the real index they are built on.

`check_golden(name, text)` compares `text` with tests/golden/<name>: a difference fails with a
unified diff; a missing golden fails too (it is never written by a normal run). Rewrite the
goldens after an intended change, then read the diff before committing:

    UPDATE_GOLDEN=1 python -m pytest -q tests/test_controller_golden.py tests/test_answer_golden.py

`real_index(name)` builds a fixture repository (data/fixtures/<name>, or files given as a dict)
with the real indexer (`indexers.build.ensure_index`) in a temporary copy: embeddings from the
in-package FakeEmbedder, or none.
"""

from __future__ import annotations

import difflib
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from fakes import write_repo

from controller.driver import run_controller
from controller.question import read_question
from helix.core.config import HelixConfig, load_config
from helix.core.envelope import Envelope
from helix.core.ports import FakeClock, FakeEmbedder
from indexers.api import IndexReader
from indexers.build import ensure_index

GOLDEN = Path(__file__).resolve().parent / "golden"
FIXTURES = Path(__file__).resolve().parent.parent / "data" / "fixtures"
MAX_DIFF_CHARS = 8000


def update_requested() -> bool:
    return os.environ.get("UPDATE_GOLDEN") == "1"


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if update_requested():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        return
    if not path.exists():
        pytest.fail(f"golden file tests/golden/{name} is missing; write it with UPDATE_GOLDEN=1 "
                    "and read it before committing")
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            f"golden/{name}", "now", n=2))
        pytest.fail(f"tests/golden/{name} differs (UPDATE_GOLDEN=1 to accept after reading the "
                    f"diff):\n{diff[:MAX_DIFF_CHARS]}")


class RealIndex:
    """A fixture repository indexed by the real indexer, and questions asked of it."""

    def __init__(self, root: Path, config: HelixConfig, index: IndexReader,
                 embedder: FakeEmbedder | None) -> None:
        self.root, self.config, self.index, self.embedder = root, config, index, embedder

    def ask(self, question: str, **kwargs: object) -> Envelope:
        return run_controller(read_question(question, self.config.retrieval, **kwargs),  # type: ignore[arg-type]
                              self.index, self.config, query_embedder=self.embedder,
                              clock=FakeClock())


def real_index(source: str | dict[str, str], workdir: Path, *, embed: bool) -> RealIndex:
    """Copy the fixture (a name under data/fixtures, or {path: text}) into `workdir` and index
    it for real; embeddings from FakeEmbedder when `embed`, else none."""
    root = Path(tempfile.mkdtemp(prefix="repo-", dir=workdir))
    if isinstance(source, str):
        shutil.copytree(FIXTURES / source, root, dirs_exist_ok=True)
    else:
        write_repo(root, source)
    embedder = FakeEmbedder() if embed else None
    # its own HELIX_HOME (a module-scoped fixture runs before the per-test one of conftest)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HELIX_HOME", str(root.with_name(root.name + "-home")))
        config = load_config(root)
        if not embed:
            config = config.model_copy(update={"index": config.index.model_copy(
                update={"embed_enabled": False})})
        index, _ = ensure_index(root, config, embedder=embedder, query_embedder=embedder)
    return RealIndex(root, config, index, embedder)
