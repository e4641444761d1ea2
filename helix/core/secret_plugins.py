"""detect-secrets' detectors, used through their pure `analyze_string` (never `analyze_line`,
which may verify a secret over the network, and never its plugin discovery, which can load code
named by a settings file), and the per-line detectors that go with them:

- `format_findings(text, kinds)`: the token-format plugins (Stripe, Slack, Twilio, SendGrid,
  JWT, basic-auth URLs, ...), each run once over the whole text, only those in `kinds`;
- `line_findings(text)`: on the lines that can hold one, the keyword plugin (`password: ...`,
  `db_pass = "..."`), the high-entropy quoted strings (base64 above 4.5 bits per character, hex
  above 3.0) and long unquoted high-entropy tokens.
"""

from __future__ import annotations

import base64
import itertools
import re
import string
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any, NamedTuple

import re2

from helix.core.english import word_alternation
from helix.core.secret_gates import (
    BASE64_LIMIT,
    DIGEST_LENGTHS,
    GATED,
    HEX_LIMIT,
    HEX_NAMED,
    MANAGER_REFERENCE,
    MAX_LINE,
    MIN_BARE_TOKEN,
    MIN_HEX,
    MIN_SECRET_LEN,
    PUBLIC_TOKEN,
    WEBPACK_HASH,
    WINDOW_OVERLAP,
    Finding,
    gate,
    may_exceed,
    shannon_entropy,
)
from helix.core.secret_keys import encoded_pem
from helix.core.secret_lookalikes import (
    converted_data,
    data_named,
    encoded_text,
    id_named,
    media_base64,
    typed_id,
)
from helix.core.secret_names import META_SUFFIXES, segments
from helix.core.secret_shapes import lines_with
from helix.core.secret_tokens import filler
from helix.core.secret_values import DER_SIGNATURE, WORD_PATH, names_secret, placeholder

# A digest named by its algorithm (`sha512-...` subresource integrity, `sha256:...`, go.sum's
# `h1:...`, `SHA256:...` key fingerprints): a checksum anyone may read, not a credential
_DIGEST_LABEL = re.compile(r"(?i)(?:sha-?(?:1|224|256|384|512)|sha3-(?:224|256|384|512)|md5|"
                           r"blake2[bs]?(?:-\d{3})?|h1|xxh(?:32|64|128|3)?|crc32c?)"
                           r"(?:[-:=/]|[\"']>)$")  # `Digest: sha-256=`, pins' `sha256/`,
# `<pin digest="SHA-256">`
_DIGEST_PREFIX = re.compile(r"(?i)(?:sha(?:1|224|256|384|512)|md5|h1)[-:/]")
# An extended public key of a wallet (BIP-32: xpub, ypub, zpub, tpub ...): public by design
_EXTENDED_PUBLIC = re.compile(r"[xyzt]pub[1-9A-HJ-NP-Za-km-z]{100,}")
# A JSON Web Key's public members (the modulus `n`, the curve point `x`/`y`, the certificate
# chain `x5c`); its private ones (`d`, `p`, `q`, `dp`, `dq`, `qi`, `k`) stay found
_JWK_PUBLIC = re.compile(r"[\"'](?:n|e|x|y|x5c|x5t(?:#S256)?)[\"'][ \t]*:[ \t]*\[?[ \t]*[\"']$")
_PUBLIC_NAMES = ("public", "pub", "fingerprint", "checksum", "integrity", "digest", "hash", "etag",
                 "sitekey", "site_key", "site-key", "plaintext", "ciphertext", "expected",
                 "pssh",  # a DRM system's header in a DASH manifest: a player's public data
                 "site-verification", "domain-verification")  # a DNS TXT record's: published
