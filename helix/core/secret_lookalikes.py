"""Values that read like secrets and are none, by what they are (round 15's tune sets' flagged
lookalikes, by class):

- base64 whose bytes open with a media file's magic (PNG, JPEG, GIF, RIFF/WebP, PDF, Ogg,
  WOFF): a file's data, not a key;
- a typed object ID: its type's prefix abbreviates the name it is assigned to (`"price":
  "price_1a4X..."`, `"payment_intent": "pi_3Zk..."`), or that name is an ID's (`"id":
  "evt_1P8d..."`), the name no secret's;
- a private key block with no body (`"-----BEGIN PRIVATE KEY-----"` as a constant): a marker;
- a token right after a publishable key's prefix (`pk.eyJ...`): public by design.

Round 20's tune sets (writer63, writer64):
- base64 that decodes to readable text (a JSON event, a sentence), one value or each line of
  a run of lines: encoded data, not a key (`encoded_text`);
- a value under a name that calls it a GUID or UUID (`"PersistentGuid": "..."`), or under an
  HTTP header's `x-...-id` name (`x-amz-cf-id: ...`, `x-request-id`), naming no secret: an
  identifier (`id_named`). A bare `..._id` stays found: a key pair's ID half (`fmfw_id` beside
  `fmfw_key`) counts as a secret in the public samples; `x-api-key-id` names a key;
- a value that is a word of its own name (`POSTGRES_PASSWORD=postgres`, `REDIS_PASS=redis`):
  a service's default, the user's or the service's name, not a secret (`own_word`), as
  `postgres:postgres@` in a URL already was.

    media_base64(value), typed_id(value, before), empty_key_block(value),
    encoded_text(value), id_named(before), own_word(value, name)

An unsigned JWT (`"alg": "none"`, no signature) and a URL's `user:password@` stay found: the
public samples (gitleaks, detect-secrets) count them as secrets where the writers did not.
"""

from __future__ import annotations

import base64
import binascii
import re

from helix.core.secret_gates import MIN_SECRET_LEN
from helix.core.secret_names import name_strength, segments
from helix.core.secret_values import placeholder, random_token

__all__ = ["PUBLISHABLE_PREFIXES", "empty_key_block", "encoded_text", "id_named", "media_base64",
           "own_word", "prose_after_scheme", "scheme_end", "typed_id"]

_MEDIA_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"RIFF", b"%PDF", b"OggS", b"wOFF",
                b"wOF2")
_TYPED = re.compile(r"([a-z]{2,12})_[A-Za-z0-9]{8,}")
_NAME_BEFORE = re.compile(r"([A-Za-z_][\w\-]{0,79})[\"'`]?[ \t]*[:=][ \t]*[\"'`]?$")
_KEY_BODY = re.compile(r"[A-Za-z0-9+/]{12,}")  # a body line, or a truncated one
PUBLISHABLE_PREFIXES = ("pk.",)  # a token after one is a publishable key's (Mapbox's `pk.`)
MIN_READABLE = 0.95  # printable share of a base64 value decoded: encoded text, not a key
_SECRET_WORDS = (b"private", b"secret", b"password", b"token", b"credential", b"apikey",
                 b"api_key", b"passwd")
# a name's last word that calls its value an identifier (`PersistentGuid`, `device_uuid`), a
# header's (`x-request-id`), and the words that make such an ID a secret's own
_ID_WORDS = frozenset({"guid", "uuid", "ulid", "ksuid", "umid"})
_HEADER_ID = ("x", "id")  # `x-amz-cf-id`: its first and last segments
_SECRET_ID_WORDS = frozenset({"key", "secret", "token", "pass", "password", "pwd", "session",
                              "auth", "private", "cred", "creds", "credential", "credentials",
                              "api", "apikey", "access", "signing", "client_secret"})


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


