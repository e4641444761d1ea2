"""The secret scan's linear prefilter: one RE2 set pass says which detectors can find anything
in a text, one RE2 pass finds the lines that can hold a finding, and the detailed detectors run
only on those lines and the context their rules read (a few lines around, a YAML block, lines
continued with `\\`, a private key's body).

    plan(text) -> Plan(detectors, windows) | None   (None: nothing can be found)
    (`secret_windows.compact` joins the windows, `map_back` maps a span back)

Contract, checked by a property test over the corpora (find_secrets with and without the
prefilter agree): every finding of a detector lies on a line matching one of its triggers, or
within its rules' reach of one (CONTEXT_BEFORE/CONTEXT_AFTER lines, a block under a line
ending in `:`/`|`/`>` up to BLOCK_LINES, a key block up to KEY_BLOCK_LINES, continued
lines). A trigger is an RE2 pattern: linear in the text whatever it holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

import re2

from helix.core.english import word_alternation
from helix.core.secret_blocks import YAML_KEY, secret_block_opener
from helix.core.secret_calls import BUILD_TRIGGER, CALL_TRIGGER, LITERAL_TRIGGER, RESOURCE_TRIGGER
from helix.core.secret_commands import programs
from helix.core.secret_consoles import reads_below
from helix.core.secret_gates import (
    BLOCK_LINES,
    CONTEXT_AFTER,
    CONTEXT_BEFORE,
    DENSE_FRACTION,
    DFA_MEMORY,
    KEY_BLOCK_LINES,
)
from helix.core.secret_grouped import grouped_line
from helix.core.secret_hl7 import HL7_LINES
from helix.core.secret_joins import JOIN_BEFORE, reads_above
from helix.core.secret_names import BARE_KEY, FOREIGN_NAME_FORMS, LOGIN_WORDS, VENDOR_KEY_NAMES
from helix.core.secret_places import AT_TRIGGER
from helix.core.secret_re2 import line_spans
from helix.core.secret_recalled import RECALLED_WORDS
from helix.core.secret_rules import rules
from helix.core.secret_runs import CODES_BELOW, runs_below
from helix.core.secret_shapes import SHAPE_TRIGGERS
from helix.core.secret_tables import INDENTS, rows_end
from helix.core.secret_tokens import prefixes

# The words of secret names, as a rule can use them: `pass` as a name's part (db_pass, passwd;
# not the `pass` statement), `key` after the words making it a secret (api_key, private key)
# or ending a name (stripe_key: a vendor's key when its value reads random), `sig` a word.
KEYWORDS = (r"(?i)pass(?:w|phrase|code|[_\-:.])|[a-z0-9_.\-]pass\b|"
            r"\bpass\b(?:\[[0-9]*\])?[\"'\]]?[ \t]*[:=>]|"
            r"pwd|pw\b|secret|token|auth|cred|salt|bearer|contras|"
            r"login|identified|\bpins?\b|[_.\-]pin\b|hmac|[_.\-]cert(?:ificate)?\b|"
            r"access[_.\-]?id|bundle_[a-z0-9_]*__|psk|sess(?:ion)?[_.\-]?id|appid|\bsid\b|[_.\-]pat\b|"
            r"(?:mnemonic|seed|phrase|words)[\"']?[ \t]*[:=][ \t]*[\"']?"
            r"[a-z]{3,8}[ \t,]+[a-z]{3,8}[ \t,]|"
            r"(?:api|auth|service|account|db|database|priv|private|client|access|secret|deploy|"
            r"signing|licen[cs]e|recovery|master|session|encryption|cloudant|clou|cl|softlayer|"
            r"sl|ibm|iam|cloud|storage|shared|x)[_.\- ]?key|key[_.\-]?pass|[?&;]key=|"
            r"(?:^|[^a-z])sig(?:[^a-z]|$)|signature|[a-z0-9][_.\-]?keys?[0-9]?"
            r"(?:[_.\-](?:hex|b64|base64|b32|base32|pem|raw))?\b")
NAMED = ("structure", "blocks", "shapes", "lines", "regex")
# (trigger, the detectors it can wake): see each detector's module for what it reads
_STATIC: tuple[tuple[str, tuple[str, ...]], ...] = (
    (KEYWORDS, NAMED),
    (BARE_KEY, ("structure",)),
    # names that hold a secret without a secret word in them
    (rf"(?i){word_alternation(VENDOR_KEY_NAMES)}", ("structure",)),
    # "password" and "token" in other languages as a name writes them (`kennwort = `,
    # `senha:`, `пароль=`): the ASCII spellings case-blind, the others as written
    (rf"(?i){word_alternation(tuple(n for n in FOREIGN_NAME_FORMS if n.isascii()))}",
     ("structure",)),
    (word_alternation(tuple(f for n in FOREIGN_NAME_FORMS if not n.isascii()
                            for f in sorted({n, n.capitalize(), n.upper()}))), ("structure",)),
    (r"(?i)cl(?:oudant|ou)?[_-]?(?:api)?(?:key|pwd|pw|pass|token)|cloudant\.com",
     ("format:cloudant_key",)),
    (r"(?i)secret[-_]?(?:access)?[-_]?key", ("format:ibm_cos_hmac_key",)),
    (r"(?i)(?:softlayer|sl)[_-]?(?:api)?[_-]?(?:key|pwd|pass|token)|api\.softlayer\.com",
     ("format:softlayer_key",)),
    (r"(?i)aws.{0,20}?(?:key|pwd|pw|pass|token)", ("format:aws_access_key",)),
    (r"://", ("regex", "format:url_password", "structure", "shapes", "format:slack_token",
              "format:cloudant_key", "format:softlayer_key")),
    (r"-----BEGIN|PuTTY-User-Key-File", ("keys",)),
    (r"[\"'][A-Za-z0-9+/\\_=-]{20,}", ("lines",)),
    # a long run of token characters: a bare high-entropy token, a key body line (40), and
    # the plugins' long values (Twilio 34, Mailchimp 32+, Telegram 35, IBM Cloud IAM 44)
    # (and an Airtable token's 64 hex: the regular expressions)
    (r"[A-Za-z0-9+/_-]{32,}", ("lines", "keys", "format:twilio_key", "format:mailchimp_key",
                               "format:telegram_token", "format:ibm_cloud_iam_key", "regex")),
    (r"AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA|A3T[A-Z0-9]",
     ("regex", "format:aws_access_key")),
    (r"gh[pousr]_|github_pat_", ("regex", "format:github_token")),
    (r"gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-|GR1348941",
     ("regex", "format:gitlab_token")),
    (r"sk-", ("regex", "format:openai_key")),
    (r"[sr]k_(?:live|test)_", ("regex", "format:stripe_key")),
    (r"xox", ("regex", "format:slack_token")),
    (r"hooks\.", ("regex", "format:slack_token", "structure")),
    (r"AIza", ("regex",)),
    (r"[0-9]{15}\|", ("regex",)),
    (r"eyJ", ("regex", "format:jwt")),
    (r"(?i)mysql|mariadb|sshpass|mongo|redis-cli|htpasswd", ("regex", "structure")),
    (r"(?:^|\s)(?:-u|--user|--proxy-user|-U|-p)(?:\S|\s)", ("structure",)),
    (r"(?i)[?&;]code=|webhook|chat\.googleapis\.com|api\.telegram\.org/bot|discord|"
     r"open-apis/bot|dingtalk|qyapi\.weixin|ifttt\.com|loggly\.com|hc-ping\.com|/hooks/|"
     r"(?:make|integromat)\.com/|/api/push/|backtrace\.io/",
     ("structure",)),
    (AT_TRIGGER, ("structure",)),  # a modem's AT command setting its connection's password
    (r"\t(?:TRUE|FALSE)\t", ("shapes",)),  # a cookie jar's line
    (rf"(?i){word_alternation(LOGIN_WORDS)}", ("shapes",)),  # a login's word
    (r"accès|Accès|ACCÈS", ("shapes",)),  # (outside ASCII: its cases spelled out)
    # a user name that may be an API key beside its secret (`secret_shapes._paired_users`)
    # (case spelled out and a short run: the plain set's DFA, not the counted one's)
    (r"[Uu][Ss][Ee][Rr](?:[Nn][Aa][Mm][Ee])?[\"']?[ \t]*[:=][ \t]*[\"']?[A-Z0-9]{8}",
     ("shapes",)),
    (r"_pw_set[ \t]*\(", ("shapes",)),  # a client's user and password set (MQTT)
    (CALL_TRIGGER, ("shapes",)),  # a call opening a client, a literal among its arguments
    (BUILD_TRIGGER, ("shapes",)),  # a client built by position (a constructor, an SDK's)
    (LITERAL_TRIGGER, ("shapes",)),  # a long literal as an argument (a key passed to one)
    (RESOURCE_TRIGGER, ("shapes",)),  # a keystore's or a JDBC URL's password beside it
    *((trigger, ("shapes",)) for trigger in SHAPE_TRIGGERS),  # (secret_shapes: each's rule)
    (r"\.[A-Za-z0-9_\-]{6}:[A-Za-z0-9_\-]{43}", ("regex",)),  # an Ably key
    (r"LS0tLS1CRUdJTi", ("keys",)),  # a PEM block in base64 (a kubeconfig's key data)
    (r"(?:^|[\s=:\"])(?:AKC|AP[0-9A-F])[a-zA-Z0-9]{4}", ("format:artifactory_token",)),
    (r"AccountKey=", ("format:azure_storage_key",)),
    (r"[MNO][a-zA-Z0-9_-]{23,25}\.[a-zA-Z0-9_-]{6}\.[a-zA-Z0-9_-]{27}",
     ("format:discord_token",)),
    (r"_authToken=", ("format:npm_token",)),
    (r"pypi-AgE", ("format:pypi_token",)),
    (r"SG\.", ("format:sendgrid_key",)),
    (r"sq0csp-", ("format:square_oauth",)),
    (r"(?m)^[ \t]*[\w.*\-\[\]]+:(?:\d{1,5}|\*):[\w.*\-]+:[\w.*\-@]+:\S", ("shapes",)),
    (r"(?i)jdbc:oracle:|@(?:tcp|unix|udp)\(", ("shapes",)),
)
_KEY_BEGIN = re.compile(r"-----BEGIN[A-Z0-9 ]*(?:PRIVATE KEY|SEED)|PuTTY-User-Key-File|"
                        r"-----BEGIN OpenVPN Static key")
_KEY_LINE = re.compile(r"[ \t]*(?:[A-Za-z0-9+/]+={0,2}|[A-Za-z][A-Za-z\-]*: [^\n]*|-----END[^\n]*)?"
                       r"[ \t]*\r?")
# A trigger line that opens a value the next lines hold: a YAML/JSON/INI key with nothing after
# it (`password:`, `"password":`, `secret: |`, `secrets =`), a line ending in `[` `(` `+` `\\`
# `>` `=` or a triple quote, or one naming a pair (`- name: X`, `<name>`, `variable "x" {`).
_OPENS = re.compile(r"(?:[\[(+\\>=]|\"\"\"|\'\'\')[ \t]*\r?$")
_PAIR_MARKER = re.compile(r"(?i)\b(?:name|key|variable|id|env)[\"']?[ \t]*[:=]|<(?:name|key)>|"
                          r"\bvariable[ \t]+\"")
# what `_PAIR_MARKER` or a key body needs (`_pair_hint`: `in` is cheaper than an alternation)
_HINT_WORDS = ("name", "key", "variable", "env", "begin")
_MARKER_WORDS = ("name", "key", "variable", "id", "env")  # one in each `_PAIR_MARKER` match
_ID_WORD = re.compile(r"(?i)\bid\b")
_LONG_RUN = re.compile(r"[A-Za-z0-9+/]{40}")
_KEY_ENDS = frozenset(":=|>-+0123456789")  # what a YAML key line may end with (or a comment)
_CLOSES_QUOTE = re.compile(r"[\"'][ \t]*\r?$")  # a literal the next line may continue
_BODY = re.compile(r"[ \t]*[A-Za-z0-9+/]{40,}={0,2}[ \t]*\r?")  # a key body line
_COUNTED = re.compile(r"\{\d{2,}")  # a trigger with a long counted repetition
_RESOURCE = re.compile(RESOURCE_TRIGGER)  # a keystore's or JDBC URL's literal (secret_calls)


# The detectors that read lines as code and config are written (and the text's views): the
# costliest per character, they read only the windows of the lines their own triggers match.
RULES = frozenset({"structure", "blocks", "shapes", "commands"})


@dataclass(frozen=True)
class Windows:
    spans: tuple[tuple[int, int], ...]  # (start, end) of line-aligned pieces, sorted
    whole: bool  # the pieces hold most of the text: read it whole (spans: the whole text)


@dataclass(frozen=True)
class Plan:
    detectors: frozenset[str]
    windows: tuple[tuple[int, int], ...]  # (start, end) of line-aligned pieces, sorted
    whole: bool  # the windows hold most of the text: read it whole (windows: the whole text)
    rules: Windows  # the pieces the RULES detectors read (of their triggers' lines only)


@dataclass(frozen=True)
class _Triggers:
    patterns: tuple[str, ...]
    owners: tuple[tuple[str, ...], ...]
    groups: tuple[tuple[tuple[int, ...], object], ...]  # (pattern ids, their RE2 set)
    wide: tuple[int, ...]  # the triggers outside ASCII (their own group)


def _options() -> object:
    options = re2.Options()
    options.max_mem = DFA_MEMORY
    options.log_errors = False
    return options


@cache
def _triggers() -> _Triggers:
    entries = list(_STATIC)
    starts = {t.prefix for t in rules().tokens if t.prefix[0].isalnum() and not t.infix}
    words = sorted(starts, key=len, reverse=True)  # a token starts a word: `\b` before it
    others = sorted(set(prefixes()) - starts, key=len, reverse=True)
    entries.append((r"\b(?:" + "|".join(re.escape(p) for p in words) + ")|"
                    + "|".join(re.escape(p) for p in others), ("tokens",)))
    # prose naming a secret in another language (`mot de passe :`, `パスワード:`), its cases
    # spelled out: a case-blind set of words outside ASCII outgrows the DFA's cache
    foreign = sorted({form for n in rules().prose_names if re.search(KEYWORDS, n) is None
                      for form in (n, n.capitalize(), n.title(), n.upper())})
    plain_forms = sorted({n.lower() for n in foreign if n.isascii()})
    if plain_forms:  # ASCII: one case-blind set of words is cheap
        entries.append(("(?i)" + "|".join(re.escape(n) for n in plain_forms), ("shapes",)))
    wide_forms = [n for n in foreign if not n.isascii()]
    if wide_forms:
        entries.append(("|".join(re.escape(n) for n in wide_forms), ("shapes",)))
    names = "|".join(re.escape(p) for p in sorted(programs(), key=len, reverse=True))
    entries.append((rf"(?:^|[\s/(`'\"|;&])(?:{names})(?:\.exe)?[ \t]", ("commands",)))
    # Three sets: a DFA for the long counted runs (`{20,}`), one for the case-blind words and
    # one for the literal formats stay small apart; together their product outgrows the DFA's
    # cache (the words and the formats in one set cost twice their passes apart). A fourth
    # holds the words outside ASCII (`accès`, `hasło`): its pass only over a text outside ASCII.
    counted = tuple(i for i, (p, _) in enumerate(entries) if _COUNTED.search(p))
    wide = tuple(i for i, (p, _) in enumerate(entries) if i not in counted and not p.isascii())
    blind = tuple(i for i, (p, _) in enumerate(entries)
                  if i not in counted and i not in wide and p.startswith("(?i)"))
    plain = tuple(i for i in range(len(entries))
                  if i not in counted and i not in blind and i not in wide)
    groups = []
    for ids in (blind, plain, counted, wide):
        if not ids:
            continue
        search_set = re2.Set.SearchSet(_options())
        for i in ids:
            search_set.Add(entries[i][0])
        search_set.Compile()
        groups.append((ids, search_set))
    return _Triggers(tuple(p for p, _ in entries), tuple(o for _, o in entries), tuple(groups),
                     wide)


@cache
def _rule_triggers() -> tuple[tuple[int, ...], ...]:
    """The triggers that wake a RULES detector, by trigger group (one pass each)."""
    triggers = _triggers()
    ids = {i for i, owners in enumerate(triggers.owners) if RULES.intersection(owners)}
    return tuple(group for group in (tuple(i for i in group_ids if i in ids)
                                     for group_ids, _ in triggers.groups) if group)


def all_detectors() -> frozenset[str]:
    return frozenset(name for owners in _triggers().owners for name in owners)


@lru_cache(maxsize=256)
def _line_pattern(ids: tuple[int, ...]) -> object:
    """One RE2 pattern matching a trigger (no `[^\n]*` to the line's end: RE2 finds a match's
    start with a reverse DFA run back from its end, over the whole line and its own states)."""
    patterns = _triggers().patterns
    return re2.compile("|".join(f"(?:{patterns[i]})" for i in ids), options=_options())


def _back(text: str, start: int, count: int) -> int:
    for _ in range(count):
        if start == 0:
            break
        start = text.rfind("\n", 0, start - 1) + 1
    return start


def _next_end(text: str, end: int) -> int | None:
    """The end of the line after the one ending at `end`, None at the text's end."""
    if end >= len(text):
        return None
    following = text.find("\n", end + 1)
    return len(text) if following == -1 else following


