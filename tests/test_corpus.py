"""`helix eval corpus` on a toy repository built here: the cases, every filter, the build's
reproducibility and resumption, and that history features never read past R."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.corpus.build import CASES_FILE, MANIFEST_FILE, build, load_cases
from evals.corpus.mine import mine_repo
from evals.corpus.prior import prior_commits
from evals.corpus.repos import load_repo_list, mirror_dir
from evals.corpus.rules import Limits
from helix.core.config import IndexSettings
from helix.core.errors import ConfigError
from helix.core.hashing import digest
from tests.cli_helpers import run
from tests.corpus_helpers import build_corpus_repo, mirror_of, repo_list


@pytest.fixture()
def toy(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """(mirrors dir, repository list, commit name -> sha)."""
    repo, shas = build_corpus_repo(tmp_path)
    mirrors = tmp_path / "mirrors"
    mirror_of(repo, mirrors)
    return mirrors, repo_list(tmp_path / "repos.json", shas), shas


def test_cases_targets_and_drops(toy: tuple[Path, Path, dict[str, str]]) -> None:
    mirrors, listing, shas = toy
    entry = load_repo_list(listing).repos[0]
    result = mine_repo(mirror_dir(mirrors, entry.source), entry, Limits(), IndexSettings())
    by_name = {v: k for k, v in shas.items()}
    cases = {by_name[c.commit]: c for c in result.cases}
    assert set(cases) == {"method", "mapped", "insertion", "side"}
    # a hunk inside a method maps to that method, with its span at R
    [target] = cases["method"].targets
    assert (target.path, target.qualname, target.kind, target.start, target.end) == (
        "pkg/core.py", "Store.get", "method", 12, 15)
    assert cases["method"].exact and cases["method"].names_target
    assert cases["method"].parent == shas["R"] and cases["method"].revision == shas["R"]
    # core.py changed between R and the parent: mapped by name, R's span (not the parent's)
    [put] = cases["mapped"].targets
    assert (put.qualname, put.start, put.end) == ("Store.put", 17, 19)
    assert not cases["mapped"].exact
    # a line inserted inside a function's body changes that function
    assert [t.qualname for t in cases["insertion"].targets] == ["helper"]
    # a side branch's commit (merged after R) is a case; the merge itself is not
    assert [t.qualname for t in cases["side"].targets] == ["Store.put"]
    assert result.merges == 1
    assert result.dropped == {
        "merge": 1, "revert": 1, "too_few_words": 1, "vendored": 1, "bulk_rename": 1,
        "gold_added_only": 3,  # the three commits that only add a module
        "no_definition": 1,  # a new function added to an existing file: absent at R
        "definition_not_at_revision": 1,  # a change to that new function's body
        "whitespace_only": 1, "too_many_definitions": 1, "duplicate": 1}
    assert sum(result.dropped.values()) + len(result.cases) == result.commits + result.merges


def test_each_filter_names_its_commit(toy: tuple[Path, Path, dict[str, str]],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Which commit each drop reason took (the reasons recorded one by one)."""
    import evals.corpus.mine as mine_module

    mirrors, listing, shas = toy
    entry = load_repo_list(listing).repos[0]
    seen: dict[str, str] = {}
    real_case = mine_module._case
    real_reason = mine_module.commit_reason

    def spy_case(entry_, plan, parsed, limits):  # type: ignore[no-untyped-def]
        reason, case = real_case(entry_, plan, parsed, limits)
        if reason is not None:
            seen[plan.commit.sha] = reason
        return reason, case

    def spy_reason(commit, limits):  # type: ignore[no-untyped-def]
        reason = real_reason(commit, limits)
        if reason is not None:
            seen[commit.sha] = reason
        return reason

    real_patch = mine_module._patch_reason

    def spy_patch(plan, limits):  # type: ignore[no-untyped-def]
        reason = real_patch(plan, limits)
        if reason is not None:
            seen[plan.commit.sha] = reason
        return reason

    monkeypatch.setattr(mine_module, "_patch_reason", spy_patch)
    monkeypatch.setattr(mine_module, "_case", spy_case)
    monkeypatch.setattr(mine_module, "commit_reason", spy_reason)
    mine_repo(mirror_dir(mirrors, entry.source), entry, Limits(), IndexSettings())
    named = {name: seen.get(sha) for name, sha in shas.items()}
    assert named["revert"] == "revert"
    assert named["short"] == "too_few_words"
    assert named["vendored"] == "vendored"
    assert named["bulk_rename"] == "bulk_rename"
    assert named["changed_new"] == "definition_not_at_revision"
    assert named["many"] == "too_many_definitions"
    assert named["new_function"] == "no_definition"
    assert named["whitespace"] == "whitespace_only"
    assert named["method"] is None and named["side"] is None


