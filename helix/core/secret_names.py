"""What a name says of the value it holds: a secret (`password`, `client_secret`), maybe one
(`token`, `auth`, `api_key`), one when the value reads random (`stripe_key`, `sonar.login`),
the ID half of a key pair, a wallet's recovery phrase, or nothing (a field, a label, a URL, a
length ...). The vocabulary is data: words, segments and suffixes.

    name_strength(name) -> "strong" | "weak" | "keyed" | "pin" | "paired" | "phrase" | None
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["BARE_KEY", "FOREIGN_NAME_FORMS", "LOGIN_WORDS", "META_SUFFIXES", "VENDOR_KEY_NAMES",
           "name_strength", "segments"]

# Normalised (lower case, no separators) names that say "secret" whatever surrounds them.
_STRONG = ("password", "passwd", "passphrase", "secret", "credential", "apikey", "accesskey",
           "privatekey", "authtoken", "accesstoken", "refreshtoken", "signingkey", "sessionkey",
           "encryptionkey", "masterkey", "clientsecret", "webhooksecret", "storepass", "keypass",
           "dbpass", "storepassword", "presharedkey", "requirepass", "masterauth",
           "erlangcookie",  # RabbitMQ's cluster secret
           "passwort")  # German (the structure's trigger `pass` reaches it)
# Names a vendor gives its issued key (Etsy's `keystring`, Honeycomb's `x-honeycomb-team`
# header): a key when the value reads random
_KEYED_ENDINGS = ("keystring", "honeycombteam")
# how those names and RabbitMQ's `erlang.cookie` are written in a text: the prefilter's trigger
# for the structure detector (secret_prefilter.TRIGGERS)
VENDOR_KEY_NAMES = ("erlang_cookie", "erlang.cookie", "erlang-cookie", "erlangcookie",
                    "honeycomb-team", "keystring")
# the prefilter's trigger for a bare `key`: only before a long run of token characters (its
# value must read like an issued key: secret_values.random_token; PHP's `'key' => '...'`; or a
# literal joined with `+` to the next: secret_views); apart from its KEYWORDS (no counted runs)
BARE_KEY = (r"(?i)\bkey[0-9]*[\"']?[ \t]*(?::=|=>|[:=])[ \t]*[\"']?"
            r"(?:[A-Za-z0-9+/=_.~\-]{16}|[A-Za-z0-9+/=_.~\-]*[\"'][ \t]*\+[ \t]*[\"'])")
# a login's word in other languages' prose and comments, and Windows' `logon`: the prefilter's
# trigger for the shapes detector
# (and English's `log in as`/`sign in as` before a `user / password` pair: secret_shapes)
LOGIN_WORDS = ("logon", "zugang", "anmeldung", "identifiant", "acceso", "acesso", "log in as",
               "sign in as")
# "Password" and "token" in other languages, as a name is written (`kennwort`, `senha_db`,
# `mot_de_passe`, `пароль`, `データベースパスワード`): a name holding one says secret (the
# password's words) or may (the token's); the words as comments write them (secret_rules.toml
# [prose]) and their ASCII spellings. A word of letters outside ASCII counts anywhere in the
# name (a compound: `数据库密码`), an ASCII one of 8 letters or more too (`adminkennwort`),
# a shorter one as a whole segment (`senha`, not `theslot`'s `heslo`).
FOREIGN_SECRET_WORDS = ("kennwort", "motdepasse", "contrasena", "contraseña", "senha",
                        "wachtwoord", "passord", "adgangskode", "haslo", "hasło", "losenord",
                        "lösenord", "salasana",
                        "heslo", "jelszo", "jelszó", "sifre", "şifre", "matkhau", "mậtkhẩu",
                        "пароль", "κωδικός", "パスワード", "비밀번호", "암호", "密码", "密碼",
                        "口令", "paroladordine")  # Italian `parola_d_ordine`
FOREIGN_TOKEN_WORDS = ("токен", "トークン", "토큰", "令牌")
# "Key" in other languages (`chave_api`, `clave`, `Schluessel`, `ключ`): a key when the value
# reads random, as an English `<vendor>_key` is (a short ASCII word as a whole segment only:
# `chave`, not `enclave`'s `clave`)
# (the languages' words a name is most often written in; each costs the prefilter's word set
# a pass's share: benchmarks/scan_cost_bench.py)
FOREIGN_KEY_WORDS = ("chave", "clave", "chiave", "schluessel", "schlüssel", "ключ", "密钥",
                     "密鑰", "sleutel", "klucz", "cle", "clé", "apiキー")  # Dutch, Polish, French,
# Japanese (`APIキー`: katakana's "key" alone runs in many words, `キーボード`)
# how those names are written in a text: the prefilter's trigger for the structure detector
# (`mot_de_passe`, `mot-de-passe`, `motDePasse`: the separated forms of the compound)
# (French `cle` only as an API's: the three letters run through English words, `article`)
FOREIGN_NAME_FORMS = (*FOREIGN_SECRET_WORDS, *FOREIGN_TOKEN_WORDS,
                      *(w for w in FOREIGN_KEY_WORDS if w != "cle"), "cle_api", "cleapi",
                      "mot_de_passe",
                      "mot-de-passe", "mot.de.passe", "motdepasse", "parola_d_ordine")
_SEPARATORS = str.maketrans("", "", "_-. ")
# Whole segments that say so (a segment is a snake/kebab/dotted/camel part of the name).
_STRONG_SEGMENTS = frozenset({"pwd", "pass", "pw", "passwd", "password", "passwords",
                              "secret", "secrets", "passphrase", "credentials", "credential",
                              "creds", "psk",
                              "passkey", "authtok"})  # Daraja's passkey, sssd's authtok
# What makes a `<x>_key` a key that is no secret (a database's, a cache's, a keyboard's)
_KEY_NOT_SECRET = frozenset({
    "primary", "foreign", "sort", "cache", "dict", "partition", "row", "lookup",
    "hash", "index", "map", "group", "sequence", "composite", "unique", "public", "pub", "hot",
    "short", "shortcut", "keyboard", "press", "up", "down", "left", "right", "meta", "alt",
    "ctrl", "shift", "escape", "enter", "tab", "space", "sub", "parent", "child", "node", "edge",
    "attr", "attribute", "json", "yaml", "config", "setting", "field", "column", "table",
    "object", "item", "entry", "record", "cell", "col", "max", "min", "first", "last", "next",
    "prev", "old", "new", "this", "that", "other", "lang", "locale", "translation", "i18n",
    "message", "msg", "label", "name", "type", "kind", "id", "uid", "uuid", "s3", "bucket",
    "storage_account", "module", "data", "value", "values", "query", "search", "filter", "order",
    "event", "metric", "tag", "publishable",
    "site",  # a captcha's site key (`RECAPTCHA_SITE_KEY`): the page's public half
    "idempotency"})  # a request's idempotency key: the client's own UUID for a retry
# English words ending in `pass` that name no password (`_glued_pass`)
_PASS_WORDS = frozenset({"bypass", "compass", "encompass", "surpass", "trespass", "overpass",
                         "underpass", "impass", "multipass", "subpass", "firstpass", "onepass",
                         "twopass", "singlepass", "renderpass", "skippass", "highpass",
                         "lowpass", "bandpass", "allpass", "notchpass"})  # (filters' passbands)
_LAST_ONLY = frozenset({"pass", "pw", "pwd"})  # db_pass is one; pass_rate, pw_hash are not
_WEAK_SEGMENTS = frozenset({"token", "auth", "authorization", "apikey", "salt", "bearer", "sig",
                            "signature", "hmac"})  # WEBHOOK_HMAC: the key signing its bodies
# a last segment that holds an issued key when its value is letters and digits and reads
# random (`ssl_pin`: a gateway's PIN of 64 characters; a GPIO's `LED_PIN = 13` and a
# certificate's pin, a SHA-256 digest in base64 `...=`, are none): strength "pin"
_PIN_LAST = frozenset({"pin"})
# an app's "certificate" issued with its ID as its signing secret (`APP_CERTIFICATE=<hex>`):
# a key when its value reads random; a certificate proper is PEM or DER in base64
# (secret_values.issued_key: no `MII...`, `-----BEGIN`, `LS0tLS1`), public
_CERTIFICATE_WORDS = frozenset({"certificate", "cert"})
# What qualifies a token that is not a credential (a parser's or a language model's tokens).
_TOKEN_NOT_CREDENTIAL = frozenset({
    "max", "min", "num", "next", "prev", "last", "first", "start", "end", "special", "eos", "bos",
    "pad", "unk", "sep", "cls", "mask", "current", "cur", "new", "old", "this", "that", "each",
    "lexer", "parser", "string", "str", "name", "op", "operator", "csrf", "xsrf", "cancel",
    "cancellation", "page", "continuation", "sync", "stop", "input", "output", "prompt", "text",
    "word", "sub", "split", "bad", "peek", "lookahead", "other", "raw", "python", "generate",
    "expected", "actual", "all", "extra", "result", "results", "source", "valid", "invalid",
    "test", "sample", "dummy", "fake", "mock", "unicode", "ascii", "byte", "bytes", "char",
    "authenticity"})
# A word that makes a name ending in `tokens` a count of them (a language model's or a
# parser's budget: `max_new_tokens`, `min_excerpt_tokens`, `total_tokens`), wherever it stands
_COUNT_WORDS = frozenset({"max", "min", "num", "total", "count", "limit", "budget", "n"})
# A last segment that makes the name describe the secret rather than hold it.
META_SUFFIXES = frozenset({
    "field", "fields", "name", "names", "label", "labels", "prompt", "url", "uri", "urls", "type",
    "types", "file", "files", "path", "paths", "env", "var", "vars", "variable", "length", "len",
    "pattern", "patterns", "regex", "re", "rx", "hint", "help", "message", "msg", "text", "attr",
    "attribute", "id", "ids", "kind", "mode", "policy", "count", "min", "max", "format", "fmt",
    "class", "dir", "endpoint", "prefix", "suffix", "param", "parameter", "key_name", "ttl",
    "expiry", "expires", "expiration", "timeout", "lifetime", "age", "size", "bits", "hash",
    "hashes", "hasher", "hashers", "validator", "validators", "reset", "required", "enabled",
    "error", "errors", "input", "widget", "form", "manager", "provider", "store", "cache", "helper",
    "column", "col", "index", "idx", "option", "options", "setting", "settings", "desc",
    "description", "doc", "docs", "title", "placeholder", "example", "header_name", "location",
    "command", "cmd", "callback", "func", "fn", "handler", "method", "source", "sources",
    "changed", "strength", "rules", "rule", "scope", "scopes", "audience", "issuer",
    "algorithm", "algorithms", "alg", "kwarg", "kwargs", "arg", "args", "lookup", "map",
    "mapping", "list", "dict", "set", "table", "db", "model", "schema", "generator", "service",
    "server", "client", "request", "response", "number", "num", "state", "status", "color",
    "colour", "arn", "ref", "reference", "version", "icon", "fingerprint", "checksum", "digest",
    "ssid", "host", "hostname", "port", "user", "username", "email",  # SECRET_SSID, SECRET_USER
    "rotation",  # apiKeyRotation: a feature's name
})
# Bundler's credentials for a gem server, by its host (`BUNDLE_GEMS__EXAMPLE__COM=user:pw`:
# dots as `__`), apart from its settings keyed by a gem or a URL the same way
_BUNDLER_HOST = re.compile(r"BUNDLE_([A-Z0-9]+)(?:_[A-Z0-9]+)*__[A-Z0-9_]*[A-Z0-9]")
_BUNDLER_SETTINGS = frozenset({"BUILD", "MIRROR", "LOCAL", "GEMFILE", "PATH", "WITH", "WITHOUT"})
# a last word naming how the value is written, not what it is (`PACKET_KEY_HEX`,
# `signing_secret_b64`): the name before it says that
_ENCODING_WORDS = frozenset({"hex", "b64", "base64", "b32", "base32", "pem", "raw"})
_SEGMENT = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def segments(name: str) -> list[str]:
    """A name's words, lower case (snake, kebab, dotted and camel parts, digits apart)."""
    return [s.lower() for s in _SEGMENT.findall(name)]


