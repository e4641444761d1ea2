"""What a secret's value reads like, whatever its place: a template or placeholder standing for
it, a label asking for it, a code expression computing it, or a literal that is the secret
(under a strong name any literal; under a weak one a credential-like token; under a
`<vendor>_key` a random one). `secret_structure` finds the places; this module judges what
stands there.

    quoted_ok(value, strength), unquoted_ok(value, strength, env_style) -> bool
"""

from __future__ import annotations

import math
import re
from functools import cache, lru_cache

from helix.core.english import FUNCTION_WORDS, word_alternation
from helix.core.secret_gates import (
    DIGEST_LENGTHS,
    HEX_LIMIT,
    MANAGER_REFERENCE,
    MAX_LONE_TOKEN,
    MAX_LOWER_RUN_MEAN,
    MIN_CASE_RUNS,
    MIN_DASHED_PASSWORD,
    MIN_GENERATED_KEY,
    MIN_KEYED_ENTROPY,
    MIN_KEYED_VALUE,
    MIN_LONE_TOKEN,
    MIN_RANDOM_DIGITS,
    MIN_RANDOM_LETTERS,
    MIN_RANDOM_PART,
    MIN_SYMBOL_ENTROPY,
    MIN_UPPER_SHARE,
    MIN_VALUE,
    MIN_WEAK_VALUE,
    PUBLIC_TOKEN,
    RANDOM_LETTERS_SLACK,
    SECRET_NAME,
    SEED_WORD_LENGTH,
    SEED_WORDS,
    decoded_word,
    shannon_entropy,
)
from helix.core.secret_rules import rules

_HEX = re.compile(r"[0-9a-fA-F]+")
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-+/=.~%]+")
_NEVER_VALUES = frozenset({
    "none", "null", "nil", "true", "false", "undefined", "required", "optional", "str",
    "string", "bytes", "int", "integer", "bool", "boolean", "any", "object", "secret",
    "password", "token", "empty", "unset", "notset", "not-set", "not_set", "n/a", "na",
    "todo", "tbd", "hidden",
    "redacted", "masked", "sensitive", "yes", "no", "on", "off", "env", "environment",
    "pass", "pwd", "pw", "test", "testing", "tests", "foo", "bar", "baz", "foobar", "qux",
    # a request line's protocol after a path ending in a secret's word (`POST /oauth/token
    # HTTP/1.1` in an access log)
    "http/1.0", "http/1.1", "http/2", "http/2.0", "http/3",
})
# a value that is encrypted (SOPS, ansible-vault, jasypt's ENC(...)): safe to keep in a repository
_SEALED = re.compile(r"ENC\[[A-Z0-9_]+,|\$ANSIBLE_VAULT;|ENC\([A-Za-z0-9+/=]+\)")
_PARAMETER = re.compile(r"[A-Za-z_]\w{0,20}=")
_PLACEHOLDER_WORDS = ("changeme", "change_me", "change-me", "replaceme", "replace_me",
                      "replace-me", "placeholder", "your_", "your-",
                      "yourpassword", "xxxx", "****", "....", "redacted", "getenv", "environ",
                      "process.env", "os.env", "example", "dummy", "sample", "fake",
                      "insert_", "_here", "-here",
                      "你的", "您的", "あなたの")  # "your ..." in Chinese and Japanese docs
# where a secret is kept, not the secret: a path of words (`"prod/db/master"`, Vault's
# `secret/data/instruments/nmr-600`)
# (and a field of it after `:`, as Ansible's and Vault's lookups write it: `secret/app:pin`)
WORD_PATH = re.compile(r"[a-z][a-z0-9_\-]{0,40}(?:/[a-z][a-z0-9_\-]{0,40}){1,10}"
                       r"(?::[a-z][a-z0-9_\-]{0,40})?")
