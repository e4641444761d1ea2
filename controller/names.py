"""The names a question's definitions could carry: what the symbol channel looks up.

Pure functions of the routed question (`RoutePlan`); the loop turns them into requests.
"""

from __future__ import annotations

from controller.route import RoutePlan
from controller.text import is_identifier, phrase_tokens, symbol_variants
from helix.core.policy import RoutingPolicy

SINGLE_WORD_ROUTES = ("definition", "location")  # short subjects: each word may be a name
# A name is spelled from a bounded run of a subject's words ("edge betweenness centrality"):
# longer runs name nothing, and every run of a long subject would cost O(words^3). The bounds
# are policy (RoutingPolicy.name_max_words, subject_max_words, name_min_chars).
NAME_SLOTS = ("term", "target", "symbol", "quantity", "owner", "x", "y")


def class_like(word: str) -> bool:
    """A capitalised word inside a question ("How does Graph store ...") names a class more
    often than not (question words and verbs are stopwords, never terms)."""
    return len(word) >= 3 and word[0].isupper() and word[1:].islower() and word.isalpha()


def question_names(plan: RoutePlan, capitalised: bool,
                   routing: RoutingPolicy) -> list[tuple[str, tuple[str, ...]]]:
    """Names a definition could carry, each with the words its span must also show: spelled
    identifiers and capitalised words, code spellings of the subject and of its contiguous
    sub-phrases ("mirror radiation pressure" -> radiation_pressure), and for a two-word subject
    of a definition or location question each word, kept only if the span mentions the other
    ("denoise stage"). With a location question's action ("where is the BM25 index built?"),
    each class-like name with it as a member (`BM25Index.build`). First occurrence wins."""
    out: list[tuple[str, tuple[str, ...]]] = [(q, ()) for q in member_names(plan)]
    out += [(t, ()) for t in plan.intent.terms
            if is_identifier(t) or (capitalised and class_like(t))]
    route = plan.intent.route
    for slot in NAME_SLOTS:
        for phrase in plan.subjects.get(slot, ()):
            words = phrase.split()[:routing.subject_max_words]
            for size in range(min(len(words), routing.name_max_words), 1, -1):
                for start in range(len(words) - size + 1):
                    out += [(v, ()) for v in symbol_variants(" ".join(words[start:start + size]))]
            if len(words) == 1:
                out += [(v, ()) for v in symbol_variants(words[0])]
            elif route in SINGLE_WORD_ROUTES and len(words) == 2:
                for word, other in ((words[0], words[1]), (words[1], words[0])):
                    if len(word) >= routing.name_min_chars:
                        out += [(v, phrase_tokens(other)) for v in symbol_variants(word)]
    out += [(f"{owner}.{plan.action}", must) for owner, must in list(out)
            if plan.action and owner[:1].isupper() and not owner.isupper() and "." not in owner]
    seen: dict[str, tuple[str, ...]] = {}
    for name, must in out:
        seen.setdefault(name, must)
    return list(seen.items())


MEMBER_PAIRS_FROM = 4  # the first spelled identifiers paired as owner.member (12 lookups at most)


def member_names(plan: RoutePlan) -> list[str]:
    """`Owner.member` for each pair of spelled identifiers whose first is a type name
    ("UnauthorizedExceptionExceptionMapper's toResponse method", "setFilterConfig in
    AbstractFilter"): the qualified name picks the owner's method out of the same-named ones."""
    spelled = [t for t in spelled_identifiers(plan) if "." not in t][:MEMBER_PAIRS_FROM]
    return [f"{owner}.{member}" for owner in spelled if owner[0].isupper()
            for member in spelled if member != owner]


def spelled_identifiers(plan: RoutePlan) -> list[str]:
    """Identifiers the question spells out: the only names worth a (costly) fuzzy lookup."""
    return [t for t in plan.intent.terms if is_identifier(t)]


def capitalised_only(plan: RoutePlan, name: str) -> bool:
    """The name is a capitalised question word, not a spelled identifier: it may be the
    project's own name ("How does Reflex ...") rather than a class."""
    return class_like(name) and name not in spelled_identifiers(plan)