def test_a_lower_definition_limit_drops_more(toy: tuple[Path, Path, dict[str, str]]) -> None:
    mirrors, listing, _ = toy
    entry = load_repo_list(listing).repos[0]
    gitdir = mirror_dir(mirrors, entry.source)
    assert len(mine_repo(gitdir, entry, Limits(max_definitions=7), IndexSettings()).cases) == 5
    capped = mine_repo(gitdir, entry, Limits(cases_per_repo=2), IndexSettings())
    assert len(capped.cases) == 2 and capped.dropped["over_cap"] == 2


def test_build_is_reproducible_and_resumable(toy: tuple[Path, Path, dict[str, str]],
                                             tmp_path: Path) -> None:
    mirrors, listing_path, _ = toy
    listing = load_repo_list(listing_path)
    one = build(listing, mirrors, tmp_path / "work1", tmp_path / "out1")
    two = build(listing, mirrors, tmp_path / "work2", tmp_path / "out2")
    data = (tmp_path / "out1" / CASES_FILE).read_bytes()
    assert data == (tmp_path / "out2" / CASES_FILE).read_bytes()
    assert one == two and one["corpus_hash"] == digest(data)
    assert ((tmp_path / "out1" / MANIFEST_FILE).read_bytes()
            == (tmp_path / "out2" / MANIFEST_FILE).read_bytes())
    assert one["counts"]["cases"] == 4 and one["dropped"]["merge"] == 1
    assert len(load_cases(tmp_path / "out1" / CASES_FILE)) == 4
    # resumed: a current per-repository file is reused, not mined again
    cached = tmp_path / "work1" / "toy.json"
    stamp = cached.stat().st_mtime_ns
    assert build(listing, mirrors, tmp_path / "work1", tmp_path / "out3") == one
    assert cached.stat().st_mtime_ns == stamp
    # a damaged one (a kill mid-write never leaves one, but a disk can) is mined again
    cached.write_text("{", encoding="utf-8")
    assert build(listing, mirrors, tmp_path / "work1", tmp_path / "out4") == one


def test_history_features_read_nothing_after_r(toy: tuple[Path, Path, dict[str, str]]) -> None:
    mirrors, listing, shas = toy
    entry = load_repo_list(listing).repos[0]
    gitdir = mirror_dir(mirrors, entry.source)
    before = prior_commits(gitdir, entry.revision, max_commits=100)
    assert [c.sha for c in before] == [shas["R"], shas["prior"], shas["init"]]
    assert any("antediluvian" in c.message for c in before)
    after = {sha for name, sha in shas.items() if name not in ("R", "prior", "init")}
    assert not after & {c.sha for c in before}
    assert len(prior_commits(gitdir, entry.revision, max_commits=1)) == 1
    for bad in ("HEAD", "main", f"{shas['R']}..{shas['U']}", f"--all {shas['R']}"):
        with pytest.raises(ConfigError):
            prior_commits(gitdir, bad, max_commits=10)


