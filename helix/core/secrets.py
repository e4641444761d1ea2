"""Where the credentials in a text are: spans found by detect-secrets' plugins plus the formats
they lack, each kept only when the value reads like a real secret.

    find_secrets(text) -> (start, end, kind) spans, sorted, never overlapping

Sources (every one runs on every line; the multi-line rules on the whole text):
- detect-secrets' detectors, used through their pure `analyze_string` (never `analyze_line`,
  which may verify a secret over the network, and never its plugin discovery, which can load
  code named by a settings file): the token formats (Stripe, Slack, Twilio, SendGrid, JWT, ...),
  the basic-auth URL (`postgres://user:PASSWORD@host`), the keyword detector (`password: ...`,
  `db_pass = "..."`, in code, YAML and prose) and the high-entropy quoted strings (base64 above
  4.5 bits per character, hex above 3.0: `SIGNING_SALT = "f3a9..."`).
- Formats they lack: provider tokens (OpenAI/Anthropic `sk-...`, Stripe test keys, GitHub
  fine-grained, GitLab, Google, AWS secret keys), bearer tokens, passwords on a command line
  (`mysql -pSECRET`, `--password=SECRET`, `sshpass -p SECRET`), assignments to secret-like
  names, private key blocks (BEGIN .. END, or BEGIN to the end of its base64 body) and a bare run
  of base64 key-body lines (a key whose BEGIN line fell in another chunk), and long unquoted
  high-entropy tokens.

Keyword and entropy findings pass a gate so ordinary code survives: code expressions
(`request.form["password"]`, `get_password()`, `settings.api_key`), placeholders (`changeme`,
`<your key>`, `${VAR}`), plain identifiers and words, sequential strings, UUIDs and hex strings
that a line names as a hash, id or revision (git SHAs). Hex never counts as base64 entropy (at
most 4 bits per character), so commit hashes in prose are never redacted.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any, NamedTuple

from helix.core.secret_structure import structural_findings


class Finding(NamedTuple):
    start: int
    end: int
    kind: str


REDACTED = "[REDACTED:{kind}]"
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
_HEX_NAMED = re.compile(r"(?i)(?:sha|commit|rev|revision|hash|digest|checksum|etag|parent|oid|"
                        r"(?:^|[^a-z])id)s?\b[^=:\n]{0,30}[=:(\[]?[^\n]{0,12}$")
_B64_CHARS = string.ascii_letters + string.digits + "+/=-_"

# (kind, pattern, group): specific formats first, so a token in `token = "ghp_..."` is counted
# as a GitHub token, not an assignment.
_REGEX_RULES: tuple[tuple[str, re.Pattern[str], int], ...] = (
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)"
                                  r"[0-9A-Z]{16}\b"), 0),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
     0),
    ("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}"), 0),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}"), 0),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"), 0),
    ("stripe_key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}"), 0),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"), 0),
    ("slack_webhook", re.compile(
        r"https://hooks\.slack\.com/services/[A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9]+"), 0),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), 0),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), 0),
    ("bearer_token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)"), 1),
    ("aws_secret_key", re.compile(
        r"(?i)aws_?secret_?access_?key\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})"), 1),
    ("url_password", re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@]+:([^\s/@]+)@"), 1),
    ("command_password", re.compile(  # -pSECRET: attached, a password whatever it reads like
        r"\b(?:mysql\w*|mariadb\w*|sshpass|mongo\w*|redis-cli)\b[^\n|;&]*?"
        r"\s-[pa]([^\s\-'\"`][^\s'\"`]*[^\s'\"`,;.)])"), 1),
    ("command_password_spaced", re.compile(
        r"\b(?:mysql\w*|mariadb\w*|sshpass|mongo\w*|redis-cli)\b[^\n|;&]*?"
        r"\s-[pa]\s+([^\s\-'\"][^\s'\"]*)"), 1),
    ("command_password", re.compile(r"(?i)--(?:password|passwd|pass|secret|token|api-key)"
                                    r"(?:=|\s+)([\"']?)([^\s\"'`]*[^\s\"'`,;.)])\1"), 2),
)
# kinds whose value must read like a secret (the formats above are specific enough alone)
_GATED = {"assignment", "keyword", "command_password", "command_password_spaced",
          "url_password"}
_STRUCTURAL = {"url_password", "command_password"}  # the format says it is a password

_PEM_BEGIN = re.compile(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d")
_PEM_END = re.compile(r"-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
_KEY_HEADER = re.compile(r"[A-Za-z][A-Za-z\-]*: [^\n]*")
_B64_LINE = re.compile(r"[A-Za-z0-9+/]+={0,2}")
MIN_KEY_LINE = 16  # a base64 line inside a BEGIN block; shorter only as the block's last
_BODY_LINE = re.compile(rf"[ \t]*[A-Za-z0-9+/]{{{MIN_KEY_BODY_LINE},}}={{0,2}}[ \t]*")
_BARE_TOKEN = re.compile(rf"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{{{MIN_BARE_TOKEN},}}={{0,2}}"
                         r"(?![A-Za-z0-9+/_\-])")


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


def _gate(kind: str, value: str, line: str, quoted: bool) -> bool:
    if "REDACTED" in value:
        return False
    if kind in _STRUCTURAL:  # the value's place says it is a password: only templates survive
        return not (value[0] in "$%{<*" or value.endswith("}"))
    if kind in ("assignment", "keyword") and quoted:
        return looks_secret(value) or (looks_password(value) and shannon_entropy(value) >= 2.5)
    return looks_password(value)


# --- detect-secrets ---------------------------------------------------------------------------

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
    from detect_secrets.plugins.discord import DiscordBotTokenDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.high_entropy_strings import (
        Base64HighEntropyString,
        HexHighEntropyString,
    )
    from detect_secrets.plugins.jwt import JwtTokenDetector
    from detect_secrets.plugins.mailchimp import MailchimpDetector
    from detect_secrets.plugins.npm import NpmDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.pypi_token import PypiTokenDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
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
             ("twilio_key", TwilioKeyDetector()))
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


def _format_findings(text: str) -> Iterator[Finding]:
    """detect-secrets' token-format detectors, each run once over the whole text."""
    for kind, detector in _plugins().regex:
        for value in sorted({raw.strip(" \t\r\n\"'=:") for raw in detector.analyze_string(text)}):
            if not value or "REDACTED" in value or "\n" in value:
                continue
            for start in _occurrences(text, value):
                end = start + len(value)
                if kind in _GATED and not _gate(kind, value, _line_at(text, start, end),
                                                _quoted_at(text, start, end)):
                    continue
                yield Finding(start, end, kind)


