"""What people say to a code assistant, as patterns: the router's vocabulary.

Every pattern matches a whole normalized message body (lower case, punctuation other than path
characters dropped, polite lead-ins such as "please" / "can you" removed by `body`). Kept apart from
the router so the rule table stays readable and each phrase family can be tested on its own.
Pure: no state, no I/O.
"""

from __future__ import annotations

import re
from typing import Literal

from controller.continuity.pending import normalize, strip_filler
from controller.continuity.state import OptionSetKind

SmallTalkKind = Literal["greeting", "thanks", "acknowledgement", "farewell", "capabilities",
                        "identity"]

# --- small talk: a whole message that is not about the repository ----------------------------
_GREETING = (r"(?:hello|hi|hey|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening|day)|"
             r"hello there|hi there|hey there)")
_THANKS = (r"(?:thanks|thank you|thx|ty|cheers|many thanks|thanks a lot|thanks so much|"
           r"thank you so much|much appreciated|appreciate it|that helps(?: a lot)?|"
           r"that helped|helpful|very helpful)")
_ACK = (r"(?:ok|okay|k|kk|cool|nice|great|awesome|perfect|got it|makes sense|i see|right|alright|"
        r"all right|good|fine|neat|sweet|lol|haha|wow|interesting|excellent|understood|noted|"
        r"sounds good|fair enough|ah|oh|hmm|ahh|ohh)")
_FAREWELL = (r"(?:bye|goodbye|bye bye|see you|see ya|later|good night|that's all|that is all|"
             r"i'm done|im done|done for now)")
_CAPABILITIES = re.compile(
    r"^(?:help|help me|what can you do|what do you do|how do i use (?:you|this|helix|this tool)|"
    r"how does this work|how do you work|what can i ask(?: you)?|what should i ask|"
    r"what are you for|usage|commands|what commands are there)$")
_IDENTITY = re.compile(r"^(?:who are you|what are you|are you a bot|are you human|"
                       r"what is your name|what's your name|who made you)$")
_SMALL_TALK_WORDS = re.compile(
    rf"^(?:(?:{_GREETING}|{_THANKS}|{_ACK}|{_FAREWELL})(?:\s+|$))+$")
_KIND_ORDER: tuple[tuple[SmallTalkKind, re.Pattern[str]], ...] = (
    ("farewell", re.compile(rf"\b{_FAREWELL}\b")),
    ("thanks", re.compile(rf"\b{_THANKS}\b")),
    ("greeting", re.compile(rf"\b{_GREETING}\b")),
    ("acknowledgement", re.compile(rf"\b{_ACK}\b")),
)
# a small-talk lead-in before the real message ("thanks, where is ...", "ok so open it")
_SMALL_TALK_LEAD = re.compile(
    rf"^\s*(?:(?:(?:{_GREETING}|{_THANKS}|{_ACK})\s*)+[,;:!.]+\s*(?:(?:so|and|now|then|but)\s+)*|"
    rf"(?:(?:{_THANKS}|{_ACK})\s+)+(?:so|and|now|then|but)\s+)", re.IGNORECASE)

# --- hard interrupts -------------------------------------------------------------------------
RESET = re.compile(r"^(?:let's\s+|lets\s+|can we\s+)?(?:start over|start again|restart|reset|"
                   r"new topic|from scratch|clear(?: everything)?|start fresh)$")
CANCEL = re.compile(r"^(?:stop|cancel|never ?mind|nevermind|forget (?:it|that|about it)|abort|"
                    r"quit that|drop it|nvm|skip it|no stop)$")

# --- corrections of the last choice ("no, the other one") ------------------------------------
CORRECTION = re.compile(
    r"^(?:(?:no|nope|nah|wait|oops|hmm|actually)\s+)*(?P<fix>not (?:that|this|it)(?: one)?|"
    r"wrong one|the wrong one|that's (?:the )?wrong(?: one)?|that's not (?:it|the one|right)|"
    r"not the right one|the other one|the other|other one|another one|the other sense)"
    r"(?:\s+(?:please|then|instead))*(?:\s+(?P<rest>.+))?$")