def encoded_text(value: str) -> bool:
    """Base64 that decodes to readable text with no secret word in it (a JSON fixture, a
    sentence): encoded data, not a key. `user:password` (Basic auth) is no such text."""
    body = value.rstrip("=")
    if len(body) < MIN_SECRET_LEN or not value.isascii():
        return False
    try:
        raw = base64.b64decode(body[: len(body) // 4 * 4], altchars=b"-_", validate=True)
    except ValueError:
        return False
    printable = sum(32 <= b < 127 or b in (9, 10, 13) for b in raw)
    if not raw or printable < MIN_READABLE * len(raw):
        return False
    lowered = raw.lower()
    if any(word in lowered for word in _SECRET_WORDS):
        return False
    return raw[:1] in (b"{", b"[", b"<") or raw.count(b" ") >= 2


def id_named(before: str) -> bool:
    """The value's name (just before it) calls it an identifier and names no secret:
    `"PersistentGuid": "..."`, `x-amz-cf-id: ...`, a ULID, KSUID or SMPTE UMID."""
    named = _NAME_BEFORE.search(before[-100:])
    if named is None:
        return False
    parts = segments(named.group(1))
    while len(parts) > 1 and parts[-1].isdigit():
        parts.pop()  # `x-amz-id-2`: a numbered name is the name
    if ((len(parts) < 2 and _ID_WORDS.isdisjoint(parts))  # (`"umid": ...`: a name of its own)
            or _SECRET_ID_WORDS.intersection(parts[:-1])):
        return False
    return parts[-1] in _ID_WORDS or (len(parts) > 2 and (parts[0], parts[-1]) == _HEADER_ID)


# a name that calls its value a message's or a cipher's data (`"payload": "<base64>"`, a Chef
# encrypted data bag's `encrypted_data` and `auth_tag`): bytes carried, not a key
_DATA_WORDS = frozenset({"payload", "ciphertext", "encrypted", "cipher", "encoded"})
_DATA_LAST = frozenset({"payload", "data", "tag", "body"})  # (an IV issued with a key: none)


def data_named(before: str) -> bool:
    """The value's name (just before it) calls it data carried, and names no secret (nor a
    key: a kubeconfig's `client-key-data`)."""
    named = _NAME_BEFORE.search(before[-100:])
    if named is None:
        return False
    parts = segments(named.group(1))
    return (bool(parts) and (parts[-1] in _DATA_LAST or not _DATA_WORDS.isdisjoint(parts))
            and "key" not in parts and name_strength(named.group(1)) is None)  # `key_data`


# hex decoded to bytes where it stands, and the name it is assigned to
_CONVERTED = re.compile(r"(?:([A-Za-z_][\w\-]{0,79})[ \t]*[:=][ \t]*)?(?:[A-Za-z_][\w.]{0,40}\.)?"
                        r"(?:fromhex|unhexlify)\([ \t]*[bu]?[\"']$")
_KEY_MATERIAL = frozenset({"iv", "key", "nonce", "salt", "seed"})
CONVERTED_REACH = 160  # characters before a hex value read for its conversion


def converted_data(before: str) -> bool:
    """Hex decoded to bytes where it stands (`raw = bytes.fromhex("...")`: a test's payload)
    under no name of a secret or of key material (`SIGNING_IV`, `key`: found; the structure
    detector reads a secret's name)."""
    match = _CONVERTED.search(before[-CONVERTED_REACH:])
    if match is None:
        return False
    name = match.group(1)
    return name is None or (name_strength(name) is None
                            and _KEY_MATERIAL.isdisjoint(segments(name)))


def own_word(value: str, name: str) -> bool:
    """The value is a word of the name it is given to, in any case (`POSTGRES_PASSWORD=postgres`,
    `admin_password: admin`): a default, not a secret."""
    return value.isalpha() and value.lower() in segments(name)


def prose_after_scheme(value: str, rest: str) -> bool:
    """A word after an Authorization scheme's name, then more words: a log's message (`auth:
    token refreshed for client_id=...`), not a header's credential (lower case letters only,
    a space and a word after it: a token ends its header's line or its literal)."""
    return (value.isalpha() and value.islower() and rest[:1] in (" ", "\t")
            and rest.lstrip(" \t")[:1].isalpha())


# an Authorization scheme's name before its credential: a standard one, or a vendor's word
# (`App`, `SSWS`, `GenieKey`, `Klaviyo-API-Key`) before one token that ends the line, issued or
# a stand-in (`INFOBIP_API_KEY=App <key>`): the token is the value, not the scheme's word
HEADER_SCHEMES = ("basic ", "bearer ", "token ", "digest ", "negotiate ", "apikey ", "ntlm ",
                  "hmac ", "key ")
_VENDOR_SCHEME = re.compile(r"[A-Z][A-Za-z]{1,15}(?:-[A-Za-z]{1,15}){0,3}[ \t]+")
_TOKEN = re.compile(r"[^ \t\"'`,;]{1,4096}")


def scheme_end(text: str, at: int, line_end: int) -> int | None:
    """Where the value after an Authorization scheme's name starts, None when none opens the
    value at `at`."""
    lowered = text[at:at + 12].lower()
    known = next((s for s in HEADER_SCHEMES if lowered.startswith(s)), None)
    if known is not None:
        return at + len(known)
    vendor = _VENDOR_SCHEME.match(text, at, line_end)
    if vendor is None:
        return None
    rest = text[vendor.end():line_end].rstrip(" \t\r\"'`,;")
    if _TOKEN.fullmatch(rest) is None or not (random_token(rest) or placeholder(rest)):
        return None  # (words after a capital: a message, `Fetching OIDC document from %s`)
    return vendor.end()