# an account's address (Ethereum's: 20 bytes in hex, checksummed by case): public
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
# what a log writes where it hid a value (`[FILTERED]`, `[MASKED]`)
_MASK = re.compile(r"\[[A-Za-z][A-Za-z _\-]{0,30}\]")
# a Windows registry file's typed number (`"UseWindowsAuth"=dword:00000001`): an integer
_REGISTRY_NUMBER = re.compile(r"(?i)(?:dword|qword):[0-9a-f]{1,16}")
# an ECDSA signature in DER, base64 (`MEUCIQ...`: a SEQUENCE of two INTEGERs): a release's or a
# message's signature, which anyone verifies with the public key; no secret
DER_SIGNATURE = re.compile(r"ME[QUY]CI[A-Za-z0-9+/]{60,120}={0,2}")
# a dummy made of the secret's own words and a few digits (`test-key`, `password123`, `secret_1`)
_DUMMY_WORDS = ("test", "testing", "password", "passwd", "pass", "secret", "token", "key",
                "dummy", "fake", "sample", "demo", "changeme", "foo", "bar", "api")
_DUMMY = re.compile(r"(?:" + "|".join(_DUMMY_WORDS) + r")(?:[-_]?(?:" + "|".join(_DUMMY_WORDS)
                    + r"))*[-_]?[0-9]{0,4}")
# what stands in for a value until a build, a deploy or a command fills it: a build filter's
# token (`__DB_PASS__`, Maven's and Ant's `@db.password@`), a file whose content a command
# reads (`api_key=@new.key`, `curl -d @body.json`)
_STAND_IN = re.compile(r"__[A-Za-z][A-Za-z0-9_]{0,60}__|@[A-Za-z_][\w.\-]{0,60}@|"
                       r"@(?:[\w\-.]{1,80}/){0,20}[\w\-]{1,80}\.[a-z][a-z0-9]{0,5}")
# a value that says where the secret is kept instead (`from-keyvault`, `in_vault`, `via-env`)
_STORES = ("keyvault", "vault", "secrets", "secret", "secretsmanager", "secretmanager", "ssm",
           "parameterstore", "env", "environment", "ci", "kms", "pipeline", "azurekeyvault")
_KEPT_IN = re.compile(r"(?:from|in|via)[-_ ](" + word_alternation(_STORES) + r"|[a-z]{2,20}"
                      r"[-_ ][a-z]{2,20})")
# a value that says it is none to use (`test-only-not-for-production`, `do-not-use`)
_NOT_FOR_USE = ("not-for-prod", "not_for_prod", "do-not-use", "do_not_use")
# A well-formed template in a value (`${DB_PASSWORD}`, `{{ vault_pw }}`, `$(cat f)`, `%(pw)s`,
# `{0}`, `{password}`, `<your token>`, `<%= pw %>`, `#{pw}`): the value stands for a secret.
_TEMPLATE = re.compile(
    r"\$\{[A-Za-z_][\w.]{0,80}(?:[:?#%/=+\-][^{}]{0,80})?\}|\{\{[\s\w.|:'\"\-\[\]()]{1,200}\}\}"
    r"|\$\([^()]{1,200}\)|%\(\w{1,80}\)[sdr]|%[sd](?![A-Za-z0-9])|\{\d{0,2}\}|(?<!\{)\{[A-Za-z_][\w.]{0,80}\}"
    r"|<[A-Za-z_][\w \-.]{0,60}>|<%.{0,200}?%>|#\{[^{}]{1,120}\}")
_LABEL_WORDS = ("password", "passwd", "passphrase", "token", "secret", "api key", "api_key",
                "apikey", "credential")
_NUMBER = re.compile(r"[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?[a-zA-Z%]{0,3}")
# names as people write them: snake_case, kebab-case, CONSTANT_CASE, camelCase (a random run
# of letters, `suusEkQFMCPsLh`, is none)
_HUMAN_NAME = re.compile(r"[a-z]+(?:[_\-.][a-z0-9]+)*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*|"
                         r"_*[A-Za-z][a-z]+(?:[A-Z][a-z]+|[A-Z]{2,}(?![a-z]))*[A-Z]?_*")
