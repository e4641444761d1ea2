"""The gates every secret finding passes: whether a value reads like a credential, and the
thresholds they use (detect-secrets' entropy limits, least lengths).

    looks_secret(value)    a quoted value under a secret-like name
    looks_password(value)  an unquoted value after `password:` / `-p`
    gate(kind, value, line, quoted)
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import NamedTuple


class Finding(NamedTuple):
    start: int
    end: int
    kind: str


MIN_SECRET_LEN = 8  # a quoted value assigned to a secret-like name
MIN_SECRET_ENTROPY = 3.0  # bits per character
MIN_PASSWORD_LEN = 6  # an unquoted value after `password:` / `-p`
BASE64_LIMIT = 4.5  # detect-secrets' defaults
HEX_LIMIT = 3.0
MIN_HEX = 20  # shorter quoted hex strings are ids and short hashes, unless a secret name says
DIGEST_LENGTHS = (40, 64)  # git SHA-1 / SHA-256 object names and digests, unless a name says
MIN_BARE_TOKEN = 32  # an unquoted high-entropy token
MIN_KEY_BODY_LINE = 40  # a base64 line of a key body (PEM lines are 64)
MAX_LINE = 4000  # longer lines reach the per-line detectors in overlapping pieces of this size
WINDOW_OVERLAP = 400

PLACEHOLDER_WORDS = ("changeme", "example", "placeholder", "your", "xxxx", "****", "redacted",
                     "dummy", "secret_here", "<", "${", "{{", "env(", "getenv", "environ", "...")
_CODE_CHARS = re.compile(r"[()\[\]{}<>\s]|\\[nrt\"']")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_WORDISH = re.compile(r"[A-Za-z_\-]+")  # identifiers and words: no digit, no symbol
# names as people write them: snake_case, kebab-case, dotted, CONSTANT_CASE, camelCase
_NAME = re.compile(r"[a-z]+(?:[_\-.][a-z0-9]+)*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*|"
                   r"[A-Za-z][a-z]+(?:[A-Z][a-z]+)*[A-Z]?")
HEX_NAMED = re.compile(r"(?i)(?:sha|commit|rev|revision|hash|digest|checksum|etag|parent|oid|"
                        r"(?:^|[^a-z])id)s?\b[^=:\n]{0,30}[=:(\[]?[^\n]{0,12}$")


GATED = {"assignment", "keyword", "command_password", "command_password_spaced",
          "url_password"}
_STRUCTURAL = {"url_password", "command_password"}  # the format says it is a password


def shannon_entropy(text: str) -> float:
    if not text:
        return 0.0
    counts = Counter(text)
    size = len(text)
    return -sum(c / size * math.log2(c / size) for c in counts.values())


def _is_placeholder(value: str) -> bool:
    lowered = value.lower()
    return (any(word in lowered for word in PLACEHOLDER_WORDS) or value.startswith("$")
            or value.startswith("%") or not any(c.isalnum() for c in value))


def looks_secret(value: str) -> bool:
    """A quoted value assigned to a password/key-like name that reads like a real credential."""
    if len(value) < MIN_SECRET_LEN or _is_placeholder(value):
        return False
    if _CODE_CHARS.search(value) or _DOTTED.fullmatch(value) or _NAME.fullmatch(value):
        return False  # a call, an index, a phrase, an attribute or a name: code or prose
    return shannon_entropy(value) >= MIN_SECRET_ENTROPY


def looks_password(value: str) -> bool:
    """An unquoted value after a secret-like label: a word or identifier is not one
    (`password: required`, `password = new_password`), `hunter2x` or `Tr0ub4dor&3` is."""
    if len(value) < MIN_PASSWORD_LEN or _is_placeholder(value):
        return False
    if _CODE_CHARS.search(value) or _DOTTED.fullmatch(value) or _WORDISH.fullmatch(value):
        return False
    if value.isdigit():
        return len(value) >= MIN_SECRET_LEN
    return True


def gate(kind: str, value: str, line: str, quoted: bool) -> bool:
    if "REDACTED" in value:
        return False
    if kind in _STRUCTURAL:  # the value's place says it is a password: only templates survive
        return not (value[0] in "$%{<*" or value.endswith("}"))
    if kind in ("assignment", "keyword") and quoted:
        return looks_secret(value) or (looks_password(value) and shannon_entropy(value) >= 2.5)
    return looks_password(value)

