"""Hostile input to every command ends in one line naming it, exit 2: never a traceback, never
"internal error". The real entry point (`helix.cli.main.main`) runs over a table of cases; argv
bytes that are not UTF-8 reach it as Python hands them over (lone surrogates), and one case
goes through a real process with raw bytes in argv."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run

from helix.cli.main import commands, main
from helix.inputs import MAX_QUESTION_CHARS

BAD = "what\udcff is foo"  # `helix ask $'what\xff is foo'` as Python's argv holds it
LONG = "x" * 100_000


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A tiny repository (the working directory) and the odd files the cases point at."""
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "mod.py").write_text("def foo():\n    return 1\n", encoding="utf-8")
    (repo / "README.md").write_text("# Title\n\nAbout foo.\n", encoding="utf-8")
    monkeypatch.chdir(repo)
    (tmp_path / "file.txt").write_text("hello\n", encoding="utf-8")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "badutf8.txt").write_bytes(b"what \xfe\xff is foo")
    (tmp_path / "nul.txt").write_bytes(b"what\0is foo")
    (tmp_path / "big.txt").write_text("y" * (MAX_QUESTION_CHARS + 1), encoding="utf-8")
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "under").write_text("a regular file", encoding="utf-8")
    return {"repo": str(repo), "file": str(tmp_path / "file.txt"),
            "fifo": str(tmp_path / "fifo"), "dir": str(tmp_path),
            "badutf8": str(tmp_path / "badutf8.txt"), "nul": str(tmp_path / "nul.txt"),
            "big": str(tmp_path / "big.txt"), "empty": str(tmp_path / "empty.txt"),
            "missing": str(tmp_path / "missing"), "under": str(tmp_path / "under" / "home")}