_BECH32_PREFIXES = ("age", "npub", "bc", "tb", "ltc")
# what stands just before a value that is no secret: a data URI's payload, a password hash's
# algorithm and salt (`$2b$12$`, `$6$salt$`), a name saying the value is public or a digest
# the modular crypt formats' ids (`$2b$`, `$6$`, `$apr1$`, `$argon2id$`, `$7$`: scrypt's,
# Mosquitto's PBKDF2 password file ...)
# (how far back: argon2's `$argon2id$v=19$m=65536,t=3,p=4$<22 salt>$` is 53 characters)
PUBLIC_BEFORE_REACH = 96
WEBPACK_REACH = 240  # characters before a hex value read for webpack's runtime
_CRYPT_IDS = ("2", "2a", "2b", "2x", "2y", "1", "5", "6", "7", "y", "apr1", "scrypt", "argon2id",
              "argon2i", "argon2d")
_PUBLIC_BEFORE = re.compile(
    r"(?i)(?:;base64,|\$(?:" + word_alternation(_CRYPT_IDS) + r"|pbkdf2[-\w]*)\$[^\s'\"]*|"
    r"ENC\[[A-Z0-9_]{1,20},[^\]\s]*|(?:" + word_alternation(_PUBLIC_NAMES) + r")[\w\-]*"
    r"[\"']?[ \t]*[:=][ \t]*(?:[\w.]{1,30}\([ \t]*)?[\"']?)$")
# the same names as an XML element's (`<cenc:pssh>`, `<Checksum>`), and a page's meta tag
# published for a search engine or a platform to read (`google-site-verification`,
# `msvalidate.01`, `facebook-domain-verification`): read only before a value a `>` or a
# quote opens
_PUBLIC_ELEMENT = re.compile(
    r"<(?:[\w\-]{1,20}:)?(?:" + word_alternation(_PUBLIC_NAMES) + r")[\w\-]*(?:\s[^<>]{0,200})?>$"
    r"|\bname=[\"'][\w.:\-]{0,40}(?:verification|verify|validate)[\w.\-]{0,10}[\"'][ \t]+"
    r"content=[\"']$", re.I)
# a SOPS envelope's parts (`ENC[AES256_GCM,data:...,iv:...,tag:...]`): ciphertext and its
# parameters, safe to commit
_ENVELOPE = re.compile(r"ENC\[[A-Z0-9_]{1,20},[^\]\s]*$")
# a wallet's or age's public recipient (bech32: lower case letters and digits after `1`)
_BECH32_PUBLIC = re.compile(
    r"(?:" + word_alternation(_BECH32_PREFIXES) + r")1[02-9ac-hj-np-z]{38,90}")
# an IPFS content identifier (CIDv0 `Qm` + 44 base58, CIDv1 base32 `baf...`), after `ipfs://`
# or alone in a pin list: a hash of public content, no key
_CONTENT_ID = re.compile(r"/{0,2}(?:Qm[0-9A-Za-z]{44}|baf[a-z2-7]{56})")
MAX_SORTED_RUNS = 3  # an alphabet (`ABC...XYZ234567`) runs in order; a random value does not
MIN_SORTED_RUN = 8  # a long alphabet's runs average at least this many characters
_SSH_KEY_TYPES = (b"ssh-", b"ecdsa-", b"sk-ssh-", b"sk-ecdsa-", b"rsa-sha2-")
_PATH = re.compile(r"(?:~|\.{1,2})?(?:/[A-Za-z0-9_.\-]+){2,}/?")
_BARE_TOKEN = re.compile(rf"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{{{MIN_BARE_TOKEN},}}={{0,2}}"
                         r"(?![A-Za-z0-9+/_\-])")


class _Plugins(NamedTuple):
    regex: tuple[tuple[str, Any], ...]  # (kind, detector) for the token formats
    keyword: Any
    keyword_maps: tuple[dict[Any, int], ...]
    keyword_hint: re.Pattern[str]
    base64: Any
    hex: Any
    filters: dict[str, Callable[..., bool]]


