"""No secret reaches the model, at any call site: a repository planted with each format the
issue names, a session whose root questions (synthesis) and follow-up (the semantic lane's
advisory call, which carries the earlier turns) all run through the real litellm client, and
every message captured where litellm would send it."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from helix.core.config import load_config
from helix.core.ports import FakeClock
from helix.session.runner import run_turn
from helix.synthesis.llm import _import_litellm

STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
USER_STRIPE = "sk_live_" + "9fQ2xLmN8pR4tV7wY1zA3bC5"  # pasted by the user into a question
URL_PW = "Pg4dm1nPw9"
YAML_PW = "hunter2x"
PROSE_PW = "Tr0ub4dor&3"
MYSQL_PW = "S3cr3tPass!"
SALT = "f3a9c1e7b2d84f6a9c0e5d7b3a1f9e2c"


def _key_lines() -> list[str]:
    rng = random.Random(7)
    raw = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(480))).decode()
    return [raw[i:i + 64] for i in range(0, len(raw), 64)]


KEY_LINES = _key_lines()
SECRETS = [STRIPE, USER_STRIPE, URL_PW, YAML_PW, PROSE_PW, MYSQL_PW, SALT, *KEY_LINES]

FILES = {
    "billing/stripe_client.py": f'''"""Billing: the Stripe client."""

STRIPE_SECRET_KEY = "{STRIPE}"


def charge_customer(customer_id, amount):
    """Charge a customer through Stripe with the live key."""
    return {{"customer": customer_id, "amount": amount, "key": STRIPE_SECRET_KEY}}
''',
    "config/database.yaml": f"""database:
  url: postgres://billing:{URL_PW}@db.internal:5432/billing
  password: {YAML_PW}
  pool_size: 5
""",
    "docs/operations.md": f"""# Operations

## Database access

The billing database password: {PROSE_PW} is rotated every quarter.
Connect with `mysql -u billing -p{MYSQL_PW} billing` from the bastion.

## Signing

Webhooks are signed with the signing salt in `billing/signing.py`.
""",
    "billing/signing.py": f'''"""Webhook signing."""

import hashlib

SIGNING_SALT = "{SALT}"


def sign_webhook(payload):
    """Sign a webhook payload with the salt."""
    return hashlib.sha256((SIGNING_SALT + payload).encode()).hexdigest()
''',
    # the key's BEGIN line sits in the module chunk, its body alone in the function's chunk
    "deploy/keys.py": '''"""Deploy helpers."""

DEPLOY_KEY_BEGIN = "-----BEGIN RSA PRIVATE KEY-----"


def deploy_key_body():
    """The deploy key body for the legacy deploy job."""
    return """
''' + "\n".join(KEY_LINES) + '''
"""


def deploy_key_end():
    return "-----END RSA PRIVATE KEY-----"
''',
}

TURNS = [
    f"where is the stripe key configured? ours is {USER_STRIPE}",
    "how do we connect to the billing database?",
    "what does deploy_key_body return?",
    "open the first one",
    "what does it mean?",
]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[list[dict[str, str]]]:
    """Every message list handed to litellm.completion (answered like a model would)."""
    litellm = _import_litellm()
    captured: list[list[dict[str, str]]] = []

    def completion(**kwargs: Any) -> Any:
        messages = kwargs["messages"]
        captured.append(messages)
        system = messages[0]["content"]
        if "TOOL_RESULTS" in system:
            text = "It is configured in [E1]."
        elif "named entity" in system:
            text = json.dumps({"answer": "The deploy key body.", "confidence": 0.9})
        else:
            text = json.dumps({"decision": "need_more_info"})
        message = SimpleNamespace(content=text)
        return SimpleNamespace(choices=[SimpleNamespace(message=message)], model=kwargs["model"],
                               usage=None)

    monkeypatch.setattr(litellm, "completion", completion)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-used")
    return captured


def test_no_planted_secret_reaches_the_model_at_any_call_site(
        repo: Path, sent: list[list[dict[str, str]]]) -> None:
    config = load_config(repo, flags={"index.embed_enabled": False,
                                      "synthesis.model": "gpt-4o-mini"})
    clock = FakeClock(step=0.001)
    turns = [run_turn("s", text, root=repo, config=config, clock=clock) for text in TURNS]
    assert [t.lane for t in turns] == ["root", "root", "root", "selection", "semantic"]
    assert turns[3].opened is not None and turns[3].opened.path == "deploy/keys.py"

    everything = json.dumps(sent)
    for secret in SECRETS:
        assert secret not in everything, secret
    # the test can fail: each planted span, and the earlier turns, were really sent (masked)
    contents = "\n".join(m["content"] for messages in sent for m in messages)
    for masked in ('STRIPE_SECRET_KEY = "[REDACTED:', "ours is [REDACTED:",
                   "postgres://[REDACTED:url_password]@db.internal", "  password: [REDACTED:",
                   "database password: [REDACTED:", "mysql -u billing -p[REDACTED:",
                   'SIGNING_SALT = "[REDACTED:', "[REDACTED:private_key]"):
        assert masked in contents, masked
    assert "deploy/keys.py:6-" in contents  # the key body's own chunk, no BEGIN line in it
    semantic = [m for m in sent if "named entity" in m[0]["content"]]
    assert len(semantic) == 1
    assert "where is the stripe key configured? ours is [REDACTED:stripe_key]" in \
        semantic[0][1]["content"]  # the earlier turn rides along with the follow-up
