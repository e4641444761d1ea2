"""A small Python + Markdown (+ tree JSON) repository the index tests write themselves."""

from __future__ import annotations

import json
from pathlib import Path

FILES: dict[str, str] = {
    "pkg/__init__.py": '"""Package."""\n',
    "pkg/util.py": '''"""Helpers."""


def retry_policy(attempts):
    """Decide the retry policy."""
    return min(attempts, 3)


class Backoff:
    def delay(self, n):
        return retry_policy(n) * 2

    def reset(self):
        return self.delay(0)
''',
    "pkg/client.py": '''from .util import Backoff, retry_policy


def fetch(url):
    b = Backoff()
    return retry_policy(len(url)) + b.delay(1)
''',
    "tests/test_client.py": '''from pkg.client import fetch


def test_fetch():
    assert fetch("abc") > 0


class TestBackoff:
    def test_delay(self):
        from pkg.util import Backoff
        assert Backoff().delay(1) == 2
''',
    "docs/guide.md": '''# Guide

Intro text.

## Retries

The `retry_policy` function decides how often `fetch()` retries.

### Details

More on snake_case_unknown.
''',
}

TREE = {
    "version": 1, "rootId": "retries",
    "nodes": [
        {"id": "retries", "title": "Retries", "excerpt": "How retries work.",
         "bodyMD": "Retries are decided centrally.", "children": ["backoff"], "links": [],
         "inputs": [{"name": "attempts"}], "deterministic": True,
         "evidence": [{"type": "code", "path": "pkg/util.py", "symbol": "retry_policy"}]},
        {"id": "backoff", "title": "Backoff", "bodyMD": "The delay grows; see `Backoff.delay`.",
         "children": [], "links": [{"rel": "parent", "to": "retries"}]},
    ],
}
TREE_PATH = "docs/trees/retries.json"


def write(root: Path, rel: str, data: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


def write_repo(root: Path, with_tree: bool = False) -> Path:
    for rel, text in FILES.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    if with_tree:
        target = root / TREE_PATH
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(TREE, indent=2), encoding="utf-8")
    return root