@lru_cache(maxsize=1)
def _plugins() -> _Plugins:
    """detect-secrets' detectors, imported on first use (it pulls in `requests`)."""
    from detect_secrets.filters import heuristic
    from detect_secrets.plugins import keyword as kw
    from detect_secrets.plugins.artifactory import ArtifactoryDetector
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
    from detect_secrets.plugins.basic_auth import BasicAuthDetector
    from detect_secrets.plugins.cloudant import CloudantDetector
    from detect_secrets.plugins.discord import DiscordBotTokenDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.high_entropy_strings import (
        Base64HighEntropyString,
        HexHighEntropyString,
    )
    from detect_secrets.plugins.ibm_cloud_iam import IbmCloudIamDetector
    from detect_secrets.plugins.ibm_cos_hmac import IbmCosHmacDetector
    from detect_secrets.plugins.jwt import JwtTokenDetector
    from detect_secrets.plugins.mailchimp import MailchimpDetector
    from detect_secrets.plugins.npm import NpmDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.pypi_token import PypiTokenDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.plugins.softlayer import SoftlayerDetector
    from detect_secrets.plugins.square_oauth import SquareOAuthDetector
    from detect_secrets.plugins.stripe import StripeDetector
    from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
    from detect_secrets.plugins.twilio import TwilioKeyDetector

    regex = (("artifactory_token", ArtifactoryDetector()), ("aws_access_key", AWSKeyDetector()),
             ("azure_storage_key", AzureStorageKeyDetector()),
             ("url_password", BasicAuthDetector()), ("discord_token", DiscordBotTokenDetector()),
             ("github_token", GitHubTokenDetector()), ("gitlab_token", GitLabTokenDetector()),
             ("jwt", JwtTokenDetector()), ("mailchimp_key", MailchimpDetector()),
             ("npm_token", NpmDetector()), ("openai_key", OpenAIDetector()),
             ("pypi_token", PypiTokenDetector()), ("sendgrid_key", SendGridDetector()),
             ("slack_token", SlackDetector()), ("square_oauth", SquareOAuthDetector()),
             ("stripe_key", StripeDetector()), ("telegram_token", TelegramBotTokenDetector()),
             ("twilio_key", TwilioKeyDetector()), ("cloudant_key", CloudantDetector()),
             ("ibm_cloud_iam_key", IbmCloudIamDetector()),
             ("ibm_cos_hmac_key", IbmCosHmacDetector()), ("softlayer_key", SoftlayerDetector()))
    hint = re.compile("|".join(kw.DENYLIST), re.I)
    filters: dict[str, Callable[..., bool]] = {"sequential": heuristic.is_sequential_string,
               "uuid": heuristic.is_potential_uuid, "templated": heuristic.is_templated_secret,
               "indirect": heuristic.is_indirect_reference,
               "likely_id": heuristic.is_likely_id_string}
    return _Plugins(regex=regex, keyword=kw.KeywordDetector(),
                    keyword_maps=(kw.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
                                  kw.CONFIG_DENYLIST_REGEX_TO_GROUP),
                    keyword_hint=hint, base64=Base64HighEntropyString(limit=BASE64_LIMIT),
                    hex=HexHighEntropyString(limit=HEX_LIMIT), filters=filters)


def _occurrences(line: str, value: str) -> Iterator[int]:
    start = line.find(value)
    while start != -1:
        yield start
        start = line.find(value, start + len(value))


def _quoted_at(line: str, start: int, end: int) -> bool:
    return start > 0 and end < len(line) and line[start - 1] in "\"'`" and line[end] in "\"'`"


def _line_at(text: str, start: int, end: int) -> str:
    return text[text.rfind("\n", 0, start) + 1: (text.find("\n", end) + 1 or len(text) + 1) - 1]


def format_kinds() -> tuple[str, ...]:
    return tuple(kind for kind, _ in _plugins().regex)


