"""Repository text, file names and model output reach the terminal with every control
character made visible (OSC 52 clipboard writes, window titles, CSI moves, BEL, backspace, CR
overwrites, bidi overrides); `--json` stays exact, valid JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import run

from helix.cli.safe_text import json_visible, visible

OSC52 = "\x1b]52;c;ZXZpbCBjbGlwYm9hcmQ=\x07"
TITLE = "\x1b]0;pwned title\x07"
HIDDEN = "\x1b[8mhidden\x1b[0m"
BIDI = "\u202e"
PAYLOAD = f"{OSC52}{TITLE}{HIDDEN} rate{BIDI}limit back\x08\x08 over\rwrite \x9b31m"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
EVIL_NAME = "evil\x1b]0;t\x07name.py"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "limits.py").write_text(
        f'def rate_limit(calls):\n    """Rate limit the calls. {PAYLOAD}"""\n    return calls\n',
        encoding="utf-8")
    (root / "README.md").write_text(f"# Limits\n\nThe rate limit is set in rate_limit. {PAYLOAD}\n",
                                    encoding="utf-8")
    (root / EVIL_NAME).write_text("def rate_limit_evil():\n    return 1\n", encoding="utf-8")
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    return root


def test_visible_writes_every_dangerous_character_out() -> None:
    shown = visible(PAYLOAD)
    assert RAW.search(shown) is None
    assert "\\x1b]52;c;" in shown and "\\a" in shown and "\\u202e" in shown and "\\r" in shown
    assert visible("tab\tand\nnewline stay") == "tab\tand\nnewline stay"
    assert visible("plain ünïcode → text") == "plain ünïcode → text"


def test_json_visible_is_exact_json() -> None:
    dumped = json.dumps({"t": PAYLOAD}, ensure_ascii=False)
    safe = json_visible(dumped)
    assert RAW.search(safe) is None and json.loads(safe) == {"t": PAYLOAD}


def test_ask_dry_run_prints_no_raw_control_character(repo: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["ask", "--repo", str(repo), "--dry-run", "what is the rate limit?"],
                         capsys)
    assert code == 0
    assert "limits.py" in out  # the planted span was printed...
    assert RAW.search(out) is None and RAW.search(err) is None  # ...made visible
    assert "\\x1b]52;c;" in out or "\\x1b]0;" in out


def test_ask_answer_and_show_print_no_raw_control_character(
        repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_MODEL", f"fake/say:The limit is in rate_limit [E1]. {PAYLOAD}")
    code, out, err = run(["ask", "--repo", str(repo), "what is the rate limit?"], capsys)
    assert code == 0 and "mode llm" in out
    assert RAW.search(out) is None and RAW.search(err) is None
    assert "\\x1b]52;c;" in out  # the model's own escape sequence, written out
    turn = re.search(r"turn (\w+) \(helix show", out)
    assert turn
    code, shown, _ = run(["show", turn[1], "--prompt"], capsys)
    assert code == 0 and "--- user" in shown and RAW.search(shown) is None
    code, listed, _ = run(["log"], capsys)
    assert code == 0 and RAW.search(listed) is None


def test_json_output_stays_exact(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["ask", "--repo", str(repo), "--dry-run", "--json",
                        "what is the rate limit?"], capsys)
    assert code == 0 and RAW.search(out) is None
    envelope = json.loads(out)
    texts = [e["text"] for e in envelope["evidence"]]
    assert any(OSC52 in text and BIDI in text for text in texts)  # the values are exact


def test_other_commands_show_names_and_text_safely(repo: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["index", str(repo)], ["search", "rate limit", str(repo), "--no-embed"],
                 ["find", "rate_limit_evil", str(repo)], ["status", str(repo)],
                 ["chunks", str(repo / "limits.py"), "--text"],
                 ["chunks", str(repo / EVIL_NAME)]):
        code, out, err = run(argv, capsys)
        assert code == 0, (argv, err)
        assert RAW.search(out) is None and RAW.search(err) is None, argv
    code, out, _ = run(["find", "rate_limit_evil", str(repo)], capsys)
    assert "evil\\x1b]0;t\\aname.py" in out


def test_chat_turns_print_safely(repo: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO("what is the rate limit?\nopen the first one\n"))
    code, out, err = run(["chat", "--repo", str(repo), "--dry-run"], capsys)
    assert code == 0 and "[turn 2]" in out
    assert RAW.search(out) is None and RAW.search(err) is None


def test_mined_commit_messages_print_safely(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from tests.history_helpers import EPOCH, build_history_repo, commit

    repo, _ = build_history_repo(tmp_path)
    commit(repo, f"Fix parse_line on empty keys {TITLE}{BIDI} again",
           {"proj/parser.py": (repo / "proj/parser.py").read_text(encoding="utf-8") + "\n# x\n"},
           EPOCH + 10 * 86400)
    code, out, err = run(["eval", "history", "--repo", str(repo), "--cases"], capsys)
    assert code == 0, err
    assert "Fix parse_line on empty keys" in out
    assert RAW.search(out) is None and RAW.search(err) is None


def test_store_notices_are_made_visible(capsys: pytest.CaptureFixture[str]) -> None:
    # a row id read back from a tampered run log is untrusted text like any other
    from helix.store.db import notice

    notice("skipped 1 unreadable rows (turn ids: \x1b]52;c;ZXZpbA==\x07\U000e0041)")
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "\U000e0041" not in err
    assert "\\x1b]52" in err and "\\U000e0041" in err
