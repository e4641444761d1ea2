"""The shipped fixture tree (data/fixtures/trees_repo): each node passes or fails the admission
checks it was written to, links verified against the repository; a session run with the test
model exports the passing node as admitted by default and the rest only as diagnostic, with
their failures named; `--since last` exports only what ran after the previous export."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import run

from helix.export import IndexNodes, checklist_failures, node_fields
from helix.export_links import link_failures

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "trees_repo"
TREE = "trees/retry-budget-tree.json"
EXPECTED = {
    "budget-ceiling": ([], []),
    "budget-units": (["inputs"], []),
    "budget-stale-hash": ([], ["hash:docs/budget.md"]),
    "budget-gone-file": ([], ["missing:tests/test_gone.py@HEAD"]),
    "budget-cycle": (["dag_integrity"], []),
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "trees_repo"
    shutil.copytree(FIXTURE, root)
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    return root


def test_each_fixture_node_fails_exactly_its_checks(repo: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["index", str(repo)], capsys)
    assert code == 0, err
    nodes = IndexNodes()
    for local, (checks, links) in EXPECTED.items():
        node_id = f"tree:{TREE}#{local}"
        assert checklist_failures(node_id, lambda n: nodes(str(repo), n)) == checks, local
        attrs = nodes(str(repo), node_id)
        assert attrs is not None
        assert link_failures(repo, node_fields(attrs)["evidence"]) == links, local
        assert nodes.tree_id(str(repo), node_id) == "retry-budget-tree"


def test_a_session_run_exports_the_passing_node(repo: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    model = "fake/say:The ceiling is MAX_ATTEMPTS [E1]."
    code, out, err = run(["ask", "what is the retry budget ceiling?", "--repo", str(repo),
                          "--session", "s", "--model", model, "--json"], capsys)
    assert code == 0, err
    records_file = tmp_path / "train.jsonl"
    code, out, err = run(["export", "--out", str(records_file), "--json"], capsys)
    assert code == 0, err
    report = json.loads(out)
    (record,) = [json.loads(line) for line in records_file.read_text().splitlines()]
    assert report["admitted"] == 1
    assert record["anchor_node_id"] == f"tree:{TREE}#budget-ceiling"
    assert record["graph_pack"]["treeIds"] == ["retry-budget-tree"]
    assert record["admission"] == {"full_access": True, "diagnostic": False,
                                   "failed_checks": [], "link_failures": []}

    code, _, err = run(["ask", "what is the retry budget history?", "--repo", str(repo),
                        "--session", "s", "--model", model], capsys)
    assert code == 0, err
    code, out, err = run(["export", "--out", str(records_file), "--json", "--since", "last",
                          "--include-diagnostic"], capsys)
    assert code == 0, err
    fresh = [json.loads(line) for line in records_file.read_text().splitlines()]
    assert [r["question"] for r in fresh] == ["what is the retry budget history?"]
    assert fresh[0]["admission"]["diagnostic"]
    assert fresh[0]["admission"]["link_failures"] == ["hash:docs/budget.md"]


def test_the_trace_carries_the_graph_pack(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["ask", "what is the retry budget ceiling?", "--repo", str(repo),
                        "--dry-run", "--trace"], capsys)
    assert code == 0, err
    events = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    (pack,) = [e for e in events if e["event"] == "graph_pack"]
    assert pack["treeIds"] == ["retry-budget-tree"]
    assert pack["primaryTreeId"] == "retry-budget-tree"
    assert f"tree:{TREE}#budget-ceiling" in pack["anchorIds"]
    assert pack["treeVersion"].startswith("sha256:") and pack["lattice_rev"]
