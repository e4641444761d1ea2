"""Round 17's classes of the tune sets' misses and flagged lookalikes (writer51's, with
writer40's, 41's, 44's and 49's), each with values invented here; and the scan's cost cuts
(the triggers outside ASCII read only a text outside ASCII; a rule whose literal is in most
code tried only where a hint that starts with a literal finds its shape)."""

from __future__ import annotations

import pytest

from helix.core import secret_prefilter, secrets
from helix.core.secrets import find_secrets
from tests.secret_helpers import agreed_texts, found_texts


def test_the_triggers_outside_ascii_are_one_group_passed_over_only_a_text_outside_ascii(
        monkeypatch: pytest.MonkeyPatch) -> None:
    triggers = secret_prefilter._triggers()
    wide = {i for i, pattern in enumerate(triggers.patterns) if not pattern.isascii()}
    assert wide and set(triggers.wide) == wide
    assert all(set(ids) == wide or not wide & set(ids) for ids, _ in triggers.groups)
    passes: list[tuple[int, ...]] = []
    lines = secret_prefilter._trigger_lines

    def counted(text: str, subject: bytes, ids: tuple[int, ...]) -> list[tuple[int, int]]:
        passes.append(ids)
        return lines(text, subject, ids)

    monkeypatch.setattr(secret_prefilter, "_trigger_lines", counted)
    assert found_texts("[sftp]\nuser = ops\npassword = Vq8dL2xTr9Kw\n") == ["Vq8dL2xTr9Kw"]
    assert triggers.wide not in passes
    passes.clear()
    assert found_texts("Zugang (Server):\n  Hasło: Vq8dL2xTr9Kw\n") == ["Vq8dL2xTr9Kw"]
    assert triggers.wide in passes


@pytest.mark.parametrize("kind", ["ably_key", "url_password"])
def test_a_rule_whose_literal_is_in_most_code_runs_only_where_its_shape_may_be(kind: str) -> None:
    pattern = next(p for k, p, _ in secrets._REGEX_RULES if k == kind)
    code = ('import os.path\nURL = "https://example.org/api"\nx = {"a": b.c, "d": e}\n'
            "def f(self: object) -> str:\n    return self.name\n")
    assert not secrets._may_match(kind, pattern, code)


@pytest.mark.parametrize("text, value", [
    ("ABLY = 'xVLyHw.Dq3zTg:Q8vW2mZx7Lk4Rt9Yp1Nc6Hb3Jf5Gd0Sa8Ke2Ui7Oo4P'\n",
     "xVLyHw.Dq3zTg:Q8vW2mZx7Lk4Rt9Yp1Nc6Hb3Jf5Gd0Sa8Ke2Ui7Oo4P"),
    ("mirror = ftp://deploy:Zr8vQ2mLx7Tk@files.example.net/out\n", "deploy:Zr8vQ2mLx7Tk"),
    ("tok = 'patQ3rT8vLk2MzX9w." + "9f2c7a1e" * 8 + "'\n", "patQ3rT8vLk2MzX9w." + "9f2c7a1e" * 8),
])
def test_the_cheaper_rules_find_what_theyfound_texts(text: str, value: str) -> None:
    assert value in "".join(agreed_texts(text))


def test_an_airtable_shape_inside_a_longer_word_is_not_a_token() -> None:
    token = "patQ3rT8vLk2MzX9w." + "9f2c7a1e" * 8
    assert not [f for f in find_secrets("ref: xx" + token + "\n") if f.kind == "airtable_token"]


@pytest.mark.parametrize("text, value", [
    # a typed constant: Rust's borrowed string (`&str`, `&'static str`)
    ('const CLIENT_SECRET: &str = "blaues-Fjord-Kompass-2024";\n', "blaues-Fjord-Kompass-2024"),
    ("static API_TOKEN: &'static str = \"blaues-Fjord-Kompass-2024\";\n",
     "blaues-Fjord-Kompass-2024"),
    # an element named by its attribute (Android's string resources)
    ('<resources>\n  <string name="maps_client_secret">7d1e9c4a2b8f6e3d5c0a9b7e1f4d2c8a</string>\n'
     '</resources>\n', "7d1e9c4a2b8f6e3d5c0a9b7e1f4d2c8a"),
    # a C array named `pass` (the prefilter's trigger reads `pass[]` and `pass[64]`)
    ('char pass[] = "80314265597719024411";\n', "80314265597719024411"),
    ('char pass[64] = "Gartenzaun-Blau-77";\n', "Gartenzaun-Blau-77"),
    # the German name of a password
    ("[ftp]\nbenutzer = kunde_7\npasswort = Rh7kP2wq§Lm5\n", "Rh7kP2wq§Lm5"),
    # an `&` in a password at a line's start, no `&name=` after it
    ("pass_phrase=Kv9&zQ2wLm7t\n", "Kv9&zQ2wLm7t"),
    # a list of keys in one value (the old and the new while rotating)
    ("APP_KEYS=Qz8vLm2Tx7Kp4Wr9Nd3Hb6==,Jf5Gd0Sa8Ke2Ui7Oo4PlX1==\n",
     "Qz8vLm2Tx7Kp4Wr9Nd3Hb6==,Jf5Gd0Sa8Ke2Ui7Oo4PlX1=="),
    # a key's bytes as numbers under its name
    ("advanced:\n  network_key: [12, 201, 87, 44, 190, 3, 251, 96, 140, 18, 77, 230, 59, 164, 9, "
     "212]\n", "12, 201, 87, 44, 190, 3, 251, 96, 140, 18, 77, 230, 59, 164, 9, 212"),
    ("static const uint8_t device_key[] = {0x3a, 0x91, 0x0c, 0xe7, 0x55, 0x2b, 0xd4, 0x80, 0x1f, "
     "0x6e, 0xa3, 0x47, 0xb9, 0x02, 0xcc, 0x78};\n",
     "0x3a, 0x91, 0x0c, 0xe7, 0x55, 0x2b, 0xd4, 0x80, 0x1f, 0x6e, 0xa3, 0x47, 0xb9, 0x02, 0xcc, "
     "0x78"),
])
def test_a_secret_in_these_places_isfound_texts(text: str, value: str) -> None:
    assert value in agreed_texts(text)


