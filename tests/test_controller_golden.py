"""Golden envelopes of a small repository indexed by the real indexer (`indexers.build`, vectors
from the in-package FakeEmbedder): steps, evidence, items, item hashes and the answer, with a
readable diff when the controller (or the indexer under it) changes.

Fields that are not the controller's doing are replaced by placeholders: the temporary root,
the index revision (it hashes the indexing code itself), the repository revision, the settings
hash (it changes with every new setting) and the timings.

Update after an intended change, then read the diff:
    UPDATE_GOLDEN=1 python -m pytest tests/test_controller_golden.py
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden_files import RealIndex, check_golden, real_index

FILES = {
    "README.md": "# Demo\n\nDemo computes a retry backoff for its HTTP client.\n",
    "docs/retry.md": "# Retry policy\n\nThe retry policy is decided by `compute_backoff`: the "
                     "delay doubles on every attempt, in seconds.\n",
    "client/backoff.py": "def compute_backoff(attempt):\n    \"\"\"Seconds to wait before "
                         "retry number `attempt`.\"\"\"\n    return 2 ** attempt\n\n\n"
                         "def send(request, attempt=0):\n    return compute_backoff(attempt)\n",
    "tests/test_backoff.py": "from client.backoff import compute_backoff\n\n\n"
                             "def test_backoff_doubles():\n    assert compute_backoff(2) == 4\n",
}
CASES = {
    "location": "where is the retry policy decided?",
    "usage": "who calls compute_backoff?",
    "value": "is the retry delay in seconds?",
}
PLACEHOLDERS = {"repo_root": "<tmp root>", "index_rev": "<index rev>",
                "repo_rev": "<repo rev>", "config_hash": "<config hash>"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> RealIndex:
    return real_index(FILES, tmp_path_factory.mktemp("golden-envelopes"), embed=True)


def envelope_text(index: RealIndex, question: str) -> str:
    data = index.ask(question).model_dump(mode="json")
    data.pop("timings_ms")
    data.update(PLACEHOLDERS)
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_envelope(name: str, demo: RealIndex) -> None:
    check_golden(f"controller_{name}.json", envelope_text(demo, CASES[name]))


def test_the_envelope_is_the_same_on_a_fresh_index(demo: RealIndex,
                                                   tmp_path: Path) -> None:
    again = real_index(FILES, tmp_path, embed=True)
    for question in CASES.values():
        assert envelope_text(again, question) == envelope_text(demo, question)


def test_the_placeholders_hide_only_what_is_not_the_controllers(demo: RealIndex) -> None:
    env = demo.ask(CASES["usage"])
    assert env.repo_root == str(demo.root) and env.config_hash == demo.config.evidence_hash
    assert env.index_rev == demo.index.index_rev and env.repo_rev == demo.index.repo_rev
    assert env.evidence and env.controller_steps and env.answer