def _plugin_findings(line: str) -> Iterator[Finding]:
    """detect-secrets' keyword and high-entropy string detectors on one line."""
    p = _plugins()
    if p.keyword_hint.search(line) and not p.filters["indirect"](line):
        for mapping in p.keyword_maps:
            for raw in p.keyword.analyze_string(line, denylist_regex_to_group=mapping):
                value = raw.split()[0].strip("\"'`,;") if raw.split() else ""
                if not value or p.filters["templated"](value):
                    continue
                for start in _occurrences(line, value):
                    end = start + len(value)
                    if _gate("keyword", value, line, _quoted_at(line, start, end)):
                        yield Finding(start, end, "keyword")
    for kind, plugin in (("high_entropy_base64", p.base64), ("high_entropy_hex", p.hex)):
        for value in plugin.analyze_string(line):
            if plugin.calculate_shannon_entropy(value) <= plugin.entropy_limit:
                continue
            if kind == "high_entropy_hex" and (len(value) < MIN_HEX
                                               or len(value) in DIGEST_LENGTHS):
                continue
            if (p.filters["sequential"](value) or p.filters["uuid"](value)
                    or p.filters["likely_id"](value, line)):
                continue
            for start in _occurrences(line, value):
                if kind == "high_entropy_hex" and _HEX_NAMED.search(line[:start]):
                    continue  # a hash, id or revision the line names as such
                yield Finding(start, start + len(value), kind)


# --- the rules of our own -----------------------------------------------------------------------

