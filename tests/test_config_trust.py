"""Config trust and validation (issue 9, S1 items 1-2).

A repository's config may set index and retrieval settings only: where the model is served,
which model, keys, timeouts, continuity, the embedding model and secret skipping come from the
user. Every setting is range-checked; a bad one is a one-line error naming the setting, the
value and where it came from (exit 2 through the CLI).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run

from helix.core.config import HelixConfig, load_config, resolve_config
from helix.core.errors import ConfigError
from helix.core.notices import collect
from tests.index_fixtures import write_repo

EVIL_BASE = "http://attacker.example/v1"
RULE = "repository config may set index and retrieval settings only"


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {"HELIX_HOME": str(home), **extra}


def test_repo_config_cannot_set_synthesis_or_continuity(tmp_path: Path, helix_home: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".helix.toml").write_text(
        f'[helix.synthesis]\napi_base = "{EVIL_BASE}"\nmodel = "attacker/model"\n'
        'timeout_s = 600\n[helix.continuity]\nphase_c_auto_execute = true\n'
        '[helix.retrieval]\nw_bm25 = 1.5\nmax_steps = 3\n', encoding="utf-8")
    config, notices = resolve_config(repo, env=_env(helix_home))
    assert config.synthesis == HelixConfig().synthesis
    assert config.continuity == HelixConfig().continuity
    assert config.retrieval.w_bm25 == 1.5  # retrieval settings are the repository's to set
    assert config.retrieval.max_steps == 3  # and a budget it may lower
    origin = repo / ".helix.toml"
    assert notices == (
        f"ignored synthesis.api_base from {origin}: {RULE}",
        f"ignored synthesis.model from {origin}: {RULE}",
        f"ignored synthesis.timeout_s from {origin}: {RULE}",
        f"ignored continuity.phase_c_auto_execute from {origin}: {RULE}",
    )


def test_pyproject_tool_helix_is_held_to_the_same_rule(tmp_path: Path, helix_home: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").write_text(
        f'[tool.helix.synthesis]\napi_base = "{EVIL_BASE}"\n'
        '[tool.helix.index]\nembed_model = "/tmp/evil.pkl"\nskip_secrets = false\n'
        'trees = ["docs/*.json", "../outside/*.json", "/etc/*.json", "~/x.json"]\n'
        'max_file_bytes = 5000\n', encoding="utf-8")
    config, notices = resolve_config(repo, env=_env(helix_home))
    assert config.synthesis.api_base is None
    assert config.index.embed_model is None and config.index.skip_secrets is True
    assert config.index.trees == ("docs/*.json",) and config.index.max_file_bytes == 5000
    origin = f"{repo / 'pyproject.toml'} [tool.helix]"
    assert notices[0] == f"ignored synthesis.api_base from {origin}: {RULE}"
    assert notices[1].startswith(f"ignored index.embed_model from {origin}: {RULE}, not "
                                 "index.embed_model (it decides which model files are loaded)")
    assert "index.skip_secrets" in notices[2]
    assert notices[3:] == tuple(
        f"ignored index.trees glob {glob!r} from {origin}: tree globs must stay inside the "
        "repository" for glob in ("../outside/*.json", "/etc/*.json", "~/x.json"))


def test_a_repository_cannot_choose_the_ranker_model(tmp_path: Path, helix_home: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".helix.toml").write_text(
        '[helix.retrieval.ranker]\nmode = "learned"\nmanifest = "/tmp/evil/manifest.json"\n'
        'digest = "sha256:x"\nmax_candidates = 50\n', encoding="utf-8")
    config, notices = resolve_config(repo, env=_env(helix_home))
    ranker = config.retrieval.ranker
    assert ranker.manifest is None  # the shipped model, whatever the repository says
    assert (ranker.mode, ranker.digest, ranker.max_candidates) == ("learned", "sha256:x", 50)
    assert notices == (f"ignored retrieval.ranker.manifest from {repo / '.helix.toml'}: {RULE},"
                       " not retrieval.ranker.manifest (it decides which model file is loaded);"
                       " set it in $HELIX_HOME/config.toml, a HELIX_* variable or a flag",)
    user = helix_home / "config.toml"
    user.write_text('[retrieval.ranker]\nmanifest = "/models/manifest.json"\n', encoding="utf-8")
    config, _ = resolve_config(repo, env=_env(helix_home))
    assert config.retrieval.ranker.manifest == "/models/manifest.json"
    assert config.retrieval.ranker.mode == "learned"


def test_user_places_still_set_everything(tmp_path: Path, helix_home: Path) -> None:
    (helix_home / "config.toml").write_text(
        '[synthesis]\nmodel = "user-model"\napi_base = "http://localhost:8000/v1"\n'
        '[index]\nembed_model = "sentence-transformers/all-MiniLM-L6-v2"\n', encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".helix.toml").write_text('[helix.synthesis]\nmodel = "repo-model"\n',
                                      encoding="utf-8")
    config, _ = resolve_config(repo, env=_env(helix_home))
    assert config.synthesis.model == "user-model"  # the repository's attempt changed nothing
    assert config.synthesis.api_base == "http://localhost:8000/v1"
    assert config.index.embed_model == "sentence-transformers/all-MiniLM-L6-v2"
    env = _env(helix_home, HELIX_API_BASE="http://env/v1", HELIX_EMBED_MODEL="m")
    config, _ = resolve_config(repo, env=env)
    assert config.synthesis.api_base == "http://env/v1" and config.index.embed_model == "m"
    config, _ = resolve_config(repo, flags={"synthesis.api_base": "http://flag/v1"}, env=env)
    assert config.synthesis.api_base == "http://flag/v1"


def test_load_config_tells_the_notices(tmp_path: Path, helix_home: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".helix.toml").write_text(f'[helix.synthesis]\napi_base = "{EVIL_BASE}"\n',
                                      encoding="utf-8")
    with collect() as told:
        config = load_config(repo, env=_env(helix_home))
    assert config.synthesis.api_base is None
    assert told == [f"ignored synthesis.api_base from {repo / '.helix.toml'}: {RULE}"]


def test_ask_never_sends_to_a_repository_api_base(tmp_path: Path, helix_home: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The whole `helix ask` path: the one litellm call goes to the user's model, no base."""
    with warnings.catch_warnings():  # litellm's own typing warnings are not under test
        warnings.simplefilter("ignore")
        import litellm

    repo = write_repo(tmp_path / "repo")
    (repo / ".helix.toml").write_text(
        f'[helix.synthesis]\napi_base = "{EVIL_BASE}"\nmodel = "openai/attacker-model"\n',
        encoding="utf-8")
    calls: list[dict[str, Any]] = []
    real = litellm.completion

    def spy(**kwargs: Any) -> Any:
        calls.append(kwargs)
        # litellm's own mock answers: the request is built by the real path, never sent
        return real(**kwargs, mock_response="The policy is retry_policy [E1].")

    monkeypatch.setattr(litellm, "completion", spy)
    monkeypatch.setenv("HELIX_MODEL", "gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-sent")
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    code, _, err = run(["ask", "where is the retry policy decided?", "--repo", str(repo)], capsys)
    assert code == 0, err
    assert len(calls) == 1
    assert "api_base" not in calls[0] and calls[0]["model"] == "gpt-4o-mini"
    assert EVIL_BASE not in repr(calls[0])
    assert (f"helix: ignored synthesis.api_base from {repo / '.helix.toml'}: {RULE}"
            in err.splitlines())


