"""Shared helpers for the controller tests: fixture repos loaded into a FakeIndex."""

from __future__ import annotations

from pathlib import Path

from fakes import FakeIndex

from controller.driver import run_controller
from helix.core.config import HelixConfig
from helix.core.envelope import Envelope
from helix.core.ports import FakeClock, FakeEmbedder

FIXTURES = Path(__file__).resolve().parent.parent / "data" / "fixtures"
SUFFIXES = (".py", ".md", ".json")


def load_files(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(root.rglob("*")) if p.is_file() and p.suffix in SUFFIXES}


def fixture_index(name: str) -> FakeIndex:
    root = FIXTURES / name
    return FakeIndex(load_files(root), root=root, embedder=FakeEmbedder())


def ask(index: FakeIndex, question: str, config: HelixConfig | None = None,
        **kwargs: object) -> Envelope:
    return run_controller(question, index, config or HelixConfig(),
                          query_embedder=FakeEmbedder(), clock=FakeClock(), **kwargs)  # type: ignore[arg-type]
