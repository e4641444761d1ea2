"""The generated paraphrase suite: at least 300 turns, the committed files are what the
generator writes, both halves cover every intent and share no wording, and the README's router
accuracy is read back from benchmarks/results/paraphrase_router.json."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

from evals.paraphrase import INTENTS, OUT_DIR, generate
from evals.scenarios import load_cases

ROOT = Path(__file__).resolve().parents[1]


def test_the_committed_halves_are_the_generators(tmp_path: Path) -> None:
    from evals.paraphrase import write

    counts = write(tmp_path)
    for half in ("tune", "report"):
        name = f"paraphrase_{half}.jsonl"
        assert (tmp_path / name).read_text() == (OUT_DIR / name).read_text(), name
        assert len(load_cases(OUT_DIR / name)) == counts[half]  # valid scenario cases
    assert sum(counts.values()) >= 300


def test_halves_cover_every_intent_and_share_no_wording() -> None:
    wordings: dict[str, set[tuple[str, str]]] = defaultdict(set)
    intents: dict[str, set[str]] = defaultdict(set)
    for half, case in generate():
        intents[half].add(case["intent"])
        wordings[half].add((case["intent"], case["id"].rsplit("-", 2)[1]))
    assert intents["tune"] == intents["report"] == set(INTENTS)
    assert not wordings["tune"] & wordings["report"]


def test_the_readme_states_the_measured_accuracy() -> None:
    result = json.loads((ROOT / "benchmarks" / "results" / "paraphrase_router.json")
                        .read_text(encoding="utf-8"))
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    tune, report = result["paraphrase_tune"], result["paraphrase_report"]
    stated = re.search(r"(\d+) turns generated from 13 intents.*?for (\d\.\d\d) of the half kept "
                       r"for tuning and (\d\.\d\d) of the half only reported", readme)
    assert stated, "the README's paraphrase sentence"
    assert int(stated.group(1)) == tune["turns"] + report["turns"]
    assert stated.group(2) == f"{tune['accuracy']:.2f}"
    assert stated.group(3) == f"{report['accuracy']:.2f}"
