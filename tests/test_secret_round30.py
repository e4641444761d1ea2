"""Round 30's causes, each seen in the misses of two tune sets or more (secrets30's first
commit counts them), with values invented here: a value's format or place, never one snippet's
string; and the guards that keep lookalikes of each out."""

from __future__ import annotations

import pytest

from tests.secret_helpers import agreed_texts

# --- `user / password` pairs: a password of letters, digits and dashes after a login's word,
# or a domain's or the machine's account as the user


@pytest.mark.parametrize(("text", "values"), [
    ("Router admin: admin / Kettle4-Moor-Vane\n", ["Kettle4-Moor-Vane"]),
    ("- backup sftp: archiver / `Pw7-Ledger-Quill`\n", ["Pw7-Ledger-Quill"]),
    ("the guest wifi is OrchardGuest / lanternfield5820\n", ["lanternfield5820"]),
    ("Print server account: `HARBOR\\svc-print` / `Tq2#Ferrous-Ink`\n", ["Tq2#Ferrous-Ink"]),
    ("Print room PC: `.\\printadmin` / `Salt9-Marsh-Oriel`.\n", ["Salt9-Marsh-Oriel"]),
    ("mailbox: frontdesk@inkwell.example / Quarto-Bind-47\n", ["Quarto-Bind-47"]),
])
def test_plain_passwords_in_user_pairs_are_found(text: str, values: list[str]) -> None:
    assert agreed_texts(text) == values


@pytest.mark.parametrize("text", [
    "Build matrix: Release-x64 / Debug-x64\n",
    "Supported: python3.11 / python3.12\n",
    "ratio = total / count2\n",
    "    return weight / scale_factor2\n",
    "Licences: EPL-2.0 / EDL-1.0\n",
    "Router admin: admin / Kettle4-Moor-Vane is the pattern we use for the name\n",
    "see docs/setup-2024 / chapter-12a for the network\n",
    "login page: /auth / callback-v2\n",
    "admin account: admin / password123\n",
    "user: deploy / deadbeef12345678\n",
])
def test_pairs_that_are_no_login_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- an app-specific password's format after a password's word or a `-p` flag


@pytest.mark.parametrize(("text", "values"), [
    ("mail app password for the shared inbox on the old laptop: vqkt-rmhd-zpwa-clnf\n",
     ["vqkt-rmhd-zpwa-clnf"]),
    ("notarytool submit App.zip --apple-id ci@inkwell.example \\\n  -p 'bzrt-kmqw-hxvn-dfpl'\n",
     ["bzrt-kmqw-hxvn-dfpl"]),
])
def test_app_specific_passwords_are_found(text: str, values: list[str]) -> None:
    assert agreed_texts(text) == values


@pytest.mark.parametrize("text", [
    "password reset guide: see make-sure-your-data-lives-here\n",
    "Anchor for the password page: #what-does-this-page-mean\n",
    "passthrough mode uses the slug read-only-safe-mode as its id\n",
    "branch: feat-xkcd-plot-tool (no password needed)\n",
])
def test_slugs_and_words_near_password_stay_unfound(text: str) -> None:
    assert agreed_texts(text) == []


# --- a DSN: a URL whose user part is one key, masked with its URL


def test_a_key_only_url_is_masked_whole() -> None:
    url = "https://c41e9a7d2b5f48e0a3d6b1f7e2c9a8d4@errors.inkwell.example/12"
    assert agreed_texts(f'ERRORS_DSN = "{url}"\n') == [url]


def test_a_url_password_keeps_its_host() -> None:
    text = "DATABASE_URL=postgres://ledger:Wq8vTz3LpR6n@db.inkwell.example/ledger\n"
    assert agreed_texts(text) == ["ledger:Wq8vTz3LpR6n"]  # (user and password, no host)


# --- inline code after a secret's word in a sentence


@pytest.mark.parametrize(("text", "values"), [
    ("- Signing keystore: /srv/sign/ks.p12, pass `ksP-Orchid-7731`\n", ["ksP-Orchid-7731"]),
    ("The webhook secret in staging is `Wh-Stg-Ember-2026-#q`, rotate it after the demo.\n",
     ["Wh-Stg-Ember-2026-#q"]),
    ("- 14:05 new key rolled out: `trk_5c1e9a3f7b2d8e4a6c0f9b1d3e5a7c2f` (was "
     "`9e2c4a6f8b1d3e5a7c0f2b4d6e8a1c3f`)\n",
     ["trk_5c1e9a3f7b2d8e4a6c0f9b1d3e5a7c2f", "9e2c4a6f8b1d3e5a7c0f2b4d6e8a1c3f"]),
])
def test_inline_code_after_a_secrets_word_is_found(text: str, values: list[str]) -> None:
    assert agreed_texts(text) == values


@pytest.mark.parametrize("text", [
    "Set the `api_key` option to `settings.API_KEY` in `config/app.py`.\n",
    "The token lives in `~/.config/app/token.json` (mode `0600`).\n",
    "Pass `--retries 3` and `--timeout=30` to the client.\n",
    "The key is read from `${VAULT_KEY_V2}` at start.\n",
    "The key id in the header is `kid-2024-03-rotation`.\n",
    "Store the token under `release_token_2025` in the vault.\n",
    "Removes the tag with the key ``Owner`` from the volume ``vol-0a1b2c3d4e5f67890``.\n",
    "- Cipher key (test vector): `000102030405060708090A0B0C0D0E0F`\n",
    "Press the key combination `Ctrl-Shift-F12` to open the secret menu.\n",
    "Passwords must match `^[A-Za-z0-9]{12,}$`, see `validators.py:42`.\n",
    "The primary key column is `user_id2` and the index `idx_users_email2`.\n",
    "Token format: `ghp_` then 36 characters, e.g. `ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`.\n",
    "Key rotation landed in `v2.14.0` (commit `3f9a2c1`).\n",
])
def test_inline_code_that_is_no_secret_stays_unfound(text: str) -> None:
    assert agreed_texts(text) == []
