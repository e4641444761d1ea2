"""Tokens of a sentence for `helix.core.negation`, and what sentences say of one another
(pure): a question the next sentence answers no, a sentence saying what holds now.

    tokenize(text) -> Token per word, number or mark, with its sentence and parenthesis depth
    match(tokens, at, phrases) -> the length of the longest phrase at token `at`
    replied_no(tokens, cues) -> sentences that ask a question the next one answers no
    superseded(tokens, cues) -> sentences that say what holds now or when it changed
    aside(tokens, at), condition(tokens, at, cues), raises_error(tokens, at, cues),
    coordinated(tokens, at, cues) -> what a token's neighbours make of it (negation.read)
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache

from helix.core.negation_cues import Cues, Phrases, cues

# the letters of Chinese, Japanese and Korean text (Han, kana, hangul), written with no space
# before or after a Latin name ("単位はMiBです", "m/s²가"): a change of script ends a word
CJK = ("\u1100-\u11ff\u3005\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
       "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff")
# katakana, in which Japanese writes borrowed words (units: "ミリリットル", "デシベル"): a run
# of it inside kanji and hiragana is a word of its own ("単位はミリリットルではなく": the
# particle "は" and the negation "ではなく" are words apart from the unit)
KATAKANA = "\u30a0-\u30ff\u31f0-\u31ff"
_OTHER_CJK = ("\u1100-\u11ff\u3005\u3040-\u309f\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
              "\uac00-\ud7af\uf900-\ufaff")
# a decimal number is one token ("3.0 GPa": its point never ends a sentence)
# and a degree sign is part of the unit it marks ("°C")
_TOKEN = r"\d+(?:[.,]\d+)+|[" + KATAKANA + r"]+|{negations}[" + _OTHER_CJK + r"]+|°?[^\W" + CJK \
    + r"]+(?:['’][^\W" + CJK + r"]+)*|!=|[^\w\s]"


@lru_cache(maxsize=1)
def _token_pattern() -> re.Pattern[str]:
    """The token pattern, with a negation cue written in Chinese or Japanese characters a word
    of its own inside a run of them ("这里不是尼特（nits）": "这里", "不是", "尼特"; meaning30):
    the run stops before one."""
    found = sorted((w for phrases in cues().forward.values() for p in phrases
                    for w in [" ".join(p)] if re.fullmatch("[" + _OTHER_CJK + "]+", w)),
                   key=lambda w: (-len(w), w))
    alternation = "|".join(re.escape(w) for w in found)
    return re.compile(_TOKEN.replace("{negations}", f"(?:{alternation})|(?:(?!{alternation})")
                      .replace(r"[" + _OTHER_CJK + r"]+|°", r"[" + _OTHER_CJK + r"])+|°", 1)
                      if found else _TOKEN.replace("{negations}", ""))
_SENTENCE_END = frozenset({".", "!", "?"})
# the subjects of a reply's negated auxiliary closing its sentence ("..., it definitely isn't")
_PRONOUNS = frozenset({"it", "they", "that"})
# the marks a headline's subject may end with ("`x: 80` treated as ..."); after another mark
# ("Dose values: read as mL") the participle opens a label's definition
_SUBJECT_ENDS = frozenset({"`", '"', "'", ")", "”", "’"})
# marks that close an emphasis or a quotation right after a sentence's end ("**Is it kPa?**
# No.", '"Use kPa." Then'): the sentence ends after them
_CLOSING_MARKS = frozenset({"*", "_", "`", '"', "'", "”", "’", "»"})
_EMPHASIS = frozenset({"*", "_"})  # marks of an emphasis in markdown, no word
OPEN, CLOSE = "(", ")"
# the full-width marks of Chinese and Japanese text read as the marks they write ("（km/h
# ではありません）" is a parenthesis, "。" ends a sentence, "，" / "、" end a clause)
_FULL_WIDTH = {"（": "(", "）": ")", "。": ".", "，": ",", "、": ",", "；": ";", "：": ":",
               "？": "?", "！": "!"}


@dataclass(frozen=True)
class Token:
    text: str
    lower: str
    start: int
    end: int
    depth: int  # parentheses around it
    sentence: int


@dataclass(frozen=True)
class Reading:
    tokens: tuple[Token, ...]
    denied: tuple[bool, ...]
    # how many forward cues reach each token (an object, a complement: "not for the
    # pressure", "nothing to do with the pressure"; an odd count denies it)
    reaches: tuple[int, ...] = ()

    def index_at(self, offset: int) -> int | None:
        """The token covering `offset` (tokens come in text order: a binary search, so a line of
        thousands of mentions is not read once per mention)."""
        index = bisect_right(self.tokens, offset, key=_start) - 1
        if index >= 0 and self.tokens[index].start <= offset < self.tokens[index].end:
            return index
        return None

    def denied_at(self, offset: int) -> bool:
        index = self.index_at(offset)
        return index is not None and self.denied[index]


def _start(token: Token) -> int:
    return token.start


def tokenize(text: str) -> tuple[Token, ...]:
    out: list[Token] = []
    depth = sentence = 0
    ended = False  # the last token ends a sentence, or closes a mark after its end
    wide = False  # ... with a full-width mark ("。"): no space follows it in CJK text
    for match in _token_pattern().finditer(text):
        word = _FULL_WIDTH.get(match.group(), match.group())
        gap = text[out[-1].end:match.start()] if out else ""
        if "\n" in gap or (ended and (gap or wide)):
            sentence, depth = sentence + 1, 0
        ended = word in _SENTENCE_END or (ended and not gap and word in _CLOSING_MARKS)
        wide = ended and match.group() in _FULL_WIDTH
        if word == CLOSE:
            depth = max(0, depth - 1)
        out.append(Token(word, word.lower().replace("’", "'"), match.start(), match.end(),
                         depth, sentence))
        if word == OPEN:
            depth += 1
    return tuple(out)


def match(tokens: tuple[Token, ...], at: int, phrases: Phrases) -> int:
    """The length of the longest phrase starting at token `at` (0: none)."""
    for phrase in phrases.get(tokens[at].lower, ()):
        end = at + len(phrase)
        if end <= len(tokens) and all(tokens[at + k].lower == w for k, w in enumerate(phrase)):
            return len(phrase)
    return 0


def replied_no(tokens: tuple[Token, ...], c: Cues) -> set[int]:
    """Sentences that ask a question the next sentence answers no ("kPa? No: ..."), or
    answers with a negation of time, whatever follows it ("GPa? Not since 2.0."); a sentence
    that reports a question (`indirect_questions`: "asked whether it is dB. It isn't.") asks
    one too."""
    out = set()
    asking = {t.sentence for i, t in enumerate(tokens) if t.lower in c.indirect_questions
              or t.lower in c.reports or match(tokens, i, c.misreadings)}
    for i in range(len(tokens) - 1):
        reported = tokens[i].sentence in asking and tokens[i + 1].sentence != tokens[i].sentence
        if tokens[i].text != "?" and not reported:
            continue
        first = i + 1  # past the marks closing an emphasis after it ("in kPa?** No.")
        while first < len(tokens) - 1 and tokens[first].sentence == tokens[i].sentence \
                and tokens[first].text in _CLOSING_MARKS:
            first += 1
        if tokens[first].sentence == tokens[i].sentence:
            continue
        # the reply read past the marks of an emphasis around it or its label ("**A:** No.")
        reply = _reply(tokens, first, c)
        if not reply or reply[0].sentence != tokens[first].sentence:
            continue
        n = match(reply, 0, c.negative_replies)
        if (n and (n >= len(reply) or reply[n].sentence != reply[0].sentence
                   or not reply[n].text[:1].isalnum() or _repeats(reply, n, tokens, i, c))) \
                or match(reply, 0, c.elliptical) or _ends_denying(reply, c):
            out.add(tokens[i].sentence)
    return out


def _reply(tokens: tuple[Token, ...], first: int, c: Cues) -> tuple[Token, ...]:
    """The tokens from `first` on but the marks of an emphasis: its first sentence and as many
    more as a reply's phrase and the word after it read (not the rest of the text, once per
    question: a line of questions and replies was quadratic)."""
    extra = 2 + max(len(p) for phrases in (c.negative_replies, c.elliptical)
                    for group in phrases.values() for p in group)
    out: list[Token] = []
    for at in range(first, len(tokens)):
        if tokens[at].text in _EMPHASIS:
            continue
        extra -= bool(out) and tokens[at].sentence != out[0].sentence
        if extra < 0:
            break
        out.append(tokens[at])
    return tuple(out)


def _repeats(reply: tuple[Token, ...], n: int, tokens: tuple[Token, ...], last: int,
             c: Cues) -> bool:
    """The reply's negation is followed by one word of the sentence ending at token `last`,
    alone in its clause ("people keep treating it as 20 Nm. It is not Nm; ...")."""
    start = last  # the sentence's first token (a walk back over it, not over the text)
    while start > 0 and tokens[start - 1].sentence == tokens[last].sentence:
        start -= 1
    asked = {t.lower for t in tokens[start:last + 1]}
    ends = n + 1 >= len(reply) or reply[n + 1].sentence != reply[n].sentence \
        or reply[n + 1].lower in c.punctuation
    return ends and reply[n].lower in asked


def _ends_denying(reply: tuple[Token, ...], c: Cues) -> bool:
    """The reply's first sentence ends with a pronoun's negated auxiliary, whatever leads to it
    and an adverb in "-ly" between them ("Looking at the values, it definitely isn't.")."""
    said = [t for t in reply if t.sentence == reply[0].sentence]
    while said and not said[-1].text[:1].isalnum():
        said.pop()
    kept = tuple(t for k, t in enumerate(said)
                 if not (k and t.lower.endswith("ly") and said[k - 1].lower in _PRONOUNS))
    return any(kept[at].lower in _PRONOUNS and at + match(kept, at, c.negative_replies)
               == len(kept) for at in range(1, len(kept)))


def misread_headlines(tokens: tuple[Token, ...], c: Cues) -> set[int]:
    """Sentences that are a headline of a misreading: a participle of construal after its
    subject (`misreadings`: "`x` treated as MiB"), what it should have been after it
    (`misread_corrections`: "instead of 80%"), no finite verb (`headline_finite`) and nothing
    of what holds now in the sentence."""
    finite = {t.sentence for t in tokens if t.lower in c.headline_finite}
    now = superseded(tokens, c)
    return {tokens[i].sentence for i in range(1, len(tokens))
            if tokens[i].sentence not in finite | now and match(tokens, i, c.misreadings)
            and tokens[i - 1].sentence == tokens[i].sentence
            and (tokens[i - 1].text[:1].isalnum() or tokens[i - 1].text in _SUBJECT_ENDS)
            and any(match(tokens, j, c.misread_corrections) for j in range(i, len(tokens))
                    if tokens[j].sentence == tokens[i].sentence)}


def superseded(tokens: tuple[Token, ...], c: Cues) -> set[int]:
    """Sentences that say what holds now or when it changed (a cue, or a version or a time
    from which it holds: "from 3.0 on", "from v2 onwards")."""
    return {tokens[i].sentence for i in range(len(tokens))
            if match(tokens, i, c.superseded_by) or _held_from(tokens, i, c)}


def _held_from(tokens: tuple[Token, ...], at: int, c: Cues) -> bool:
    """Token `at` opens a version or a time from which something holds: a `held_from` word, a
    number (a version, a year) within two words after it, then a `held_on` word ("from 3.0
    on", "from release 2 onwards")."""
    if tokens[at].lower not in c.held_from:
        return False
    after = [t for t in tokens[at + 1:at + 5] if t.sentence == tokens[at].sentence]
    for n, token in enumerate(after[1:], start=1):
        if token.lower in c.held_on:
            return any(ch.isdigit() for t in after[:n] for ch in t.text)
    return False


def in_code(tokens: tuple[Token, ...]) -> frozenset[int]:
    """The tokens inside inline code, between a backtick and the next one of its sentence."""
    out: set[int] = set()
    opened: int | None = None
    for i, token in enumerate(tokens):
        if opened is not None and tokens[opened].sentence != token.sentence:
            opened = None
        if token.text == "`":
            if opened is not None:
                out.update(range(opened + 1, i))
            opened = None if opened is not None else i
    return frozenset(out)


def past_time(tokens: tuple[Token, ...], at: int, times: Phrases,
              marks: frozenset[str]) -> int:
    """The label's mark past a time or version opening at token `at` ("Deprecated since 2.4:",
    "Removed in v3 -"), at most three words on in its sentence; else `at`."""
    length = match(tokens, at, times) if at < len(tokens) else 0
    for mark in range(at + length + 1, min(len(tokens), at + length + 4)) if length else ():
        if tokens[mark].sentence != tokens[at].sentence:
            return at
        if tokens[mark].lower in marks:
            return mark
    return at


def aside(tokens: tuple[Token, ...], at: int) -> bool:
    """Token `at` opens a parenthesis after words of its sentence ("... in MiB (was bytes)"):
    an aside set against what the sentence says."""
    return at > 1 and tokens[at - 1].text == OPEN and tokens[at - 2].sentence == \
        tokens[at].sentence and tokens[at - 2].text[:1].isalnum()


def condition(tokens: tuple[Token, ...], at: int, c: Cues) -> list[int]:
    """The conditional clause that opens the sentence of a predicate of harm at `at`: what it
    supposes is what does the harm ("If you enter 20 expecting °C, the chiller ... faults")."""
    sentence = tokens[at].sentence
    first = next(j for j in range(at, -1, -1) if j == 0 or tokens[j - 1].sentence != sentence)
    if tokens[first].lower not in c.conditions:
        return []
    end = next((j for j in range(first, at) if tokens[j].text == ","), None)
    return list(range(first, end)) if end is not None else []


def raises_error(tokens: tuple[Token, ...], at: int, c: Cues) -> bool:
    """"raises a ValueError": an error verb, then an error's name within two words."""
    return tokens[at].lower in c.error_verbs and any(
        t.lower.endswith(c.error_endings) for t in tokens[at + 1:at + 3])


def coordinated(tokens: tuple[Token, ...], at: int, c: Cues) -> bool:
    """A forward cue that joins a list ("never GPa and not MPa", "neither GPa nor kPa")
    denies what follows even inside another cue's scope; any other cue inside one negates the
    negation ("never stopped using GPa", "not ... anything other than GPa": GPa is stated)."""
    return tokens[at].lower in c.coordinating or (
        at > 0 and tokens[at - 1].lower in c.coordinators | c.coordinating)