_segments = segments


# A wallet's recovery phrase by its name (`MNEMONIC`, `seed_phrase`, `recovery_words`): its
# value must read as one (an assembler's `mnemonic`, a random `seed`, are no phrases)
_REFERENCE_QUALIFIERS = frozenset({"existing", "external"})
_PHRASE_WORDS = frozenset({"mnemonic", "mnemonics", "seed", "seeds"})
_PHRASE_QUALIFIERS = frozenset({"recovery", "backup", "seed", "wallet", "mnemonic"})
# A session's key in a cookie or a store (`sessionid`, `JSESSIONID`, `session_id`): issued
# and random, a credential while it lives
_SESSION_NAMES = frozenset({"sessionid", "sessid", "phpsessid", "jsessionid", "aspsessionid"})


@lru_cache(maxsize=4096)
def name_strength(name: str) -> str | None:
    """'strong' when a name says it holds a secret, 'weak' when it may (token, auth, key),
    'keyed' when its value must read random (stripe_key, sonar.login), 'paired' for the ID
    half of an access key pair (a weak name whose UUID is a record's), 'phrase' when it must
    be a wallet's recovery phrase, None when it does not or describes one (a field, a label,
    a URL, a length ...); 'pin' when its value must be letters and digits reading random."""
    bare = name.strip("\"'`$@-.")
    host = _BUNDLER_HOST.fullmatch(bare)
    if host is not None and host.group(1) not in _BUNDLER_SETTINGS:
        return "strong"  # BUNDLE_GEMS__EXAMPLE__COM: Bundler's credentials for that host
    foreign = _foreign_strength(bare)
    if foreign is not None:
        return foreign
    parts = _segments(bare)
    while len(parts) > 1 and (parts[-1].isdigit() or parts[-1] in _ENCODING_WORDS):
        parts.pop()  # token1, DB_PASSWORD_2, PACKET_KEY_HEX: a numbered or encoded name
    if parts and (parts[0] in _REFERENCE_QUALIFIERS or (
            len(parts) > 1 and parts[-2] in _REFERENCE_QUALIFIERS
            and parts[-1] in ("secret", "secrets"))):
        return None  # existingSecret, apiKeyExistingSecret: the name of a secret kept elsewhere
    flat = "".join(parts)
    if (flat in _SESSION_NAMES or parts[-2:] == ["session", "id"] or flat == "appid"
            or parts in (["sid"], ["connect", "sid"]) or parts[-1:] == ["appkey"]):
        return "keyed"  # a session's key, an API's `appid`/`appkey`: when the value reads random
    if parts and (parts[-1] in _PHRASE_WORDS or (
            parts[-1] in ("phrase", "words") and _PHRASE_QUALIFIERS.intersection(parts))):
        return "phrase"
    if parts and (parts[-2:] == ["access", "id"] or parts[-3:] == ["access", "key", "id"]
                  or parts[-1] in ("accessid", "accesskeyid")):
        return "paired"  # access_id, accessKeyId: the issued half of an access key pair
    if not parts or parts[-1] in META_SUFFIXES or "_".join(parts[-2:]) in META_SUFFIXES:
        return None
    if parts[-1] in ("is", "are", "must", "should", "will", "can"):
        return None
    if any(word in flat for word in _STRONG) or any(p in _STRONG_SEGMENTS for p in parts[:-1]
                                                    if p not in _LAST_ONLY):
        return "strong"
    if parts[-1] in _STRONG_SEGMENTS or _glued_pass(parts[-1]):
        return "strong"
    if parts[-1] == "tokens" and _COUNT_WORDS.intersection(parts[:-1]):
        return None  # min_excerpt_tokens, max_completion_tokens: a count of tokens, no token
    if (parts[-1] in ("token", "tokens") and len(parts) > 1
            and parts[-2] not in _TOKEN_NOT_CREDENTIAL):
        return "strong"  # github_token, DEPLOY_TOKEN, authToken: a qualified token is one
    if parts[-1] in _WEAK_SEGMENTS or (len(parts) > 1 and parts[-1] == "key" and parts[-2] in (
            "api", "access", "private", "secret", "deploy", "signing", "license", "master")):
        return "weak"
    if len(parts) > 1 and parts[-1] in ("key", "keys") and parts[-2] not in _KEY_NOT_SECRET:
        return "keyed"  # stripe_key, MAILGUN_KEY: a vendor's key when its value reads random
    if parts == ["key"] or flat.endswith(_KEYED_ENDINGS):
        return "keyed"  # `Key=...`, `new relic user key = '...'`: the same test of the value
    if parts[-1] in _CERTIFICATE_WORDS and len(parts) > 1:
        return "keyed"  # AGORA_APP_CERTIFICATE=<32 hex>: when its value reads as a key
    if parts[-1] in _PIN_LAST:
        return "pin"
    if parts[-1] == "login" or (parts[-1] == "pat" and len(parts) > 1):
        return "keyed"  # sonar.login, ASANA_PAT (a personal access token): when it reads issued
    return None


