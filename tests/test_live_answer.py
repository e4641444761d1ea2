"""With a model, on a terminal, the answer is shown as it streams and not printed again when
the contract keeps it as shown; a refused answer is said to be refused before the kept one
(`helix.cli.live_answer`). Off a terminal nothing streams. Driven through a real pty."""

from __future__ import annotations

import io
import os
import pty
import select
import shutil
import subprocess
import sys
from pathlib import Path

from helpers_synthesis import envelope

from helix.cli.live_answer import LiveAnswer, live_answer
from helix.core.config import SynthesisSettings
from helix.core.ports import FakeClock
from helix.synthesis.answer import synthesize
from helix.synthesis.fake_llm import FakeLLM

REPO = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "continuity_repo"
HELIX = [sys.executable, "-c", "import sys; from helix.cli.main import main; sys.exit(main())"]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_stream_reaches_the_screen_and_the_kept_answer_is_not_repeated() -> None:
    screen, timer_calls = Terminal(), []
    live = LiveAnswer(screen, lambda m, e, d: timer_calls.append(e))
    live.waiting("m", 1.0, 90.0)
    done = synthesize(envelope(), llm=FakeLLM("It is decided in decide_retry [E1]."),
                      settings=SynthesisSettings(model="m"), clock=FakeClock(),
                      on_text=live.on_text, waiting=live.waiting)
    assert screen.getvalue() == "It is decided in decide_retry [E1]."
    assert timer_calls[:2] == [1.0, -1.0]  # the timer's line cleared at the first piece
    assert live.after(done.envelope) is False and screen.getvalue().endswith("\n")


def test_a_refused_answer_is_said_to_be_refused_before_the_kept_one() -> None:
    screen = Terminal()
    live = LiveAnswer(screen, None)
    done = synthesize(envelope(), llm=FakeLLM("Nothing in the repository decides it."),
                      settings=SynthesisSettings(model="m"), clock=FakeClock(),
                      on_text=live.on_text)
    assert done.envelope.answer_mode == "fallback"
    assert live.after(done.envelope) is True
    assert "not the one kept: the contract refused it" in screen.getvalue()


def test_control_characters_in_the_stream_are_written_out() -> None:
    screen = Terminal()
    LiveAnswer(screen, None).on_text("red \x1b[31m text")
    assert screen.getvalue() == "red \\x1b[31m text"


def test_nothing_streams_off_a_terminal_or_as_json() -> None:
    assert live_answer(io.StringIO(), None, as_json=False, dry_run=False) is None
    assert live_answer(Terminal(), None, as_json=True, dry_run=False) is None
    assert live_answer(Terminal(), None, as_json=False, dry_run=True) is None


def _on_a_pty(args: list[str], env: dict[str, str], typed: str = "") -> str:
    main, child = pty.openpty()
    process = subprocess.Popen(args, stdin=child, stdout=child, stderr=child, env=env)
    os.close(child)
    if typed:
        os.write(main, typed.encode("utf-8"))
    out = b""
    poller = select.poll()  # not select(): a long test run can hold descriptors past 1024
    poller.register(main, select.POLLIN | select.POLLHUP)
    while True:
        if not poller.poll(120_000):
            process.kill()
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        out += chunk
    process.wait(timeout=60)
    os.close(main)
    return out.decode("utf-8", "replace")


def test_helix_ask_streams_on_a_terminal_and_prints_the_answer_once(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPO, repo)
    env = {**os.environ, "HELIX_HOME": str(tmp_path / "home"), "HELIX_NO_SERVER": "1",
           "HELIX_INDEX__EMBED_ENABLED": "false", "COLUMNS": "200"}
    screen = _on_a_pty([*HELIX, "ask", "where is the BM25 index built?", "--repo", str(repo),
                        "--model", "fake/echo"], env)
    assert screen.count("The evidence says:") == 1, screen
    assert "citations" in screen and "mode llm" in screen


def test_helix_chat_streams_on_a_terminal_and_prints_the_answer_once(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPO, repo)
    env = {**os.environ, "HELIX_HOME": str(tmp_path / "home"), "HELIX_NO_SERVER": "1",
           "HELIX_INDEX__EMBED_ENABLED": "false", "HELIX_SYNTHESIS__MODEL": "fake/echo",
           "COLUMNS": "200"}
    screen = _on_a_pty([*HELIX, "chat", "--repo", str(repo)], env,
                       typed="where is the BM25 index built?\n/quit\n")
    assert screen.count("The evidence says:") == 1, screen
    assert "[turn 1] root T1" in screen and "citations:" in screen
    streamed_at = screen.index("The evidence says:")
    assert streamed_at < screen.index("[turn 1] root T1")  # shown as written, then the turn
