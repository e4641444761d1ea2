"""The same question, index and config give the same item hashes on an idle machine and on a
loaded one: the loop is bounded by work (steps, evidence), the real clock only by a safety
stop far above any run. Two processes burn both cores while the controller runs with the
system clock."""

from __future__ import annotations

import subprocess
import sys

from controller_helpers import fixture_index

from controller.driver import run_controller
from controller.question import read_question
from helix.core.config import HelixConfig
from helix.core.ports import FakeEmbedder, SystemClock

QUESTIONS = ("Explain the ingest pipeline.", "where is the finesse target set?",
             "what is a cavity?")
BURN = "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end:\n    pass\n"


def _hashes(index: object) -> list[dict[str, str]]:
    config = HelixConfig()
    return [run_controller(read_question(q, config.retrieval), index, config,  # type: ignore[arg-type]
                           query_embedder=FakeEmbedder(), clock=SystemClock()).item_hashes
            for q in QUESTIONS]


def test_item_hashes_are_the_same_under_real_cpu_load() -> None:
    index = fixture_index("matrix_repo")
    idle = _hashes(index)
    burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(3)]
    try:
        loaded = [_hashes(index) for _ in range(2)]
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    assert loaded[0] == idle and loaded[1] == idle