def test_cli_build_and_one_line_errors(toy: tuple[Path, Path, dict[str, str]], tmp_path: Path,
                                       helix_home: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    mirrors, listing, _ = toy
    out = tmp_path / "corpus"
    code, stdout, err = run(["eval", "corpus", "build", "--repos", str(listing), "--mirrors",
                             str(mirrors), "--out", str(out), "--json"], capsys)
    assert code == 0, err
    assert json.loads(stdout)["counts"]["cases"] == 4
    assert (out / CASES_FILE).is_file()
    bad = tmp_path / "bad.json"
    raw = json.loads(listing.read_text(encoding="utf-8"))
    cases = {
        "missing": None,
        "not json": "{",
        "no repos": {"split_seed": 1, "repos": []},
        "bad source": {**raw, "repos": [{**raw["repos"][0], "source": "gitlab:x/y"}]},
        "bad sha": {**raw, "repos": [{**raw["repos"][0], "revision": "HEAD"}]},
        "bad split": {**raw, "repos": [{**raw["repos"][0], "split": "sideways"}]},
        "dev set": {**raw, "repos": [{**raw["repos"][0], "source": "github:reflex-dev/reflex",
                                      "name": "reflex"}]},
        "reserved": {**raw, "repos": [{**raw["repos"][0], "source": "github:pallets/flask",
                                       "name": "flask"}]},
        "language": {**raw, "repos": [{**raw["repos"][0], "language": "cobol"}]},
        "no field": {**raw, "repos": [{k: v for k, v in raw["repos"][0].items()
                                       if k != "until"}]},
    }
    for label, content in cases.items():
        target = tmp_path / "absent.json" if content is None else bad
        if content is not None:
            bad.write_text(content if isinstance(content, str) else json.dumps(content),
                           encoding="utf-8")
        code, stdout, err = run(["eval", "corpus", "build", "--repos", str(target),
                                 "--mirrors", str(mirrors), "--out", str(out)], capsys)
        assert code != 0, label
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, (label, err)
    code, _, err = run(["eval", "corpus", "build", "--repos", str(listing), "--mirrors",
                        str(tmp_path / "nowhere"), "--out", str(out)], capsys)
    assert code != 0 and "no snapshot of github:toy/proj" in err


def test_a_commit_whose_blob_the_snapshot_lacks_is_dropped(
        toy: tuple[Path, Path, dict[str, str]]) -> None:
    """Snapshots leave out files of 4 MiB and more: git cannot diff such a commit."""
    import subprocess

    mirrors, listing, shas = toy
    entry = load_repo_list(listing).repos[0]
    gitdir = mirror_dir(mirrors, entry.source)
    blob = subprocess.run(["git", "--git-dir", str(gitdir), "rev-parse",
                           f"{shas['many']}:pkg/steps.py"], capture_output=True, text=True,
                          check=True).stdout.strip()
    (gitdir / "objects" / blob[:2] / blob[2:]).unlink()
    result = mine_repo(gitdir, entry, Limits(), IndexSettings())
    assert result.dropped["unreadable"] == 1 and "too_many_definitions" not in result.dropped
    assert len(result.cases) == 4  # the others are read as before


def test_cli_pin_and_trees(toy: tuple[Path, Path, dict[str, str]], tmp_path: Path,
                           helix_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import subprocess

    mirrors, _, shas = toy
    listing = tmp_path / "pinned.json"
    code, _, err = run(["eval", "corpus", "pin", "--mirrors", str(mirrors), "--add",
                        "toy=github:toy/proj:python", "--out", str(listing)], capsys)
    assert code == 0, err
    [entry] = load_repo_list(listing).repos
    line = subprocess.run(["git", "--git-dir", str(mirror_dir(mirrors, entry.source)),
                           "rev-list", "--first-parent", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.split()
    assert entry.until == shas["U"] == line[0]
    assert entry.revision == line[len(line) // 2]  # min(800, n // 2) steps back
    code, _, err = run(["eval", "corpus", "pin", "--mirrors", str(mirrors), "--add",
                        "toy=github:toy/proj", "--out", str(listing)], capsys)
    assert code != 0 and "NAME=github:OWNER/NAME:LANGUAGE" in err
    trees = tmp_path / "trees"
    code, _, err = run(["eval", "corpus", "trees", "--repos", str(repo_list(
        tmp_path / "r.json", shas)), "--mirrors", str(mirrors), "--into", str(trees)], capsys)
    assert code == 0, err
    assert (trees / "toy" / "README.md").read_text(encoding="utf-8") == "# toy\n\nA store.\n"
    assert "antediluvian" in (trees / "toy" / "pkg" / "core.py").read_text(encoding="utf-8")
    assert "keys()" not in (trees / "toy" / "pkg" / "core.py").read_text(encoding="utf-8")
