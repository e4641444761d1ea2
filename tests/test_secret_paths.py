"""A secret in the evidence or pasted into a question never reaches the model's prompt, the run
log or a session's stored turns, on each path: a question answered by a model (the `FakeLLM`
port, recording what it is sent), a dry run, a session's turns; over an index that masks its
texts (the default) and one that keeps them in clear (`index.mask_secrets = false`, a user's
setting to measure the scan's cost: the run is masked before anything keeps or sends it).
The secrets stand in forms this round's detector learned (a C macro, a comment in another
language) beside a plain assignment."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helix.core.config import load_config
from helix.core.ports import FakeClock
from helix.service import ask
from helix.session.runner import run_turn
from helix.synthesis.fake_llm import FakeLLM
from tests.index_fixtures import write

MACRO = "Mq7Tz2LwK9pX"
COMMENT = "Rb4Wk8Tz2mQv"
PLAIN = "Zq8LmX2vKp4Wt9Rb"
PASTED = "Hx7pQ2zLm9Vc"
FILES = {
    "firmware/config.h": f'#define MQTT_HOST "broker.lan"\n#define MQTT_PASS "{MACRO}"\n'
                         "#define MQTT_PORT 1883\n",
    "conf/db.py": f'"""Database settings."""\n\n# 数据库密码：{COMMENT}\n'
                  f'DB_PASSWORD = "{PLAIN}"\n\n\ndef connect_db():\n'
                  '    """Open the database with the password."""\n'
                  f'    return connect(password="{PLAIN}")\n',
}
SECRETS = (MACRO, COMMENT, PLAIN, PASTED)
QUESTION = f"where is DB_PASSWORD defined? ours is Passwort: {PASTED}"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for rel, text in FILES.items():
        write(root, rel, text)
    return root


def _stored() -> str:
    """Every file Helix keeps in $HELIX_HOME but the index (the run log, the sessions)."""
    home = Path(os.environ["HELIX_HOME"])
    return "\n".join(path.read_bytes().decode("utf-8", "replace") for path in home.rglob("*")
                     if path.is_file() and "indexes" not in path.relative_to(home).parts)


def _leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


@pytest.mark.parametrize("masked_index", [True, False])
def test_a_question_answered_by_the_model(repo: Path, masked_index: bool) -> None:
    config = load_config(repo, flags={"index.embed_enabled": False, "synthesis.model": "m",
                                      "index.mask_secrets": masked_index})
    model = FakeLLM("DB_PASSWORD is set in [E1].")
    result = ask(QUESTION, root=repo, config=config, dry_run=False, llm=model,
                 clock=FakeClock(step=0.001))
    sent = json.dumps(model.calls)
    assert _leaks(sent) == []
    assert "[REDACTED:" in sent and "DB_PASSWORD" in sent  # the evidence was sent, masked
    stored = _stored()
    assert "where is DB_PASSWORD defined? ours is Passwort: [REDACTED:" in stored  # logged
    assert _leaks(stored) == []
    assert _leaks(result.envelope.model_dump_json()) == []


@pytest.mark.parametrize("masked_index", [True, False])
def test_a_dry_run_and_its_run_log(repo: Path, masked_index: bool) -> None:
    config = load_config(repo, flags={"index.embed_enabled": False,
                                      "index.mask_secrets": masked_index})
    result = ask(QUESTION, root=repo, config=config, dry_run=True,
                 clock=FakeClock(step=0.001))
    assert "DB_PASSWORD" in result.envelope.answer  # the answer quotes the line, masked
    assert _leaks(result.envelope.model_dump_json()) == []
    assert _leaks(_stored()) == []


@pytest.mark.parametrize("masked_index", [True, False])
def test_a_sessions_stored_turns(repo: Path, masked_index: bool) -> None:
    config = load_config(repo, flags={"index.embed_enabled": False,
                                      "index.mask_secrets": masked_index})
    clock = FakeClock(step=0.001)
    turns = [run_turn("s", text, root=repo, config=config, clock=clock, dry_run=True)
             for text in (QUESTION, "what does MQTT_PASS hold?", "and connect_db?")]
    assert turns[0].lane == "root" and len(turns) == 3
    stored = _stored()
    assert "Passwort: [REDACTED:" in stored  # the pasted question was stored, masked
    assert _leaks(stored) == []