_CAPITALIZED_WORD = re.compile(r"[A-Z][a-z]{3,}")  # `Private`, `Types`: a name's words
MIN_NAME_WORDS = 2  # words of a name that make a value a name (`PKCS7PrivateKeyTypes`)
_SNAKE_WORDS = re.compile(r"[a-z]{2,}_[a-z]{2,}")  # `sig_st`: snake_case words
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# an access ID that is a UUID names a record (`report_access_id`); issued IDs are not UUIDs
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# a file's path: folders, then a name and its extension (an object's key in a bucket, a
# cache's file), or a file's name with a short lower case extension (`ca-bundle-2024.crt`);
# base64 holds no `.`, a dotted token's parts are long (`s.ZC9Ecf4M5g9o34Q6`)
_FILE_PATH = re.compile(r"(?:~|\.{1,2})?/?(?:[\w\-.]{1,80}/){1,20}[\w\-]{1,80}"
                        r"(?:\.[A-Za-z][A-Za-z0-9]{0,5}){1,2}|[\w\-]{1,80}(?:\.[a-z][a-z0-9]{1,4}){1,2}")
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)+")


def random_letters(value: str) -> bool:
    """Letters of both cases that hardly repeat (`wjXKCFzOWEPRqhTmmb`): an issued token
    without digits; words run together repeat their letters (`XMLHttpRequestUpload`)."""
    return (len(value) >= MIN_RANDOM_LETTERS and value.isascii() and value.isalpha()
            and not value.islower() and not value.isupper()
            and shannon_entropy(value) >= math.log2(len(value)) - RANDOM_LETTERS_SLACK)


_LOWER_RUN = re.compile(r"[a-z]+")


def scattered_case(value: str) -> bool:
    """Letters whose case switches at random (`qaPkWbYtsRmZ`): an issued token's; a name's
    words are runs of lower case letters after a capital (`getElementById`, `XMLHttpRequest`)."""
    if not (value.isascii() and value.isalpha()):
        return False
    runs = [len(run) for run in _LOWER_RUN.findall(value)]
    upper = sum(c.isupper() for c in value)
    return (len(runs) >= MIN_CASE_RUNS and sum(runs) < MAX_LOWER_RUN_MEAN * len(runs)
            and upper >= MIN_UPPER_SHARE * len(value))


def recurring_secret(value: str) -> bool:
    """A found value to mask wherever it recurs: one that reads as a credential, not as an
    identifier or an attribute path a rule took for one (`PKCS7PrivateKeyTypes`, `X509_sig_st`,
    `ed25519.Ed25519PrivateKey`), which masked everywhere would hide the code."""
    words = len(_CAPITALIZED_WORD.findall(value))
    if _DOTTED.fullmatch(value):
        return words == 0 and credential_like(value)
    if _IDENT.fullmatch(value):
        return (credential_like(value) and words < MIN_NAME_WORDS
                and _SNAKE_WORDS.search(value) is None)
    return True  # characters no identifier holds: `Tr0ub4dor&3`, `4nXYKv]mHD...`


@lru_cache(maxsize=512)  # a long line of names: the same value window, judged once
def random_token(value: str) -> bool:
    """A value under a `<vendor>_key` name that reads like an issued key, not a cache or sort
    key: long, one run of token characters with letters and digits (or random letters), varied."""
    return (len(value) >= MIN_KEYED_VALUE and _TOKEN_CHARS.fullmatch(value) is not None
            and ((any(c.isdigit() for c in value) and any(c.isalpha() for c in value))
                 or random_letters(value))
            and shannon_entropy(value) >= (HEX_LIMIT if _HEX.fullmatch(value)
                                           else MIN_KEYED_ENTROPY)  # hex: 16 symbols at most
            and not (_DOTTED.fullmatch(value) and not _random_part(value))  # a.b.v8_name
            and not ("." in value and _FILE_PATH.fullmatch(value)))  # `key=media/ep1.mxf`


_ENCODED_CERTIFICATE = ("MII", "LS0tLS1", "-----BEGIN")
_ALGORITHM_NAMED = re.compile(r"(?i)(?:sha|md5|blake|sri)[\w\-]{0,8}[/:]")  # `sha256/<pin>`


