"""Issue 28's ordinary secret formats (`tests/secret_formats.py`): planted in a repository and
typed into questions, none reaches the model and none is stored under $HELIX_HOME (index rows,
the BM25 vocabulary, the run log, sessions), printed, or exported; a provider's 401 body that
echoes the key is neither logged nor printed. The whole path runs in process through the real
CLI entry point, with litellm's `completion` replaced by a recorder that answers like a model
(or fails like a provider)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from helix.core.secrets import redact_text
from helix.synthesis.llm import _import_litellm
from tests.cli_helpers import run
from tests.index_fixtures import write
from tests.secret_formats import FILES, PROVIDER_BODY, PROVIDER_KEY, QUESTIONS, all_values

MODEL = "gpt-4o-mini"
# questions without a secret, so the evidence of many planted files is sent
RETRIEVAL = ("where is the database password configured?",
             "which commands log in with a password in scripts?",
             "how is the api token set for the client?",
             "which secret does the deployment read from the environment?")


def test_the_formats_are_many_and_unique() -> None:
    values = all_values()
    assert len(values) >= 108
    assert len(set(values)) == len(values)
    assert not [(a, b) for a in values for b in values if a != b and a in b]


@pytest.mark.parametrize("planted", FILES, ids=[p.path for p in FILES])
def test_each_planted_file_is_masked(planted: Any) -> None:
    clean, _ = redact_text(planted.text)
    assert [v for v in planted.values if v in clean] == [], clean
    assert clean.count("\n") == planted.text.count("\n")  # line numbers stay true


@pytest.mark.parametrize("question,values", QUESTIONS)
def test_each_question_is_masked(question: str, values: tuple[str, ...]) -> None:
    clean, _ = redact_text(question)
    assert [v for v in values if v in clean] == [], clean


class Recorder:
    """litellm.completion: records the messages; answers, or fails with `error`."""

    def __init__(self) -> None:
        self.sent: list[list[dict[str, str]]] = []
        self.error: BaseException | None = None

    def __call__(self, **kwargs: Any) -> Any:
        self.sent.append(kwargs["messages"])
        if self.error is not None:
            raise self.error
        message = SimpleNamespace(content="It is configured in [E1].")
        return SimpleNamespace(choices=[SimpleNamespace(message=message)],
                               model=kwargs["model"], usage=None)


def _leaks(texts: list[str], home: Path) -> list[tuple[str, str]]:
    values = all_values()
    found = [(v, "output") for v in values for text in texts if v in text]
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        blob = path.read_bytes()
        found += [(v, path.relative_to(home).as_posix()) for v in values if v.encode() in blob]
    return found


def test_no_format_reaches_the_model_or_is_stored(
        tmp_path: Path, helix_home: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    for planted in FILES:
        write(repo, planted.path, planted.text)
    litellm = _import_litellm()
    recorder = Recorder()
    monkeypatch.setattr(litellm, "completion", recorder)
    monkeypatch.setenv("OPENAI_API_KEY", PROVIDER_KEY)
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    monkeypatch.setenv("HELIX_SYNTHESIS__RETRY_BACKOFF_S", "0")
    outputs: list[str] = []

    code, out, err = run(["index", str(repo), "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["files_indexed"] == len(FILES)
    outputs += [out, err]
    for question in (*RETRIEVAL, *(q for q, _ in QUESTIONS)):
        code, out, err = run(["ask", "--repo", str(repo), "--model", MODEL, "--json",
                              question], capsys)
        assert code == 0, err
        outputs += [out, err]
    code, out, err = run(["ask", "--repo", str(repo), "--session", "s1", "--model", MODEL,
                          QUESTIONS[1][0]], capsys)
    outputs += [out, err]
    # the provider refuses the key and echoes it whole
    recorder.error = litellm.AuthenticationError(PROVIDER_BODY, llm_provider="openai",
                                                 model=MODEL)
    code, out, err = run(["ask", "--repo", str(repo), "--model", MODEL, "--json",
                          RETRIEVAL[0]], capsys)
    assert code != 0
    outputs += [out, err]
    for command in (["log", "--json"], ["show", "last", "--json"]):
        code, out, err = run(command, capsys)
        outputs += [out, err]
    export = tmp_path / "export.jsonl"
    code, out, err = run(["export", "--out", str(export), "--include-diagnostic"], capsys)
    assert code == 0, err
    outputs += [out, err, export.read_text(encoding="utf-8")]

    sent = json.dumps(recorder.sent)
    leaks = {"sent": [v for v in all_values() if v in sent],
             "stored or printed": _leaks(outputs, helix_home)}
    assert leaks == {"sent": [], "stored or printed": []}
    # the test can fail: planted files and the questions were really sent, masked
    contents = "\n".join(m["content"] for messages in recorder.sent for m in messages)
    assert contents.count("[REDACTED:") >= 10
    assert len({p.path for p in FILES if p.path in contents}) >= 10
    assert "the GITHUB_TOKEN=[REDACTED:" in contents
