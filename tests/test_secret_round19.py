"""Round 19's classes of the tune set's misses (writer63's), each with values invented here."""

from __future__ import annotations

import pytest

from helix.core.secret_names import name_strength
from helix.core.secret_values import is_label
from tests.secret_helpers import agreed_texts


@pytest.mark.parametrize("text, value", [
    ("[db]\nbrukernavn = app\npassord = Kv7!Tq2Lm9Xz\n", "Kv7!Tq2Lm9Xz"),
    ('DB_ADGANGSKODE="Hy6#Pw3Rn8Qs"\n', "Hy6#Pw3Rn8Qs"),
])
def test_norwegian_and_danish_password_names_hold_a_secret(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


def test_a_short_new_foreign_word_counts_as_a_whole_segment_only() -> None:
    assert name_strength("db_passord") == "strong"
    assert name_strength("compassordinal") is None


@pytest.mark.parametrize("text, value", [
    ("[mail]\nkennwort = Walnut*4821harbor?\n", "Walnut*4821harbor?"),
    ('smtp_passwort: "Lantern7193quiver:"\n', "Lantern7193quiver:"),
])
def test_a_word_with_digits_ending_in_a_question_mark_is_a_password(text: str,
                                                                      value: str) -> None:
    assert agreed_texts(text) == [value]


@pytest.mark.parametrize("value", ["Password?", "Enter your password:", "Kennwort:",
                                   "Step 2 password?"])
def test_a_prompt_is_still_a_label(value: str) -> None:
    assert is_label(value)


@pytest.mark.parametrize("text, value", [
    ('signtool sign /f build.pfx /p "Quartz%5521lemon^" /fd SHA256 app.exe\n',
     "Quartz%5521lemon^"),
    ("& signtool.exe sign /f $cert /p Bn7Kq2Wz9Lx /t http://ts.example.com a.dll\n",
     "Bn7Kq2Wz9Lx"),
    ("xbapp deploy Layout\\Loose /x:10.0.0.5 /u:kit_admin /p:Mq4!Zr8Tw2\n", "Mq4!Zr8Tw2"),
])
def test_a_windows_tool_s_password_flag_is_found(text: str, value: str) -> None:
    assert agreed_texts(text) == [value]


def test_a_signing_command_without_a_password_is_no_secret() -> None:
    assert agreed_texts("signtool sign /f build.pfx /fd SHA256 /p $env:PFX_PASS app.exe\n") == []


def test_a_buildkite_user_token_is_found_by_its_prefix() -> None:
    token = "bkua_" + "3f9c0d1e7a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d"
    assert agreed_texts(f"# the cli: {token}\n") == [token]
    assert agreed_texts("BUILDKITE_TOKEN=bkua_your_token_here\n") == []
