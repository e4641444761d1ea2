"""Round 34's causes: values under a secret's name that are plainly no secret (a count of a
model's tokens, the title of a section of the same file, a path to where the secret is kept),
with values invented here; and the guards that keep the secrets beside them found."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

# --- a name ending in `tokens` with a count's word in it: a budget, no token


@pytest.mark.parametrize("text", [
    '{"min_summary_tokens": "a floor for the summary"}\n',
    'max_completion_tokens = "set per model"\n',
    '"total_tokens": "Rq8vLm2Zt4Kw9NpX"\n',
    "  reply_budget_tokens: 'Zk3Pq9Vm2Lx7Tw4R'\n",
])
def test_a_count_of_tokens_is_no_token(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize(("text", "value"), [
    ('"refresh_tokens": "Rq8vLm2Zt4Kw9NpX"\n', "Rq8vLm2Zt4Kw9NpX"),
    ('max_tokens = 512\nbot_token = "Zk3Pq9Vm2Lx7Tw4R"\n', "Zk3Pq9Vm2Lx7Tw4R"),
])
def test_a_token_beside_a_count_is_found(text: str, value: str) -> None:
    assert value in agreed_texts(text)


# --- a secret's key naming a section of its own file (pjsip's `auth=` its auth section)

_PJSIP = """[kiosk-12]
type=endpoint
auth=kiosk-12-login
aors=kiosk-12

[kiosk-12-login]
type=auth
auth_type=userpass
username=kiosk12
password=Tw9!harbour-Gull
"""


def test_a_section_named_by_a_secret_key_is_no_secret() -> None:
    found = agreed_texts(_PJSIP)
    assert "kiosk-12-login" not in found
    assert "Tw9!harbour-Gull" in found


def test_a_value_only_looking_like_a_section_title_stays_found() -> None:
    text = "[server]\nhost=db7\n\nauth=Kq7-bx2Lm9-Wz4\n"
    assert "Kq7-bx2Lm9-Wz4" in agreed_texts(text)


# --- a path to the file or the store holding the secret


@pytest.mark.parametrize("text", [
    "//files.depot.lan/scans  /mnt/scans  cifs  credentials=/etc/samba/.scanner-creds,uid=0 0 0\n",
    "| Secret | Vault path | Consumer |\n|---|---|---|\n"
    "| Mailgun signing key | `kv/mail/mailgun#signing` | notifier |\n"
    "| Depot bind password | `kv/ldap/svc-depot#bindpw` | kiosk |\n",
    'webhook_secret: "kv/shop/hooks#hmac"\n',
    "smtp_password: ~/.config/mailer/smtp.pass\n",
])
def test_a_path_to_a_secret_is_no_secret(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize(("text", "value"), [
    ("password=/Gq7vTz/Lm2Kx9Rw\n", "/Gq7vTz/Lm2Kx9Rw"),
    ("api_secret: Mc8/Zt3Wq+Lp6Vn2Rk5x/Hb4\n", "Mc8/Zt3Wq+Lp6Vn2Rk5x/Hb4"),
    ("credentials=/etc/samba/creds,password=Pelican-Dock-77\n", "Pelican-Dock-77"),
])
def test_a_secret_with_slashes_stays_found(text: str, value: str) -> None:
    assert value in agreed_texts(text)