OTHER = re.compile(r"^(?:the other(?: one| sense)?|other one|another one)$")
_CORRECTION_REST_LEAD = re.compile(r"^(?:i (?:meant|mean|wanted)|i want|give me|open|show(?: me)?"
                                   r"|it's|its|use)\s+")

# --- "tell me more": bind to the focus or the numbered item, retrieve around it ---------------
TELL_MORE = re.compile(
    r"^(?:tell me (?:a bit |a little )?more|tell me about|more|say more|go on|keep going|"
    r"elaborate|expand|explain|describe|details|more details|give me more details|"
    r"dig (?:deeper )?into|go deeper(?: into)?|walk me through|what does|how does)"
    r"(?:\s+(?:about|on|of|into|for))?(?:\s+(?P<obj>.+?))?"
    r"(?:\s+(?:do|work|please|in more detail|in detail|further|more))*$")
TELL_MORE_PRONOUN = re.compile(r"^(?:it|that|this|that one|this one|the same|that thing|"
                               r"this thing|them|those|the answer|that answer)$")

# --- root pivots that keep the root scope ("what about the tokenizer?") -----------------------
PIVOT = re.compile(r"^(?:and\s+)?(?:what|how)\s+about\s+(?P<subject>.+?)(?:\s+then)?$|"
                   r"^and\s+(?P<subject2>(?:the|a|an)\s+.+?)$")

# --- selection: a command, an ordinal, a kind word, "the X one" -------------------------------
POLITE_LEAD = re.compile(r"^(?:(?:please|pls|ok|okay|now|then|and|so)\s+|(?:can|could|would|will)"
                         r" you\s+(?:please\s+)?|i'd like to\s+|let's\s+|lets\s+)+")
COMMAND = re.compile(r"^(?P<verb>open|show(?: me)?|go to|view|display|pick|choose|select|take|"
                     r"jump to|bring up|print)\b\s*(?P<rest>.*)$")
THE_X_ONE = re.compile(r"^(?:the|that|this)\s+(?P<label>.+?)\s+one$")
FOCUS_WORDS = re.compile(r"^(?:it|that|this|this one|that one|the same(?: one)?|it again|that "
                         r"again|this again|the (?:file|span|function|symbol|definition|section) "
                         r"again|again)$")
MIXED = re.compile(r"\s+and\s+(?P<clause>(?:explain|tell me|say|describe)\b.*)$")
PATH_CUE = re.compile(
    r"\b(?:only\s+|just\s+)?(?:in|under|within|inside|limited to|restricted to)\s+"
    r"(?:the\s+)?(?P<path>[\w.-]+/(?:[\w.-]+/?)*|[\w-]+\.[a-z]{1,5})(?:\s+(?:folder|directory|dir))?")
RERUN_FILLER = re.compile(
    r"\b(same|question|but|only|just|again|what|about|and|the|now|ask|re-?run|run|search|look|"
    r"it|that|this|please|pls|can|you|do|repeat|same thing|how|instead|folder|directory|dir|"
    r"there|then|also|in|under|within|inside)\b")
SOURCE_CUE = re.compile(
    r"\bfrom (?:the )?(?P<src>evidence|list|results|answer|options|choices|callers|tests|tree)\b")
SOURCE_KIND: dict[str, OptionSetKind] = {
    "evidence": "evidence", "list": "evidence", "results": "evidence", "answer": "evidence",
    "options": "options", "choices": "options", "callers": "callers", "tests": "tests",
    "tree": "tree"}
QUESTION_LEAD = re.compile(r"^(?:why|what|how|who|where|when|which|is|are|does|do|did|should|"
                           r"was|were)\b")

# --- object follow-ups over the graph ----------------------------------------------------------
CALLERS = re.compile(r"^(?:who|what|which \w+)\s+(?:calls|uses|invokes|references|imports)\s+"
                     r"(?P<obj>.+)$|^(?:where is|where's)\s+(?P<obj2>.+?)\s+(?:called|used|"
                     r"invoked|referenced)(?: from)?$|^(?:show (?:me )?)?(?:the )?(?:callers|"
                     r"usages|references) (?:of|to) (?P<obj3>.+)$")