def issued_key(value: str) -> bool:
    """`random_token`, or a key issued with its scope before a colon (`2/1204/5568:<hex>`,
    `workspace:<token>`): the part after the last colon reads as one."""
    if value.startswith(_ENCODED_CERTIFICATE) or (
            value[:1] in "sSmMbB" and _ALGORITHM_NAMED.match(value) is not None):
        return False  # a certificate's DER or PEM in base64, a digest its algorithm names
    if random_token(value):
        return True
    scope, _, key = value.rpartition(":")
    return (bool(scope) and _TOKEN_CHARS.fullmatch(scope) is not None
            and random_token(key) and len(key) >= MIN_KEYED_VALUE)


def seed_phrase(value: str) -> bool:
    """A wallet's recovery phrase: 12 to 24 lower case words of a few letters (BIP-39's
    shape), one space (or a comma) between them."""
    words = value.replace(",", " ").split()
    low, high = SEED_WORD_LENGTH
    return len(words) in SEED_WORDS and all(
        low <= len(w) <= high and w.isascii() and w.isalpha() and w.islower() for w in words)


def random_symbols(value: str) -> bool:
    """A generated literal of printable symbols (`q8#Lm2!Xp7@Kv4$Rt6`, a CMS's salts): long, no
    space, letters of both cases, digits and symbols, varied."""
    if len(value) < MIN_KEYED_VALUE or any(map(str.isspace, value)) or not value.isascii():
        return False
    classes = (any(c.isupper() for c in value) + any(c.islower() for c in value)
               + any(c.isdigit() for c in value) + any(not c.isalnum() for c in value))
    return classes == 4 and shannon_entropy(value) >= MIN_SYMBOL_ENTROPY


_ENCODED_VARIABLE = re.compile(r"\$\{?[A-Za-z_]\w*\}?")


def _encoded_placeholder(value: str) -> bool:
    """A placeholder in base64 (a k8s Secret's `Y2hhbmdlbWU=`, "changeme"). Decoded data is
    never expanded: a `$` opens a variable only as the whole value (`$DB_PASSWORD`), else it
    is the password's first character (`$WbqoY.XPYKE...`)."""
    decoded = decoded_word(value)
    if decoded.startswith("$") and _ENCODED_VARIABLE.fullmatch(decoded) is None:
        decoded = decoded[1:]
    return bool(decoded) and placeholder(decoded)


def _kept_in(lowered: str) -> bool:
    """The value names the store the secret is kept in (`from-keyvault`, `via_secrets_manager`)."""
    match = _KEPT_IN.fullmatch(lowered)
    return match is not None and re.sub(r"[-_ ]", "", match.group(1)) in _STORES


def placeholder(value: str, quoted: bool = False) -> bool:
    """A template, a dummy or a word that stands for the secret instead of being it. Unquoted,
    a YAML alias, anchor or tag (`*db_pw`, `&pw`, `!vault`) is none; quoted, `*`, `&` and `!`
    open a literal like any other character (`"*V1dWx..."`)."""
    lowered = value.lower()
    opener = "%{<" if quoted and not value.startswith("**") else "%{*&!<"
    return (any(word in lowered for word in _PLACEHOLDER_WORDS) or value[0] in opener
            or (value[0] == "$" and _variable_opening(value))
            or _TEMPLATE.search(value) is not None
            or lowered in _NEVER_VALUES or lowered.strip("_-.") in _NEVER_VALUES
            or not any(c.isalnum() for c in value) or "REDACTED" in value
            or MANAGER_REFERENCE.search(value) is not None
            or PUBLIC_TOKEN.fullmatch(value) is not None
            or value.endswith(("...", "\u2026")) or _SEALED.match(value) is not None
            or _encoded_placeholder(value) or lowered in FUNCTION_WORDS  # `--password via`
            or _MASK.fullmatch(value) is not None  # a log's mask
            or _REGISTRY_NUMBER.fullmatch(value) is not None
            or DER_SIGNATURE.fullmatch(value) is not None
            # where the secret is kept, relative or absolute (`ot/pi/svc_read`, systemd's
            # `LoadCredential=mqtt-password:/etc/credstore/mqtt`)
            or WORD_PATH.fullmatch(value, int(value[:1] == "/")) is not None
            or _DUMMY.fullmatch(lowered) is not None  # `test-key`, `password123`
            or _STAND_IN.fullmatch(value) is not None  # `__DB_PASS__`, `@new.key`
            or _kept_in(lowered)  # `from-keyvault`
            or any(word in lowered for word in _NOT_FOR_USE)  # `...-not-for-production`
            or _stub_token(value)
            or len(set(value)) == 1)  # "aaaaaaaa", "00000000": a dummy


