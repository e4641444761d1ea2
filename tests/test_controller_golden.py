"""Golden envelopes for a small fixture repo: a readable diff when the controller changes.

Update after an intended change:  UPDATE_GOLDEN=1 python -m pytest tests/test_controller_golden.py
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest
from controller_helpers import ask
from fakes import FakeIndex

GOLDEN = Path(__file__).resolve().parent / "golden"
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


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_envelope(name: str) -> None:
    env = ask(FakeIndex(FILES, root=Path("/demo")), CASES[name])
    data = env.model_dump(mode="json")
    data.pop("timings_ms")
    text = json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    path = GOLDEN / f"controller_{name}.json"
    if os.environ.get("UPDATE_GOLDEN") or not path.exists():
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            "golden", "now", n=2))
        pytest.fail(f"envelope changed (UPDATE_GOLDEN=1 to accept):\n{diff[:6000]}")
