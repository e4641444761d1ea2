"""Export: JSON lines, graph-pack metadata, checklist admission, baselines never overwritten."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers_synthesis import envelope, item

from helix.cli.main import cli
from helix.core.envelope import Citation, TreeWalkNode
from helix.core.errors import BaselineExistsError, ConfigError
from helix.export import ANCHOR_UNAVAILABLE, CHECKS, ExportSettings, checklist_failures, export
from helix.runlog import RunLog

TREE = "docs/trees/retry-tree.json"
FULL = f"tree:{TREE}#retry-policy"
PARTIAL = f"tree:{TREE}#retry-overview"
EVIDENCE_LINK = {"repo_rev": "abc123", "content_hash": "sha256:aa"}


def full_node(**overrides: Any) -> dict[str, Any]:
    checklist = {
        "inputs": [{"name": "attempt", "type": "int", "unit": "count", "source": "caller"}],
        "outputs": [{"name": "retry", "type": "bool", "unit": "1"}],
        "evidence": [{"type": t, "path": f"{t}.py", **EVIDENCE_LINK}
                     for t in ("code", "doc", "test")],
        "deterministic": True, "tolerance": {"abs": 0, "rel": 0},
        "assumptions": ["errors carry a transient flag"], "validity": {"mode": "all"},
        "environment": {"runtime": "python3.11", "lockfile_hash": "sha256:lock"},
        "dependencies": ["retry-consts"],
    }
    checklist.update(overrides)
    return {"kind": "tree", "tree_file": TREE, "content_hash": "sha256:node",
            "checklist": checklist}


NODES: dict[str, dict[str, Any]] = {
    FULL: full_node(),
    f"tree:{TREE}#retry-consts": full_node(dependencies=[]),
    PARTIAL: {"kind": "tree", "tree_file": TREE, "checklist": {"inputs": [{"name": "x"}],
                                                                "dependencies": []}},
    "def:src/retry.py::decide_retry": {"kind": "def", "path": "src/retry.py"},
}


def lookup(repo_root: str, node_id: str) -> Mapping[str, Any] | None:
    return NODES.get(node_id)


def links_hold(repo_root: str, links: list[Any]) -> list[str]:
    """Link verification against a repository is tested in test_export_links.py."""
    return []


FAKES: dict[str, Any] = {"lookup": lookup, "verify": links_hold}


def node(node_id: str) -> Mapping[str, Any] | None:
    return NODES.get(node_id)


def test_full_access_node_passes_every_check() -> None:
    assert checklist_failures(FULL, node) == []


@pytest.mark.parametrize(("override", "check"), [
    ({"inputs": [{"name": "attempt", "type": "int", "unit": "count"}]}, "inputs"),
    ({"outputs": []}, "outputs"),
    ({"evidence": [{"type": "code", **EVIDENCE_LINK}, {"type": "doc", **EVIDENCE_LINK}]},
     "evidence"),
    ({"evidence": [{"type": t, "repo_rev": "abc"} for t in ("code", "doc", "test")]},
     "versioning"),
    ({"tolerance": None}, "determinism"),
    ({"deterministic": False}, "determinism"),
    ({"validity": {}}, "assumptions"),
    ({"environment": {"runtime": "python"}}, "environment"),
    ({"dependencies": ["missing-node"]}, "dag_integrity"),
])
def test_each_check_can_fail_alone(override: dict[str, Any], check: str) -> None:
    nodes = dict(NODES)
    nodes["tree:x#n"] = full_node(**override)
    assert checklist_failures("tree:x#n", nodes.get) == [check]


def test_dependency_cycle_fails_dag_integrity() -> None:
    nodes = {f"tree:{TREE}#a": full_node(dependencies=["b"]),
             f"tree:{TREE}#b": full_node(dependencies=["a"])}
    assert checklist_failures(f"tree:{TREE}#a", nodes.get) == ["dag_integrity"]
    nodes[f"tree:{TREE}#b"] = full_node(dependencies=[])
    assert checklist_failures(f"tree:{TREE}#a", nodes.get) == []


def test_code_node_fails_everything_and_unknown_is_unavailable() -> None:
    assert checklist_failures("def:src/retry.py::decide_retry", node) == list(CHECKS)
    assert checklist_failures("def:gone", node) == [ANCHOR_UNAVAILABLE]


def _log_runs(log: RunLog) -> list[str]:
    tree_item = item(TREE, 5, 30, "Retry policy node", kind="tree", node_id=FULL)
    walk = (TreeWalkNode(node_id=f"tree:{TREE}#root", title="Retries", depth=0, kind="tree"),
            TreeWalkNode(node_id=FULL, title="Retry policy", depth=1, kind="tree",
                         bound_evidence=(tree_item.id,)))
    full = envelope(evidence=(tree_item, *envelope().evidence), anchors=(FULL,),
                    tree_nodes=walk, selected_trees=(TREE,), primary_tree_id=f"tree:{TREE}#root")
    plain = envelope(question="what does decide_retry return?")
    partial = envelope(question="overview?", anchors=(PARTIAL,))
    ids = []
    for n, env in enumerate((full, plain, partial)):
        run_id = log.start(env, created=float(n), dry_run=False)
        answered = env.model_copy(update={
            "answer_mode": "llm", "answer": f"answer {n} [E1]", "llm_steps": 1, "model": "m",
            "citations": (Citation(ref="E1", evidence_id=env.evidence[0].id,
                                   path=env.evidence[0].path,
                                   start_line=env.evidence[0].start_line,
                                   end_line=env.evidence[0].end_line),)})
        log.finish(run_id, answered, updated=float(n))
        ids.append(run_id)
    dry = log.start(envelope(question="dry"), created=9.0, dry_run=True)
    log.finish(dry, envelope(question="dry"), updated=9.0)
    return ids


def test_records_admission_and_report(tmp_path: Path, helix_home: Path) -> None:
    log = RunLog()
    ids = _log_runs(log)
    out = tmp_path / "records.jsonl"
    report = export(out, ExportSettings(), log.records(), **FAKES)
    lines = out.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["run_id"] for r in records] == [ids[0]]
    rec = records[0]
    assert rec["anchor_node_id"] == FULL and rec["admission"]["full_access"]
    assert rec["evidence"][0] == {
        "ref": "E1", "evidence_id": rec["evidence"][0]["evidence_id"], "path": TREE,
        "start_line": 5, "end_line": 30, "kind": "tree",
        "content_hash": rec["evidence"][0]["content_hash"], "repo_rev": "abc123",
        "node_id": FULL}
    assert rec["evidence_hash"].startswith("sha256:")
    assert rec["graph_pack"] == {
        "treeIds": [TREE], "primaryTreeId": f"tree:{TREE}#root", "anchorIds": [FULL],
        "pathIds": [f"tree:{TREE}#root", FULL], "conceptMatch": [FULL], "treeVersion": None,
        "repo_rev": "abc123", "lattice_rev": "sha256:idx"}
    assert (report.considered, report.admitted, report.diagnostic, report.rejected) == (3, 1, 0, 2)
    assert report.failed_checks["inputs"] == 2 and report.failed_checks["environment"] == 2
    assert report.skipped == {"answer_mode=dry_run": 1}
    assert report.kind == "variant"
    stored = Path(report.stored_at)
    assert (stored / "records.jsonl").read_bytes() == out.read_bytes()
    assert json.loads((stored / "manifest.json").read_text())["kind"] == "variant"


def test_include_diagnostic_marks_failing_records(tmp_path: Path) -> None:
    log = RunLog()
    _log_runs(log)
    out = tmp_path / "all.jsonl"
    report = export(out, ExportSettings(include_diagnostic=True), log.records(), **FAKES)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 3 and report.diagnostic == 2 and report.rejected == 0
    diag = [r for r in records if r["admission"]["diagnostic"]]
    assert {r["anchor_node_id"] for r in diag} == {"def:src/retry.py::decide_retry", PARTIAL}
    assert all(r["admission"]["failed_checks"] for r in diag)


def test_chat_format(tmp_path: Path) -> None:
    log = RunLog()
    _log_runs(log)
    out = tmp_path / "chat.jsonl"
    export(out, ExportSettings(format="chat"), log.records(), **FAKES)
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    roles = [m["role"] for m in record["messages"]]
    assert roles == ["system", "user", "assistant"] and set(record) == {"messages"}
    assert "TOOL_RESULTS" in record["messages"][1]["content"]
    assert record["messages"][2]["content"] == "answer 0 [E1]"


def test_baseline_is_never_overwritten_and_variants_are_separate(tmp_path: Path) -> None:
    log = RunLog()
    _log_runs(log)
    first = export(tmp_path / "a.jsonl", ExportSettings(), log.records(), **FAKES,
                   pin_baseline="v1")
    stored = Path(first.stored_at)
    assert first.kind == "baseline" and stored.name == "v1"
    before = (stored / "records.jsonl").read_bytes()
    with pytest.raises(BaselineExistsError):
        export(tmp_path / "b.jsonl", ExportSettings(include_diagnostic=True), log.records(),
               **FAKES, pin_baseline="v1")
    assert (stored / "records.jsonl").read_bytes() == before
    assert not (tmp_path / "b.jsonl").exists()
    tagged = export(tmp_path / "c.jsonl", ExportSettings(variant_tags={"lr": "1e-5"}),
                    log.records(), **FAKES)
    untagged = export(tmp_path / "d.jsonl", ExportSettings(), log.records(), **FAKES)
    assert tagged.stored_at != untagged.stored_at
    assert Path(tagged.stored_at).parent.name == "variants"
    with pytest.raises(ConfigError):
        export(tmp_path / "e.jsonl", ExportSettings(), log.records(), pin_baseline="../x")


def test_cli_export_report_and_baseline_refusal(tmp_path: Path) -> None:
    log = RunLog()
    _log_runs(log)
    runner = CliRunner()
    out = tmp_path / "cli.jsonl"
    result = runner.invoke(cli, ["export", "--out", str(out), "--include-diagnostic",
                                 "--variant-tag", "lr=1e-5", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    # no index exists for "/repo": every anchor is unavailable, so all are diagnostic
    assert report["diagnostic"] == 3 and report["failed_checks"] == {ANCHOR_UNAVAILABLE: 3}
    for line in out.read_text().splitlines():
        assert json.loads(line)["variant_tags"] == {"lr": "1e-5"}
    manifest = json.loads((Path(report["stored_at"]) / "manifest.json").read_text())
    assert manifest["created"] > 1_700_000_000  # when it was exported, not 0
    args = ["export", "--out", str(out), "--pin-baseline", "base"]
    assert runner.invoke(cli, args).exit_code == 0
    again = runner.invoke(cli, args)
    assert again.exit_code != 0 and isinstance(again.exception, BaselineExistsError)