# what a `$` opens when it stands for a value: a variable (`$DB_PW`, `${PW}`, `$(cmd)`), a
# shell's positional or special parameter alone (`$1`, `$@`), a crypt(3) hash (`$2b$12$...`,
# `$6$salt$...`, `$argon2id$...`); a `$` before other symbols and a run of letters is a
# literal's first character (`'$#ptxF.USY6B7H'`, `"$9Ek-Xc6KX_AnO"`)
_VARIABLE = re.compile(r"\$(?:[A-Za-z_{(\[$]|[0-9@*#?!-]$|[0-9A-Za-z]{1,12}\$)")


def _variable_opening(value: str) -> bool:
    """The value (opening with `$`) opens as a variable, a parameter or a hash's format does."""
    return len(value) < MIN_WEAK_VALUE or _VARIABLE.match(value) is not None


def credential_like(value: str) -> bool:
    """A value under a weak name: one token, long enough, with digits or mixed case."""
    if (len(value) < MIN_WEAK_VALUE or any(map(str.isspace, value))
            or _ADDRESS.fullmatch(value) is not None):
        return False
    digits = any(c.isdigit() for c in value)
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return (digits and (mixed or any(c.isalpha() for c in value)) and not value.isdigit()
            ) or random_letters(value)


@cache
def _prose_names() -> frozenset[str]:
    return frozenset(rules().prose_names)


def names_secret(value: str) -> bool:
    """The value is the secret's own name in some language (`"Passwort"`, `"API-Schlüssel"`):
    a label, not the secret."""
    return value.lower().strip(" .!") in _prose_names()


def is_label(value: str) -> bool:
    """The value names or asks for the secret instead of being it: a phrase or a name that
    holds a secret word (`"Enter your password"`, `"api_token"`), or a prompt. A word with
    digits in it (`Password123!`, `lsToken9Oriole85`) is a credential that holds one."""
    lowered = value.lower()
    if lowered.endswith((":", "?")) and (any(map(str.isspace, value))
                                        or not any(map(str.isdigit, value))):
        return True  # a prompt (words; one word with digits, `Saffron*6510fjord?`, is none)
    if names_secret(value):
        return True  # the secret's name itself in any language (`"Passwort"`)
    if not any(word in lowered for word in _LABEL_WORDS):
        return False
    return (any(map(str.isspace, value)) or not any(map(str.isdigit, value))
            or SECRET_NAME.fullmatch(value) is not None)  # `hive-s3-secret`: a store's key


def quoted_ok(value: str, strength: str) -> bool:
    if strength == "phrase":
        return seed_phrase(value)
    if len(value) < MIN_VALUE or placeholder(value, quoted=True) or is_label(value):
        return False
    if strength in ("weak", "paired"):
        return credential_like(value) and not (strength == "paired" and _UUID.fullmatch(value))
    if strength == "keyed":
        return issued_key(value) or random_symbols(value)
    if strength == "pin":
        return value.isalnum() and issued_key(value)
    if _sentence(value):
        return False  # a message under a setting's name (`"apiKey.revokeConfirm": "Revoke ..."`)
    # a location is not the secret (a URL with user info is its own rule)
    return not (value.startswith(("http://", "https://", "/", "./", "~/")) and "@" not in value)


_SENTENCE_END = (".", "?", "!")
MIN_SENTENCE_WORDS = 4


def _sentence(value: str) -> bool:
    """A sentence: a capital, words of letters with single spaces, a full stop or a question
    mark at its end."""
    words = value.split(" ")
    return (len(words) >= MIN_SENTENCE_WORDS and value[:1].isupper()
            and value.endswith(_SENTENCE_END)
            and all(w.strip(".,;:?!'\"()").isalpha() for w in words))