TESTS = re.compile(r"^(?:where|how) is\s+(?P<obj>.+?)\s+tested$|^(?:what|which) tests?\s+"
                   r"(?:covers?|exercises?|checks?|tests?)\s+(?P<obj2>.+)$|^is\s+(?P<obj3>.+?)\s+"
                   r"tested$|^(?:show (?:me )?)?(?:the )?tests (?:for|of) (?P<obj4>.+)$")

# --- semantic follow-ups about what happened ---------------------------------------------------
WHY_ACTION = re.compile(r"^why (?:did|do|would) you (?:open|show|pick|choose|select|take|do|go "
                        r"to|focus on|list)\b|^why (?:that|this|it)(?: one)?$|^why$")
WHAT_HAPPENED = re.compile(
    r"^(?:what happened(?: last| just now)?|what did (?:you|we) (?:just )?do(?: last)?|"
    r"what have (?:you|we) done(?: so far)?|(?:can you )?summari[sz]e what (?:we|you) "
    r"(?:just )?(?:did|have done|'ve done)|recap(?: what we did)?|what was the last (?:thing|"
    r"action|step)|remind me what (?:we|you) (?:did|looked at|opened|saw|have done)(?: so far)?|"
    r"what (?:did|have) (?:we|you) (?:looked at|look at|opened|open)(?: so far)?)$")
ENTITY_MEANING = re.compile(r"^(?:what does|what's|what is)\s+(?P<entity>.+?)\s+mean$|"
                            r"^explain what\s+(?P<entity2>.+?)\s+means$")

# --- meta over the last answer, recap of the conversation --------------------------------------
META = re.compile(
    r"^(?:is (?:that|this|it) (?:the only (?:place|one|definition|spot|answer)|all|complete|"
    r"everything|correct|right|sure)(?:\s+(?:it's|it is|where|that|which)\b.*)?|are there (?:any )?"
    r"(?:others?|more|other (?:places|ones|definitions|spots))(?: too)?|anything else|are you sure|"
    r"how sure are you|how confident are you|where did (?:that|this) come from|what(?:'s| is) the "
    r"evidence|which (?:one )?is (?:more )?important|how complete is (?:that|this|the answer)|"
    r"is (?:that|this) (?:answer )?(?:grounded|confirmed|reliable))$")
RECAP = re.compile(
    r"^(?:did|have) we (?:already |ever |previously |just )?(?:talk|speak|chat|discuss|discussed|"
    r"talked|spoken|look|looked|touch|touched)(?:ed)?(?: about| at| on)?\s*(?P<topic>.*)$|"
    r"^(?:do|did) you remember\s*(?:about\s+)?(?P<topic2>.*)$|^what (?:did|have) we (?:talk(?:ed)?"
    r" about|discuss(?:ed)?|cover(?:ed)?)(?:\s+(?:about|on)\s+(?P<topic3>.+))?(?: so far)?$|"
    r"^have we (?:already )?(?:covered|seen|discussed)\s+(?P<topic4>.+)$")
BACK = re.compile(r"^(?:go )?back(?: to (?:the )?(?:list|results|answer|evidence|question))?$|"
                  r"^show (?:me )?the (?:list|results|evidence) again$")


def body(text: str) -> str:
    """The message as the router reads it: normalized, filler and polite lead-ins dropped."""
    return POLITE_LEAD.sub("", strip_filler(normalize(text))).strip()


def small_talk(text: str) -> SmallTalkKind | None:
    """The kind of small talk when the WHOLE message is small talk, else None."""
    plain = re.sub(r"[,;:.!?]+", " ", normalize(text))
    plain = re.sub(r"\s+", " ", plain).strip()
    if not plain:
        return None
    if _CAPABILITIES.match(plain):
        return "capabilities"
    if _IDENTITY.match(plain):
        return "identity"
    if not _SMALL_TALK_WORDS.match(plain):
        return None
    return next(kind for kind, pattern in _KIND_ORDER if pattern.search(plain))


def without_small_talk_lead(text: str) -> str:
    """`text` without a leading "thanks," / "ok so" / "hello," (the rest is the message)."""
    match = _SMALL_TALK_LEAD.match(text)
    return text[match.end():].strip() if match else text.strip()


def correction_rest(rest: str | None) -> str:
    """What a correction names after "no, not that one," ("the BM25Index one")."""
    return _CORRECTION_REST_LEAD.sub("", (rest or "").strip(" ,;:")).strip()