_DELIMITERS = " \t\r\n\"'=:"  # what a plugin's match may hold around its value
MIN_GROUP = 4  # a plugin's group this short is a prefix it names, the match is the value


def _plugin_spans(detector: Any, text: str) -> Iterator[tuple[int, int]]:
    """Where a regex plugin's values stand: what its `analyze_string` yields (each non-empty
    group of each match of its denylist, or the whole match), as spans of `text` (not every
    occurrence of the value elsewhere in the text)."""
    for regex in detector.denylist:
        for match in regex.finditer(text):
            groups = [i for i in range(1, (regex.groups or 0) + 1) if match.group(i)
                      and len(match.group(i)) > MIN_GROUP]  # not `ghp` of `ghp_...` alone
            for group in groups or [0]:
                start, end = match.span(group)
                while start < end and text[start] in _DELIMITERS:
                    start += 1
                while end > start and text[end - 1] in _DELIMITERS:
                    end -= 1
                if end > start:
                    yield start, end


# What every match of a plugin's regular expressions holds (a looser RE2 pattern: the plugin's
# own without its look-arounds and optional parts), so a text without it skips the plugin's
# Python regular expressions (linear RE2 search instead of backtracking at every offset). Only
# for ASCII text: there Python's and RE2's classes agree.
_PLUGIN_GATES = {
    "artifactory_token": r"AKC[a-zA-Z0-9]{10}|AP[0-9A-F][a-zA-Z0-9]{8}",
    "aws_access_key": r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}|(?i:aws)",
    "azure_storage_key": r"AccountKey=", "url_password": r"://[^\n]*:[^\n]*@",
    "discord_token": r"[MNO][a-zA-Z0-9_-]{23,25}\.[a-zA-Z0-9_-]{6}\.[a-zA-Z0-9_-]{27}",
    "github_token": r"gh[pousr]_", "jwt": r"eyJ", "mailchimp_key": r"-us[0-9]",
    "gitlab_token": r"gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-|GR1348941",
    "npm_token": r":_authToken=", "openai_key": r"T3BlbkFJ", "pypi_token": r"pypi-AgE",
    "sendgrid_key": r"SG\.", "slack_token": r"(?i:xox[abposr]-|hooks\.slack\.com/services/T)",
    "square_oauth": r"sq0csp-", "stripe_key": r"[rs]k_live_",
    "telegram_token": r"[0-9]{8}:[0-9A-Za-z_-]{35}", "twilio_key": r"(?:AC|SK)[a-z0-9]{32}",
    "cloudant_key": r"(?i:cl(?:oudant|ou)?[_-]?(?:api)?(?:key|pwd|pw|pass|token)|cloudant\.com)",
    "ibm_cloud_iam_key": r"(?i:(?:key|pwd|pass|token)[\"']?\]? *(?:=|:|:=|=>| +|::) *[\"']?"
                         r"[a-zA-Z0-9_\-]{44})",
    "ibm_cos_hmac_key": r"(?i:secret[-_]?(?:access)?[-_]?key[\"']?\]? *(?:=|:|:=|=>| +|::) *"
                        r"[\"']?[a-f0-9]{48})",
    "softlayer_key": r"(?i:sl[_-]?(?:api)?[_-]?(?:key|pwd|pass|token)|softlayer)",
}


@lru_cache(maxsize=1)
def _gates() -> dict[str, Any]:
    return {kind: re2.compile(pattern) for kind, pattern in _PLUGIN_GATES.items()}


def _may_find(kind: str, subject: bytes | None) -> bool:
    """Whether the plugin of `kind` can find anything in the text (`subject`: its ASCII
    bytes, None when it is not ASCII: then the plugin runs)."""
    return subject is None or _gates()[kind].search(subject) is not None


def _same_user(text: str, start: int, value: str) -> bool:
    """A URL's password that is its user's name again (`//app:app@`)."""
    userinfo = value.strip("/@")
    if userinfo.count(":") == 1:
        user, password = userinfo.split(":")
        return user == password
    return text.endswith(value + ":", 0, start)