MAX_STUB = 40  # characters of a prefix and its stand-in word


@cache
def _prefixes() -> tuple[tuple[str, ...], dict[str, int]]:
    tokens = [t for t in rules().tokens if not t.infix and not t.suffix]
    return tuple(t.prefix for t in tokens), {t.prefix: t.min for t in tokens}


def _stub_token(value: str) -> bool:
    """A vendor's token prefix before a word too short to be its body (`whsec_test`,
    `sk_live_demo`), or alone (`"ghp_" + "x" * 36`: code builds the rest): a test double's
    stand-in."""
    if len(value) > MAX_STUB or value.isalnum():
        return False  # a stand-in follows a prefix ending in `_`, `-`, `.` or `:`
    starts, least = _prefixes()
    if not value.startswith(starts):
        return False
    prefix = max((p for p in starts if value.startswith(p)), key=len)
    body = value[len(prefix):]
    return (not body or body.isalpha()) and len(body) < least[prefix]


def _random_part(value: str) -> bool:
    """A dotted value one of whose parts is a random run (`s.ZC9Ecf4M5g9o34Q6`, `pat6s6ed.d2dd`,
    digits and letters whose case switches at random), not an attribute path
    (`settings.DB_PASSWORD`); or a generated password with a dot in it, its parts short
    (`E3s.SDp1SyIj`): as long as such a run, with digits, its letters' case switching at
    random over the whole (a path's parts are names: `config.Db2Pass` switches too seldom)."""
    return any(len(p) >= MIN_RANDOM_PART and (
        sum(c.isdigit() for c in p) >= MIN_RANDOM_DIGITS
        or (any(c.isdigit() for c in p) and scattered_case("".join(filter(str.isalpha, p)))))
        for p in value.split(".")) or (
        len(value) >= MIN_RANDOM_PART and any(c.isdigit() for c in value)
        and scattered_case("".join(filter(str.isalpha, value))))


_CLOSERS = {")": "(", "]": "[", "}": "{"}


def _unmatched(value: str) -> bool:
    """A bracket closing another kind than the one open (`m{{h}o)p`): no expression reads
    so. A closer with nothing open (`auth)`, the end of a call's argument) and a call left
    open (`get(`) are code."""
    opened: list[str] = []
    for char in value:
        if char in "([{":
            opened.append(char)
        elif char in _CLOSERS and opened and opened.pop() != _CLOSERS[char]:
            return True
    return False


def _code_expression(value: str) -> bool:
    return ((_DOTTED.fullmatch(value) is not None and not _random_part(value))
            or (any(c in value for c in "()[]{}<>") and not _unmatched(value))
            or value.endswith((",", "\\")) or value.startswith(("-", "=", "+", "|", "#", "//")))


def _dashed_password(value: str) -> bool:
    """A generated password that opens with a dash (`-H=!833Whih`): past the dash, letters of
    both cases, digits and other symbols, long enough; a flag (`-Xmx512m`, `--stdin`) is not."""
    rest = value[1:]
    return (value.startswith("-") and len(rest) >= MIN_DASHED_PASSWORD
            and not rest.startswith("-") and not any(c in value for c in "()[]{}<>,\\")
            and any(c.isupper() for c in rest) and any(c.islower() for c in rest)
            and any(c.isdigit() for c in rest)
            and any(not c.isalnum() and c != "-" for c in rest))


