"""Where the credentials in a text are: spans found by detect-secrets' plugins plus the formats
they lack, each kept only when the value reads like a real secret, or when its place says so.

    find_secrets(text) -> (start, end, kind) spans, sorted, never overlapping
    redact_text(text) -> (text with each span masked, counts by kind)

The detectors, each in its module:
- `secret_plugins`: detect-secrets' token formats (Stripe, Slack, Twilio, JWT, basic-auth
  URLs, ...), its keyword detector and high-entropy strings, long unquoted high-entropy tokens;
- the regular expressions below: provider tokens, bearer tokens, URL passwords, passwords on a
  database client's command line (`mysql -pSECRET`, `--password=SECRET`);
- `secret_structure`: a value whose place names a secret (`name = value` in any language or
  config format, flags, XML);
- `secret_places`: command lines of database and HTTP clients, SQL, Authorization headers,
  query parameters, webhooks, prose that says "the password is";
- `secret_blocks`: values on more than one line (YAML blocks and next-line values, TOML and
  triple-quoted strings, XML elements over lines, name/value pairs such as k8s env entries);
- `secret_shapes`: .netrc/.pgpass lines, connection strings, `ENV NAME value`, SQL
  `SET PASSWORD`, calls taking a secret, passwords in prose and questions, a lookup's
  literal default (`secret_defaults`: `ENV.fetch('API_KEY') { 'X' }`, `|| 'X'`, `${T:-X}`);
- `secret_consoles`: a RADIUS/TACACS+ server's key in a device's config, a key file printed
  in a terminal's transcript (`$ cat config/master.key`), an IPsec secrets file's PSK;
- `secret_tables`: a delimited export's secret column (CSV, TSV), an interchange segment's
  credential by position (X12 ISA, EDIFACT UNB, HL7 MSH);
- `secret_pairs`: a login's `user / password` in a note, Basic auth's user and password
  given together, a PIN said in prose;
- `secret_commands`: a table of programs and the flags that take a password;
- `secret_runs`: recovery codes under their heading, SNMPv3 passphrases after protocols'
  names, community strings under their names, `user:password` lines;
- `secret_tokens`: a table of token prefixes (`hf_`, `dop_v1_`, `shpat_`, ...);
- `secret_keys`: private key blocks and bare runs of key-body lines;
- `secret_parts`: a secret written in parts and joined (`token = a + b`, `"${A}${B}"`).
The structural, block, shape and command rules also read two views of the text
(`secret_views.joined_view`: continued lines and split string literals joined;
`escapes.unescaped_view`: a notebook's escaped strings), mapped back to the text's offsets.

A linear prefilter (`secret_prefilter`) runs first: an RE2 set says which detectors can find
anything at all, and the detectors read only the lines their triggers match and the context
their rules reach. `find_secrets(text, prefilter=False)` reads the whole text: the same
findings (a property test holds them equal over the corpora).
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from helix.core.escapes import unescaped_changes
from helix.core.secret_blocks import block_findings
from helix.core.secret_commands import command_findings
from helix.core.secret_examples import without_examples
from helix.core.secret_gates import (
    CONTEXT_AFTER,
    CONTEXT_BEFORE,
    GATED,
    MIN_KNOWN_VALUE,
    Finding,
    gate,
    looks_password,
    looks_secret,
    shannon_entropy,
)
from helix.core.secret_keys import key_findings
from helix.core.secret_literals import literal_spans
from helix.core.secret_lookalikes import PUBLISHABLE_PREFIXES, empty_key_block
from helix.core.secret_parts import part_findings
from helix.core.secret_places import place_findings
from helix.core.secret_plugins import format_findings, format_kinds, line_findings
from helix.core.secret_prefilter import RULES, Windows, all_detectors, plan
from helix.core.secret_refs import referenced
from helix.core.secret_shapes import shape_findings
from helix.core.secret_structure import structural_findings
from helix.core.secret_tokens import filler, token_findings
from helix.core.secret_urls import key_urls
from helix.core.secret_values import lone_token, recurring_secret
from helix.core.secret_views import joined_changes
from helix.core.secret_windows import compact, map_back

__all__ = [
    "REDACTED",
    "Finding",
    "find_secrets",
    "find_secrets_and_values",
    "looks_password",
    "looks_secret",
    "mask_values",
    "masked",
    "redact_text",
    "shannon_entropy",
]

REDACTED = "[REDACTED:{kind}]"
_GUESSED = "high_entropy"  # the kinds found by shape alone

# (kind, pattern, group): specific formats first, so a token in `token = "ghp_..."` is counted
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
    # an app access token: the app's ID, `|`, its secret or a signature (Facebook/Meta Graph)
    ("facebook_app_token", re.compile(r"\b[0-9]{15,16}\|(?=[A-Za-z_\-]*[0-9])"
                                      r"(?=[0-9_\-]*[A-Za-z])[A-Za-z0-9_\-]{26,43}\b"), 0),
    # an Ably key: the app's ID, `.`, the key's ID, `:`, the key's secret
    ("ably_key", re.compile(r"\b[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{6}:[A-Za-z0-9_\-]{43}\b"), 0),
    # X's (Twitter's) app-only bearer token: 21 A's, then the token URL-encoded (a `%3D` in
    # it: not base64's run of zeros)
    ("twitter_bearer_token", re.compile(r"\bA{21}(?=[A-Za-z0-9]{1,100}%[0-9A-F]{2})"
                                        r"[A-Za-z0-9%]{50,}"), 0),
    # an Airtable personal access token: `pat`, the token's ID, `.`, its secret (64 hex)
    # (`pat` first, its word's start checked behind it: a leading literal is a fast scan)
    ("airtable_token", re.compile(r"pat(?<!\wpat)[A-Za-z0-9]{14}\.[0-9a-f]{64}\b"), 0),
    ("bearer_token", re.compile(r"(?i)\bbearer[ \t]+([A-Za-z0-9\-._~+/]{16,}=*)"), 1),
    ("aws_secret_key", re.compile(
        r"(?i)aws_?secret_?access_?key[ \t]*[:=][ \t]*[\"']?([A-Za-z0-9/+=]{40})"), 1),
    # (a password may hold an unescaped `@`: the user info ends at the authority's last `@`)
    ("url_password", re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://([^\s:/@\"'`]+:[^\s/@\"'`]+"
                                r"(?:@[^\s/@\"'`]+)*)@"), 1),
    ("command_password", re.compile(  # -pSECRET: attached, a password whatever it reads like
        r"\b(?:mysql\w*|mariadb\w*|sshpass|mongo\w*|redis-cli)\b[^\n|;&]*?"
        r"[ \t]-[pa]([^\s\-'\"`][^\s'\"`]*[^\s'\"`,;.)])"), 1),
    ("command_password_spaced", re.compile(
        r"\b(?:mysql\w*|mariadb\w*|sshpass|mongo\w*|redis-cli)\b[^\n|;&]*?"
        r"[ \t]-[pa][ \t]+([^\s\-'\"][^\s'\"]*)"), 1),
    ("command_password", re.compile(r"(?i)--(?:password|passwd|pass|secret|token|api-key)"
                                    r"(?:=|[ \t]+)([\"']?)([^\s\"'`]*[^\s\"'`,;.)])\1"), 2),
)
# kinds whose value must read like a secret (the formats above are specific enough alone)

# Literals a rule's match must contain (any one): a rule whose literals are all absent from
# the text is not run (`in` is a fast scan; a regular expression with a leading \b is not).
_RULE_LITERALS: dict[str, tuple[str, ...]] = {
    "aws_access_key": ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA", "ABIA",
                       "ACCA"),
    "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab_token": ("glpat-",), "anthropic_key": ("sk-ant-",), "openai_key": ("sk-",),
    "stripe_key": ("_live_", "_test_"), "slack_token": ("xox",),
    "slack_webhook": ("hooks.slack.com",), "facebook_app_token": ("|",),
    "google_api_key": ("AIza",), "jwt": ("eyJ",), "twitter_bearer_token": ("A" * 21,),
    "ably_key": (":",), "airtable_token": ("pat",),
    "bearer_token": ("earer", "EARER"), "aws_secret_key": ("ecret", "ECRET"),
    "url_password": ("://",), "command_password_spaced": ("mysql", "mariadb", "sshpass",
                                                          "mongo", "redis-cli"),
}

# What a rule's match must hold where its literal is common (`:` and `://` in most code): a
# pattern that starts with a literal, searched fast, before the rule's own that starts with a
# class tried at every character
_RULE_HINTS: dict[str, re.Pattern[str]] = {
    "ably_key": re.compile(r"\.[A-Za-z0-9_\-]{6}:[A-Za-z0-9_\-]{43}"),
    "url_password": re.compile(r"://[^\s:/@\"'`]+:[^\s/@\"'`]+@"),
}


def _may_match(kind: str, pattern: re.Pattern[str], text: str) -> bool:
    if kind == "command_password":
        literals = ("--",) if pattern.pattern.startswith("(?i)--") else _RULE_LITERALS[
            "command_password_spaced"]
    else:
        literals = _RULE_LITERALS.get(kind, ("",))
    if not any(literal in text for literal in literals):
        return False
    hint = _RULE_HINTS.get(kind)
    return hint is None or hint.search(text) is not None


def _regex_findings(text: str) -> Iterator[Finding]:
    for kind, pattern, group in _REGEX_RULES:
        if not _may_match(kind, pattern, text):
            continue
        for match in pattern.finditer(text):
            value = match.group(group)
            if not value or value.startswith("[REDACTED") or filler(value):
                continue
            if kind in GATED:
                quoted = group == 2 and kind == "assignment"
                line = text[text.rfind("\n", 0, match.start()) + 1: match.end()]
                if not gate(kind, value, line, quoted):
                    continue
            yield Finding(match.start(group), match.end(group), kind.removesuffix("_spaced"))



def _regions(view: str, changed: list[int]) -> list[tuple[int, int]]:
    """The lines of a view around the places it differs from the text (a joint, an escape),
    as far as the rules read around a line: only there can the view hold another finding."""
    out: list[tuple[int, int]] = []
    for at in changed:
        start = view.rfind("\n", 0, at) + 1
        for _ in range(CONTEXT_BEFORE):
            if start == 0:
                break
            start = view.rfind("\n", 0, start - 1) + 1
        end = view.find("\n", at)
        for _ in range(CONTEXT_AFTER):
            if end == -1:
                break
            end = view.find("\n", end + 1)
        end = len(view) if end == -1 else end
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _rules(text: str, detectors: frozenset[str]) -> list[tuple[int, int, str]]:
    """The rules that read lines as code and config are written."""
    return [*(structural_findings(text) if "structure" in detectors else ()),
            *(place_findings(text) if "structure" in detectors else ()),
            *(block_findings(text) if "blocks" in detectors else ()),
            *(shape_findings(text) if "shapes" in detectors else ()),
            *(command_findings(text) if "commands" in detectors else ())]


def _view_findings(text: str, detectors: frozenset[str]) -> list[Finding]:
    """The line rules on the text, and on its views around where they differ from it (a
    notebook's escaped strings, continued lines), in the text's offsets."""
    found = [Finding(*f) for f in _rules(text, detectors)]
    for changes in (unescaped_changes(text), joined_changes(text)):
        if changes is None:
            continue
        view, offsets, changed = changes
        for region_start, region_end in _regions(view, changed):
            for start, end, kind in _rules(view[region_start:region_end], detectors):
                start, end = start + region_start, end + region_start
                if end > start:
                    found.append(Finding(offsets[start], offsets[end - 1] + 1, kind))
    return found


def _early(text: str, detectors: frozenset[str]) -> list[Finding]:
    """The detectors that come before the line rules: private keys, the regular expressions
    above, token prefixes."""
    found: list[Finding] = []
    if "keys" in detectors:
        found += key_findings(text)
    if "regex" in detectors:
        found += _regex_findings(text)
    if "tokens" in detectors:
        found += (Finding(*f) for f in token_findings(text))
    return found


def _late(text: str, detectors: frozenset[str]) -> list[Finding]:
    """The detectors that come after the line rules: detect-secrets' formats, its keyword and
    entropy detectors."""
    found: list[Finding] = []
    kinds = [k for k in format_kinds() if f"format:{k}" in detectors]
    if kinds:
        found += format_findings(text, kinds)
    if "lines" in detectors:
        found += line_findings(text)
    return found


def _detect(text: str, detectors: frozenset[str]) -> list[Finding]:
    """Every detector of `detectors`, in priority order (the specific formats first)."""
    return [*_early(text, detectors), *_view_findings(text, detectors),
            *_late(text, detectors)]


Detector = Callable[[str, frozenset[str]], list[Finding]]


def _in_pieces(text: str, pieces: Windows, detect: Detector,
               detectors: frozenset[str]) -> list[Finding]:
    """`detect` on the text, or on its pieces joined, in the text's offsets."""
    if pieces.whole:
        return detect(text, detectors)
    joined, compact_starts, starts = compact(text, pieces.spans)
    found = []
    for start, end, kind in detect(joined, detectors):
        start, end = map_back(start, end, compact_starts, starts, pieces.spans)
        if end > start:
            found.append(Finding(start, end, kind))
    return found


_SURROGATE = re.compile("[\ud800-\udfff]")


def _scannable(text: str) -> str:
    """The text RE2 can read: a lone surrogate (a byte a file's decoding escaped) becomes
    U+FFFD, one character for one, so the findings' offsets are those of `text`."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def find_secrets(text: str, *, prefilter: bool = True) -> list[Finding]:
    """Every secret span in `text`, sorted by start, overlapping findings merged (the first
    rule's kind wins: the specific formats come first). `prefilter=False` runs every detector
    on the whole text (what the prefilter must agree with)."""
    if not text:
        return []
    text = _scannable(text)
    lone = lone_token(text)  # a key file: the whole text is the key (after every other rule)
    alone = [Finding(*lone, "secret_file")] if lone is not None else []
    if not prefilter:
        alone += (Finding(*f) for f in part_findings(text, find_secrets))  # a secret in parts
        return _recurrences(text, _encoded(text, _public(text, _merge(
            [*_detect(text, all_detectors()), *alone]))))
    chosen = plan(text)
    named = (chosen.rules.spans if chosen is not None and "structure" in chosen.detectors
             else ())
    alone += (Finding(*f) for f in part_findings(text, find_secrets, named))
    if chosen is None:
        return _recurrences(text, _encoded(text, _public(text, alone))) if alone else []
    pieces = Windows(chosen.windows, chosen.whole)
    rules = chosen.detectors & RULES
    return _recurrences(text, _encoded(text, _public(text, _merge([
        *_in_pieces(text, pieces, _early, chosen.detectors),
        *(_in_pieces(text, chosen.rules, _view_findings, rules) if rules else ()),
        *_in_pieces(text, pieces, _late, chosen.detectors), *alone]))))


# the encoding a value names before itself (Laravel's `APP_KEY=base64:...`): part of the value
_ENCODINGS = ("base64:",)


def _encoded(text: str, found: list[Finding]) -> list[Finding]:
    """The findings, each grown over an encoding's name before it (a URL's lone key: its URL)."""
    if not found or not any(encoding in text for encoding in _ENCODINGS):
        return _merge(key_urls(text, found)) if found else found
    out = []
    for start, end, kind in key_urls(text, found):
        for encoding in _ENCODINGS:
            if text.startswith(encoding, start - len(encoding)) and start >= len(encoding):
                start -= len(encoding)
        out.append(Finding(start, end, kind))
    return _merge(out)


# A block of public material (a certificate, a public key, a signature, a CSR): its body is
# high-entropy base64, and no secret
_PUBLIC_BLOCK = re.compile(r"-----BEGIN ((?:(?!PRIVATE)[A-Z0-9 ])+)-----.*?-----END \1-----",
                           re.S)
_GUESSED_KINDS = ("high_entropy_base64", "high_entropy_hex", "private_key")
# Bitnami's SealedSecret `encryptedData` value: the cluster's key sealed it (base64, `Ag...`)
_SEALED_CIPHERTEXT = re.compile(r"Ag[A-Za-z0-9+/]{100,}={0,2}")


def _public(text: str, found: list[Finding]) -> list[Finding]:
    """The findings less documented examples, references (`secret_refs`), public guesses."""
    found = referenced(text, found)
    found = without_examples(text, found) if found else found
    if found and ("PRIVATE" in text or "pk." in text):
        found = [f for f in found if not _no_secret(text, f)]
    if found and "SealedSecret" in text:  # a sealed secret's ciphertext: safe to commit
        found = [f for f in found if not _SEALED_CIPHERTEXT.fullmatch(text, f.start, f.end)]
    if not found or "-----BEGIN" not in text:  # (no finding first: `in` reads the text)
        return found
    blocks = [m.span() for m in _PUBLIC_BLOCK.finditer(text)
              if not any(word in m.group(1) for word in ("PRIVATE", "SEED", "SECRET"))]
    if not blocks:
        return found
    return [f for f in found if not (f.kind in _GUESSED_KINDS and any(
        start <= f.start and f.end <= end for start, end in blocks))]


def _no_secret(text: str, found: Finding) -> bool:
    """A found value that is none by what it is (`secret_lookalikes`): a private key's markers
    with no body, a token after a publishable key's prefix."""
    value = text[found.start:found.end]
    return ((found.kind == "private_key" and empty_key_block(value))
            or any(text.startswith(prefix, found.start - len(prefix))
                   for prefix in PUBLISHABLE_PREFIXES))


def _recurrences(text: str, found: list[Finding]) -> list[Finding]:
    """The findings and every other occurrence of their values in the text: a value is a
    secret wherever it recurs (a log line repeating a key, a value quoted twice), though only
    one place said so; not a value found by its entropy alone (a guess, not a place), nor one
    that reads as an identifier (`secret_values.recurring_secret`).
    One RE2 pass over the text for all the values (longest first; `secret_literals`)."""
    kinds: dict[str, str] = {}
    for start, end, kind in found:
        value = text[start:end]
        if (len(value) >= MIN_KNOWN_VALUE and not kind.startswith(_GUESSED)
                and "\n" not in value and "[REDACTED" not in value and recurring_secret(value)):
            kinds.setdefault(value, kind)
    if not kinds:
        return found
    values = sorted(kinds, key=lambda v: (-len(v), v))
    known = {(start, end) for start, end, _ in found}
    extra = [Finding(start, end, kinds[text[start:end]])
             for start, end in literal_spans(text, values) if (start, end) not in known]
    return _merge([*found, *extra]) if extra else found


KNOWN_KIND = "api_key"


def find_secrets_and_values(text: str, values: Iterable[str]) -> list[Finding]:
    """`find_secrets`, and every occurrence of the given values (the keys this process holds:
    a provider may echo one in its error body)."""
    held = [Finding(at, at + len(value), KNOWN_KIND)
            for value in sorted({v for v in values if len(v) >= MIN_KNOWN_VALUE})
            for at in _all(text, value)]
    return _merge(held + find_secrets(text)) if held else find_secrets(text)


def _all(text: str, value: str) -> Iterator[int]:
    at = text.find(value)
    while at != -1:
        yield at
        at = text.find(value, at + len(value))


def masked(text: str, findings: Iterable[Finding], start: int = 0,
           end: int | None = None) -> str:
    """`text[start:end]` with the parts of `findings` in it masked."""
    end = len(text) if end is None else end
    parts: list[str] = []
    at = start
    for f_start, f_end, kind in findings:
        if f_end <= at or f_start >= end:
            continue
        parts += [text[at:max(at, f_start)], _mask(kind, text[max(at, f_start):min(f_end, end)])]
        at = min(f_end, end)
    parts.append(text[at:end])
    return "".join(parts)


def mask_values(text: str, values: Iterable[str]) -> tuple[str, Counter[str]]:
    """The text with every detected credential and every occurrence of the given values
    masked, and counts by kind."""
    findings = find_secrets_and_values(text, values) if text else []
    return masked(text, findings), Counter(f.kind for f in findings)


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
    """The findings in priority order, each overlapping group merged into one span with the
    kind of the earliest accepted of them (an accepted span replaced by a merge counts as
    accepted when the merge is). The accepted spans never overlap, so they are kept sorted by
    start and the ones a finding overlaps are a run found by bisection."""
    starts: list[int] = []  # the accepted spans' starts, sorted
    spans: list[tuple[int, int, int, str]] = []  # (start, end, order accepted, kind)
    order = 0
    for start, end, kind in found:
        if end <= start:
            continue
        low = bisect.bisect_left(starts, start)
        if low > 0 and spans[low - 1][1] > start:
            low -= 1  # the span before starts earlier and reaches into this one
        high = bisect.bisect_left(starts, end, low)
        if high > low:  # spans[low:high] overlap the finding
            run = spans[low:high]
            kind = min(run, key=lambda span: span[2])[3]
            start, end = min(start, run[0][0]), max(end, run[-1][1])
        spans[low:high] = [(start, end, order, kind)]
        starts[low:high] = [start]
        order += 1
    return [Finding(start, end, kind) for start, end, _, kind in spans]