def format_findings(text: str, kinds: Iterable[str] | None = None) -> Iterator[Finding]:
    """detect-secrets' token-format detectors (those of `kinds`, default all, and whose gate
    the text passes), each run once over the whole text."""
    wanted = None if kinds is None else set(kinds)
    subject = text.encode("ascii") if text.isascii() else None
    for kind, detector in _plugins().regex:
        if (wanted is not None and kind not in wanted) or not _may_find(kind, subject):
            continue
        for start, end in sorted(set(_plugin_spans(detector, text))):
            value = text[start:end]
            if "REDACTED" in value or "\n" in value or filler(value):
                continue
            if kind in GATED and not gate(kind, value, _line_at(text, start, end),
                                          _quoted_at(text, start, end)):
                continue
            if kind == "url_password" and _same_user(text, start, value):
                continue  # postgres:postgres@localhost: a default, the user's own name
            yield Finding(start, end, kind)


_QUERY_NAME = re.compile(r"[?&][\w.\-]{1,80}=$")  # a URL query parameter's name, its value next


def _keyword_findings(line: str) -> Iterator[Finding]:
    """detect-secrets' keyword detector on one line."""
    p = _plugins()
    if p.keyword_hint.search(line) and not p.filters["indirect"](line):
        for mapping in p.keyword_maps:
            for raw in p.keyword.analyze_string(line, denylist_regex_to_group=mapping):
                value = raw.split()[0].strip("\"'`,;") if raw.split() else ""
                if not value or p.filters["templated"](value):
                    continue
                for start in _occurrences(line, value):
                    end = start + len(value)
                    if "&" in value and _QUERY_NAME.search(line, 0, start) is not None:
                        end = start + value.index("&")  # `?secret=X&issuer=Y`: X alone
                        value = line[start:end]
                        if not value:
                            continue
                    if MANAGER_REFERENCE.search(_token_at(line, start, end)):
                        continue  # a part of `arn:aws:secretsmanager:...`: where it is kept
                    quoted = _quoted_at(line, start, end)
                    if (placeholder(value, quoted) or names_secret(value)
                            or "(" in (value[-1:], line[end:end + 1])
                            or _describing_name(line[:start]) or WORD_PATH.fullmatch(value)):
                        continue  # `password123`, `Credentials.new(`, `secret_path = ...`,
                        # `"prod/db/master"` (where a secret is kept: a path of words),
                        # `"API-Schlüssel"` (the secret's name as a label)
                    if gate("keyword", value, line, quoted):
                        yield Finding(start, end, "keyword")


_NAME_BEFORE = re.compile(r"([A-Za-z_][\w.\-]{0,79})[\"'`]?[ \t]*[:=][ \t]*[\"'`]?$")


def _describing_name(before: str) -> bool:
    """The name a value is given to describes a secret instead of holding it (its last word
    `path`, `id`, `name`, ...: `secret_names.META_SUFFIXES`), as the structural rule reads it."""
    named = _NAME_BEFORE.search(before[-100:])
    parts = segments(named.group(1)) if named is not None else []
    return bool(parts) and parts[-1] in META_SUFFIXES and parts[-1] not in _KEY_IDS


_KEY_IDS = frozenset({"id", "ids"})  # `private_key_id`: a key's issued ID is kept secret too