def _forward(text: str, end: int, count: int) -> int:
    for _ in range(count):
        following = _next_end(text, end)
        if following is None:
            break
        end = following
    return end


def _indent(line: str) -> int | None:
    stripped = line.lstrip(" \t")
    return None if not stripped.strip() else len(line) - len(stripped)


def _extend(text: str, line_start: int, line_end: int, end: int) -> int:
    """A window's end grown over what the trigger line's rules read past CONTEXT_AFTER."""
    line = text[line_start:line_end]
    if "BEGIN" in line and _KEY_BEGIN.search(line):
        return _grow(text, end, KEY_BLOCK_LINES, lambda ln: bool(_KEY_LINE.fullmatch(ln)))
    key = YAML_KEY.fullmatch(line.rstrip("\r")) if line.rstrip()[-1:] in _KEY_ENDS else None
    if key is not None:  # a block scalar, an INI continuation, a list under the key
        indent = _indent(line) or 0

        def deeper(ln: str) -> bool:
            depth = _indent(ln)
            return depth is None or depth > indent or (
                depth == indent and ln.lstrip().startswith("- "))
        end = max(end, _grow(text, line_end, BLOCK_LINES, deeper))
    end = max(end, rows_end(text, line_start, line_end) or 0) if line[:1] not in INDENTS else end
    return _continued(text, end)  # (a table's header, flush left: its rows below)