# (id, argv, stdin bytes or None, exit code, a piece of the one error line)
CASES: list[tuple[str, list[str], bytes | None, int, str]] = [
    # ask: the question, from argv, a file or stdin
    ("ask-argv-not-utf8", ["ask", BAD, "--dry-run"], None, 2, "not valid UTF-8"),
    ("ask-nul-in-argv", ["ask", "what\0is foo", "--dry-run"], None, 2, "NUL"),
    ("chunks-nul-in-argv", ["chunks", "mod\0.py"], None, 2, "NUL"),
    ("ask-file-not-utf8", ["ask", "--question-file", "{badutf8}", "--dry-run"], None, 2,
     "byte 0xfe at offset 5"),
    ("ask-file-nul", ["ask", "--question-file", "{nul}", "--dry-run"], None, 2, "NUL byte"),
    ("ask-file-too-long", ["ask", "--question-file", "{big}", "--dry-run"], None, 2, "200,000"),
    ("ask-file-missing", ["ask", "--question-file", "{missing}", "--dry-run"], None, 2,
     "not found"),
    ("ask-file-directory", ["ask", "--question-file", "{dir}", "--dry-run"], None, 2,
     "directory"),
    ("ask-file-empty", ["ask", "--question-file", "{empty}", "--dry-run"], None, 2,
     "no question"),
    ("ask-file-dev-zero", ["ask", "--question-file", "/dev/zero", "--dry-run"], None, 2,
     "is a character device, not a regular file"),
    ("ask-file-fifo", ["ask", "--question-file", "{fifo}", "--dry-run"], None, 2,
     "is a FIFO, not a regular file (pass '-'"),
    ("ask-argv-too-long", ["ask", "z" * (MAX_QUESTION_CHARS + 1), "--dry-run"], None, 2,
     "200,001 characters"),
    ("ask-stdin-binary", ["ask", "-", "--dry-run"], b"\x89PNG\r\n\x1a\n\0\0\xff", 2, "NUL"),
    ("ask-stdin-not-utf8", ["ask", "--question-file", "-", "--dry-run"], b"where \xff", 2,
     "standard input is not valid UTF-8"),
    ("ask-stdin-too-long", ["ask", "-", "--dry-run"], b"w" * (4 * MAX_QUESTION_CHARS + 5), 2,
     "longer than 200,000"),
    ("ask-empty", ["ask", "", "--dry-run"], None, 2, "no question"),
    ("ask-whitespace", ["ask", "   \t ", "--dry-run"], None, 2, "no question"),
    ("ask-stdin-empty", ["ask", "-", "--dry-run"], b"", 2, "no question"),
    ("ask-session-not-utf8", ["ask", "foo", "--dry-run", "--session", "s\udcff"], None, 2,
     "not valid UTF-8"),
    ("ask-session-newline", ["ask", "foo", "--dry-run", "--session", "a\nb"], None, 2,
     "bad session name"),
    ("ask-session-escape", ["ask", "foo", "--dry-run", "--session", "a\x1b[2Jb"], None, 2,
     "bad session name"),
    ("ask-session-too-long", ["ask", "foo", "--dry-run", "--session", LONG], None, 2,
     "100,000 characters"),
    ("ask-session-empty", ["ask", "foo", "--dry-run", "--session", ""], None, 2,
     "bad session name"),
    ("ask-reply-to-huge", ["ask", "foo", "--session", "s", "--reply-to",
                           "99999999999999999999"], None, 2, "--reply-to"),
    ("ask-reply-to-zero", ["ask", "foo", "--session", "s", "--reply-to", "0"], None, 2,
     "--reply-to"),
    ("ask-reply-to-negative", ["ask", "foo", "--session", "s", "--reply-to", "-3"], None, 2,
     "--reply-to"),
    ("ask-repo-not-utf8", ["ask", "foo", "--repo", "/tmp/r\udcff", "--dry-run"], None, 2,
     "not valid UTF-8"),
    ("ask-repo-file", ["ask", "foo", "--repo", "{file}", "--dry-run"], None, 2,
     "not a directory"),
    ("ask-repo-fifo", ["ask", "foo", "--repo", "{fifo}", "--dry-run"], None, 2,
     "not a directory"),
    ("ask-repo-device", ["ask", "foo", "--repo", "/dev/null", "--dry-run"], None, 2,
     "not a directory"),
    ("ask-repo-missing", ["ask", "foo", "--repo", "{missing}", "--dry-run"], None, 2,
     "not a directory"),
    # chat
    ("chat-stdin-binary", ["chat", "--dry-run"], b"\x7fELF\x02\x01\x01\0\0\0\xff\xfe\n", 2,
     "line 1 of standard input holds a NUL byte"),
    ("chat-stdin-not-utf8", ["chat", "--dry-run"], b"\xff\xfe where\n", 2,
     "line 1 of standard input is not valid UTF-8"),
    ("chat-session-tab", ["chat", "--session", "a\tb"], None, 2, "bad session name"),
    ("chat-repo-file", ["chat", "--repo", "{file}"], None, 2, "not a directory"),
    # chunks
    ("chunks-missing", ["chunks", "{missing}"], None, 2, "does not exist"),
    ("mcp-missing-repo", ["mcp", "--repo", "{missing}"], None, 2, "not a directory"),
    ("mcp-http-not-loopback", ["mcp", "--http", "0.0.0.0:8765"], None, 2, "loopback only"),
    ("mcp-http-bad", ["mcp", "--http", "nope"], None, 2, "HOST:PORT"),
    ("serve-beyond-loopback-without-token", ["serve", "--host", "0.0.0.0"], None, 2,
     "set HELIX_SERVE_TOKEN"),
    ("serve-missing-repo", ["serve", "--repo", "{missing}"], None, 2, "not a directory"),
    ("chunks-directory", ["chunks", "{repo}"], None, 2, "is a directory"),
    ("chunks-not-utf8", ["chunks", "a\udcff.py"], None, 2, "not valid UTF-8"),
    # drift
    ("drift-fail-on", ["drift", "--fail-on", "bogus"], None, 2, "--fail-on"),
    ("drift-question-fifo", ["drift", "--question-file", "{fifo}"], None, 2, "FIFO"),
    ("drift-question-missing", ["drift", "--question-file", "{missing}"], None, 2, "not found"),
    # eval
    ("eval-unknown-suite", ["eval", "no_such_suite"], None, 2, "unknown eval suite"),
    ("eval-out-fifo", ["eval", "matrix", "--out", "{fifo}"], None, 2, "FIFO"),
    ("eval-unknown-baseline", ["eval", "matrix", "--baseline", "nope"], None, 2,
     "no pinned baseline"),
    # events
    ("events-limit-huge", ["events", "--limit", "99999999999999999999"], None, 2, "--limit"),
    ("events-limit-negative", ["events", "--limit", "-1"], None, 2, "--limit"),
    ("events-session-newline", ["events", "--session", "x\ny"], None, 2, "bad session name"),
    ("events-unknown-name", ["events", "--name", "nope"], None, 2, "unknown event name"),
    # export
    ("export-since", ["export", "--out", "{dir}/x.jsonl", "--since", "yesterday"], None, 2,
     "bad --since"),
    ("export-format", ["export", "--out", "{dir}/x.jsonl", "--format", "nope"], None, 2,
     "--format"),
    ("export-out-directory", ["export", "--out", "{dir}"], None, 2, "directory"),
    ("export-out-device", ["export", "--out", "/dev/null"], None, 2, "character device"),
    ("export-variant-tag", ["export", "--out", "{dir}/x.jsonl", "--variant-tag", "nokey"],
     None, 2, "--variant-tag"),
    ("export-baseline-name", ["export", "--out", "{dir}/x.jsonl", "--pin-baseline", "../up"],
     None, 2, "bad baseline name"),
    # find
    ("find-limit-huge", ["find", "foo", "--limit", "99999999999999999999"], None, 2, "--limit"),
    ("find-limit-negative", ["find", "foo", "--limit", "-5"], None, 2, "--limit"),
    ("find-name-not-utf8", ["find", "f\udcff"], None, 2, "not valid UTF-8"),
    ("find-path-file", ["find", "foo", "{file}"], None, 2, "not a directory"),
    ("find-empty-name", ["find", "  "], None, 2, "empty symbol name"),
    ("find-100k-name", ["find", LONG], None, 1, "100,000 characters"),
    # index
    ("index-missing", ["index", "{missing}"], None, 2, "does not exist"),
    ("index-file", ["index", "{file}"], None, 2, "not a directory"),
    ("index-fifo", ["index", "{fifo}"], None, 2, "not a directory"),
    ("index-device", ["index", "/dev/null"], None, 2, "not a directory"),
    ("index-not-utf8", ["index", "/tmp/r\udcff"], None, 2, "not valid UTF-8"),
    ("index-dir-is-file", ["index", "--index-dir", "{file}"], None, 2, "--index-dir"),
    # log
    ("log-limit-huge", ["log", "--limit", "99999999999999999999"], None, 2, "--limit"),
    ("log-limit-negative", ["log", "--limit", "-1"], None, 2, "--limit"),
    ("log-limit-zero", ["log", "--limit", "0"], None, 2, "--limit"),
    ("log-limit-word", ["log", "--limit", "many"], None, 2, "--limit"),
    # repos
    ("repos-group-escape", ["repos", "--group", "a\x1b[2Jb"], None, 2, "not a group name"),
    ("repos-group-not-utf8", ["repos", "--group", "a\udcffb"], None, 2, "not valid UTF-8"),
    # stale-docs
    ("stale-docs-baseline-fifo", ["stale-docs", "--baseline", "{fifo}"], None, 2, "FIFO"),
    ("stale-docs-baseline-missing", ["stale-docs", "--baseline", "{missing}"], None, 2,
     "not found"),
    ("stale-docs-write-device", ["stale-docs", "--write-baseline", "/dev/null"], None, 2,
     "character device"),
    # search
    ("search-k-huge", ["search", "foo", "-k", "99999999999999999999"], None, 2, "-k"),
    ("search-k-zero", ["search", "foo", "-k", "0"], None, 2, "-k"),
    ("search-k-negative", ["search", "foo", "-k", "-3"], None, 2, "-k"),
    ("search-channel", ["search", "foo", "--channel", "nope"], None, 2, "--channel"),
    ("search-query-not-utf8", ["search", "f\udcff"], None, 2, "not valid UTF-8"),
    ("search-empty-query", ["search", ""], None, 2, "empty query"),
    # show
    ("show-100k-id", ["show", LONG], None, 2, "100,000 characters"),
    ("show-empty-id", ["show", ""], None, 2, "bad turn id"),
    ("show-wildcards", ["show", "ab%_"], None, 2, "bad turn id"),
    ("show-path", ["show", "../../etc/passwd"], None, 2, "bad turn id"),
    ("show-not-utf8", ["show", "ab\udcffcd"], None, 2, "not valid UTF-8"),
    ("show-unknown", ["show", "abcdef123456"], None, 2, "no such turn"),
    ("show-last-empty", ["show", "last"], None, 2, "the run log is empty"),
    # status
    ("status-missing", ["status", "{missing}"], None, 2, "does not exist"),
    ("status-file", ["status", "{file}"], None, 2, "not a directory"),
    ("status-not-utf8", ["status", "/tmp/r\udcff"], None, 2, "not valid UTF-8"),
    # long values are named, never echoed whole; a name too long for the file system
    ("eval-suite-name-too-long", ["eval", "s" * 5000], None, 2, "File name too long"),
    ("index-path-too-long", ["index", "p" * 5000], None, 2, "File name too long"),
    ("log-limit-5000-digits", ["log", "--limit", "9" * 5000], None, 2, "--limit"),
    ("events-name-5000-chars", ["events", "--name", "n" * 5000], None, 2, "characters)..."),
    ("events-name-escape", ["events", "--name", "\x1b]52;c;aGk=\x07"], None, 2, "\\x1b]52"),
    # any command
    ("unknown-command", ["frobnicate"], None, 2, "No such command"),
    ("unknown-option", ["log", "--frob"], None, 2, "No such option"),
]


