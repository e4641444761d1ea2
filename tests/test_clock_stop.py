"""The clock safety stop is a typed fact of the envelope (`Envelope.clock_stopped`), which
`helix.service.ask` reads for its notice: no step's text is parsed for it."""

from __future__ import annotations

import json
from pathlib import Path

from helix.core.config import load_config
from helix.core.ports import FakeClock
from helix.service import ask
from tests.index_fixtures import write


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, "shop/pricing.py", "def compute_total(items):\n    return sum(items)\n")
    write(root, "docs/pricing.md", "# Pricing\n\nThe total is computed by compute_total.\n")
    return root


def test_a_clock_stop_is_a_field_and_the_notice_reads_it(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    config = load_config(root, flags={"index.embed_enabled": False,
                                      "retrieval.time_budget_ms": 5,
                                      "retrieval.coverage_threshold": 1.01})
    told: list[str] = []
    env = ask("where is the total computed?", root=root, config=config, dry_run=True,
              clock=FakeClock(step=1.0), notify=told.append).envelope
    stop = env.clock_stopped
    assert stop is not None and stop.budget_ms == 5 and stop.elapsed_ms >= 5
    assert json.loads(env.model_dump_json())["clock_stopped"]["budget_ms"] == 5
    notices = [m for m in told if "clock safety stop" in m]
    assert notices == [f"retrieval stopped by its clock safety stop ({stop.elapsed_ms:.0f} ms"
                       " >= retrieval.time_budget_ms 5): the evidence may differ from an "
                       "unhurried run"]


def test_an_unhurried_run_has_no_clock_stop_in_its_json(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    config = load_config(root, flags={"index.embed_enabled": False})
    told: list[str] = []
    env = ask("where is the total computed?", root=root, config=config, dry_run=True,
              clock=FakeClock(), notify=told.append).envelope
    assert env.clock_stopped is None
    assert "clock_stopped" not in json.loads(env.model_dump_json())  # hashes unchanged
    assert not [m for m in told if "clock safety stop" in m]