# Literals a rule's match must contain (any one): a rule whose literals are all absent from
# the text is not run (`in` is a fast scan; a regular expression with a leading \b is not).
_RULE_LITERALS: dict[str, tuple[str, ...]] = {
    "aws_access_key": ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA", "ABIA",
                       "ACCA"),
    "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab_token": ("glpat-",), "anthropic_key": ("sk-ant-",), "openai_key": ("sk-",),
    "stripe_key": ("_live_", "_test_"), "slack_token": ("xox",),
    "slack_webhook": ("hooks.slack.com",), "google_api_key": ("AIza",), "jwt": ("eyJ",),
    "bearer_token": ("earer", "EARER"), "aws_secret_key": ("ecret", "ECRET"),
    "url_password": ("://",), "command_password_spaced": ("mysql", "mariadb", "sshpass",
                                                          "mongo", "redis-cli"),
}


def _may_match(kind: str, pattern: re.Pattern[str], text: str) -> bool:
    if kind == "command_password":
        literals = ("--",) if pattern.pattern.startswith("(?i)--") else _RULE_LITERALS[
            "command_password_spaced"]
    else:
        literals = _RULE_LITERALS.get(kind, ("",))
    return any(literal in text for literal in literals)


def _regex_findings(text: str) -> Iterator[Finding]:
    for kind, pattern, group in _REGEX_RULES:
        if not _may_match(kind, pattern, text):
            continue
        for match in pattern.finditer(text):
            value = match.group(group)
            if not value or value.startswith("[REDACTED"):
                continue
            if kind in _GATED:
                quoted = group == 2 and kind == "assignment"
                line = text[text.rfind("\n", 0, match.start()) + 1: match.end()]
                if not _gate(kind, value, line, quoted):
                    continue
            yield Finding(match.start(group), match.end(group), kind.removesuffix("_spaced"))


def _line_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for line in text.split("\n"):
        spans.append((start, start + len(line)))
        start += len(line) + 1
    return spans


def _after_begin(line: str, next_line: str | None) -> bool:
    """A line that continues a key block after its BEGIN line: a base64 line (a short one only
    as the block's last, before END or ending in padding), a header (`Proc-Type: ...`) or a
    blank line."""
    stripped = line.strip()
    if not stripped or _KEY_HEADER.fullmatch(stripped):
        return True
    if not _B64_LINE.fullmatch(stripped):
        return False
    return (len(stripped) >= MIN_KEY_LINE or stripped.endswith("=") or next_line is None
            or not next_line.strip() or bool(_PEM_END.search(next_line)))


def _key_findings(text: str) -> Iterator[Finding]:
    """Private key blocks: BEGIN .. END, or BEGIN and the key-body lines after it; and runs
    of two or more base64 key-body lines (a block whose BEGIN line is elsewhere)."""
    spans = _line_spans(text)
    lines = [text[s:e] for s, e in spans]
    index, total = 0, len(lines)
    while index < total:
        line = lines[index]
        begin = _PEM_BEGIN.search(line)
        if begin is not None:
            last = index
            while last + 1 < total:
                following = lines[last + 2] if last + 2 < total else None
                if _PEM_END.search(lines[last + 1]):
                    last += 1
                    break
                if not _after_begin(lines[last + 1], following):
                    break
                last += 1
            end_match = _PEM_END.search(lines[last])
            stop = spans[last][0] + end_match.end() if end_match else spans[last][1]
            yield Finding(spans[index][0] + begin.start(), stop, "private_key")
            index = last + 1
            continue
        if _BODY_LINE.fullmatch(line):
            last = index
            while last + 1 < total and _BODY_LINE.fullmatch(lines[last + 1]):
                last += 1
            body = "".join(lines[index: last + 1]).replace(" ", "").replace("\t", "")
            if last > index and _plugins().base64.calculate_shannon_entropy(body) > 4.0:
                tail = last + 1  # the block's short last line and its END line
                while tail < total and tail <= last + 2 and (
                        _PEM_END.search(lines[tail]) or _B64_LINE.fullmatch(lines[tail].strip())):
                    tail += 1
                end_match = _PEM_END.search(lines[tail - 1])
                stop = spans[tail - 1][0] + end_match.end() if end_match else spans[tail - 1][1]
                yield Finding(spans[index][0], stop, "private_key")
                index = tail
                continue
        index += 1