@lru_cache(maxsize=512)  # (`password=` repeated: every name's 4,096-character value alike)
def unquoted_ok(value: str, strength: str, env_style: bool) -> bool:
    """An unquoted value: a literal in config and `.env` files, an expression in code."""
    if strength == "phrase":
        return seed_phrase(value)
    if strength == "strong" and env_style and (generated_key(value) or _env_literal(value)):
        return not placeholder(value, quoted=True)  # `NAME=!x#...`: no YAML tag after `=`
    if len(value) < MIN_VALUE or placeholder(value) or is_label(value):
        return False
    if any(map(str.isspace, value)):
        return False
    if _code_expression(value) and not (strength == "strong" and _dashed_password(value)):
        return False
    if strength != "strong" and _PARAMETER.match(value):
        return False  # `t=1492774577,v1=...`: a signature header's parameters
    if strength in ("weak", "paired"):
        return credential_like(value) and not (strength == "paired" and _UUID.fullmatch(value))
    if strength == "keyed":
        return issued_key(value)
    if strength == "pin":
        return value.isalnum() and issued_key(value)
    if value.isdigit():
        return len(value) >= 6
    if _NUMBER.fullmatch(value):
        return False
    if _IDENT.fullmatch(value):  # a variable in code, a word in YAML: a password only in .env
        mixed = any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
        random = len(value) >= MIN_RANDOM_PART and (
            not _HUMAN_NAME.fullmatch(value) or scattered_case(value))
        return env_style or mixed or random
    return True


def _env_literal(value: str) -> bool:
    """A password in `NAME=value` that opens with a symbol YAML or a comment would read
    (`LOSENORD=!*L8hMXo!wsH`, `db.wachtwoord=#BXMruN*UC2-`): after `=` no tag, alias or
    comment opens; a credential's length, no space, letters and digits."""
    return (value[:1] in "!*&#" and len(value) >= MIN_WEAK_VALUE
            and not any(map(str.isspace, value)) and credential_like(value[1:]))


def generated_key(value: str) -> bool:
    """A framework's generated key of printable symbols (Django's `SECRET_KEY`: lower case
    letters, digits and punctuation, 50 long): long, varied, letters, digits and symbols."""
    return (len(value) >= MIN_GENERATED_KEY and value.isascii()
            and not any(map(str.isspace, value))
            and any(c.isalpha() for c in value) and any(c.isdigit() for c in value)
            and any(not c.isalnum() for c in value)
            and shannon_entropy(value) >= MIN_SYMBOL_ENTROPY)


def lone_token(text: str) -> tuple[int, int] | None:
    """Where the one token a whole text consists of stands, when it reads as an issued key:
    a key file (Rails' `config/master.key`, an Ansible vault's password file) holds its secret
    alone. Letters and digits only (no `name=value`, no dotted or dashed format's near miss),
    hex of one case but not a digest's length (a commit id, a checksum file), or both cases in
    short runs (no words) with digits among them."""
    if text.lstrip()[:1] == "[":
        return key_bytes(text)
    if len(text) > MAX_LONE_TOKEN + 8:
        return None
    value = text.strip()
    if (not MIN_LONE_TOKEN <= len(value) <= MAX_LONE_TOKEN or not value.isascii()
            or not value.isalnum() or not random_token(value) or placeholder(value)
            or value.startswith("eyJ")):  # base64 of JSON: a token's header, no key
        return None
    if _HEX.fullmatch(value) is not None:
        if len(value) in DIGEST_LENGTHS or not (value.islower() or value.isupper()):
            return None
    else:
        runs = [len(run) for run in _LOWER_RUN.findall(value)]
        if not (len(runs) >= MIN_CASE_RUNS and sum(runs) < MAX_LOWER_RUN_MEAN * len(runs)
                and any(c.isupper() for c in value) and any(c.isdigit() for c in value)):
            return None  # `testAP6withinsomeirrelevantstring`, `AIZASYCO2...`: words, one case
    start = text.index(value)
    return start, start + len(value)


KEY_BYTES = 64  # an Ed25519 keypair's secret key: its seed and its public key, 32 bytes each
_BYTE_ARRAY = re.compile(r"\[\s*(?:[0-9]{1,3}\s*,\s*){" + str(KEY_BYTES - 1)
                         + r"}[0-9]{1,3}\s*\]")


def key_bytes(text: str) -> tuple[int, int] | None:
    """Where the keypair a whole text consists of stands: a JSON array of 64 bytes (Solana's
    `id.json`, a deployer's keypair file) is a wallet's secret key written alone."""
    value = text.strip()
    if len(value) > KEY_BYTES * 5 or _BYTE_ARRAY.fullmatch(value) is None:
        return None
    if any(int(n) > 255 for n in re.findall(r"[0-9]+", value)):
        return None
    start = text.index(value)
    return start, start + len(value)
