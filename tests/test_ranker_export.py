"""Helix's own exported training records as an extra training source: a record whose evidence
hash verifies and whose cited spans are unchanged becomes a labelled question (the cited span
relevant); a tampered or stale record is refused and counted; `train-ranker --export` trains on
the accepted ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run

from evals.corpus.export_rows import cited_spans, export_rows
from evals.corpus.features import collect_repo, save
from evals.corpus.repos import assign_splits
from helix.core.config import load_config
from helix.core.hashing import hash_obj
from helix.service import ask
from tests.test_ranker_toy import FILES, _cases, _module


@pytest.fixture(autouse=True, scope="module")
def _lightgbm() -> None:
    """Skipped without lightgbm, imported at the first test (not at collection)."""
    pytest.importorskip("lightgbm")



def _record(envelope: object, question: str, cite: int) -> dict[str, object]:
    evidence = [{"ref": f"E{n}", "evidence_id": e.id, "path": e.path,
                 "start_line": e.start_line, "end_line": e.end_line, "kind": e.kind,
                 "content_hash": e.content_hash, "repo_rev": "nogit", "node_id": e.node_id}
                for n, e in enumerate(envelope.evidence, start=1)]  # type: ignore[attr-defined]
    return {"schema": "helix-training-record/1", "record_id": f"r{cite}", "question": question,
            "evidence": evidence,
            "evidence_hash": hash_obj([[e["path"], e["start_line"], e["end_line"],
                                        e["content_hash"]] for e in evidence]),
            "citations": [{"evidence_id": evidence[cite]["evidence_id"], "ref": f"E{cite}"}]}


def _toy(tmp_path: Path) -> Path:
    root = tmp_path / "toy"
    (root / "pkg").mkdir(parents=True)
    for n in range(FILES):
        (root / "pkg" / f"mod_{n}.py").write_text(_module(n), encoding="utf-8")
    return root


def test_records_verify_or_are_counted_out(tmp_path: Path, helix_home: Path) -> None:
    root = _toy(tmp_path)
    config = load_config(root, flags={"index.embed_enabled": False})
    question = "Fix amber basil handling"
    env = ask(question, root=root, config=config, dry_run=True).envelope
    target = next(n for n, e in enumerate(env.evidence) if e.symbol == "process_0")
    good = _record(env, question, target)
    tampered = {**good, "evidence_hash": "sha256:" + "0" * 64}
    stale = json.loads(json.dumps(good))
    stale["evidence"][target]["content_hash"] = "sha256:" + "1" * 64
    stale["evidence_hash"] = hash_obj([[e["path"], e["start_line"], e["end_line"],
                                        e["content_hash"]] for e in stale["evidence"]])
    uncited = {**good, "citations": []}
    assert cited_spans(good) and cited_spans(tampered) is None and cited_spans(uncited) is None
    rows, counts = export_rows([good, tampered, stale, uncited], root, {})
    assert counts == {"records": 4, "accepted": 1, "unverified": 2, "changed": 1}
    (case,) = rows
    relevant = [c for c, label in zip(case.candidates, case.labels, strict=True) if label]
    assert relevant == [("pkg/mod_0.py", "process_0", env.evidence[target].start_line,
                         env.evidence[target].end_line)]


def _listing() -> tuple[list[dict[str, str]], dict[str, str]]:
    """Eight toy repositories with the split rule's splits, and one train and one validation
    name among them (the ones rows are collected for)."""
    sources = [f"github:toy/repo{n}" for n in range(8)]
    rule = assign_splits(((s, "python") for s in sources), 31)
    repos = [{"name": s.rsplit("/", 1)[1], "source": s, "language": "python",
              "revision": "a" * 40, "until": "b" * 40, "split": rule[s]} for s in sources]
    train = next(r["name"] for r in repos if r["split"] == "train")
    valid = next(r["name"] for r in repos if r["split"] == "validation")
    return repos, {train: "train", valid: "validation"}


def test_train_ranker_takes_exported_records(tmp_path: Path, helix_home: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = _toy(tmp_path)
    repos, names = _listing()
    listing = {"description": "toy", "split_rule": "", "split_seed": 31, "pin_rule": "",
               "repos": repos}
    (tmp_path / "repos.json").write_text(json.dumps(listing), encoding="utf-8")
    cases = []
    for name, split in names.items():
        mine = [c.model_copy(update={"repo": name, "split": split,
                                     "id": c.id.replace("toy", name)})
                for c in _cases(root) if (c.split == "train") == (split == "train")]
        rows, _ = collect_repo(root, mine, {})
        save(rows, tmp_path / "rows" / name, {"repo": name, "split": split})
        cases += mine
    (tmp_path / "cases.jsonl").write_text(
        "".join(c.model_dump_json() + "\n" for c in cases), encoding="utf-8")
    config = load_config(root, flags={"index.embed_enabled": False})
    question = "Support more quartz raven values"
    env = ask(question, root=root, config=config, dry_run=True).envelope
    target = next(n for n, e in enumerate(env.evidence) if e.symbol == "process_8")
    (tmp_path / "records.jsonl").write_text(json.dumps(_record(env, question, target)) + "\n",
                                            encoding="utf-8")
    args = ["eval", "corpus", "train-ranker", "--repos", str(tmp_path / "repos.json"),
            "--cases", str(tmp_path / "cases.jsonl"), "--rows", str(tmp_path / "rows"),
            "--out", str(tmp_path / "model")]
    code, _out, err = run([*args, "--export", str(tmp_path / "records.jsonl")], capsys)
    assert code == 2 and "--export needs --export-repo" in err and err.count("\n") == 1
    code, out, err = run([*args, "--export", str(tmp_path / "records.jsonl"),
                          "--export-repo", str(root)], capsys)
    assert code == 0, err
    manifest = json.loads((tmp_path / "model" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["export"] == {"records": 1, "accepted": 1, "unverified": 0, "changed": 0}
    assert "digest = \"sha256:" in out