def _bare_token_findings(line: str) -> Iterator[Finding]:
    """Long unquoted tokens of base64 characters, mixed case and digits, high entropy."""
    p = _plugins()
    for match in _BARE_TOKEN.finditer(line):
        value = match.group(0)
        if not (any(c.isdigit() for c in value) and any(c.isupper() for c in value)
                and any(c.islower() for c in value)):
            continue
        word_start = max(line.rfind(" ", 0, match.start()), line.rfind("\t", 0, match.start()))
        if "://" in line[word_start + 1: match.start()] or value.count("/") > 2:
            continue  # part of a URL, or a path
        if p.base64.calculate_shannon_entropy(value) <= BASE64_LIMIT:
            continue
        if p.filters["sequential"](value):
            continue
        yield Finding(match.start(), match.end(), "high_entropy_base64")


# What a line needs for a per-line detector to find anything in it: a quoted run of the
# entropy detectors' characters (they only read quoted strings), a keyword, or a long bare token.
_QUOTED_RUN = re.compile(r"[\"'][A-Za-z0-9+/=_\-]{" + str(MIN_SECRET_LEN) + ",}")


_KEYWORD_ANCHORS = ("key", "pass", "pwd", "secret", "contras")


def _candidate_lines(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each line a per-line detector could find something in, found by
    whole-text scans (most lines of most files hold none)."""
    starts: set[int] = set()
    for pattern in (_QUOTED_RUN, _BARE_TOKEN):
        for match in pattern.finditer(text):
            starts.add(text.rfind("\n", 0, match.start()) + 1)
    lowered = text.lower()
    for anchor in _KEYWORD_ANCHORS:  # every word of detect-secrets' keyword list holds one
        at = lowered.find(anchor)
        while at != -1:
            starts.add(text.rfind("\n", 0, at) + 1)
            at = lowered.find(anchor, at + len(anchor))
    out = []
    for start in sorted(starts):
        end = text.find("\n", start)
        out.append((start, len(text) if end == -1 else end))
    return out


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


def find_secrets(text: str) -> list[Finding]:
    """Every secret span in `text`, sorted by start, overlapping findings merged (the first
    rule's kind wins: the specific formats come first)."""
    found: list[Finding] = [*_key_findings(text), *_regex_findings(text),
                            *(Finding(*f) for f in structural_findings(text)),
                            *_format_findings(text)]
    for line_start, line_end in _candidate_lines(text):
        if line_end - line_start < MIN_SECRET_LEN // 2:
            continue
        for start, end in _windows(line_start, line_end):
            line = text[start:end]
            found += [Finding(start + f.start, start + f.end, f.kind)
                      for f in (*_plugin_findings(line), *_bare_token_findings(line))]
    return _merge(found)


def _mask(kind: str, secret: str) -> str:
    return REDACTED.format(kind=kind) + "\n" * secret.count("\n")


def redact_text(text: str) -> tuple[str, Counter[str]]:
    """The text with every detected credential replaced by `[REDACTED:<kind>]` (the span's
    newlines kept, so line numbers stay true), and counts by kind."""
    counts: Counter[str] = Counter()
    findings = find_secrets(text) if text else []
    if not findings:
        return text, counts
    parts: list[str] = []
    at = 0
    for start, end, kind in findings:
        parts += [text[at:start], _mask(kind, text[start:end])]
        counts[kind] += 1
        at = end
    parts.append(text[at:])
    return "".join(parts), counts


def _merge(found: list[Finding]) -> list[Finding]:
    accepted: list[Finding] = []
    for finding in found:  # priority order
        if finding.end <= finding.start:
            continue
        overlapping = [a for a in accepted if a.start < finding.end and finding.start < a.end]
        if not overlapping:
            accepted.append(finding)
            continue
        first = overlapping[0]
        merged = Finding(min(finding.start, *(a.start for a in overlapping)),
                         max(finding.end, *(a.end for a in overlapping)), first.kind)
        accepted = [a for a in accepted if a not in overlapping] + [merged]
    return sorted(accepted)