def _grow(text: str, end: int, cap: int, keep: object) -> int:
    for _ in range(cap):
        following = _next_end(text, end)
        if following is None or not keep(text[end + 1:following]):  # type: ignore[operator]
            break
        end = following
    return end


def _ends_continued(text: str, end: int) -> bool:
    """The line ending at `end` ends with a backslash."""
    if end > 0 and text[end - 1] == "\r":
        end -= 1
    return end > 0 and text[end - 1] == "\\"


def _continued(text: str, end: int) -> int:
    """Past lines that end in a backslash (the next line continues them)."""
    for _ in range(BLOCK_LINES):
        if not _ends_continued(text, end):
            break
        following = _next_end(text, end)
        if following is None:
            break
        end = following
    return end


def _pair_hint(line: str, lowered: str) -> bool:
    """The line holds a word a pair's marker needs, `id` as a word, or a key body's run."""
    return (any(word in lowered for word in _HINT_WORDS)
            or ("id" in lowered and _ID_WORD.search(line) is not None)
            or (len(line) >= 40 and _LONG_RUN.search(line) is not None))


def _pair_marked(line: str, lowered: str) -> bool:
    """`_PAIR_MARKER` in the line, searched only when the words it needs are there (in an
    ASCII line: outside it a case-blind match and `lower` may disagree, `İ`)."""
    if line.isascii() and not any(word in lowered for word in _MARKER_WORDS):
        return False
    return _PAIR_MARKER.search(line) is not None


