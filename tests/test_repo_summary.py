"""The per-repository summary a question across repositories is routed by
(`helix.cluster.summary`): built from a real index, it holds the repository's top-level
directories, its README headings and its top-level definitions outside tests with their first
documentation line; ranking by it finds a repository by any of these, says which words
matched, breaks ties by name, and says so when nothing matched."""

from __future__ import annotations

from pathlib import Path

from helix.cluster.fleet import index_fleet
from helix.cluster.repos_file import RepoSource
from helix.cluster.summary import rank, routing_line


def _repo(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _summaries(tmp_path: Path) -> dict[str, dict]:
    ledger = _repo(tmp_path / "ledger", {
        "README.md": "# Ledger\n\n## Currency rounding\n\nHow amounts are kept.\n",
        "ledger/money.py": 'class Amount:\n    """Holds a sum in minor units."""\n\n\n'
                           "def settle(amount):\n    return amount\n",
        "tests/test_money.py": "def test_refund_zeppelin():\n    assert True\n"})
    gateway = _repo(tmp_path / "gateway", {
        "README.md": "# Gateway\n\n## Webhooks\n",
        "gateway/hooks.py": 'def deliver_webhook(event):\n    """Posts an event to its '
                            'subscriber with retries."""\n    return event\n'})
    sources = [RepoSource(name=name, path=str(root), group="pay")
               for name, root in (("ledger", ledger), ("gateway", gateway))]
    report = index_fleet(sources, cluster=None, store_root=tmp_path / "store",
                         flags={"index.embed_enabled": False}, register=False)
    assert not report.failed
    return {r.name: r.summary for r in report.repos}


def test_a_summary_holds_dirs_headings_and_documented_top_level_definitions(
        tmp_path: Path) -> None:
    summary = _summaries(tmp_path)["ledger"]
    assert summary["name"] == "ledger" and summary["group"] == "pay"
    assert summary["dirs"] == ["ledger", "tests"]
    assert "Currency rounding" in summary["headings"]
    assert ["Amount", "Holds a sum in minor units."] in summary["identifiers"]
    assert any(name == "settle" for name, _ in summary["identifiers"])
    assert not any("zeppelin" in name for name, _ in summary["identifiers"])  # tests: out


def test_repositories_are_ranked_by_their_summaries_and_the_routing_says_why(
        tmp_path: Path) -> None:
    summaries = _summaries(tmp_path)
    by_heading = rank("where is currency rounding done?", summaries, 1, "pay")
    assert [c.name for c in by_heading.searched] == ["ledger"]
    assert by_heading.considered == 2 and "BM25" in by_heading.reason
    assert {"currency", "rounding"} <= set(by_heading.searched[0].matched)
    by_doc = rank("which code retries a subscriber?", summaries, 2, "pay")
    assert by_doc.searched[0].name == "gateway" and "subscriber" in by_doc.searched[0].matched
    assert [c.name for c in by_doc.searched] == ["gateway"]  # ledger shares no word
    nothing = rank("what does zeppelin do?", summaries, 2, "pay")
    assert [c.name for c in nothing.searched] == ["gateway", "ledger"]  # by name
    assert "no repository's summary shares a word" in nothing.reason
    tied = rank("where is it?", {"b": {"name": "b"}, "a": {"name": "a"}}, 2, "g")
    assert [c.name for c in tied.searched] == ["a", "b"]
    line = routing_line(by_heading)
    assert line.startswith("searched 1 of 2 repositories in 'pay': ledger (")