@pytest.mark.parametrize("text, parts", [
    ("const a = 'ghp_R8tQ2mZ7kD0vXw4N9p';\nconst b = 'LaY3cF6hJ1sU5eB8gT';\n"
     "export const GH_TOKEN = a + b; // so the push check passes\n",
     ["ghp_R8tQ2mZ7kD0vXw4N9p", "LaY3cF6hJ1sU5eB8gT"]),
    ('A="xoxp-284710593628-5729104836152"\nB="-fjordbluekompass2024"\n'
     'SLACK_TOKEN="${A}${B}"\n', ["-fjordbluekompass2024"]),
    ('DB_SECRET = (\n    "Vx7Lq2Mz9Kt4"\n    "Pw8Nr3Hb6Jd1"\n)\n',
     ["Vx7Lq2Mz9Kt4", "Pw8Nr3Hb6Jd1"]),
    ("const k = ['sk-proj-Tz4q', 'Lm8vW2xK9pQr', 'B7nH3jD6fG1s'].join('');\n",
     ["sk-proj-Tz4q", "Lm8vW2xK9pQr", "B7nH3jD6fG1s"]),
])
def test_a_secret_written_in_parts_has_every_partfound_texts(text: str, parts: list[str]) -> None:
    found = agreed_texts(text)
    assert all(part in found for part in parts), found


@pytest.mark.parametrize("text", [
    'first = "Hello, "\nsecond = "world and more"\ngreeting = first + second\n',
    'message = (\n    "the server could not be reached "\n    "and will be tried again"\n)\n',
    "const path = ['src', 'components', 'forms'].join('');\n",
])
def test_text_written_in_parts_is_no_secret(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize("text", [
    # placeholders after a token's prefix: words, no digits
    "SLACK_BOT_TOKEN=xoxb-your-bot-token\n",
    "It starts with `xoxb-` (e.g. `xoxp-this-is-not-a-real-token`).\n",
    "STRIPE_SECRET_KEY=sk_test_placeholder\n",
    'FAKE_API_KEY = "test-api-key"\n',
    # alphabets written in order, skipping a few letters or joining runs
    'const ALPHABET: &str = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";\n',
    'URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"\n',
    # Google's published reCAPTCHA test keys
    "RECAPTCHA_SECRET_KEY=6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe\n",
    # the secret's own name as a translated label
    '{"form.password": "Passwort", "form.pin": "Kennwort"}\n',
    # "your ..." in a Chinese or Japanese deployment guide
    "设置 `APP_SECRET=你的AppSecret`，不要提交。\n",
    # an IPFS content ID written by hand (outside base58's alphabet)
    "pinned: Qm0aZk8lWfT3xG7qR2vN9bY4cH6dJ1sL5eP8uM3oK7tVwX\n",
])
def test_these_lookalikes_are_no_secret(text: str) -> None:
    assert agreed_texts(text) == []


@pytest.mark.parametrize("text, value", [
    ("SLACK_BOT_TOKEN=xoxb-584920174635-7291048361527-Kq8vLx2Tz9Wr4Np7Hd3Mb6Jc\n",
     "xoxb-584920174635-7291048361527-Kq8vLx2Tz9Wr4Np7Hd3Mb6Jc"),
    ("STRIPE_SECRET_KEY=sk_test_51Hq8vLx2Tz9Wr4Np7\n", "sk_test_51Hq8vLx2Tz9Wr4Np7"),
    ('SIGNING_SECRET = "Zk4rT8mQ2vX7pL9wN3bH6jD1fG5sC0aE"\n', "Zk4rT8mQ2vX7pL9wN3bH6jD1fG5sC0aE"),
    ('{"password": "Passwort2024!"}\n', "Passwort2024!"),
])
def test_secrets_beside_those_lookalikes_are_kept(text: str, value: str) -> None:
    assert value in "".join(agreed_texts(text))
