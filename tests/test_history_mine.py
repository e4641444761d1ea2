"""Mining a real (small, synthetic) git history: cases, gold, reproducible sampling."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from evals.history.mine import (
    HistoryCase,
    git_dir,
    mine,
    parse_log,
    repo_key,
    sample,
    since_timestamp,
)
from helix.core.errors import BadPathError, ConfigError
from tests.history_helpers import DAY, EPOCH, build_history_repo, git


@pytest.fixture()
def history_repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    return build_history_repo(tmp_path)


def test_mined_cases_and_their_gold(history_repo: tuple[Path, dict[str, str]]) -> None:
    repo, shas = history_repo
    mined = mine(git_dir(repo), name="proj")
    by_commit = {c.commit: c for c in mined.cases}
    assert set(by_commit) == {shas["parser"], shas["cache"], shas["rename"], shas["retries"]}
    assert mined.commits == 7
    assert mined.dropped == {"gold_added_only": 1, "root": 1, "typo": 1}
    parser = by_commit[shas["parser"]]
    assert parser.gold == ("proj/parser.py",)  # the test file it changed is not gold
    assert parser.parent == shas["network"]
    assert parser.question == ("Fix parse_line on lines without an equals sign\n\nparse_line "
                               "returned an empty value for 'key' lines; see #7.")
    assert by_commit[shas["rename"]].gold == ("proj/network.py",)  # the path at the parent
    assert by_commit[shas["retries"]].gold == ("proj/net.py",)
    assert [c.commit for c in mined.cases] == [shas["parser"], shas["cache"], shas["rename"],
                                               shas["retries"]]  # oldest first
    assert parser.id == f"proj@{shas['parser'][:12]}"


def test_a_bare_clone_and_a_subdirectory_mine_the_same(
        history_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, _ = history_repo
    bare = tmp_path / "proj.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    assert git_dir(bare) == bare.resolve()
    assert git_dir(repo / "proj") == (repo / ".git").resolve()
    one = mine(git_dir(bare), name="p", seed=3)
    two = mine(git_dir(repo / "proj"), name="p", seed=3)
    assert one.cases == two.cases and one.rev == two.rev


def test_sampling_is_reproducible_by_seed(history_repo: tuple[Path, dict[str, str]]) -> None:
    repo, shas = history_repo
    gd = git_dir(repo)
    runs = {seed: [c.commit for c in mine(gd, seed=seed, limit=2).cases] for seed in range(8)}
    assert runs[1] == [c.commit for c in mine(gd, seed=1, limit=2).cases]
    assert len({tuple(r) for r in runs.values()}) > 1  # the seed matters
    for commits in runs.values():
        assert len(commits) == 2
    # pinned at an older commit: only the history reachable from it
    pinned = mine(gd, rev=shas["cache"], seed=0)
    assert [c.commit for c in pinned.cases] == [shas["parser"], shas["cache"]]
    # a newer commit on top never changes which older commits a seed picks, nor their order
    git(repo, "commit", "-q", "--allow-empty", "-m", "Nothing changed in this commit at all",
        when=EPOCH + 9 * DAY)
    assert [c.commit for c in mine(gd, rev=shas["retries"], seed=5, limit=3).cases] == \
        [c.commit for c in mine(gd, seed=5, limit=3).cases]


def test_sample_orders_by_time_then_commit() -> None:
    def case(sha: str, t: int) -> HistoryCase:
        return HistoryCase(id=sha, repo="r", commit=sha, parent="p", committed=t, question="q",
                           truncated=False, gold=("a.py",), source_files=("a.py",))
    cases = [case("c" * 40, 5), case("a" * 40, 9), case("b" * 40, 5)]
    assert [c.commit[0] for c in sample(cases, seed=0, limit=None)] == ["b", "c", "a"]
    assert sample(cases, 1, 2) == sample(list(reversed(cases)), 1, 2)


def test_since_keeps_commits_from_that_day(history_repo: tuple[Path, dict[str, str]]) -> None:
    repo, shas = history_repo
    mined = mine(git_dir(repo), since="2020-09-16")  # EPOCH + 3 days is 2020-09-16 12:26 UTC
    assert [c.commit for c in mined.cases] == [shas["cache"], shas["rename"], shas["retries"]]
    assert mined.dropped["before_since"] == 3  # init, network, parser
    assert since_timestamp("2020-09-16") == 1600214400
    for bad in ("2 years ago", "2020-13-01", "20200916"):
        with pytest.raises(ConfigError):
            since_timestamp(bad)


def test_bad_repositories_and_revisions_are_user_errors(tmp_path: Path,
                                                        history_repo: tuple[Path, dict[str, str]]
                                                        ) -> None:
    repo, _ = history_repo
    with pytest.raises(BadPathError):
        git_dir(tmp_path / "missing")
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(BadPathError):
        git_dir(plain)
    for rev in ("no-such-branch", "--output=/tmp/x"):
        with pytest.raises(ConfigError):
            mine(git_dir(repo), rev=rev)
    with pytest.raises(ConfigError):
        mine(git_dir(repo), limit=0)


def test_parse_log_reads_renames_and_skips_malformed_records() -> None:
    sha, parent = "1" * 40, "2" * 40
    raw = (b"\x1e" + sha.encode() + b"\x1f" + parent.encode() + b"\x1f1600000000\x1fAda\x1f"
           b"a@x\x1fFix the thing\n\nbody \x1f with a separator\n\x1f\x00\n"
           b"R087\x00old/a.py\x00new/a.py\x00M\x00b.py\x00A\x00c.py\x00"
           b"\x1enot-a-sha\x1f\x1f\x1f\x1f\x1f\x1f")
    [commit] = parse_log(raw)
    assert commit.message == "Fix the thing\n\nbody \x1f with a separator\n"
    assert [(c.status, c.old_path, c.path) for c in commit.changes] == [
        ("R", "old/a.py", "new/a.py"), ("M", None, "b.py"), ("A", None, "c.py")]


def test_repo_key_is_stable_and_names_the_repository(tmp_path: Path) -> None:
    mirror = tmp_path / "owner+name" / "repo"
    assert repo_key(mirror).startswith("owner+name-")
    assert repo_key(tmp_path / "work" / ".git").startswith("work-")
    assert repo_key(tmp_path / "x.git").startswith("x-")
    assert repo_key(mirror) == repo_key(mirror) != repo_key(tmp_path / "other" / "repo")
