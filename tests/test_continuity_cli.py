"""The issue-5 conversation through the real CLI: `helix ask --session --json` (no LLM
configured), `helix chat` fed through stdin, `helix events`, persistence across processes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run
from click.testing import CliRunner

from helix.cli.main import cli

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "continuity_repo"
TURN_KEYS = {"turn_id", "lane", "transition", "state_mutations", "events", "answer", "shown",
             "envelope", "retrieval"}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    return root


def _ask(repo: Path, text: str, *extra: str) -> dict:
    result = CliRunner().invoke(cli, ["ask", text, "--repo", str(repo), "--session", "S",
                                      "--json", *extra], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    turn = json.loads(result.output)
    assert set(turn) >= TURN_KEYS
    return turn


def _span_of(sublabel: str) -> str:
    return sublabel.split(" ", 1)[0]  # "docs/search.md:3-7 (doc)" -> "docs/search.md:3-7"


def test_ten_turn_conversation_through_the_cli(repo):
    # the issue's turns, verbatim
    t = _ask(repo, "where is the BM25 index built?")
    assert (t["turn_id"], t["lane"], t["transition"], t["retrieval"]) == (1, "root", "T1", True)
    assert t["shown"]["kind"] == "evidence" and len(t["shown"]["items"]) >= 2
    assert [i["index"] for i in t["shown"]["items"]] == list(
        range(1, len(t["shown"]["items"]) + 1))  # a numbered list
    assert t["envelope"]["llm_steps"] == 0
    assert any(e["name"] == "retrieval_run" for e in t["events"])

    shown = t["shown"]["items"]
    second = shown[1]
    t = _ask(repo, "open the second one")
    assert (t["lane"], t["transition"], t["retrieval"]) == ("selection", "T3", False)
    opened = t["opened"]
    assert opened["target"]["id"] == second["target_id"]
    assert f"{opened['path']}:{opened['start_line']}-{opened['end_line']}" == _span_of(
        second["sublabel"])  # the span shown is the second item listed
    assert "selected_object" in t["state_mutations"]
    t = _ask(repo, "open it")
    assert (t["lane"], t["transition"]) == ("selection", "T5")
    assert t["opened"]["target"]["id"] == second["target_id"]

    t = _ask(repo, "who calls it?")  # T4 on the focused object, whatever kind it is
    assert (t["lane"], t["transition"], t["retrieval"], t["envelope"]) == (
        "graph", "T4", False, None)
    assert t["shown"]["kind"] == "callers" and t["shown"]["items"]
    assert not any(e["name"] == "retrieval_run" for e in t["events"])
    t = _ask(repo, "where is it tested?")
    assert (t["lane"], t["transition"], t["retrieval"]) == ("graph", "T4", False)
    assert t["shown"]["kind"] == "tests" and t["shown"]["items"]
    assert all(i["sublabel"].startswith("tests/") for i in t["shown"]["items"])

    t = _ask(repo, "why did you open that?")  # the open, not the newer list action
    assert (t["lane"], t["transition"], t["answer_mode"]) == ("semantic", "T8", "continuity")
    assert t["answer"].startswith(f"I opened {second['label']}")
    assert '"open the second one" (turn 2)' in t["answer"] and "item 2" in t["answer"]
    assert "explanation" in t["state_mutations"]  # the lane's mutation is applied

    t = _ask(repo, "what happened last?")
    assert (t["lane"], t["transition"]) == ("semantic", "T9")
    lines = t["answer"].splitlines()
    assert "listed the tests of" in lines[1] and "listed the callers of" in lines[2]
    assert len(lines) == 1 + 5  # the trace keeps 5 entries, newest first
    t = _ask(repo, "summarize what we did")
    assert (t["lane"], t["transition"], t["answer_mode"]) == ("semantic", "T9", "continuity")
    assert "opened" in t["answer"]

    t = _ask(repo, "same question but only in tests/")
    assert (t["lane"], t["transition"], t["retrieval"]) == ("root", "T2", True)
    assert t["envelope"]["items"]["intent"]["scope"] == "tests/"

    t = _ask(repo, "what is a cavity?")
    assert (t["transition"], t["answer_mode"]) == ("T1", "clarify")
    assert t["shown"]["kind"] == "options" and len(t["shown"]["items"]) == 2
    assert t["envelope"]["clarify"]["options"][0]["evidence"]
    t = _ask(repo, "the first")
    assert (t["lane"], t["transition"], t["retrieval"]) == ("clarify_resume", "T7", True)
    assert t["envelope"]["items"]["intent"]["sense"]

    t = _ask(repo, "is that the only place?")
    assert (t["lane"], t["transition"], t["retrieval"]) == ("meta", "T8", False)

    t = _ask(repo, "did we talk about the tokenizer?")
    assert (t["lane"], t["transition"], t["retrieval"]) == ("recap", "T9", False)
    assert t["answer"].startswith("Yes")
    t = _ask(repo, "did we talk about the weather?")
    assert t["answer"].startswith("No")

    t = _ask(repo, "stop")
    assert (t["lane"], t["transition"]) == ("interrupt", "T6")
    t = _ask(repo, "start over")
    assert (t["lane"], t["transition"]) == ("interrupt", "T1")
    assert t["turn_id"] == 16

    events = CliRunner().invoke(cli, ["events", "--session", "S", "--json"])
    assert events.exit_code == 0, events.output
    rows = json.loads(events.output)
    assert {"hard_interrupt", "graph_followup", "meta_answer", "memory_recap",
            "semantic_followup_answered"} <= {r["name"] for r in rows}
    assert all("loop_cycle_id" in r and "retry_budget_remaining" in r for r in rows)
    human = CliRunner().invoke(cli, ["events", "--session", "S", "--name", "hard_interrupt"])
    assert human.exit_code == 0 and "hard_interrupt" in human.output


def _helix(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "helix.cli.main", *args], input=stdin,
                          capture_output=True, text=True, timeout=300)


ISSUE_TURNS = ["where is the BM25 index built?", "open the second one", "open it",
               "who calls it?", "where is it tested?", "why did you open that?",
               "what happened last?", "summarize what we did",
               "same question but only in tests/", "what is a cavity?", "the first",
               "is that the only place?", "did we talk about the tokenizer?", "stop",
               "start over"]


def _turn_block(out: str, n: int) -> str:
    """Turn `n`'s block, its header without the transition's name ("[turn 2] selection T3")."""
    start = out.index(f"[turn {n}] ")
    end = out.find(f"[turn {n + 1}] ", start)
    block = out[start:end if end > 0 else len(out)]
    return re.sub(r"^(\[turn \d+\] \w+ T\d+) [a-z_]+", r"\1", block)


def test_chat_interactive_through_stdin(repo):
    # the issue's turns verbatim, with the chat's own commands around them: commands make no
    # turn, bad ones print one `helix:` line and the chat goes on
    lines = [*ISSUE_TURNS[:3], "/history", "/bogus", "/reply 99 open it", "/reply x",
             *ISSUE_TURNS[3:13], "/reply 1 open the first one", *ISSUE_TURNS[13:], "/new",
             "open it", "/quit", "never read"]
    proc = _helix("chat", "--repo", str(repo), "--dry-run", stdin="\n".join(lines) + "\n")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    out = proc.stdout
    assert out.startswith("[turn 1] root T1 root_query_entry (retrieval)")  # named
    first = _turn_block(out, 1)
    assert first.startswith("[turn 1] root T1 (retrieval)")
    numbered = re.findall(r"^  (\d+)\. (.+?)  (\S+:\d+-\d+) \(", first, re.M)
    assert [int(n) for n, _, _ in numbered] == list(range(1, len(numbered) + 1))
    assert len(numbered) >= 2
    first_span = numbered[0][2]
    second_label, second_span = numbered[1][1:]
    assert _turn_block(out, 2).startswith(f"[turn 2] selection T3\n{second_span} ")
    assert _turn_block(out, 3).startswith(f"[turn 3] selection T5\n{second_span} ")
    assert "  1. where is the BM25 index built?  -> root T1" in out  # /history
    assert "helix: unknown command /bogus" in proc.stderr
    assert "helix: no turn 99" in proc.stderr
    assert "helix: usage: /reply N <text>" in proc.stderr
    callers = _turn_block(out, 4)
    assert callers.startswith("[turn 4] graph T4\n") and "(callers list" in callers
    assert re.search(r"^  1\. ", callers, re.M)
    tests = _turn_block(out, 5)
    assert tests.startswith("[turn 5] graph T4\n") and "(tests list" in tests
    assert re.search(r"^  1\. \S+  tests/", tests, re.M)
    why = _turn_block(out, 6)
    assert why.startswith(f"[turn 6] semantic T8\nI opened {second_label}")
    assert _turn_block(out, 7).startswith("[turn 7] semantic T9\nWhat we did")
    assert _turn_block(out, 8).startswith("[turn 8] semantic T9\nWhat we did")
    assert _turn_block(out, 9).startswith("[turn 9] root T2 (retrieval)")
    cavity = _turn_block(out, 10)
    assert cavity.startswith("[turn 10] root T1 (retrieval)") and "(options list" in cavity
    assert re.search(r"^  1\. .+\n  2\. ", cavity, re.M)
    assert _turn_block(out, 11).startswith("[turn 11] clarify_resume T7 (retrieval)")
    assert _turn_block(out, 12).startswith("[turn 12] meta T8")
    assert _turn_block(out, 13).startswith("[turn 13] recap T9\nYes")
    assert _turn_block(out, 14).startswith(
        f"[turn 14] selection T3  reply-to 1\n{first_span} ")
    assert _turn_block(out, 15).startswith("[turn 15] interrupt T6\nStopped")
    assert _turn_block(out, 16).startswith("[turn 16] interrupt T1\nStarted over")
    assert "new session" in out and "[turn 1] selection T10" in out  # /new: nothing to open
    assert "never read" not in out


def test_session_persists_across_processes(repo):
    first = _helix("ask", "where is the BM25 index built?", "--repo", str(repo), "--session",
                   "P", "--dry-run", "--json")
    assert first.returncode == 0, first.stderr
    second = _helix("ask", "open the second one", "--repo", str(repo), "--session", "P",
                    "--dry-run", "--json")
    assert second.returncode == 0, second.stderr
    turn = json.loads(second.stdout)
    assert (turn["turn_id"], turn["lane"], turn["transition"]) == (2, "selection", "T3")


def test_cli_errors_are_one_line(repo, capsys):
    """The one-line errors of `helix.cli.main.main`, the entry point, in this process (a
    process of its own costs a second or two of imports each and shows nothing more here:
    test_session_persists_across_processes and test_chat_interactive_through_stdin run real
    ones)."""

    def _helix(*args: str) -> subprocess.CompletedProcess[str]:
        code, out, err = run(list(args), capsys)
        return subprocess.CompletedProcess(args, code, out, err)

    bad_reply = _helix("ask", "open it", "--repo", str(repo), "--reply-to", "3")
    assert bad_reply.returncode == 2 and bad_reply.stderr.strip() == (
        "helix: --reply-to needs --session NAME")
    _helix("ask", "where is the BM25 index built?", "--repo", str(repo), "--session", "E",
           "--dry-run")
    unknown_turn = _helix("ask", "open it", "--repo", str(repo), "--session", "E",
                          "--reply-to", "9", "--dry-run")
    assert unknown_turn.returncode == 2
    assert unknown_turn.stderr.strip().startswith("helix: no turn 9")
    no_session = _helix("events", "--session", "nope")
    assert no_session.returncode == 2 and "Traceback" not in no_session.stderr
    # a session name another repository holds: refused without that repository's path
    other = repo.parent / "elsewhere-private"
    shutil.copytree(repo, other)
    theirs = _helix("ask", "where is the BM25 index built?", "--repo", str(other), "--session",
                    "E", "--dry-run")
    assert theirs.returncode == 2 and theirs.stderr.strip() == (
        "helix: session 'E' belongs to another repository; use another --session name")


def test_commands_have_help():
    for name in ("chat", "events"):
        result = CliRunner().invoke(cli, [name, "--help"])
        assert result.exit_code == 0 and "Usage" in result.output
    ask = CliRunner().invoke(cli, ["ask", "--help"])
    assert "--session" in ask.output and "--reply-to" in ask.output


def test_conversation_with_a_model_configured(repo, monkeypatch):
    # a registered test model (helix.synthesis.fake_llm): the whole answer path, no network
    monkeypatch.setenv("HELIX_MODEL", "fake/say:It is built by build_bm25_index [E1].")

    def ask(text: str, session: str = "L") -> dict:
        result = CliRunner().invoke(cli, ["ask", text, "--repo", str(repo), "--session",
                                          session, "--json"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    t = ask("where is the BM25 index built?")  # the issue's turns, verbatim
    assert (t["transition"], t["answer_mode"]) == ("T1", "llm")
    assert t["envelope"]["llm_steps"] == 1 and t["envelope"]["citations"]
    shown = t["shown"]["items"]
    t = ask("open the second one")
    assert t["transition"] == "T3" and t["opened"]["target"]["id"] == shown[1]["target_id"]
    t = ask("open it")
    assert t["transition"] == "T5" and t["opened"]["target"]["id"] == shown[1]["target_id"]
    for text, kind in (("who calls it?", "callers"), ("where is it tested?", "tests")):
        t = ask(text)
        assert (t["lane"], t["transition"], t["envelope"]) == ("graph", "T4", None)
        assert t["shown"]["kind"] == kind and t["shown"]["items"]
    t = ask("why did you open that?")
    assert (t["lane"], t["answer_mode"]) == ("semantic", "continuity")
    assert t["answer"].startswith(f"I opened {shown[1]['label']}")
    for text in ("what happened last?", "summarize what we did"):
        t = ask(text)
        assert (t["lane"], t["transition"]) == ("semantic", "T9")
    t = ask("same question but only in tests/")
    assert (t["transition"], t["answer_mode"]) == ("T2", "llm")
    t = ask("what is a cavity?")
    assert t["answer_mode"] == "clarify" and t["envelope"]["llm_steps"] == 0
    t = ask("the first")
    assert (t["transition"], t["answer_mode"]) == ("T7", "llm")
    t = ask("is that the only place?")
    assert (t["lane"], t["transition"]) == ("meta", "T8")
    t = ask("did we talk about the tokenizer?")
    assert t["transition"] == "T9" and t["answer"].startswith("Yes")
    assert ask("stop")["transition"] == "T6"
    assert ask("start over")["transition"] == "T1"

    # an unresolved command: one advisory call, unusable -> the degradation matrix's safe
    # clarifier (abstain), never an action
    ask("where is the BM25 index built?", "D")
    t = ask("open the bm25 one", "D")
    assert (t["answer_mode"], t["opened"]) == ("clarify", None)
    assert "degraded" in t["reasons"]


def test_chat_json_is_one_object_per_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import json as json_mod
    import sys

    from cli_helpers import run as run_cli

    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    repo = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "answer_repo"
    monkeypatch.setattr(sys, "stdin", io.StringIO("where is the retry policy decided?\n"
                                                  "who calls it?\n"))
    code, out, _ = run_cli(["chat", "--repo", str(repo), "--dry-run", "--json"], capsys)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2
    assert [json_mod.loads(line)["turn_id"] for line in lines] == [1, 2]
