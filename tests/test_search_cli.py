"""`helix search`: BM25 and dense hits through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run


def _write_repo(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "retry.py").write_text(
        'def decide_retry_policy(attempts: int) -> bool:\n'
        '    """Decide whether a failed request is retried, with exponential backoff."""\n'
        '    return attempts < 3\n\n\n'
        'class HTTPServerError(Exception):\n'
        '    """Raised when the upstream server answers with a 5xx status."""\n', "utf-8")
    (root / "pkg" / "graph.py").write_text(
        'def shortest_path(graph, source, target):\n'
        '    """Dijkstra over weighted edges."""\n'
        '    return [source, target]\n', "utf-8")
    (root / "README.md").write_text(
        "# Demo\n\n## Configuration\n\nSet the retry limit in the config file.\n", "utf-8")
    return root


def test_bm25_search_json_and_human(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _write_repo(tmp_path / "repo")
    code, out, _ = run(["search", "retry policy", str(repo), "--channel", "bm25", "--json",
                        "--no-embed"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["query"] == "retry policy" and data["index_rev"]
    hits = data["hits"]
    assert hits and hits[0]["path"] == "pkg/retry.py" and hits[0]["rank"] == 1
    assert hits[0]["label"] == "decide_retry_policy"
    assert all(h["channel"] == "bm25" for h in hits)
    assert [h["rank"] for h in hits] == list(range(1, len(hits) + 1))
    code, out, _ = run(["search", "HTTPServerError", str(repo), "-k", "1", "--no-embed"], capsys)
    assert code == 0
    assert out.splitlines()[0].startswith("bm25    1") and "pkg/retry.py:" in out


def test_no_results_and_no_dense_without_embeddings(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _write_repo(tmp_path / "repo")
    code, out, _ = run(["search", "zzzunknownzzz", str(repo), "--no-embed"], capsys)
    assert code == 0 and out.strip() == "no results"
    code, out, _ = run(["search", "retry", str(repo), "--channel", "dense", "--json",
                        "--no-embed"], capsys)
    assert code == 0 and json.loads(out)["hits"] == []


def test_bad_path_is_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["search", "retry", str(tmp_path / "missing")], capsys)
    assert code == 2
    assert err.strip().startswith("helix: ") and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_dense_search_with_the_real_model(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    repo = _write_repo(tmp_path / "repo")
    code, out, _ = run(["search", "which exception means the backend failed?", str(repo),
                        "--channel", "dense", "--json"], capsys)
    assert code == 0
    hits = json.loads(out)["hits"]
    assert hits and all(h["channel"] == "dense" for h in hits)
    assert hits[0]["label"] == "HTTPServerError"
