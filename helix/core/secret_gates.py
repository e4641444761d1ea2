"""The gates every secret finding passes: whether a value reads like a credential; and every
number the secret detector uses, in one place (detect-secrets' entropy limits, least lengths,
the context a rule reads around its line, the prefilter's bounds).

    looks_secret(value)    a quoted value under a secret-like name
    looks_password(value)  an unquoted value after `password:` / `-p`
    gate(kind, value, line, quoted)
"""

from __future__ import annotations

import base64
import math
import re
from collections import Counter
from collections.abc import Iterator
from functools import cache
from typing import NamedTuple

from helix.core.english import FUNCTION_WORDS, word_alternation


def hinted(pattern: re.Pattern[str], hint: re.Pattern[str], text: str, start: int = 0,
           end: int | None = None) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text, start, end)` for a pattern whose every match lies on one line
    and holds a match of `hint` (a literal, or a class the search skips to): the pattern read
    only on the lines holding one, each once (the same matches; a line's own search starts
    at its start, where the whole text's does after a match on the line before)."""
    end = len(text) if end is None else end
    at = start
    for found in hint.finditer(text, start, end):
        if found.start() < at:
            continue  # on a line read already
        line_start = max(start, text.rfind("\n", 0, found.start()) + 1)
        line_end = text.find("\n", found.end(), end)
        line_end = end if line_end == -1 else line_end
        yield from pattern.finditer(text, line_start, line_end)
        at = line_end


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

# --- the detector's bounds (every number the secret modules use lives here) -------------------
# context a multi-line rule may read around the line that triggers it (the prefilter's windows)
CONTEXT_BEFORE = 3  # lines above (a k8s value a line or two before its name)
CONTEXT_AFTER = 5  # lines below (a k8s value two lines after its name, a tf default)
BLOCK_LINES = 100  # a YAML block scalar, continued line or list under a secret name
KEY_BLOCK_LINES = 1000  # a private key block (BEGIN to END)
PAIR_REACH = 4  # lines between a name marker (`name: DB_PASSWORD`) and its value
MIN_VALUE = 3  # characters of any secret value
MAX_VALUE = 4096  # characters of one value
MAX_NAME = 80  # characters of a name grown around its secret word
SEPARATOR = "\n\u0000\n"  # what joins the prefilter's windows (no rule reads across it)
MIN_RANDOM_PART = 12  # a part of a dotted value this long, with digits, is a token's
MIN_RANDOM_DIGITS = 3
MIN_DASHED_PASSWORD = 10  # past its dash, a generated password under a password's name
MIN_CAPABILITY = 64  # a capability URL's last part: a collector's token, longer than any slug
MIN_KEYED_VALUE = 16  # a value under `<vendor>_key`: an issued key is long and varied
MIN_LONE_TOKEN = 24  # a text that is one random token this long and nothing else: a key file
MAX_LONE_TOKEN = 100  # longer: encrypted data (a credentials.yml.enc), no key
MIN_KEYED_ENTROPY = 3.5
MIN_GENERATED_KEY = 32  # a generated key of symbols in `.env` (Django's is 50 long)
MIN_SYMBOL_ENTROPY = 4.0  # a keyed literal of printable symbols (a generated salt) this varied
SEED_WORDS = (12, 15, 18, 21, 24)  # the words of a wallet's recovery phrase (BIP-39)
SEED_WORD_LENGTH = (3, 8)  # letters of each of its words
MIN_WEAK_VALUE = 8  # a value under a weak name (token, auth, key) must read like a credential
MIN_KEY_LINE = 16  # a base64 line inside a BEGIN block; shorter only as the block's last
MIN_BODY_ENTROPY = 4.0  # bits per character of a bare run of key-body lines
MIN_WORDLESS_ENTROPY = 4.3  # bits per character of a token body without digits
MIN_RANDOM_LETTERS = 16  # a letters-only value under a token/key name read as random ...
RANDOM_LETTERS_SLACK = 0.3  # ... when its entropy is within this of log2(its length)
# a letters-only value whose case switches at random (secret_values.scattered_case): at least
MIN_CASE_RUNS = 4  # this many runs of lower case letters,
MAX_LOWER_RUN_MEAN = 2.0  # shorter than this on average,
MIN_UPPER_SHARE = 0.35  # and capitals at least this share of its letters
DISTINCT_PREFIX = 8  # a token prefix this long is a token whatever its body reads like
MIN_KNOWN_VALUE = 8  # a held secret shorter than this is not looked for (it would mask words)
DENSE_FRACTION = 0.5  # windows holding more of a text than this: the detectors read it whole
STREAM_LOOKAHEAD = 4  # words a streamed reply waits for before a piece is shown (masked)
DFA_MEMORY = 64 << 20  # bytes of RE2's DFA cache: enough that a set of triggers stays linear

PLACEHOLDER_WORDS = ("changeme", "replace_me", "replace-me", "replaceme",
                     "example", "placeholder", "your", "xxxx", "****", "redacted",
                     "dummy", "secret_here", "<", "${", "{{", "env(", "getenv", "environ", "...")
# A reference to a secret a manager holds (AWS Secrets Manager and SSM, Azure Key Vault, GCP
# Secret Manager, 1Password, Vault, helm-secrets/vals, CloudFormation dynamic references): the
# value names where the secret is, it is not the secret.
_MANAGER_SCHEMES = ("awssecretsmanager", "secretsmanager", "azurekeyvault", "akv", "sm", "gcpsm",
                    "ssm", "keyvault")
MANAGER_REFERENCE = re.compile(
    r"(?i)arn:aws[\w-]*:(?:secretsmanager|ssm|kms):|^op://|^vault:|ref\+[a-z0-9]+://|"
    r"@microsoft\.keyvault\b|\{\{resolve:|(?<![a-z0-9])(?:"
    + word_alternation(_MANAGER_SCHEMES)
    + r")://|projects/[^/\s]{1,80}/secrets/|\.vault\.azure\.net/secrets/")
# Keys issued to be public (a page's publishable payment key, a map's public token, an
# analytics project key): shipped in every browser, no credential
PUBLIC_TOKEN = re.compile(r"(?:pk_(?:live|test)_|pk\.eyJ|phc_)[A-Za-z0-9_.\-]{8,}")
_BASE64_WORD = re.compile(r"[A-Za-z0-9+/]{4,60}={0,2}")
_CODE_CHARS = re.compile(r"[()\[\]{}<>\s]|\\[nrt\"']")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_WORDISH = re.compile(r"[A-Za-z_\-]+")  # identifiers and words: no digit, no symbol
# a lower case name ending in a secret's word (`hive-s3-secret`, `smtp_password`): the name of
# a secret kept elsewhere (a store's key, a vault path's leaf), not one
_SECRET_WORDS = ("secret", "password", "passwd", "passphrase", "token", "credential", "apikey",
                 "api-key", "api_key")
SECRET_NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*[-_.](?:"
                         + word_alternation(_SECRET_WORDS) + r")s?")
# names as people write them: snake_case, kebab-case, dotted, CONSTANT_CASE, camelCase
_NAME = re.compile(r"[a-z]+(?:[_\-.][a-z0-9]+)*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*|"
                   r"[A-Za-z][a-z]+(?:[A-Z][a-z]+)*[A-Z]?")
HEX_NAMED = re.compile(r"(?i)(?:sha\d*|md5|commit|rev|revision|hash|digest|checksum|etag|"
                       r"parent|oid|"
                        r"(?:^|[^a-z])id)s?\b[^=:\n]{0,30}[=:(\[]?[^\n]{0,12}$")


# webpack's runtime sets the build's hash right after its public path (`__webpack_require__.h`,
# minified `n.p="/static/",n.h="b69e0616..."`): a compilation's digest in every bundle
WEBPACK_HASH = re.compile(r"(?:__webpack_require__|\.p=[\"'][^\"'\n]{0,200}[\"'],[\w$]{1,3})"
                          r"\.h[ \t]*=[ \t]*[\"']$")


GATED = {"assignment", "keyword", "command_password", "command_password_spaced",
          "url_password"}
_STRUCTURAL = {"url_password", "command_password"}  # the format says it is a password


def shannon_entropy(text: str) -> float:
    if not text:
        return 0.0
    counts = Counter(text)
    size = len(text)
    return -sum(c / size * math.log2(c / size) for c in counts.values())


ENTROPY_MARGIN = 1e-9  # bits: far above the rounding of a sum of a few thousand terms


@cache
def _least_distinct(limit: float) -> int:
    """The fewest distinct characters whose log2 reaches `limit` (less the margin)."""
    return math.ceil(2 ** (limit - ENTROPY_MARGIN))


def may_exceed(value: str, limit: float) -> bool:
    """Whether `value`'s Shannon entropy can exceed `limit`: it is at most log2 of the number
    of distinct characters, itself at most the length (a cheap bound; False only when the
    entropy is surely not above `limit`)."""
    least = _least_distinct(limit)
    return len(value) >= least and len(set(value)) >= least


def decoded_word(value: str) -> str:
    """A short base64 value decoded, when it decodes to printable text ("" otherwise): a k8s
    Secret's `Y2hhbmdlbWU=` is "changeme"."""
    if len(value) % 4 or not value.endswith("=") or not _BASE64_WORD.fullmatch(value):
        return ""
    try:
        decoded = base64.b64decode(value, validate=True).decode("ascii")
    except ValueError:
        return ""
    return decoded if decoded.isprintable() else ""


def _is_placeholder(value: str) -> bool:
    lowered = value.lower() + " " + decoded_word(value).lower()
    return (any(word in lowered for word in PLACEHOLDER_WORDS) or value.startswith("$")
            or value.startswith("%") or not any(c.isalnum() for c in value)
            or MANAGER_REFERENCE.search(value) is not None)


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
    if (_CODE_CHARS.search(value) or _DOTTED.fullmatch(value) or _WORDISH.fullmatch(value)
            or SECRET_NAME.fullmatch(value)):
        return False
    if value.isdigit():
        return len(value) >= MIN_SECRET_LEN
    return True


# a passphrase of words (diceware's, a password manager's "memorable" one): four to eight
# words of three to ten letters, one dash between them (`correct-horse-battery-staple`)
_PASSPHRASE = re.compile(r"[A-Za-z][a-z]{2,9}(?:-[A-Za-z][a-z]{2,9}){3,7}")


def word_passphrase(value: str) -> bool:
    """Words joined by dashes, four or more, none repeated: a generated passphrase."""
    parts = value.lower().split("-")
    return _PASSPHRASE.fullmatch(value) is not None and len(set(parts)) == len(parts)


# a URL's user and password written as the names of what goes there (`USER:PASSWORD`)
_CAPITAL_NAMES = re.compile(r"[A-Z][A-Z_]*:[A-Z][A-Z_]*")
_PASSWORD_NAMES = frozenset({"PASSWORD", "PASS", "PASSWD", "PWD", "PW", "SECRET", "TOKEN"})
# a usage line's metavar after a flag (`[--token TOKEN]`, `--password <PASSWORD>`): capitals
_METAVAR = re.compile(r"[<\[]?[A-Z][A-Z_\-]*[>\]]?")
_SPACED_FLAG = re.compile(r"--[A-Za-z][\w\-]*[ \t]+$")  # a long flag, a space: its metavar next


def gate(kind: str, value: str, line: str, quoted: bool) -> bool:
    if "REDACTED" in value:
        return False
    if kind == "url_password" and value.count(":") == 1 and (
            len(set(value.split(":"))) == 1 or _CAPITAL_NAMES.fullmatch(value)):
        return False  # `postgres:postgres@`: the user's own name again; `USER:PASSWORD@`: names
    password = value.rpartition(":")[2]
    if kind == "url_password" and (password.upper() in _PASSWORD_NAMES
                                   or not any(c.isalnum() for c in password)
                                   or password[:1] + password[-1:] == "<>"):
        return False  # `://user:PASSWORD@`, `://u:<password>@`: where it goes; `user:***@`
    if kind == "command_password" and not any(c.isalnum() for c in value):
        return False  # `| --password | the password to use |`: a table's cell border, no value
    if kind == "command_password" and value.lower() in FUNCTION_WORDS:
        return False  # `Using --password via the CLI is insecure`: prose about the flag
    if (kind == "command_password" and _METAVAR.fullmatch(value)
            and _SPACED_FLAG.search(line[:line.rfind(value)]) is not None):
        return False  # `usage: tool [--token TOKEN]`: the flag's metavar (not `-pSECRET`)
    if kind in _STRUCTURAL:  # the value's place says it is a password: only templates survive
        return not (value[0] in "$%{<*" or value.endswith("}"))
    if kind in ("assignment", "keyword") and quoted:
        return looks_secret(value) or (looks_password(value) and shannon_entropy(value) >= 2.5)
    return looks_password(value)