def _ssh_public(value: str) -> bool:
    """The base64 of an SSH public key (`AAAAB3NzaC1yc2E...` in authorized_keys, known_hosts):
    a length-prefixed key type name opens it."""
    if not value.startswith("AAAA"):
        return False
    head = value[:40]
    try:
        raw = base64.b64decode(head[: len(head) // 4 * 4])
    except ValueError:
        return False
    size = int.from_bytes(raw[:4], "big")
    return 3 <= size <= 40 and raw[4:4 + size].startswith(_SSH_KEY_TYPES)


def _sorted_runs(value: str) -> bool:
    """A value written in order (`abc...xyz`, `ABC...Z234567`): an alphabet, not a key; a
    longer alphabet may skip a few letters (base58's `...HJKLMNP...`) and join its runs
    (`A..Za..z0..9-_`), its runs still long (a random value's are one or two characters)."""
    breaks = sum(1 for a, b in itertools.pairwise(value) if ord(b) != ord(a) + 1)
    return breaks < max(MAX_SORTED_RUNS, len(value) // MIN_SORTED_RUN)


def public_value(value: str, before: str) -> bool:
    """A high-entropy value that is public by what it is: a digest its algorithm names (in
    the value or just before it), an SSH public key, a wallet's extended public key, a key
    issued to be public, a JSON Web Key's public member, a documentation's example."""
    if (_PUBLIC_BEFORE.search(before[-PUBLIC_BEFORE_REACH:]) is not None or _sorted_runs(value)
            or (before[-1:] in (">", "\"", "'")
                and _PUBLIC_ELEMENT.search(before[-PUBLIC_BEFORE_REACH * 3:]) is not None)
            or ("ENC[" in before and _ENVELOPE.search(before) is not None)
            or before.endswith("ENC(")  # jasypt's encrypted value
            or media_base64(value) or typed_id(value, before)
            or _BECH32_PUBLIC.fullmatch(value) is not None or encoded_text(value)
            or id_named(before) or data_named(before)
            or _CONTENT_ID.fullmatch(value) is not None):
        return True
    if value.startswith("LS0tLS1CRUdJTi"):  # a PEM block in base64: a certificate's is public
        return b"PRIVATE" not in encoded_pem(value) and b"SEED" not in encoded_pem(value)
    return (_DIGEST_PREFIX.match(value) is not None or _DIGEST_LABEL.search(before[-24:])
            is not None or _ssh_public(value) or _EXTENDED_PUBLIC.fullmatch(value) is not None
            or PUBLIC_TOKEN.fullmatch(value) is not None or filler(value)
            or DER_SIGNATURE.fullmatch(value) is not None
            or _JWK_PUBLIC.search(before[-16:]) is not None)


_TOKEN_STOPS = " \t\"'`=,;[]{}<>"


def _token_at(line: str, start: int, end: int) -> str:
    """The run of characters around line[start:end] up to a space, quote or bracket."""
    while start > 0 and line[start - 1] not in _TOKEN_STOPS:
        start -= 1
    while end < len(line) and line[end] not in _TOKEN_STOPS:
        end += 1
    return line[start:end]


def _entropy_findings(line: str) -> Iterator[Finding]:
    """detect-secrets' high-entropy string detectors on one line."""
    p = _plugins()
    for kind, plugin in (("high_entropy_base64", p.base64), ("high_entropy_hex", p.hex)):
        for value in plugin.analyze_string(line):
            if kind == "high_entropy_hex" and (len(value) < MIN_HEX
                                               or len(value) in DIGEST_LENGTHS):
                continue
            if not may_exceed(value, plugin.entropy_limit):
                continue
            entropy = (shannon_entropy(value) if kind == "high_entropy_base64"
                       else plugin.calculate_shannon_entropy(value))
            if entropy <= plugin.entropy_limit:
                continue
            if (p.filters["sequential"](value) or p.filters["uuid"](value)
                    or p.filters["likely_id"](value, line) or _PATH.fullmatch(value)):
                continue  # ... or a file's path (`/tmp/run-14abfb6a/CURRENT`)
            for start in _occurrences(line, value):
                if kind == "high_entropy_hex" and (
                        HEX_NAMED.search(line[:start])
                        or converted_data(line[:start])
                        or WEBPACK_HASH.search(line, max(0, start - WEBPACK_REACH), start)):
                    continue  # a hash, id or revision the line names as such
                if public_value(value, line[:start]):
                    continue
                yield Finding(start, start + len(value), kind)


_DIGITS, _UPPER, _LOWER = (frozenset(string.digits), frozenset(string.ascii_uppercase),
                           frozenset(string.ascii_lowercase))


def _bare_token_findings(line: str) -> Iterator[Finding]:
    """Long unquoted tokens of base64 characters, mixed case and digits, high entropy."""
    p = _plugins()
    for match in _BARE_TOKEN.finditer(line):
        value = match.group(0)
        chars = set(value)  # ASCII: the pattern's characters
        if not (chars & _DIGITS and chars & _UPPER and chars & _LOWER):
            continue
        word_start = max(line.rfind(" ", 0, match.start()), line.rfind("\t", 0, match.start()))
        if ("://" in line[word_start + 1: match.start()] or value.count("/") > 2
                or _PATH.fullmatch(value)):
            continue  # part of a URL, or a path (`/StandaloneWindows64/group_assets_1a53...`)
        if not may_exceed(value, BASE64_LIMIT) or shannon_entropy(value) <= BASE64_LIMIT:
            continue
        if (p.filters["sequential"](value) or public_value(value, line[:match.start()])
                or filler(_token_at(line, match.start(), match.end()))):
            continue  # (... or part of a documentation's example: `s%3A<id>.EXAMPLE`)
        yield Finding(match.start(), match.end(), "high_entropy_base64")


# (a quoted value is found only at MIN_HEX characters or more: base64 above 4.5 bits per
# character needs 23 different ones)
_QUOTED_RUN = re.compile(r"[\"'][A-Za-z0-9+/=_\\\-]{" + str(MIN_HEX) + ",}")


def _lines_with(text: str, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """The (start, end) of each line `pattern` matches in (most lines of most files hold
    nothing a per-line detector could find)."""
    out: list[tuple[int, int]] = []
    at = 0
    while True:
        match = pattern.search(text, at)
        if match is None:
            return out
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        end = len(text) if end == -1 else end
        out.append((start, end))
        at = end + 1


def _windows(start: int, end: int) -> Iterator[tuple[int, int]]:
    """A line in pieces of at most MAX_LINE characters that overlap by WINDOW_OVERLAP, so the
    per-line detectors see every value of a long line (a minified file, a notebook output)
    without their regular expressions meeting the whole line."""
    if end - start <= MAX_LINE:
        yield start, end
        return
    at = start
    while at < end:
        yield at, min(end, at + MAX_LINE)
        if at + MAX_LINE >= end:
            return
        at += MAX_LINE - WINDOW_OVERLAP


_KEYWORD_ANCHORS = ("key", "pass", "pwd", "secret", "contras")  # one in each keyword


def _keyword_lines(text: str) -> list[tuple[int, int]]:
    """The lines holding a word of detect-secrets' keyword list (each holds an anchor: a
    fast search of the lowered text finds them)."""
    return lines_with(text, text.lower(), _KEYWORD_ANCHORS)


def line_findings(text: str) -> list[Finding]:
    """The keyword, entropy and bare-token detectors, each on the lines that can hold its
    finding (long lines in overlapping pieces), in `text`'s offsets."""
    found: list[Finding] = []
    detectors: tuple[tuple[list[tuple[int, int]], Callable[[str], Iterator[Finding]]], ...] = (
        (_keyword_lines(text), _keyword_findings),
        (_lines_with(text, _QUOTED_RUN), _entropy_findings),
        (_lines_with(text, _BARE_TOKEN), _bare_token_findings))
    for lines, detector in detectors:
        for line_start, line_end in lines:
            if line_end - line_start < MIN_SECRET_LEN // 2:
                continue
            for start, end in _windows(line_start, line_end):
                found += [Finding(start + f.start, start + f.end, f.kind)
                          for f in detector(text[start:end])]
    return found
