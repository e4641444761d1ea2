"""Every place a text enters Helix masks the secrets in it before anything keeps or shows it:
a provider's error body (which may echo the key it was sent), the model's reply (whole and
streamed), an error line printed or returned by a server, an error the run log keeps, and a
commit message read for the history evaluation. (Files, questions, chat turns and session
lanes: `test_secret_formats.py`, `test_no_secret_reaches_model.py`, `test_secrets_at_rest.py`.)"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from helpers_synthesis import envelope

from evals.history.mine import FIELD, parse_record
from helix.cli.main import error_line
from helix.core.errors import LLMAuthError
from helix.runlog import RunLog
from helix.synthesis.llm import LiteLLMClient, _import_litellm, map_litellm_error
from helix.synthesis.redact import ReplyGuard, known_secrets

MODEL = "gpt-4o-mini"
HELD_KEY = "prov-Q8wz31-held-key-Tx9"  # a key with no known prefix: only holding it tells
STRIPE = "sk_live_" + "7Hq2LmN9pR4tV6wY1zA3bC5d"
MESSAGES = [{"role": "user", "content": "where is it?"}]


@pytest.fixture
def litellm(monkeypatch: pytest.MonkeyPatch) -> Any:
    module = _import_litellm()
    monkeypatch.setenv("OPENAI_API_KEY", HELD_KEY)
    return module


def _reply(text: str) -> Any:
    message = SimpleNamespace(content=text)
    return SimpleNamespace(choices=[SimpleNamespace(message=message)], model=MODEL, usage=None)


def _chunks(pieces: list[str]) -> list[Any]:
    return [SimpleNamespace(model=MODEL, usage=None, choices=[SimpleNamespace(
        delta=SimpleNamespace(content=piece))]) for piece in pieces]


def test_the_keys_this_process_holds_are_known() -> None:
    held = known_secrets({"OPENAI_API_KEY": HELD_KEY, "PATH": "/usr/bin:/bin",
                          "GITHUB_TOKEN": "ghtok-1", "HOME": "/home/me"})
    assert held == ("ghtok-1", HELD_KEY)


def test_a_provider_body_that_echoes_the_key_is_masked(litellm: Any,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    body = (f'{{"error": {{"message": "Incorrect API key provided: {HELD_KEY}. You can find '
            f'your API key at https://platform.example.com.", "code": "invalid_api_key"}}}}')
    exc = litellm.AuthenticationError(body, llm_provider="openai", model=MODEL)
    assert HELD_KEY not in str(map_litellm_error(exc, MODEL, litellm, (HELD_KEY,)))

    def completion(**_: Any) -> Any:
        raise exc

    monkeypatch.setattr(litellm, "completion", completion)
    with pytest.raises(LLMAuthError) as raised:
        LiteLLMClient().complete(MESSAGES, model=MODEL, timeout_s=5, max_tokens=10,
                                 temperature=0)
    assert HELD_KEY not in str(raised.value) and "[REDACTED:api_key]" in str(raised.value)
    assert raised.value.__cause__ is None  # no traceback can show the raw body


def test_the_models_reply_is_masked(litellm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(litellm, "completion",
                        lambda **_: _reply(f"Use the key {STRIPE} as in [E1]."))
    done = LiteLLMClient().complete(MESSAGES, model=MODEL, timeout_s=5, max_tokens=10,
                                    temperature=0)
    assert STRIPE not in done.text and "[REDACTED:" in done.text


def test_a_streamed_reply_is_shown_masked(litellm: Any,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # the secret arrives in pieces, across chunks
    pieces = ["It is set in [E1].\nThe key is ", STRIPE[:12], STRIPE[12:], "\nand more", "."]
    monkeypatch.setattr(litellm, "completion", lambda **_: iter(_chunks(pieces)))
    shown: list[str] = []
    done = LiteLLMClient().complete(MESSAGES, model=MODEL, timeout_s=5, max_tokens=10,
                                    temperature=0, on_text=shown.append)
    assert STRIPE not in "".join(shown) and STRIPE not in done.text
    assert "".join(shown) == done.text  # every line shown, masked the same way


def test_a_guard_holds_an_unfinished_line_until_it_ends() -> None:
    shown: list[str] = []
    guard = ReplyGuard((HELD_KEY,), shown.append)
    guard.piece("first line\nthe key " + HELD_KEY[:5])
    assert shown == ["first line\n"]
    guard.piece(HELD_KEY[5:])
    guard.close()
    assert "".join(shown) == "first line\nthe key [REDACTED:api_key]"


def test_a_long_line_still_streams_in_pieces_and_a_secret_is_never_shown_in_part() -> None:
    shown: list[str] = []
    guard = ReplyGuard((), shown.append)
    words = f"The retry policy is decided in decide_retry and the key {STRIPE} is set there".split()
    for word in words:
        guard.piece(word + " ")
    guard.close()
    assert len(shown) > 3 and STRIPE not in "".join(shown)
    assert not any(STRIPE[:10] in piece for piece in shown)
    assert "".join(shown) == "The retry policy is decided in decide_retry and the key " \
        "[REDACTED:stripe_key] is set there "


def test_an_error_line_printed_or_returned_is_masked() -> None:
    line = error_line(f"the provider said: invalid key {STRIPE}")
    assert STRIPE not in line and line.startswith("helix: the provider said")


def test_an_error_the_run_log_keeps_is_masked() -> None:
    log = RunLog()
    run_id = log.start(envelope(), created=1.0, dry_run=False)
    log.fail(run_id, f"LLMAuthError: invalid key {STRIPE}", updated=2.0)
    record = log.get(run_id)
    assert record.error is not None and STRIPE not in record.error


def test_a_commit_message_is_masked_where_it_is_read() -> None:
    message = f"fix login\n\nThe staging password is: Gr4nite-Falcon!9 and {STRIPE}\n"
    record = FIELD.join([b"a" * 40, b"", b"1700000000", b"Ann", b"ann@example.com",
                         message.encode(), b"M\tsrc/login.py"])
    commit = parse_record(record)
    assert commit is not None
    assert "Gr4nite-Falcon!9" not in commit.message and STRIPE not in commit.message
    assert commit.message.startswith("fix login")