def _glued_pass(last: str) -> bool:
    """A last word ending in `pass` or `pw` glued to what it opens (`LDAP_ROOTPASS`,
    `adminpass`, `bindpw`): a password's name, but a word that only ends so (`bypass`)."""
    return (len(last) > len("pass") and last.endswith("pass") and last not in _PASS_WORDS
            ) or (len(last) > len("pw") and last.endswith("pw"))  # `BINDPW`, slapd's `rootpw`


def _foreign_word(word: str, flat: str, parts: list[str]) -> bool:
    if not word.isascii() or len(word) >= 8:
        return word in flat
    return word in parts


def _foreign_strength(bare: str) -> str | None:
    """'strong' for a name holding a password's word of another language, 'weak' for a
    token's, None for a name holding neither (or describing one: `senha_label`)."""
    flat = bare.lower().translate(_SEPARATORS)
    if flat.isascii() and not any(w in flat for w in _FOREIGN_ASCII_STEMS):
        return None  # (most names: none of the ASCII words' first letters in a row)
    parts = _segments(bare)
    if parts and (parts[-1] in META_SUFFIXES or "_".join(parts[-2:]) in META_SUFFIXES):
        return None
    if any(_foreign_word(w, flat, parts) for w in FOREIGN_SECRET_WORDS):
        return "strong"
    if any(_foreign_word(w, flat, parts) for w in FOREIGN_TOKEN_WORDS):
        return "weak"
    if any(_foreign_word(w, flat, parts) for w in FOREIGN_KEY_WORDS):
        return "keyed"
    return None


_FOREIGN_ASCII_STEMS = tuple(sorted({w[:4] for w in (*FOREIGN_SECRET_WORDS, *FOREIGN_KEY_WORDS)
                                     if w.isascii()}))
