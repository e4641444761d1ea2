"""Values that read like secrets and are none, by what they are (round 15's tune sets' flagged
lookalikes, by class):

- base64 whose bytes open with a media file's magic (PNG, JPEG, GIF, RIFF/WebP, PDF, Ogg,
  WOFF): a file's data, not a key;
- a typed object ID: its type's prefix abbreviates the name it is assigned to (`"price":
  "price_1a4X..."`, `"payment_intent": "pi_3Zk..."`), or that name is an ID's (`"id":
  "evt_1P8d..."`), the name no secret's;
- a private key block with no body (`"-----BEGIN PRIVATE KEY-----"` as a constant): a marker;
- a token right after a publishable key's prefix (`pk.eyJ...`): public by design.

    media_base64(value), typed_id(value, before), empty_key_block(value)

An unsigned JWT (`"alg": "none"`, no signature) and a URL's `user:password@` stay found: the
public samples (gitleaks, detect-secrets) count them as secrets where the writers did not.
"""

from __future__ import annotations

import base64
import binascii
import re

from helix.core.secret_names import name_strength, segments

__all__ = ["PUBLISHABLE_PREFIXES", "empty_key_block", "media_base64", "typed_id"]

_MEDIA_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"RIFF", b"%PDF", b"OggS", b"wOFF",
                b"wOF2")
_TYPED = re.compile(r"([a-z]{2,12})_[A-Za-z0-9]{8,}")
_NAME_BEFORE = re.compile(r"([A-Za-z_][\w\-]{0,79})[\"'`]?[ \t]*[:=][ \t]*[\"'`]?$")
_KEY_BODY = re.compile(r"[A-Za-z0-9+/]{12,}")  # a body line, or a truncated one
PUBLISHABLE_PREFIXES = ("pk.",)  # a token after one is a publishable key's (Mapbox's `pk.`)


def _b64decode(text: str) -> bytes:
    body = text[: len(text) // 4 * 4]
    try:
        return base64.b64decode(body, altchars=b"-_")
    except (binascii.Error, ValueError):
        return b""


def media_base64(value: str) -> bool:
    """Base64 of a media file (its magic bytes open it)."""
    return len(value) >= 16 and _b64decode(value[:16]).startswith(_MEDIA_MAGIC)


def typed_id(value: str, before: str) -> bool:
    """An object's ID whose type prefix abbreviates the (no secret's) name it is given to."""
    match = _TYPED.fullmatch(value)
    named = _NAME_BEFORE.search(before[-100:])
    if match is None or named is None:
        return False
    name = named.group(1)
    parts = segments(name)
    if not parts or name_strength(name) is not None:
        return False
    if parts[-1] == "id":  # `"id": "evt_1P8d..."`, `"customer_id": "cus_..."`: an object's ID
        return True
    prefix = match.group(1)
    flat = "".join(parts)
    return flat.startswith(prefix) or "".join(p[0] for p in parts) == prefix


def empty_key_block(value: str) -> bool:
    """A private key block's markers with no key body between them."""
    return _KEY_BODY.search(value) is None
