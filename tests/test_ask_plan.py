"""The way one `helix ask` goes is decided outside the CLI (`helix.ask_plan.plan_ask`): the
CLI parses and renders; a flag reaches the configuration as a flag, never through the process
environment."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from helix.ask_plan import AskRequest, plan_ask
from helix.cli.main import cli
from helix.core.errors import UserError

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "continuity_repo"


def test_the_paths_and_what_each_offers_a_server() -> None:
    here = plan_ask(AskRequest(text="q"))
    assert (here.path, here.try_server) == ("here", True)
    assert here.flags == {"synthesis.model": None, "synthesis.api_base": None,
                          "index.background_dense": None}
    assert not plan_ask(AskRequest(text="q", sense="2")).try_server  # a server takes no sense
    assert not plan_ask(AskRequest(text="q", trace=True)).try_server
    waited = plan_ask(AskRequest(text="q", wait=True))
    assert not waited.try_server and waited.flags["index.background_dense"] is False
    turn = plan_ask(AskRequest(text="q", session="s", model="fake/echo"))
    assert (turn.path, turn.try_server) == ("session", False)
    assert turn.flags["synthesis.model"] == "fake/echo"
    assert plan_ask(AskRequest(text="q", session="s")).try_server
    assert plan_ask(AskRequest(text="q", repos=("a", "b"))).path == "across"
    assert plan_ask(AskRequest(text="q", repos=("a", "a"))).path == "here"
    assert plan_ask(AskRequest(text="q", group="all")).path == "across"


@pytest.mark.parametrize(("request_", "message"), [
    (AskRequest(text="q", repos=("a", "b"), scope="x/"), "--scope do not combine"),
    (AskRequest(text="q", repos=("a", "b"), session="s"), "--session do not combine"),
    (AskRequest(text="q", session="s", sense="1"), "do not combine with --session"),
    (AskRequest(text="q", session="s", trace=True), "--trace does not combine"),
    (AskRequest(text="q", reply_to=2), "--reply-to needs --session"),
    (AskRequest(text="q", group="g", repos=("a",)), "--repos GROUP does not combine"),
    (AskRequest(text="q", group="g", scope="x/"), "--scope do not combine with --repos"),
])
def test_a_combination_no_path_takes_is_one_line(request_: AskRequest, message: str) -> None:
    with pytest.raises(UserError, match=message):
        plan_ask(request_)


def test_a_session_turn_gets_the_model_flag_without_the_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    for name in ("HELIX_MODEL", "HELIX_API_BASE", "HELIX_INDEX__BACKGROUND_DENSE"):
        monkeypatch.setenv(name, "")  # restored (removed) after the test, whatever happens
        monkeypatch.delenv(name)
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    result = CliRunner().invoke(cli, [
        "ask", "where is the BM25 index built?", "--repo", str(repo), "--session", "S",
        "--json", "--model", "fake/say:the index is built by build_bm25_index", "--wait"],
        catch_exceptions=False)
    assert result.exit_code == 0, result.output
    turn = json.loads(result.output)
    assert turn["envelope"]["model"] == "fake/say"  # the model flag reached the config
    leaked = [n for n in ("HELIX_MODEL", "HELIX_API_BASE", "HELIX_INDEX__BACKGROUND_DENSE")
              if n in os.environ]
    assert leaked == []
