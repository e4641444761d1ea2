"""Shared helpers for the controller tests: fixture repositories indexed by the real indexer
(`indexers.build`), and `ask` to run the controller on them."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from golden_files import real_index

from controller.driver import run_controller
from controller.evidence import Candidate
from controller.question import read_question
from controller.reasons import Reason
from helix.core.config import HelixConfig
from helix.core.envelope import Envelope
from helix.core.hashing import digest
from helix.core.ports import FakeClock, FakeEmbedder
from helix.core.schemas import Chunk
from indexers.api import IndexReader

FIXTURES = Path(__file__).resolve().parent.parent / "data" / "fixtures"


_REAL: dict[str, IndexReader] = {}


def fixture_index(name: str) -> IndexReader:
    """data/fixtures/<name> indexed by the real indexer (FakeEmbedder vectors), once per
    process; the index is only read."""
    if name not in _REAL:
        _REAL[name] = real_index(name, _workdir(), embed=True).index
    return _REAL[name]


def files_index(files: dict[str, str], embed: bool = False) -> IndexReader:
    """A repository of `files` ({path: text}) indexed by the real indexer."""
    return real_index(files, _workdir(), embed=embed).index


def _workdir() -> Path:
    work = Path(tempfile.mkdtemp(prefix="helix-fixture-"))
    atexit.register(shutil.rmtree, work, True)
    return work


def ask(index: IndexReader, question: str, config: HelixConfig | None = None,
        **kwargs: object) -> Envelope:
    config = config or HelixConfig()
    reading = {k: kwargs.pop(k) for k in ("scope", "sense") if k in kwargs}
    return run_controller(read_question(question, config.retrieval, **reading),  # type: ignore[arg-type]
                          index, config, query_embedder=FakeEmbedder(), clock=FakeClock(),
                          **kwargs)  # type: ignore[arg-type]


def def_chunk(path: str, symbol: str, text: str, start: int, kind: str = "code_def") -> Chunk:
    """A definition's chunk for the file-definition and callee tests (no index behind it)."""
    return Chunk(id=f"{path}:{start}", path=path, kind=kind, lang="python",  # type: ignore[arg-type]
                 start_line=start, end_line=start + text.count("\n"), text=text,
                 content_hash="sha256:0", symbol=symbol, def_kind="method",
                 node_id=f"def:{path}::{symbol}")


def function_candidate(path: str, symbol: str, *reasons: Reason, line: int = 1) -> Candidate:
    """A one-line function's candidate with the channel reasons that found it (no index behind
    it), for the tests of steps that reorder the evidence by file."""
    text = f"def {symbol}(): pass\n"
    chunk = Chunk(id=f"{path}:{symbol}", path=path, kind="code_def", lang="python",
                  start_line=line, end_line=line + 2, text=text,
                  content_hash=digest(text.encode()), symbol=symbol, def_kind="function",
                  node_id=f"def:{path}:{symbol}")
    return Candidate(chunk=chunk, score=1.0, reasons=reasons, step=1)
