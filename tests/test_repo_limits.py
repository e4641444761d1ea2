"""A repository's config may lower a budget, size or cap, never raise it (issue 28).

A `.helix.toml` that raised `max_file_bytes` and the retrieval budgets ran one `ask` past 600 s
at 857 MB. Each raised limit is dropped with one notice naming the setting, the value, the
file and the limit in force; a lowered one is kept; your own places still set any value.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest
from cli_helpers import run

from helix.core.config import HelixConfig, resolve_config
from helix.core.repo_limits import LOWER_ONLY, is_lower_only

RULE = "a repository may lower a limit, never raise it"
USER = "set it in $HELIX_HOME/config.toml, a HELIX_* variable or a flag"


def _repo(tmp_path: Path, toml: str) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    (repo / ".helix.toml").write_text(toml, encoding="utf-8")
    return repo


def test_raised_budgets_and_sizes_are_dropped_with_a_notice(tmp_path: Path,
                                                            helix_home: Path) -> None:
    repo = _repo(tmp_path, (
        "[helix.index]\nmax_file_bytes = 1073741824\nmax_parse_bytes = 1073741824\n"
        "embed_max_chunks = 10000000\nwindow_overlap = 59\n"
        "[helix.retrieval]\nmax_steps = 400\nmax_evidence = 100000\ntime_budget_ms = 6000000\n"
        "per_channel_k = 100000\ntoken_budget = 10000000\nw_bm25 = 2.0\n"))
    config, notices = resolve_config(repo, env={"HELIX_HOME": str(helix_home)})
    default = HelixConfig()
    assert config.index == default.index
    assert config.retrieval.max_steps == default.retrieval.max_steps
    assert config.retrieval.per_channel_k == default.retrieval.per_channel_k
    assert config.retrieval.token_budget == default.retrieval.token_budget
    assert config.retrieval.w_bm25 == 2.0  # a weight is no limit: the repository's to set
    origin = repo / ".helix.toml"
    assert notices[0] == (f"ignored index.max_file_bytes = 1073741824 from {origin}: {RULE} "
                          f"(in force: 1048576); {USER}")
    assert [n.split(" = ")[0] for n in notices] == [
        "ignored index.max_file_bytes", "ignored index.max_parse_bytes",
        "ignored index.embed_max_chunks", "ignored index.window_overlap",
        "ignored retrieval.max_steps", "ignored retrieval.max_evidence",
        "ignored retrieval.time_budget_ms", "ignored retrieval.per_channel_k",
        "ignored retrieval.token_budget"]
    assert all("\n" not in n for n in notices)


def test_lowered_limits_are_kept(tmp_path: Path, helix_home: Path) -> None:
    repo = _repo(tmp_path, "[helix.index]\nmax_file_bytes = 5000\nembed_enabled = false\n"
                 "[helix.retrieval]\nmax_steps = 2\nper_channel_k = 10\n"
                 "[helix.retrieval.pools]\nfile_pool = 50\n")
    config, notices = resolve_config(repo, env={"HELIX_HOME": str(helix_home)})
    assert notices == ()
    assert config.index.max_file_bytes == 5000 and config.index.embed_enabled is False
    assert config.retrieval.max_steps == 2 and config.retrieval.per_channel_k == 10
    assert config.retrieval.pools.file_pool == 50


def test_nested_tables_and_routes_are_held_to_the_same_rule(tmp_path: Path,
                                                            helix_home: Path) -> None:
    repo = _repo(tmp_path, (
        "[helix.retrieval.pools]\nfile_pool = 100000\noverfetch = 2\n"
        "[helix.retrieval.routes.issue]\nper_channel_k = 10000\nrrf_k = 20\n"
        "[helix.retrieval.routes.definition]\nper_channel_k = 31\n"  # unset: retrieval's 30
        "[helix.retrieval.routes.usage]\nper_channel_k = 29\n"))
    config, notices = resolve_config(repo, env={"HELIX_HOME": str(helix_home)})
    default = HelixConfig().retrieval
    assert config.retrieval.pools.file_pool == default.pools.file_pool
    assert config.retrieval.pools.overfetch == 2
    issue = config.retrieval.route("issue")
    assert issue.per_channel_k == default.route("issue").per_channel_k and issue.rrf_k == 20
    assert issue.seed == default.route("issue").seed  # the rest of the route is as it was
    assert config.retrieval.route("definition").per_channel_k is None
    assert config.retrieval.route("usage").per_channel_k == 29
    assert [n.split(" from ")[0] for n in notices] == [
        "ignored retrieval.pools.file_pool = 100000",
        "ignored retrieval.routes.issue.per_channel_k = 10000",
        "ignored retrieval.routes.definition.per_channel_k = 31"]
    assert "(in force: 30)" in notices[2]


def test_the_limit_is_yours_and_your_places_still_raise(tmp_path: Path,
                                                       helix_home: Path) -> None:
    (helix_home / "config.toml").write_text(
        "[retrieval]\nmax_steps = 8\n[retrieval.pools]\nfile_pool = 100\n", encoding="utf-8")
    repo = _repo(tmp_path, "[helix.retrieval]\nmax_steps = 8\n[helix.retrieval.pools]\n"
                 "overfetch = 2\n")
    env = {"HELIX_HOME": str(helix_home)}
    config, notices = resolve_config(repo, env=env)
    assert notices == () and config.retrieval.max_steps == 8  # up to yours
    # the repository's pools table does not bring back the default you lowered
    assert config.retrieval.pools.file_pool == 100 and config.retrieval.pools.overfetch == 2
    _repo(tmp_path, "[helix.retrieval]\nmax_steps = 9\n")
    config, notices = resolve_config(repo, env=env)
    assert config.retrieval.max_steps == 8 and "(in force: 8)" in notices[0]
    config, _ = resolve_config(repo, env={**env, "HELIX_RETRIEVAL__MAX_STEPS": "12"})
    assert config.retrieval.max_steps == 12
    config, _ = resolve_config(repo, flags={"retrieval.max_steps": 20}, env=env)
    assert config.retrieval.max_steps == 20


def test_a_numeric_string_is_compared_as_its_number(tmp_path: Path, helix_home: Path) -> None:
    repo = _repo(tmp_path, '[helix.retrieval]\nmax_steps = "400"\n')
    config, notices = resolve_config(repo, env={"HELIX_HOME": str(helix_home)})
    assert config.retrieval.max_steps == 4 and "retrieval.max_steps = '400'" in notices[0]


def test_pyproject_tool_helix_too(tmp_path: Path, helix_home: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").write_text("[tool.helix.index]\nmax_file_bytes = 99999999\n",
                                         encoding="utf-8")
    config, notices = resolve_config(repo, env={"HELIX_HOME": str(helix_home)})
    assert config.index.max_file_bytes == 1024 * 1024
    assert notices[0].startswith("ignored index.max_file_bytes = 99999999 from ")


def test_every_listed_limit_names_a_setting() -> None:
    dumped = HelixConfig().model_dump()
    names: list[str] = []

    def leaves(prefix: str, value: object) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                leaves(f"{prefix}.{key}" if prefix else str(key), item)
        else:
            names.append(prefix)

    leaves("", dumped)
    for pattern in LOWER_ONLY:
        assert any(fnmatch.fnmatchcase(name, pattern) for name in names), pattern
    assert is_lower_only("retrieval.routes.issue.per_channel_k")
    assert not is_lower_only("retrieval.rrf_k") and not is_lower_only("retrieval.w_bm25")


def test_the_cli_prints_one_notice_line(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, "[helix.index]\nmax_file_bytes = 1073741824\n")
    (repo / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    code, _, err = run(["status", str(repo)], capsys)
    assert code == 0, err
    assert (f"helix: ignored index.max_file_bytes = 1073741824 from {repo / '.helix.toml'}: "
            f"{RULE} (in force: 1048576); {USER}") in err.splitlines()
