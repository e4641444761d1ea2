"""Secrets found by the place a value stands in, where no `name = value` names it: a database
or HTTP client's command line (`curl -u user:X`, `mysql -pX`, `sshpass -p X`, `htpasswd -b f u
X`), SQL (`IDENTIFIED BY 'X'`, `WITH PASSWORD 'X'`), an Authorization header wherever it stands,
a URL's query parameter (`?access_token=X`) or a webhook URL, prose that says so (`the
password is: X`), and a cellular modem's AT command setting its data connection's password
(`AT#SGACT=1,1,"user","X"`, `AT+QICSGP=1,1,"apn","user","X",1`, in a C string too).

    place_findings(text) -> [(start, end, kind)]
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from helix.core.secret_gates import (
    CONTEXT_AFTER,
    MIN_CAPABILITY,
    MIN_PASSWORD_LEN,
    MIN_VALUE,
    hinted,
    looks_password,
)
from helix.core.secret_names import name_strength
from helix.core.secret_structure import (
    Found,
    credential_like,
    is_label,
    line_bounds,
    placeholder,
    quoted_value,
    random_token,
)
from helix.core.secret_tokens import filler, placeholder_body

_QUERY = re.compile(r"(?i)[?&;](?:access_token|id_token|refresh_token|token|api_key|apikey|key|"
                    r"sig|signature|secret|client_secret|password|passwd|pwd|auth|code|appid|app_?key|"
                    r"access_key|subscription-key|x-amz-signature|x-goog-signature)="
                    r"([^&\s#\"'<>]{1,4096})")
# URLs that are credentials themselves: whoever holds one can post (a chat's incoming webhook,
# a bot's send URL, a log or crash intake keyed by its path: Loggly's, Backtrace's submission
# URL `https://<universe>.backtrace.io/post/<universe>/<token>`); the whole URL is masked
_WEBHOOK = re.compile(
    r"https://(?:discord(?:app)?\.com/api/webhooks/[0-9]+/|[\w.\-]*webhook\.office\.com/"
    r"webhookb2/|hooks\.zapier\.com/hooks/catch/|"
    r"chat\.googleapis\.com/v1/spaces/|api\.telegram\.org/bot|"
    r"open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/|"
    r"oapi\.dingtalk\.com/robot/send\?access_token=|qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=|"
    r"maker\.ifttt\.com/(?:trigger/[\w\-]{1,80}/(?:json/)?with/)?key/|"
    r"logs-\d{1,3}\.loggly\.com/(?:inputs|bulk)/|hc-ping\.com/|"
    r"[\w\-]{1,63}\.backtrace\.io(?::\d{1,5})?/post/|submit\.backtrace\.io/|"
    r"hook\.(?:[a-z0-9]{2,6}\.)?(?:make|integromat)\.com/|[\w.\-]+/api/push/|"
    r"[\w.\-]+/(?:api/)?(?:webhooks?|hooks)/)([A-Za-z0-9_\-/.%=+:@]{8,4096}"
    r"(?:\?[A-Za-z0-9_\-/.%=+:@&]{1,4096})?)"
    r"|(?<![\w.])((?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/"
    r"[A-Za-z0-9_\-/]{8,4096})")
# what every _WEBHOOK match holds, on its one line (searched first: a literal)
_WEBHOOK_HINT = re.compile(r"https://|hooks\.slack\.com/")
_CURL_USER = re.compile(r"(?:^|\s)(?:-u|--user|--proxy-user|-U)(?:[ \t]+|=)([\"']?)"
                        r"([^\s:\"']{1,200}):([^\s\"']{0,4096})\1")
_SHORT_P = re.compile(r"(?:^|\s)-p(?:(?=[^\s\-])([^\s\"'`]{1,4096})|"
                      r"[ \t]+([\"']?)([^\s\-\"'][^\s\"']{0,4095})\2)")
_LOGIN = re.compile(r"(?i)\blogin\b|sshpass")  # `-p VALUE` (spaced): mysql's `-p db` prompts
_LOGINISH = re.compile(r"(?i)\blogin\b|(?:^|\s)(?:-u\s?\S|--user(?:name)?[=\s])|sshpass|mysql|"
                       r"mariadb|mongo|psql|redis-cli")
_HTPASSWD = re.compile(r"\bhtpasswd[ \t]+((?:-[A-Za-z]+[ \t]+)*-[A-Za-z]*b[A-Za-z]*"
                       r"(?:[ \t]+-[A-Za-z]+)*)[ \t]+(\S+)[ \t]+(\S+)[ \t]+(\S+)")
_PROSE = re.compile(r"(?i)\b(?:password|passphrase|passcode|passwd|pin|secret|api key|token)"
                    r"s? (?:is|was|will be)(?:[ \t]*:[ \t]*|[ \t]+(?=[\"'`]))")
_PROSE_WORDS = ("password", "passphrase", "passcode", "passwd", "pin ", "pins ", "secret",
                "api key", "token")
_SQL = re.compile(r"(?i)\b(?:identified[ \t]+by|password)[ \t]+(['\"])([^'\"\n]{1,4096})\1")
_AUTH_HEADER = re.compile(r"(?i)\b(?:proxy-)?authorization\b[\"']?[ \t]*[:=]?[ \t]*[\"']?"
                          r"(?:basic|bearer|token|digest|negotiate|apikey|ntlm)[ \t]+"
                          r"([A-Za-z0-9+/=._~\-]{3,4096})")
# any other scheme (a vendor's: `Splunk`, `SSWS`, `GenieKey`, `Klaviyo-API-Key`) before an
# issued token (`secret_values.random_token`)
_AUTH_SCHEME = re.compile(r"(?i)\b(?:proxy-)?authorization\b[\"']?[ \t]*[:=]?[ \t]*[\"']?"
                          r"[A-Za-z][A-Za-z0-9\-]{1,40}[ \t]+([A-Za-z0-9+/=._~\-]{16,4096})")


def _commands(text: str) -> Iterator[Found]:
    curl = "-u" in text or "--user" in text or "-U" in text or "--proxy-user" in text
    for match in _CURL_USER.finditer(text) if curl else ():
        value = match.group(3)
        if len(value) >= MIN_VALUE and not placeholder(value):
            yield Found(match.start(2), match.end(3), "command_password")  # user:password
        elif not value and credential_like(match.group(2)) and not placeholder(match.group(2)):
            yield Found(match.start(2), match.end(2) + 1, "command_password")  # API_KEY:
    for match in _SHORT_P.finditer(text) if "-p" in text else ():
        line_start, line_end = line_bounds(text, match.start())
        group = 1 if match.group(1) is not None else 3
        rule = _LOGINISH if group == 1 else _LOGIN
        if not rule.search(text, line_start, line_end):
            continue
        value = match.group(group)
        if value is None or value.isdigit() or len(value) < MIN_VALUE or placeholder(value):
            continue  # `psql -p 5432`: a port
        yield Found(match.start(group), match.end(group), "command_password")
    for match in _HTPASSWD.finditer(text) if "htpasswd" in text else ():
        value = match.group(4)
        if not placeholder(value):
            yield Found(match.start(4), match.end(4), "command_password")


# an INSERT naming its columns (`_inserted`), its rows, a row's cells (a quoted literal or
# any other expression without a comma or parenthesis)
_INSERT = re.compile(r"(?i)\binsert[ \t]+into[ \t]+[^\s(]{1,80}[ \t]*\(([^()]{1,400})\)\s*"
                     r"values\s*")
_ROW = re.compile(r"\s*,?\s*\(((?:'(?:[^'\n]|'')*'|[^'()\n])*)\)")
_CELL = re.compile(r"[ \t]*('(?:[^'\n]|'')*'|[^',]*?)[ \t]*(?:,|$)")


def _sql_and_headers(text: str) -> Iterator[Found]:
    """`IDENTIFIED BY '...'`, `WITH PASSWORD '...'`, and an Authorization header's credential
    wherever it stands (`proxy_set_header Authorization "Basic ..."`, `-H 'Authorization: ...'`)."""
    for match in _SQL.finditer(text):
        value = match.group(2)
        if len(value) >= MIN_VALUE and not placeholder(value):
            yield Found(match.start(2), match.end(2), "assignment")
    for match in _AUTH_HEADER.finditer(text):
        if not placeholder(match.group(1)):
            yield Found(match.start(1), match.end(1), "assignment")
    for match in _AUTH_SCHEME.finditer(text):
        if random_token(match.group(1)) and not placeholder(match.group(1)):
            yield Found(match.start(1), match.end(1), "assignment")


def _inserted(text: str) -> Iterator[Found]:
    """`INSERT INTO users (email, password) VALUES ('a@b.example', 'X'), (...)`: the literal
    in a column whose name holds a password (`name_strength` strong: not `password_hash`), in
    each row; a crypt(3) hash or a placeholder there is none."""
    for match in _INSERT.finditer(text):
        columns = [name_strength(c.strip(" \t\n\"'`[]")) == "strong"
                   for c in match.group(1).split(",")]
        if not any(columns):
            continue
        at = match.end()
        while (row := _ROW.match(text, at)) is not None and text.count(
                "\n", match.start(), row.end()) <= CONTEXT_AFTER:  # (the prefilter's reach)
            cells = _cells(row.group(1))
            if len(cells) == len(columns):
                for cell, secret in zip(cells, columns, strict=True):
                    value = cell.group(1)[1:-1]
                    if (secret and cell.group(1).startswith("'") and looks_password(value)
                            and not value.startswith("$") and not placeholder(value)):
                        start = row.start(1) + cell.start(1) + 1
                        yield Found(start, start + len(value), "assignment")
            at = row.end()


def _cells(row: str) -> list[re.Match[str]]:
    """A row's cells, left to right (each up to its comma, the last to the row's end)."""
    cells = []
    at = 0
    while at <= len(row) and (cell := _CELL.match(row, at)) is not None:
        cells.append(cell)
        if cell.end() >= len(row) or cell.end() == at:
            break
        at = cell.end()
    return cells


def _prose(text: str) -> Iterator[Found]:
    """`the password is: correct horse battery staple` (up to the sentence's end)."""
    for match in _PROSE.finditer(text):
        _, line_end = line_bounds(text, match.end())
        at = match.end()
        if at < line_end and text[at] in "\"'`":
            span = quoted_value(text, at, line_end)
            value = text[span[0]:span[1]] if span is not None else ""
            if span is not None and len(value) >= MIN_VALUE and not placeholder(value):
                yield Found(span[0], span[1], "keyword")
            continue
        end = at
        while end < line_end and end - at < 200 and text[end] not in ".;,!?)\"'`":
            end += 1
        value = text[at:end].rstrip()
        if len(value) >= MIN_VALUE and not placeholder(value):
            yield Found(at, at + len(value), "keyword")


# an API's key as the path's last part after its version (an RPC node's URL: Alchemy's
# `/v2/<key>`, Infura's `/v3/<key>`): whoever holds the URL spends the key's quota
_PATH_KEY = re.compile(r"://[\w.\-]{1,253}(?::\d{1,5})?/(?:[\w.\-]{1,40}/)?v\d{1,2}/"
                       r"([A-Za-z0-9_\-]{20,128})(?=[\"'`\s<>)]|$)")
# A live stream's ingest URL (RTMP): its last part is the stream key, whoever holds it
# broadcasts on the channel (`rtmp://<ingest host>/app/<key>`, `rtmps://.../live2/<key>`)
_STREAM_KEY = re.compile(r"\brtmps?://[\w.\-]{1,253}(?::\d{1,5})?/(?:[\w.\-]{1,80}/){0,4}"
                         r"([A-Za-z0-9_\-]{16,512})(?=[\"'`\s<>)?]|$)")
# A capability URL: an intake's address whose last part is a long random token (a log
# collector's HTTP source, a crash or event intake), no file's name: whoever holds the URL
# posts to it, so the whole URL is masked as a webhook's is
_LONG_URL = re.compile(r"https://[^\s\"'`<>)]{" + str(MIN_CAPABILITY + 12) + r",8192}")
_CAPABILITY_URL = re.compile(r"https://[\w.\-]{1,253}(?::\d{1,5})?(?:/[\w.\-~%]{1,80}){1,8}/"
                             r"([A-Za-z0-9_\-=+%]{" + str(MIN_CAPABILITY) + r",4096})")
MAX_QUERY = 4096  # characters of a query string read either side of its signature
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


# A signed query string's parameters (Azure's SAS: `sv=...&se=...&sp=...&sig=...`; S3's and
# GCS's presigned URLs): whoever holds the string holds the grant, its signature with them
_SIGNED_PARAMETERS = frozenset({
    "sv", "ss", "srt", "sp", "se", "st", "spr", "sr", "si", "sip", "skoid", "sktid", "skt",
    "ske", "sks", "skv", "sdd", "x-amz-algorithm", "x-amz-credential", "x-amz-date",
    "x-amz-expires", "x-amz-signedheaders", "x-amz-security-token", "x-goog-algorithm",
    "x-goog-credential", "x-goog-date", "x-goog-expires", "x-goog-signedheaders"})
_QUERY_STOPS = frozenset(" \t\r\n\"'`<>?#(),;")


def _signed_query(text: str, at: int) -> tuple[int, int] | None:
    """The whole query string around its signature at `at` (its `&` or `?`), when two of
    its other parameters are a signed grant's (`sv=`, `se=`, `sp=`, `X-Amz-Date=`)."""
    start = at
    while start > 0 and at - start < MAX_QUERY and text[start - 1] not in _QUERY_STOPS:
        start -= 1
    end = at + 1
    while end < len(text) and end - at < MAX_QUERY and text[end] not in _QUERY_STOPS:
        end += 1
    names = {pair.partition("=")[0].lower() for pair in text[start:end].split("&")}
    if len(names & _SIGNED_PARAMETERS) < 2:
        return None
    return start, end


def _mixed_case(value: str) -> bool:
    """Upper and lower case letters and digits (no hex digest, no slug of words)."""
    return (any(c.isupper() for c in value) and any(c.islower() for c in value)
            and any(c.isdigit() for c in value))


def _urls(text: str) -> Iterator[Found]:
    for match in _PATH_KEY.finditer(text):
        value = match.group(1)
        if (random_token(value) and not _UUID.fullmatch(value) and not placeholder(value)
                and not value.isdigit()):
            yield Found(match.start(1), match.end(1), "url_secret")
    for match in _QUERY.finditer(text):
        value = match.group(1)
        if len(value) >= MIN_VALUE and not placeholder(value) and not is_label(value):
            yield Found(match.start(1), match.end(1), "url_secret")
            if "sig" in match.group(0).lower():  # sig=, signature=, X-Amz-Signature=
                signed = _signed_query(text, match.start())
                if signed is not None:
                    yield Found(*signed, "url_secret")
    if "rtmp" in text:
        for match in _STREAM_KEY.finditer(text):
            if random_token(match.group(1)) and not placeholder(match.group(1)):
                yield Found(match.start(1), match.end(1), "url_secret")
    for long_url in _LONG_URL.finditer(text) if "https://" in text else ():
        capability = _CAPABILITY_URL.fullmatch(long_url.group())  # (most URLs: short, none)
        value = capability.group(1) if capability is not None else ""
        if (value and random_token(value) and _mixed_case(value) and not placeholder(value)
                and not filler(value)):
            yield Found(long_url.start(), long_url.end(), "webhook_url")
    for match in hinted(_WEBHOOK, _WEBHOOK_HINT, text):
        group = 1 if match.group(1) is not None else 2
        if placeholder_body(match.group(group)) or filler(match.group(group)):
            continue  # `.../T00000000/B00000000/XXXXXXXX`: a documentation's shape
        yield Found(match.start() if group == 1 else match.start(2), match.end(group),
                    "webhook_url")


# AT commands that set a packet data connection's credentials, and which of their quoted
# arguments is the password (Telit's #SGACT, 3GPP's +CGAUTH: user, password; Quectel's
# +QICSGP and SIMCom's +CSTT: APN, user, password)
AT_PASSWORD_ARGUMENT = {"#SGACT": 2, "+CGAUTH": 2, "+QICSGP": 3, "+CSTT": 3}
AT_TRIGGER = r"AT(?:#SGACT|\+CGAUTH|\+QICSGP|\+CSTT)="
_AT_ARGUMENT = r"(?:\\?\"[^\"\\\n]{0,200}\\?\"|[0-9]{0,5})"
_AT_COMMAND = re.compile(r"AT([#+][A-Z]{2,10})=(" + _AT_ARGUMENT + r"(?:," + _AT_ARGUMENT
                         + r"){1,8})")
_AT_QUOTED = re.compile(r"\\?\"([^\"\\\n]*)\\?\"")


def _modem_passwords(text: str) -> Iterator[Found]:
    for match in _AT_COMMAND.finditer(text):
        index = AT_PASSWORD_ARGUMENT.get(match.group(1))
        if index is None:
            continue
        quoted = list(_AT_QUOTED.finditer(text, match.start(2), match.end(2)))
        if len(quoted) < index:
            continue
        value = quoted[index - 1]
        if value.end(1) - value.start(1) >= MIN_PASSWORD_LEN and not placeholder(value.group(1)):
            yield Found(value.start(1), value.end(1), "assignment")


def place_findings(text: str) -> list[Found]:
    found: list[Found] = []
    lowered = text.lower()  # which rules can match at all: a literal each must contain
    if " -" in text or "htpasswd" in text:
        found += _commands(text)
    if "identified" in lowered or "password" in lowered or "authorization" in lowered:
        found += _sql_and_headers(text)
    if "insert" in lowered and "values" in lowered:
        found += _inserted(text)
    if any(word in lowered for word in _PROSE_WORDS) and (
            " is" in lowered or " was" in lowered or " will be" in lowered):
        found += _prose(text)
    if "=" in text or "://" in text or "hooks." in text:
        found += _urls(text)
    if "AT#" in text or "AT+" in text:
        found += _modem_passwords(text)
    return found
