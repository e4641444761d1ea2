"""Round 16's classes of the tune sets' misses and flagged lookalikes (writer49's, with
writer40's, writer41's and writer44's), each with values invented here: C macros holding a
secret, vendor token formats, typed object IDs under an `id` name, IPFS content IDs."""

from __future__ import annotations

import pytest

from helix.core.secrets import find_secrets


def _found(text: str) -> list[str]:
    return [text[start:end] for start, end, _ in find_secrets(text)]


def _agree(text: str) -> list[str]:
    """The findings, the same with and without the prefilter."""
    plain = [text[start:end] for start, end, _ in find_secrets(text, prefilter=False)]
    assert _found(text) == plain
    return plain


def test_a_c_macro_holding_a_secret_is_found_and_its_other_macros_not() -> None:
    text = ('#define MQTT_HOST   "broker.lan"\n#define MQTT_USER   "garage"\n'
            '#define MQTT_PASS   "hQ7vLk29xPzR"\n#define SECRET_SSID "Gartenhaus"\n'
            '#  define DEVICE_KEY "R8TQ2MZ7KD0VXW4N9PLA"\n#define PASSWORD_MAX_LEN 64\n')
    assert _agree(text) == ["hQ7vLk29xPzR", "R8TQ2MZ7KD0VXW4N9PLA"]


BODY = "q7w2e9r4t1y8u3i6o5p0a2s7d4f9g1h8j3k6l5z0x2c7v4b9n1m8"


@pytest.mark.parametrize("token", [
    "hcaik_" + BODY[:58],
    "os_v2_app_" + (BODY * 2)[:100],
    "aio_" + "Rt5Wq9LmZx2Kp7Vn3Bc8Yd4Hs6Jf",
    "oauth:" + BODY[:30],
    "patQ3rT8vLk2MzX9w." + "9f2c7a1e" * 8,
])
def test_vendor_token_formats_are_found_wherever_they_stand(token: str) -> None:
    for text in (f"client.connect(host, {token!r})\n", f"[10:02:11] sending PASS {token}\n",
                 f"headers: x-team={token}\n"):
        assert _agree(text) == [token], text


def test_the_prefixes_before_words_or_short_bodies_are_no_tokens() -> None:
    text = ("The oauth:authorize_url setting, aio_client_helpers and the\n"
            "patterns.compile.step() call, os_v2_app_name = 'demo'\n")
    assert _agree(text) == []


def test_a_typed_object_id_under_an_id_name_is_no_secret() -> None:
    text = ('{"id": "ch_3Nq8ZrLk2VbT9wXyAb4Cd6Ef", "object": "charge",\n'
            ' "refund": {"id": "re_1Mt4PqXy8ZwV3nLk7Rs2Tu5W",\n'
            '            "charge_id": "ch_3Nq8ZrLk2VbT9wXy"}}\n')
    assert _agree(text) == []


def test_an_ipfs_content_id_is_no_secret_but_a_key_beside_it_is() -> None:
    cid0 = "QmT5NvUtoM5nWFfrQdVrFtvGfKFmG7AHE8P34isapyhCxX"
    cid1 = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"
    text = (f'{{"image": "ipfs://{cid0}", "animation_url": "ipfs://{cid1}"}}\n'
            f"{cid0}  logo.svg\n")
    assert _agree(text) == []
    keyed = text + 'PINATA_SECRET="c83Ld9Xq2RtV7mZp4KwB1nHs6JfYe0Ga"\n'
    assert _agree(keyed) == ["c83Ld9Xq2RtV7mZp4KwB1nHs6JfYe0Ga"]