def _fill(argv: list[str], place: dict[str, str]) -> list[str]:
    return [arg.format(**place) if "{" in arg else arg for arg in argv]


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")
    monkeypatch.setattr(sys, "stdin", stream)


def assert_one_error_line(code: int, err: str, expected: int, needle: str) -> str:
    assert "Traceback" not in err and "internal error" not in err, err
    lines = [line for line in err.splitlines() if not line.startswith("helix chat: session")]
    assert len(lines) == 1, err
    assert lines[0].startswith("helix: "), err
    assert needle in lines[0], err
    assert code == expected, err
    return lines[0]


@pytest.mark.parametrize(("argv", "stdin", "code", "needle"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_hostile_input_is_one_line_exit_2(argv: list[str], stdin: bytes | None, code: int,
                                          needle: str, place: dict[str, str],
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    if stdin is not None:
        _stdin(monkeypatch, stdin)
    got, _, err = run(_fill(argv, place), capsys)
    line = assert_one_error_line(got, err, code, needle)
    assert len(line) < 400  # a 100,000-character input is never echoed whole


def test_every_command_is_in_the_table() -> None:
    assert "eval" in commands()  # through the helix.commands entry point
    assert {argv[0] for _, argv, *_ in CASES} >= set(commands())


@pytest.mark.parametrize("argv", [["log"], ["ask", "where is foo", "--dry-run"],
                                  ["ask", "foo", "--dry-run", "--session", "s"],
                                  ["chat", "--dry-run"], ["events"], ["show", "last"]])
def test_helix_home_under_a_regular_file(argv: list[str], place: dict[str, str],
                                         monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HELIX_HOME", place["under"])
    _stdin(monkeypatch, b"where is foo\n")
    code, _, err = run(argv, capsys)
    assert "HELIX_HOME" in assert_one_error_line(code, err, 2, "run log")


@pytest.mark.parametrize("argv", [["log"], ["ask", "where is foo", "--dry-run"]])
def test_helix_home_without_permission(argv: list[str], monkeypatch: pytest.MonkeyPatch
                                       ) -> None:
    # run as an unprivileged user (as root, whom no mode stops, in a child that drops to it)
    from unprivileged import as_nobody, open_dir

    base = open_dir()
    repo = base / "repo"
    repo.mkdir()
    repo.chmod(0o755)  # (the CLI's umask makes new directories private)
    (repo / "mod.py").write_text("def foo():\n    return 1\n", encoding="utf-8")
    (repo / "mod.py").chmod(0o644)
    home = base / "locked"
    home.mkdir()
    home.chmod(0)
    monkeypatch.chdir(repo)
    # the child reads none of root's files: import what the command needs first, in a run
    # with a home it may use
    monkeypatch.setenv("HELIX_HOME", str(base / "warm"))
    with (contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()),
          contextlib.suppress(SystemExit)):
        main(argv)
    monkeypatch.setenv("HELIX_HOME", str(home))

    def attempt() -> tuple[int, str]:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            try:
                main(argv)
                code = 0
            except SystemExit as exc:
                code = int(exc.code or 0)
        return code, err.getvalue()

    code, err = as_nobody(attempt)
    assert "HELIX_HOME" in assert_one_error_line(code, err, 2, str(home))


def test_question_of_exactly_the_limit_is_answered(place: dict[str, str], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    words = " ".join(f"word{n} foo" for n in range(MAX_QUESTION_CHARS))
    text = words[:MAX_QUESTION_CHARS - 1].rstrip() + "?"
    text = text + "x" * (MAX_QUESTION_CHARS - len(text))
    assert len(text) == MAX_QUESTION_CHARS
    question = tmp_path / "q.txt"
    question.write_text(text, encoding="utf-8")
    code, _, err = run(["ask", "--question-file", str(question), "--dry-run", "--json"], capsys)
    assert code == 0, err


def test_chat_line_over_the_limit_is_skipped_and_the_chat_goes_on(
        place: dict[str, str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _stdin(monkeypatch, b"q" * (4 * MAX_QUESTION_CHARS + 10) + b"\n/history\n")
    code, out, err = run(["chat", "--dry-run"], capsys)
    assert code == 0, err
    assert "line 1 of standard input is longer than 200,000 characters" in err
    assert "(no turns yet)" in out  # line 2 was read and run


def test_raw_argv_bytes_in_a_real_process(tmp_path: Path, place: dict[str, str]) -> None:
    env = {**os.environ, "HELIX_HOME": str(tmp_path / "home")}
    for argv in ([b"ask", b"what\xff is foo", b"--dry-run"], [b"show", b"\xff\xfe"],
                 [b"ask", b"foo", b"--session", b"s\xff", b"--dry-run"]):
        proc = subprocess.run([sys.executable.encode(), b"-m", b"helix.cli.main", *argv],
                              capture_output=True, env=env, cwd=place["repo"], timeout=120)
        err = proc.stderr.decode("utf-8", "replace")
        assert proc.returncode == 2, err
        assert err.count("\n") == 1 and err.startswith("helix: argument ")
        assert "\\xff" in err and "not valid UTF-8" in err and "Traceback" not in err


def test_undecodable_file_names_are_skipped_and_counted(
        place: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo = Path(place["repo"])
    names = os.fsencode(repo)
    for raw in (b"bad\xffname.py", b"ignored\xfe.log"):
        with open(os.path.join(names, raw), "wb") as handle:
            handle.write(b"def hidden():\n    pass\n")
    os.mkdir(os.path.join(names, b"dir\xfe"))
    with open(os.path.join(names, b"dir\xfe", b"inside.py"), "wb") as handle:
        handle.write(b"x = 1\n")
    (repo / ".gitignore").write_text("ignored*\n", encoding="utf-8")
    code, out, err = run(["index", "--json"], capsys)
    assert code == 0, err
    assert '"undecodable_name": 3' in out
    code, out, err = run(["ask", "where is foo defined?", "--dry-run"], capsys)
    assert code == 0, err
    assert "mod.py" in out and "\udcff" not in out
    code, out, err = run(["chunks", str(repo / "mod.py")], capsys)
    assert code == 0, err