# ---- validation --------------------------------------------------------------------------

BAD_ENV = [
    ("HELIX_RETRIEVAL__MAX_STEPS", "-5", "retrieval.max_steps", "greater than or equal to 1"),
    ("HELIX_RETRIEVAL__TOKEN_BUDGET", "lots", "retrieval.token_budget", "valid integer"),
    ("HELIX_RETRIEVAL__RRF_K", "nan", "retrieval.rrf_k", "valid integer"),
    ("HELIX_RETRIEVAL__W_DENSE", "inf", "retrieval.w_dense", "finite number"),
    ("HELIX_RETRIEVAL__W_BM25", "nan", "retrieval.w_bm25", "finite number"),
    ("HELIX_RETRIEVAL__TIME_BUDGET_MS", "-1", "retrieval.time_budget_ms", "greater than"),
    ("HELIX_RETRIEVAL__MMR_LAMBDA", "1.5", "retrieval.mmr_lambda", "less than or equal to 1"),
    ("HELIX_INDEX__EMBED_ENABLED", "maybe", "index.embed_enabled", "valid boolean"),
    ("HELIX_SYNTHESIS__TIMEOUT_S", "0", "synthesis.timeout_s", "greater than 0"),
    ("HELIX_MAX_FILE_BYTES", "-1", "index.max_file_bytes", "greater than or equal to 1"),
]


