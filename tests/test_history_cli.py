"""`helix eval history` end to end on a small git repository built here (no embeddings)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from evals.history import devset
from evals.history.run import RepoSpec, run_repo, tree_dir
from evals.history.trees import TreeWriter
from tests.cli_helpers import run
from tests.history_helpers import build_history_repo


def test_history_json_end_to_end(tmp_path: Path, helix_home: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    repo, shas = build_history_repo(tmp_path)
    out_file = tmp_path / "out" / "history.json"
    code, out, err = run(["eval", "history", "--repo", str(repo), "--no-embed", "--json",
                          "--seed", "4", "--out", str(out_file)], capsys)
    assert code == 0, err
    payload = json.loads(out)
    assert json.loads(out_file.read_text(encoding="utf-8")) == payload
    [result] = payload["repos"]
    assert result["name"] == "proj" and result["rev"] == shas["retries"]
    assert result["kept"] == 4 and result["dropped"] == {"gold_added_only": 1, "root": 1,
                                                         "typo": 1}
    cases = {c["commit"]: c for c in result["cases"]}
    assert set(cases) == {shas["parser"], shas["cache"], shas["rename"], shas["retries"]}
    for case in result["cases"]:
        assert case["llm_steps"] == 0 and case["route"]
        assert case["helix"]["error"] is None and case["bm25"]["error"] is None
        assert case["helix"]["top"] and case["bm25"]["top"]
    # the cache question names its class: both systems put cache.py first
    cache = cases[shas["cache"]]
    assert cache["gold"] == ["proj/cache.py"]
    assert cache["helix"]["all_rank"] == 1 and cache["bm25"]["all_rank"] == 1
    # the rename's gold is the path at the parent, which is what the tree holds
    assert cases[shas["rename"]]["gold"] == ["proj/network.py"]
    for system in ("helix", "bm25"):
        summary = result[system]
        assert summary["cases"] == 4 and summary["errors"] == 0
        assert summary["acc@1"] is not None and summary["acc@10"] >= summary["acc@1"]
        assert summary["p50_s"] >= 0
    assert payload["overall"]["all"]["helix"]["cases"] == 4
    assert payload["settings"]["no_embed"] is True
    # the tree lived under $HELIX_HOME while the cases ran, and is gone; the user's checkout
    # is untouched (no new files, HEAD unchanged)
    tree = tree_dir(repo / ".git", helix_home)
    assert not tree.exists() and not tree.with_name("tree.state.json").exists()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True,
                            text=True, check=True).stdout
    assert status == ""


def test_history_human_output_and_cases_listing(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    repo, shas = build_history_repo(tmp_path)
    code, out, err = run(["eval", "history", "--repo", str(repo), "--no-embed", "--limit",
                          "2", "-v"], capsys)
    assert code == 0, err
    assert "proj at" in out and "Helix" in out and "BM25 files" in out and "Acc@5" in out
    assert "2 cases run" in out and "proj 2/2" in err  # progress on stderr with -v
    code, out, err = run(["eval", "history", "--repo", str(repo), "--cases", "--json"], capsys)
    assert code == 0, err
    listed = json.loads(out)["repos"][0]
    assert [c["commit"] for c in listed["cases"]] == [shas["parser"], shas["cache"],
                                                      shas["rename"], shas["retries"]]


@pytest.mark.parametrize(("args", "message"), [
    (["--repo", "{tmp}/missing"], "repository not found"),
    (["--repo", "{tmp}"], "not a git repository"),
    (["--repo", "{repo}", "--since", "last year"], "--since must be a date"),
    (["--repo", "{repo}", "--rev", "nope"], "unknown revision"),
    (["--repo", "{repo}", "--limit", "0"], "--limit"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          args: list[str], message: str) -> None:
    repo, _ = build_history_repo(tmp_path)
    argv = [a.format(tmp=tmp_path, repo=repo) for a in args]
    code, _, err = run(["eval", "history", *argv, "--no-embed"], capsys)
    assert code == 2
    assert err.startswith("helix: ") and message in err and err.count("\n") == 1
    assert "Traceback" not in err


def test_eval_suites_still_parse_without_history(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["eval", "--list", "--json"], capsys)
    assert code == 0 and "suites" in json.loads(out)
    code, out, _ = run(["eval", "history", "--help"], capsys)
    assert code == 0 and "Usage: helix eval history" in out


def test_a_crashing_helix_case_is_a_miss_and_the_run_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evals.history import run as history_run

    repo, _ = build_history_repo(tmp_path)

    def boom(self: object, question: str) -> object:
        raise RuntimeError("controller exploded")

    monkeypatch.setattr(history_run.HelixSide, "ask", boom)
    result = run_repo(RepoSpec(path=str(repo)), no_embed=True)
    assert result.helix["cases"] == 4 and result.helix["errors"] == 4
    assert result.helix["acc@10"] == 0.0
    assert result.bm25["errors"] == 0 and result.bm25["acc@10"] == 1.0


def test_the_dev_set_file_is_valid_and_holds_two_out(tmp_path: Path) -> None:
    dev = devset.load()
    assert len(dev.repos) >= 8 and sum(r.held_out for r in dev.repos) == 2
    held = sorted(r.source for r in dev.repos)[-2:]  # the rule: last two by owner/name
    assert sorted(r.source for r in dev.repos if r.held_out) == held
    forbidden = ("astropy", "seaborn", "flask", "requests", "xarray", "pylint", "pytest",
                 "sphinx", "sympy", "click", "pallets", "jinja", "werkzeug", "networkx")
    for repo in dev.repos:
        assert len(repo.commit) == 40 and repo.source.startswith("github:")
        assert not any(word in repo.source.lower() for word in forbidden), repo.source
    assert len({r.kind for r in dev.repos}) == len(dev.repos)
    # a clone is looked for under $HELIX_HOME first, then the mirrors
    mirror = tmp_path / "mirrors" / devset.mirror_name(dev.repos[0].source) / "repo"
    mirror.mkdir(parents=True)
    [spec] = devset.specs(dev, tmp_path / "mirrors", only=(dev.repos[0].name,))
    assert spec.path == str(mirror) and spec.rev == dev.repos[0].commit
    assert spec.seed == dev.seed and spec.since == dev.since


def test_tree_writer_key_is_per_repository(tmp_path: Path, helix_home: Path) -> None:
    repo, shas = build_history_repo(tmp_path)
    writer = TreeWriter(repo / ".git", tree_dir(repo / ".git", helix_home))
    writer.move_to(shas["init"])
    assert writer.target.parent.parent == helix_home / "history"


def test_one_run_at_a_time_moves_a_tree(tmp_path: Path, helix_home: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from evals.history.run import TREE_LOCK
    from indexers.locking import acquire

    repo, _ = build_history_repo(tmp_path)
    lock = tree_dir(repo / ".git", helix_home).parent / TREE_LOCK
    lock.parent.mkdir(parents=True)
    release = acquire(lock, 1.0)
    assert release is not None
    try:
        code, _, err = run(["eval", "history", "--repo", str(repo), "--no-embed"], capsys)
    finally:
        release()
    assert code == 1 and err.startswith("helix: another helix eval history is using the tree")


def test_a_case_past_a_bound_is_skipped_and_the_run_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evals.history import trees

    repo, _ = build_history_repo(tmp_path)
    real = trees.TreeWriter.move_to
    calls: list[str] = []

    def first_is_a_bomb(self: trees.TreeWriter, commit: str) -> dict[str, int]:
        calls.append(commit)
        if len(calls) == 1:
            raise trees.TreeBoundError("max_files", "the tree lists too many entries")
        if len(calls) == 2:  # a file where the commit has a directory: someone's, left alone
            raise trees.TreeError("not a directory in the tree, left alone: x")
        return real(self, commit)

    monkeypatch.setattr(trees.TreeWriter, "move_to", first_is_a_bomb)
    result = run_repo(RepoSpec(path=str(repo)), no_embed=True)
    assert result.skipped == {"bound_max_files": 1, "tree_error": 1}
    assert result.helix["cases"] == 2