def _context(line: str) -> tuple[int, int]:
    """Lines a trigger line's rules may read before and after it: none for most lines; the
    rules' reach for a line that opens a value below it or names a pair (a join: its parts
    above it, a grouped key: the line naming it)."""
    before, after = _reach(line)
    if before < CONTEXT_BEFORE and grouped_line(line):
        return CONTEXT_BEFORE, after
    return before, after


def _reach(line: str) -> tuple[int, int]:
    if reads_above(line):
        return JOIN_BEFORE, 0
    last = line.rstrip()[-1:]
    lowered = line.lower()
    if (last.isalnum() or last in ")];}.!?%*`&$@~^_") and not _pair_hint(line, lowered):
        return 0, _below(line, lowered)  # (most lines: none; a RADIUS block's, an INSERT's)
    if last == "{" and secret_block_opener(line):
        return 0, CONTEXT_AFTER  # `tokens {`: its entries on the lines below
    if last == "," and _RESOURCE.search(line) is not None:
        return 0, CONTEXT_AFTER  # a keystore's or a JDBC URL's literal: its password below
    pair = _pair_marked(line, lowered)
    before = CONTEXT_BEFORE if pair else 0
    if pair or _OPENS.search(line) or YAML_KEY.fullmatch(line.rstrip("\r")):
        return before, CONTEXT_AFTER
    if _BODY.fullmatch(line):
        return before, 2  # a key body's short last line and its END line
    return before, 1 if _CLOSES_QUOTE.search(line) else _below(line, lowered)