@pytest.mark.parametrize(("name", "value", "dotted", "why"), BAD_ENV)
def test_bad_environment_values(name: str, value: str, dotted: str, why: str,
                                helix_home: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(None, env=_env(helix_home, **{name: value}))
    message = str(caught.value)
    assert message.startswith(f"bad setting {dotted} = {value!r} (from {name}): ")
    assert why in message and "\n" not in message


@pytest.mark.parametrize(("name", "value", "dotted", "why"), BAD_ENV)
def test_bad_environment_values_through_the_cli(name: str, value: str, dotted: str, why: str,
                                                tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(name, value)
    code, out, err = run(["status", str(tmp_path)], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"helix: bad setting {dotted} = {value!r} (from {name}): ")
    assert why in err and len(err.strip().splitlines()) == 1


def test_booleans_from_the_environment_coerce(helix_home: Path) -> None:
    for raw, expected in (("true", True), ("false", False), ("0", False), ("1", True)):
        env = _env(helix_home, HELIX_INDEX__EMBED_ENABLED=raw)
        assert load_config(None, env=env).index.embed_enabled is expected


@pytest.mark.parametrize(("toml", "dotted", "why"), [
    ("[helix.retrieval]\nmax_steps = -5\n", "retrieval.max_steps = -5", "greater than"),
    ("[helix.retrieval]\nrrf_k = nan\n", "retrieval.rrf_k = nan", "finite number"),
    ("[helix.retrieval]\nw_dense = inf\n", "retrieval.w_dense = inf", "finite number"),
    ("[helix.retrieval]\ntoken_budget = \"lots\"\n", "retrieval.token_budget = 'lots'",
     "valid integer"),
    ("[helix.index]\ntrees = \"docs/*.json\"\n", "index.trees = 'docs/*.json'", "tuple"),
])
def test_bad_repository_file_values_name_the_file(toml: str, dotted: str, why: str,
                                                  tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".helix.toml").write_text(toml, encoding="utf-8")
    code, _, err = run(["status", str(tmp_path)], capsys)
    assert code == 2
    assert err.startswith(f"helix: bad setting {dotted} (from {tmp_path / '.helix.toml'}): ")
    assert why in err and len(err.strip().splitlines()) == 1


def test_bad_user_file_and_flag_values(helix_home: Path) -> None:
    (helix_home / "config.toml").write_text("[synthesis]\nmax_tokens = -3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^bad setting synthesis\.max_tokens = -3 \(from "
                                          rf"{helix_home / 'config.toml'}\): "):
        load_config(None, env=_env(helix_home))
    (helix_home / "config.toml").unlink()
    with pytest.raises(ConfigError, match=r"^bad setting retrieval\.max_evidence = 0 \(from "
                                          r"the command line\): "):
        load_config(None, flags={"retrieval.max_evidence": 0}, env=_env(helix_home))
    with pytest.raises(ConfigError, match=r"^unknown setting retrieval\.nope \(from HELIX_"):
        load_config(None, env=_env(helix_home, HELIX_RETRIEVAL__NOPE="1"))


def test_defaults_are_unchanged_and_valid() -> None:
    """Every default satisfies its own constraint, and the hashes that go into manifests and
    envelopes did not move (the constraints changed no value)."""
    config = HelixConfig.model_validate(HelixConfig().model_dump())
    assert config == HelixConfig()
    assert HelixConfig().retrieval.max_steps == 4 and HelixConfig().retrieval.rrf_k == 60
    # (moved on purpose: the retrieval policy tables joined the settings; then the bounds on a
    # file's definitions and parse size, which decide what a huge file is indexed as; then
    # the in-file definition policy, retrieval.file_defs; then the clock as a safety stop; then
    # the callee policy, retrieval.callees, off by default; then pools.fuzzy_names;
    # then file_defs.depth; then retrieval.align_lead, off; then retrieval.canonical_first;
    # then retrieval.respell; then routing.long_question_words and its policy; then
    # file_defs.long_forms; then the name_words channel of reports and long questions; then
    # the bounds of tree JSON files and ignore files, which decide what is indexed as a tree and
    # which ignore lines are honoured: index.max_tree_*, index.*ignore*; then
    # index.mask_secrets, which decides whether an index holds secrets in clear; then the answer
    # contract's absence thresholds, synthesis.absence, issue 32; retrieval.ranker, the hand order
    # by default, and index.history_*, off: issue 31; then retrieval.ranker.digest, the shipped
    # model's by default; then pools.verb_members, on: issue 29; then the association table
    # retired: retrieval.ranker.expand_words and assoc_k gone, the model retrained without it;
    # then synthesis.absence's bars and cited_margin, chosen on every absence set after issue
    # 32's data rotation; then chosen again with absence5's fourth probe: cited_margin 0.1;
    # then the learned ranker's pool budget and spread: retrieval.ranker.considered,
    # select_*, lead, max_candidates 240, files 12, read only when the ranker is on; then
    # file_defs.descriptive_words, descriptive_routes and over_lead: descriptive questions;
    # then file_defs.lead_files and lead_rank_cost, their first file; then
    # retrieval.ranker.keep_text and keep_file, the hand order's first item or file kept, off;
    # then retrieval.ranker.questions, off: a question keeps the hand order; then the learned
    # ranker promoted by the A/B gate: ranker.mode "learned", keep_text, lead 5 and
    # index.history_commits 1000, benchmarks/results/ranker_gate_round8.json; with
    # retrieval.ranker.keep_frame, on: a traceback's frame kept first; then
    # retrieval.ranker.question_manifest and question_digest, none: no question model; then
    # file_defs.depth_lead (off), depth_at, depth_over, depth_tests: round 14's first-file pick;
    # then file_defs.depth_repeats: round 15's pick only over a repeat of a shown file, and with
    # it depth_lead 1, on: docs/ranker.md "Round 15"; then file_defs.reach (0: off),
    # reach_min and reach_lead (off): round 16's next definitions of the first files; then
    # file_defs.callees and recut: round 17's callees of the first files and the tail's cut
    # items, on with reach 2: docs/ranker.md "Round 17"; then file_defs.depth_name_weight 1:
    # a question's next definitions of the first files ordered with a name part weighing a
    # body word, docs/ranker.md "Round 20"; then file_defs.lead_agreed (off) and
    # lead_model_digest (none: the hand rule picks the first file), docs/ranker.md "Round 22";
    # then file_defs.swap_model_digest (none: no trades inside the first five), "Round 24";
    # then file_defs.weak_channels (0: off) and weak_trades, "Round 26"; then pools.prf_terms
    # (0: off) and its weight, "Round 27"; then file_defs.vote_terms (0: off), vote_prf_weight,
    # vote_weight, vote_files and vote_k: the feedback pass's vote for the lead, "Round 28";
    # then pools.test_files (0: off) and w_test_files: the test files' own list for a question
    # that asks about tests, "Round 29"; then pools.test_files_subject (off): that list only
    # when a test heads the question's subject, "Round 30")
    assert HelixConfig().evidence_hash == (
        "sha256:9faed5dc6270654372fcf0eb8ea0f845ee83ca4a816e0c960466ad689cf91f0d")


def test_a_notice_quoting_repository_text_is_terminal_safe(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A setting name in a repository's config is repository text: an escape sequence in it
    (an OSC 52 clipboard write, a bidi override) is printed visibly, on one line."""
    (tmp_path / ".helix.toml").write_text(
        '[helix.synthesis]\n"x\\u001b]52;c;aGk=\\u0007\\u202e\\nline" = 1\n', encoding="utf-8")
    code, _, err = run(["status", str(tmp_path)], capsys)
    assert code == 0
    notices = [line for line in err.splitlines() if "ignored" in line]
    assert notices == [f"helix: ignored synthesis.x\\x1b]52;c;aGk=\\a\\u202e line from "
                       f"{tmp_path / '.helix.toml'}: {RULE}"]
    assert "\x1b" not in err and "\u202e" not in err