def _below(line: str, lowered: str) -> int:
    """Lines below a line opening no value a rule reads: an INSERT's rows, a RADIUS key."""
    if runs_below(lowered):
        return CODES_BELOW  # recovery codes under their heading (a note between)
    if "MSH|" in line:  # (where it starts a line or a literal: `MSG = """MSH|...`)
        return HL7_LINES  # an HL7 message's segments (a login and its password: secret_hl7)
    if "insert" in lowered and "(" in line:
        return CONTEXT_AFTER  # an INSERT's rows
    if any(word in lowered for word in RECALLED_WORDS):
        return max(1, reads_below(line))  # a password said on the next line (secret_recalled)
    return reads_below(line)


def _started(text: str, start: int) -> int:
    """Back over the lines that a backslash continues into this one."""
    for _ in range(BLOCK_LINES):
        if start == 0 or not _ends_continued(text, start - 1):
            break
        start = text.rfind("\n", 0, start - 1) + 1
    return start


def _windows(text: str, starts: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    windows: list[tuple[int, int]] = []
    for line_start, line_end in starts:
        before, after = _context(text[line_start:line_end])
        start = _started(text, _back(text, line_start, before))
        end = _extend(text, line_start, line_end,
                      _continued(text, _forward(text, line_end, after)))
        if windows and start <= windows[-1][1] + 1:
            windows[-1] = (windows[-1][0], max(windows[-1][1], end))
        else:
            windows.append((start, end))
    return windows


def _union_length(spans: list[tuple[int, int]]) -> int:
    """The characters the sorted spans cover together (the windows grown around them cover
    at least these)."""
    total = 0
    reach = 0
    for start, end in spans:
        start = max(start, reach)
        if end > start:
            total += end - start
            reach = end
    return total


def _pieces(text: str, lines: set[tuple[int, int]]) -> Windows:
    """The windows of the trigger lines, or the whole text when they would hold most of it."""
    ordered = sorted(lines)
    if _union_length(ordered) > DENSE_FRACTION * len(text):  # the windows would hold more
        return Windows(((0, len(text)),), True)
    windows = tuple(_windows(text, ordered))
    covered = sum(end - start for start, end in windows)
    return Windows(windows, covered > DENSE_FRACTION * len(text))


def _trigger_lines(text: str, subject: bytes, ids: tuple[int, ...]) -> list[tuple[int, int]]:
    """The trigger lines' (start, end), in `text`'s offsets (`subject`: its UTF-8 bytes)."""
    spans = line_spans(_line_pattern(ids), subject)
    if len(subject) == len(text):  # ASCII: a byte offset is a character offset
        return [(subject.rfind(b"\n", 0, start) + 1, end) for start, end in spans]
    lines = []
    at_byte = at_char = 0  # a line boundary's offset in bytes and in characters
    for match_start, end in spans:
        start = subject.rfind(b"\n", 0, match_start) + 1
        start_char = _chars(subject, at_byte, at_char, start)
        at_byte, at_char = end, _chars(subject, start, start_char, end)
        lines.append((start_char, at_char))
    return lines


def _chars(subject: bytes, at_byte: int, at_char: int, offset: int) -> int:
    """The character offset of the byte `offset` (both on a character's boundary), from a
    known pair: the bytes between decoded (a line or a few: linear over the text)."""
    if offset >= at_byte:
        return at_char + len(subject[at_byte:offset].decode("utf-8"))
    return at_char - len(subject[offset:at_byte].decode("utf-8"))


def plan(text: str) -> Plan | None:
    """Which detectors can find anything in `text`, and on which pieces of it: one RE2 pass
    per trigger group finds the trigger lines, an RE2 set over those lines says which
    detectors they wake; when those lines hold most of the text (a data file whose every line
    wakes the entropy detector), one more pass finds the lines of the RULES' own triggers."""
    triggers = _triggers()
    found: set[int] = set()
    lines: set[tuple[int, int]] = set()
    # the text as UTF-8 bytes: RE2 reads them as they are (a str it encodes again at each
    # search and maps every match's offsets back); the lines' offsets are mapped back once
    subject = text.encode("utf-8")
    ascii_text = len(subject) == len(text)  # no trigger outside ASCII can match
    for group_ids, search_set in triggers.groups:
        if ascii_text and group_ids == triggers.wide:
            continue
        group_lines = _trigger_lines(text, subject, group_ids)
        if not group_lines:
            continue
        lines.update(group_lines)
        matched = search_set.Match("\n".join(text[s:e] for s, e in group_lines))  # type: ignore
        found.update(group_ids[i] for i in matched or ())
    if not found:
        return None
    detectors = frozenset(name for i in found for name in triggers.owners[i])
    pieces = _pieces(text, lines)
    rule_groups = _rule_triggers()  # their own windows only when the others read it whole
    rule_ids = {i for group in rule_groups for i in group}
    rules = (pieces if not pieces.whole or found <= rule_ids or not found.intersection(rule_ids)
             else _pieces(text, {line for group in rule_groups
                                 if not (ascii_text and set(group) <= set(triggers.wide))
                                 for line in _trigger_lines(text, subject, group)}))
    return Plan(detectors, pieces.spans, pieces.whole, rules)
