"""Retrieval policy as data: what each phase of the controller loop searches, per route, and
the numbers that shape channel lists, fusion, compaction and the answer's sections.

It lives in `RetrievalSettings` (`retrieval.routes`, `retrieval.pools`, `retrieval.compaction`,
`retrieval.answer`), so every number that changes evidence is in `config_hash` and an A/B eval
can vary it (`helix eval --candidate-config`). The controller reads it; nothing here runs.

Moves (what one phase asks the index for; requests go out in the order listed):

    seed    doc_bm25       BM25 over doc sections, tree nodes and text, per subject phrase
            doc_dense      the dense channel over the same kinds, with the question as asked
            files          BM25 chunk hits pooled per file, on the whole question
            file_bm25      whole-file BM25 on the whole question
            action_code    location with an action verb: code BM25 + dense for subject + verb
            symbols        exact definitions of the names the question spells or implies
            refs           reference sites of the names the question spells
            path_hints     files the question names (`path/x.py`, README)
            module_paths   a dotted name tried as a module path (`http.client`)
            doc_path       a named document's name words matched in paths
    expand  heading_bm25   the subject + the best hits' headings
            stem_bm25      the subject + the best hits' file stems
            symbols_fuzzy  definitions of the question's names, close names allowed
            lead_symbols   definitions of identifiers the best hits mention (leads)
            dense          the dense channel over every kind
            files_terms    files pooled from BM25 on the question's terms
    widen   code_bm25      BM25 over code, per subject phrase
            code_dense     the dense channel over code
            symbols_fuzzy  as above
            graph          1-hop graph neighbours of the best definitions
    any     code_files     `files` over code chunks only (source files, pooled)
            code_file_bm25 `file_bm25` over source files only
            path_words     files whose path words (directories, stem) the question's terms use
            code_path_words  source files whose path words a report's text uses
            test_targets   the definitions the tests most like the question exercise
            code_name_words  code definitions whose names spell the question's words
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from helix.core.schemas import FrozenSettings

Move = Literal[
    "doc_bm25", "doc_dense", "files", "file_bm25", "action_code", "symbols", "refs",
    "path_hints", "module_paths", "doc_path",
    "heading_bm25", "stem_bm25", "symbols_fuzzy", "lead_symbols", "dense", "files_terms",
    "code_bm25", "code_dense", "graph", "path_words", "code_path_words", "test_targets",
    "code_files",
    "code_file_bm25", "code_name_words",
]
# The retrieval policies: one per route, and `long_question` for a question as long as a report
# (`RoutingPolicy.long_question_words`), whatever its route but those that keep their own.
RouteName = Literal["definition", "location", "explanation", "relation", "value_check", "usage",
                    "doc_summary", "issue", "long_question"]
ROUTE_NAMES: tuple[RouteName, ...] = ("definition", "location", "explanation", "relation",
                                      "value_check", "usage", "doc_summary", "issue",
                                      "long_question")
# Fusion channels a route may re-weight (the `w_*` settings are the defaults).
Channel = Literal["bm25", "dense", "symbol", "path", "graph", "refs", "files", "file_bm25",
                  "path_words", "test_targets", "definition", "related", "tree", "sense",
                  "name_words", "prf", "test_files"]


_Frozen = FrozenSettings


class RoutePolicy(_Frozen):
    """One route's plan: the moves of each phase and how its evidence is fused and ordered."""

    seed: tuple[Move, ...]
    expand: tuple[Move, ...]
    widen: tuple[Move, ...]
    # exact definitions of the question's names form a fusion list of their own
    definition_list: bool = True
    # tests are part of the answer (never scaled down by `test_weight`)
    asks_tests: bool = False
    # the question's own words ("tests", a tests/ path) say it asks about tests; off for a
    # pasted report, whose story mentions tests without asking for them (a scope still does)
    test_words_ask_tests: bool = True
    # the final order puts code definitions that name the question's terms first
    code_first: bool = False
    # the final order puts source code (not docs, not tests unless asked) first: where a
    # reported problem or change lives
    source_first: bool = False
    # a capitalised word inside the question is looked up as a class name (in a pasted
    # report, sentence starts and prose capitals are not)
    capitalised_names: bool = True
    # channel -> weight, over the `w_*` defaults
    weights: dict[Channel, float] = Field(default_factory=dict)
    # BM25 over chunks, pooled per file and over whole files are one lexical vote (the best);
    # off: each is a vote of its own
    lexical_family: bool = True
    # fuse channel lists by FILE (each list ranks files by their first chunk; a file's votes
    # add up whichever of its chunks each channel found), each file shown by its best chunk:
    # where a report lives is a file, and one chunk per file keeps the evidence broad
    fuse_files: bool = False
    # over the retrieval settings for this route (None: the setting)
    rrf_k: int | None = Field(default=None, ge=0, le=100_000)
    per_step_evidence: int | None = Field(default=None, ge=1, le=10_000)
    per_channel_k: int | None = Field(default=None, ge=1, le=10_000)

    @model_validator(mode="after")
    def _weights_are_finite(self) -> RoutePolicy:
        for channel, weight in self.weights.items():
            if weight < 0:
                raise ValueError(f"weight of {channel} must be >= 0")
        return self


_SEED: tuple[Move, ...] = ("doc_bm25", "doc_dense", "files", "action_code", "symbols",
                           "path_hints", "module_paths", "doc_path")
# Whole-file BM25 for questions about how things work (they often never name the function:
# its words are spread over the file); a definition, location or value question names its
# subject, which the symbol and chunk channels find, and extra whole-file lists crowd it out.
_SEED_WHOLE_FILES: tuple[Move, ...] = ("doc_bm25", "doc_dense", "files", "file_bm25",
                                       "action_code", "symbols", "path_hints", "module_paths",
                                       "doc_path")
# A usage question has its own tool (reference sites): whole files would drown it.
_SEED_USAGE: tuple[Move, ...] = ("doc_bm25", "doc_dense", "symbols", "refs", "path_hints",
                                 "module_paths", "doc_path")
# A report or change: the code it concerns, in one step. Source files by BM25 over their
# chunks (pooled) and as wholes, the dense channel over code, files whose path words the text
# uses, what the tests most like it exercise, the names and files it spells.
# (`code_bm25`, chunk by chunk, has no vote here: it brings the files' further chunks.)
# A report or a long question describes what it is about more than it names it: the
# definitions whose names spell its words have a vote too (`code_name_words`).
_SEED_ISSUE: tuple[Move, ...] = ("code_files", "code_file_bm25", "code_dense", "code_path_words",
                                 "test_targets", "symbols", "path_hints", "module_paths",
                                 "code_bm25", "code_name_words")
# A definition question also looks for a file named for its subject (a concept's own
# document, `docs/knowledge/<concept>.md`): on the six suites (no-embed) matrix hit@1 .71 ->
# .79, the others unchanged; for every route it cost networkx hit@5 .83 -> .77, so it is not.
_SEED_DEFINITION: tuple[Move, ...] = (*_SEED, "path_words")
_EXPAND: tuple[Move, ...] = ("heading_bm25", "stem_bm25", "symbols_fuzzy", "lead_symbols",
                             "dense", "files_terms")
_EXPAND_USAGE: tuple[Move, ...] = ("heading_bm25", "stem_bm25", "symbols_fuzzy",
                                   "lead_symbols", "dense")
_WIDEN: tuple[Move, ...] = ("code_bm25", "code_dense", "symbols_fuzzy", "graph")


def default_routes() -> dict[RouteName, RoutePolicy]:
    plain = RoutePolicy(seed=_SEED, expand=_EXPAND, widen=_WIDEN)
    whole = plain.model_copy(update={"seed": _SEED_WHOLE_FILES})
    # measured on the history benchmark's tuning repositories (file-level fusion of the
    # channels, see benchmarks/history_tune.py); the held-out ones were never scored here
    issue = RoutePolicy(seed=_SEED_ISSUE, expand=(), widen=(), source_first=True,
                        capitalised_names=False, test_words_ask_tests=False,
                        lexical_family=False, fuse_files=True, rrf_k=10,
                        per_step_evidence=24, per_channel_k=60,
                        weights={"files": 1.5, "file_bm25": 1.5, "dense": 0.5,
                                 "path_words": 0.3, "test_targets": 0.3, "symbol": 0.5,
                                 "definition": 0.5, "related": 0.3, "bm25": 0.0,
                                 "name_words": 0.3})
    return {
        "definition": plain.model_copy(update={"seed": _SEED_DEFINITION}),
        "location": plain.model_copy(update={"code_first": True}),
        "explanation": whole,
        "relation": whole,
        "value_check": plain,
        # the call sites are the answer: definitions get no list of their own, tests count
        "usage": RoutePolicy(seed=_SEED_USAGE, expand=_EXPAND_USAGE, widen=_WIDEN,
                             definition_list=False, asks_tests=True),
        "doc_summary": plain,
        "issue": issue,
        # a question as long as a report is retrieved like one (file-level fusion), its docs
        # still read first; measured on the SWE-QA dev set, checked on the suites
        "long_question": issue.model_copy(update={
            "seed": ("doc_bm25", "doc_dense", *_SEED_ISSUE), "test_words_ask_tests": True}),
    }


class Pools(_Frozen):
    """How many hits a channel looks through and how it pools them."""

    # restricted searches (chunk kinds, path prefixes) fetch this many times k, then cut
    overfetch: int = Field(default=4, ge=1, le=100)
    # files: the top BM25 chunk hits pooled per file; a file's score sums its best
    # `file_top_chunks` chunk scores weighted file_decay ** n
    file_pool: int = Field(default=200, ge=1, le=100_000)
    file_top_chunks: int = Field(default=3, ge=1, le=100)
    file_decay: float = Field(default=0.5, ge=0, le=1)
    # file_bm25: each file is shown by its best chunk among this many chunk-BM25 hits
    file_bm25_pool: int = Field(default=1000, ge=0, le=1_000_000)
    # definitions of one name looked through for those in a named module
    module_def_limit: int = Field(default=500, ge=1, le=1_000_000)
    # definitions whose graph neighbours one widen step asks for
    graph_seeds: int = Field(default=4, ge=0, le=1000)
    # headings / file stems / symbols taken from the best hits by the expand step
    expand_seeds: int = Field(default=3, ge=0, le=1000)
    # doc spans (best first) whose named identifiers alignment resolves, and tests per symbol
    align_docs: int = Field(default=4, ge=0, le=1000)
    align_tests_per_symbol: int = Field(default=1, ge=0, le=100)
    # path_words: query words shorter than this never match a path word
    path_word_min_chars: int = Field(default=3, ge=1, le=100)
    # test_targets: BM25 hits looked through for tests, and tests whose targets are taken
    test_pool: int = Field(default=200, ge=1, le=100_000)
    test_seeds: int = Field(default=10, ge=0, le=1000)
    # symbol, fuzzy: close names looked through (their definitions are then ordered by how
    # many of the question's other words their name parts hold); 0 keeps the first 10 names
    # in path order (the old way)
    fuzzy_names: int = Field(default=40, ge=0, le=10_000)
    # name_words: definitions looked through (best names first) for those a request keeps
    name_words_pool: int = Field(default=300, ge=1, le=100_000)
    # symbol, `Owner.verb` (a location question's action): also the owner's other members
    # named for the verb that product code calls, product callers first (`controller.members`)
    verb_members: bool = True
    # prf: pseudo-relevance feedback on chunk BM25 (`controller.feedback`, docs/ranker.md
    # "Round 27"): the first pass's best `prf_docs` code chunks give up to `prf_terms`
    # expansion terms (0 = off, the default) held by at least `prf_min_docs` of them; the
    # second pass adds `prf_weight` times their scores; the list's fusion weight `w_prf`
    prf_terms: int = Field(default=0, ge=0, le=100)
    prf_docs: int = Field(default=5, ge=1, le=100)
    prf_min_docs: int = Field(default=2, ge=1, le=100)
    prf_weight: float = Field(default=0.3, ge=0, le=10)
    w_prf: float = Field(default=1.0, ge=0, le=100)
    # test_files: for a question that asks about tests (`controller.moves.asks_tests`), the
    # `files` list over test files only, its best `test_files` (0 = off, the default), one
    # lexical vote with BM25 at weight `w_test_files` (docs/ranker.md "Round 29")
    test_files: int = Field(default=0, ge=0, le=1000)
    w_test_files: float = Field(default=1.0, ge=0, le=100)
    # ... and only when a test word heads the question's wh-phrase or its first clause's
    # subject (`controller.test_subject`, docs/ranker.md "Round 30"); off: any test word
    test_files_subject: bool = False


class RoutingPolicy(_Frozen):
    """The numbers that decide a question's route and the names it is looked up by."""

    # a subject of at most this many content words, with no pattern, is a definition request
    short_question_words: int = Field(default=2, ge=1, le=100)
    # a pasted report: this many words, or this many non-empty lines (or a traceback)
    issue_min_words: int = Field(default=30, ge=1, le=100_000)
    issue_min_lines: int = Field(default=2, ge=2, le=100_000)
    # a question this long (in words) is retrieved the way a report is (the issue route's
    # policy: file-level fusion of the channels), keeping its own route, slots and answer
    long_question_words: int = Field(default=15, ge=1, le=100_000)
    # a statement no question pattern took, of at least this many words, is an issue
    statement_min_words: int = Field(default=4, ge=1, le=1000)
    # a change verb or trouble word needs at least this many words ("Fix X")
    change_min_words: int = Field(default=3, ge=1, le=1000)
    # names spelled from a subject: runs of at most `name_max_words` of its first
    # `subject_max_words` words; one word of a two-word subject counts from `name_min_chars`
    name_max_words: int = Field(default=5, ge=1, le=20)
    subject_max_words: int = Field(default=12, ge=1, le=100)
    name_min_chars: int = Field(default=4, ge=1, le=100)


class CompactionPolicy(_Frozen):
    chars_per_token: int = Field(default=4, ge=1, le=100)
    # an excerpt smaller than this says nothing: skipped instead
    min_excerpt_tokens: int = Field(default=16, ge=1, le=100_000)
    # the common cap of excerpts never goes below this (about a dozen lines)
    min_cap_tokens: int = Field(default=120, ge=1, le=1_000_000)


class FileDefsPolicy(_Frozen):
    """Inside the first files of the evidence, the definition that answers
    (`controller.file_defs`): how many files, how a definition is scored, when it joins."""

    enabled: bool = True
    # the routes that ask how something works or where it happens (a definition question's
    # answer is the class itself; a usage question's, its call sites)
    routes: tuple[str, ...] = ("explanation", "location", "issue")
    files: int = Field(default=5, ge=0, le=50)  # the first files of the ranked evidence
    name_weight: float = Field(default=3.0, ge=0, le=100)  # a name part vs a body word
    body_norm: float = Field(default=200.0, gt=0, le=100_000)  # body tokens before damping
    min_score: float = Field(default=0.25, ge=0, le=100)  # of the question's words
    lead: bool = True  # the definition goes before the file's first item (else after it)
    # the next best definitions of the first `depth_files` code files replace the evidence's
    # tail (0: none). Dev set (no embeddings): evidence recall 0.750 -> 0.779, 6 questions
    # gained, 1 lost; the eval suites unchanged (depth 3 or 4: 0.772)
    depth: int = Field(default=2, ge=0, le=50)
    depth_files: int = Field(default=5, ge=0, le=50)
    # a name's short words also match the words they stand for (`english.LONG_FORMS`: `cfg`,
    # `id`, `dict`...). Dev set (no embeddings): span@5 0.684 -> 0.691, recall 0.809 -> 0.824
    # (3 questions better, 1 a rank worse); the eval suites unchanged
    long_forms: bool = True
    # A descriptive question (at least `descriptive_words` content words: SWE-QA's "how does
    # the method that merges configuration values in the spacing dataclass...") names what
    # it asks for by many words, and the share of them a definition holds picks it out; a
    # short one ("where is the retry policy decided?") leaves that share to one or two words.
    # For a descriptive question the in-file pick also runs on `descriptive_routes`, and a
    # file led by a function or method gets its best definition first when that scores at
    # least `over_lead` times what the evidence shows of the file (0: never).
    descriptive_words: int = Field(default=12, ge=1, le=1000)
    descriptive_routes: tuple[str, ...] = ("definition",)
    over_lead: float = Field(default=1.25, ge=0, le=100)
    # and the evidence is led by the first `lead_files` files' one whose best definition
    # scores highest, less `lead_rank_cost` for each place down (`file_defs.lead_choice`; the
    # file the question names keeps its place; 1: retrieval's first file always leads)
    lead_files: int = Field(default=5, ge=1, le=50)
    lead_rank_cost: float = Field(default=0.05, ge=0, le=100)
    # retrieval's first file also keeps its place when both whole-file channels (`files`,
    # `file_bm25`) rank it first (`file_defs.whole_file_first`). Round 21 (docs/ranker.md):
    # validation file@1 139 -> 147 of 200, SWE-QA dev 92 -> 92 of 144; off (round 22): the
    # qa_gate did not promote it (dev equal), and it is a feature of the learned choice below
    lead_agreed: bool = False
    # the lead chosen by a LightGBM model over the first files' columns
    # (`controller.file_lead`) instead of the hand rule, when this pins the digest of
    # data/file_lead/manifest.json ("": the hand rule). Round 22 (docs/ranker.md)
    lead_model_digest: str = ""
    # for a question, a LightGBM model (`controller.span_swap`) lets a later definition of a
    # file of the first five trade places with an item there that repeats a file shown above
    # it, when this pins the digest of data/span_swap/manifest.json ("": no trades). Round 25's
    # model (docs/ranker.md, with the hand order's confidence columns): validation span@5
    # 143 -> 150, symbol@5 116 -> 124 of 200; SWE-QA dev span@5 95 -> 95, symbol@5 94 -> 93
    # (round 24's: 147 / 120, 91 / 91); off: the qa_gate did not promote it
    swap_model_digest: str = ""
    # for a question (not a report), the first `depth_lead` of those next best definitions
    # (the first file's best, first) go to place `depth_at` + 1 instead of the tail, each
    # when it scores at least `depth_over` times the item it pushes out of that place and
    # (`depth_tests` false) is not in a test file (`file_defs.picks_ahead`). Round 14
    # (docs/ranker.md): SWE-QA dev span@5 94 -> 96, symbol@5 93 -> 95 of 131 / 128;
    # validation span@5 140 -> 146, symbol@5 114 -> 122 of 200; file@1 and recall unchanged;
    # the eval suites' gate rolled it back (a later file's only place pushed out of place 5).
    depth_lead: int = Field(default=1, ge=0, le=50)
    depth_at: int = Field(default=4, ge=0, le=50)
    depth_over: float = Field(default=1.0, ge=0, le=100)
    depth_tests: bool = False
    # for a question, a name part's weight in the measure that orders those next definitions
    # (the depth and reach picks, and the place-5 pick's test; `name_weight`: the in-file
    # measure, what reports keep): in 16 of 24 validation misses inside a leading file the
    # answering definition shared fewer of the question's words by its name than the sibling
    # in front of it. Round 20 (docs/ranker.md): validation span@5 142 -> 143, recall 175 ->
    # 180 of 200; dev recall 112 -> 113 of 131; file@1 and symbol@5 unchanged on both
    depth_name_weight: float = Field(default=1.0, ge=0, le=100)
    # and (`depth_repeats`) only over an item that repeats a file shown above it: the pick
    # never pushes a file's only place out of the first `depth_at` + 1 (round 15: every
    # loss of the eval suites' gate was a file's only place pushed; docs/ranker.md: dev and
    # validation up, the suites' gate holds)
    depth_repeats: bool = True
    # for a question, the first `depth_files` files' next `reach` definitions after the
    # depth picks (0: none) each take the evidence place past place `depth_at` + 1 of the
    # code item that answers it least (`definition_score`; with `depth_repeats` only a place
    # whose file keeps another) when they answer it better (`file_defs.reach_places`); with
    # `reach_lead`, the place-5 pick is the best of every shown file's depth and reach picks.
    # Round 16 (docs/ranker.md): reach 2, validation recall 164 -> 175 of 200; dev unchanged,
    # so off by the gate; reach_lead moved no span@5 result. On since round 17 (below)
    reach: int = Field(default=2, ge=0, le=50)
    reach_min: float = Field(default=0.25, ge=0, le=100)  # a reach pick's least score
    reach_lead: bool = False
    # for a question, the `callees` best definitions of other files that the first
    # `depth_files` files' evidence items call (`controller.callees.across`, scoring at least
    # `reach_min`; 0: none) and (`recut`) the items the depth picks cut from the tail compete
    # with the reach picks for the same places (`reach_places`): the budget never grows.
    # Round 17 (docs/ranker.md), with reach 2: dev recall 110 -> 112 of 131, validation
    # 164 -> 175 of 200, file@1, span@5 and symbol@5 unchanged on both
    callees: int = Field(default=3, ge=0, le=50)
    recut: bool = True
    # for a question, a file's only item in places 2 to 5 that at most `weak_channels`
    # ranking channels back (not an in-file pick) trades places with the first later item of
    # a file the first five show, at most `weak_trades` times (`controller.weak_leads`; 0:
    # off). Round 26 (docs/ranker.md): validation span@5 143 -> 145, symbol@5 116 -> 118 of
    # 200; SWE-QA dev span@5 95 -> 94, symbol@5 94 -> 93; off: the qa_gate did not promote it
    weak_channels: int = Field(default=0, ge=0, le=20)
    weak_trades: int = Field(default=1, ge=1, le=4)
    # for a question, the feedback pass (`controller.prf`, `vote_terms` terms at weight
    # `vote_prf_weight`; 0: off) votes which of the first `vote_files` files leads: each scores
    # 1 / (vote_k + place) + vote_weight / (vote_k + its place in the pass's files), the best's
    # first item moves to the front (`controller.file_vote`). Round 28 (docs/ranker.md)
    vote_terms: int = Field(default=0, ge=0, le=100)
    vote_prf_weight: float = Field(default=0.6, ge=0, le=10)
    vote_weight: float = Field(default=0.5, ge=0, le=100)
    vote_files: int = Field(default=5, ge=2, le=50)
    vote_k: int = Field(default=5, ge=0, le=1000)


class CalleesPolicy(_Frozen):
    """From the functions the evidence leads with, the callee that does the work
    (`controller.callees`), scored like in-file definitions (`file_defs`). Off by default:
    on the natural-question dev set it moved 13 of 149 questions, none to a better span rank
    (3 one place down), so it is a setting to try, not a default."""

    enabled: bool = False
    routes: tuple[str, ...] = ("explanation", "location")
    leads: int = Field(default=2, ge=0, le=50)  # the first function-like items followed
    min_score: float = Field(default=0.25, ge=0, le=100)  # of the question's words
    ratio: float = Field(default=1.0, ge=0, le=100)  # the callee's score against its caller's


RankerMode = Literal["hand", "learned"]


# the digest of the shipped model's manifest (data/ranker/manifest.json; a test checks it):
# `mode = "learned"` alone uses that model, and the config hash names it
SHIPPED_RANKER_DIGEST = "sha256:409e48d46c7e01fc5d3b414cfb64b69b09e1559174ad25700b7adc02b34eb17a"


class RankerPolicy(_Frozen):
    """The order of the evidence: the hand order (fusion, then the in-file and callee rules)
    or the learned ranker (`controller.learned_rank`), which orders definitions and spans from
    a candidate pool (`controller.rank_features`). The model is named by its manifest (None:
    the one shipped in data/ranker/) and pinned by its digest, so a new model is a new config
    hash. The learned ranker is the default since the A/B gate promoted it
    (benchmarks/results/ranker_gate_round8.json, with `index.history_commits = 1000`);
    `helix eval --candidate-config hand_ranker` compares it with the hand order."""

    mode: RankerMode = "learned"
    # the model's manifest (user-only: it decides which file is loaded) and its digest
    manifest: str | None = None
    digest: str = SHIPPED_RANKER_DIGEST
    # candidates scored per question: the hand order, the first `files` files' definitions,
    # the callees of the first `callees` definitions, the history hits, the pool
    max_candidates: int = Field(default=240, ge=1, le=10_000)
    files: int = Field(default=12, ge=0, le=100)
    callees: int = Field(default=3, ge=0, le=100)
    # the definitions whose history words (index.history_commits) best match the question
    history_k: int = Field(default=20, ge=0, le=1000)
    # the pool's budget: when the hand order, the files' definitions, the callees, the
    # history hits and the channels' other finds are more than `max_candidates`, the hand
    # order is kept and the rest are chosen by a cheap score (`controller.rank_features.
    # select`: the question's BM25 score of the chunk, its damped name-and-body score, its
    # name words' idf share, 1 / its file's place in the hand order), at most `considered`
    # read. 0: the first found are kept (before: 160 candidates, 6 files, the files'
    # definitions took 117 of the 160 places and cut the channels' other finds). Validation
    # split (benchmarks/results/ranker_pool.json): every changed definition among the
    # candidates 0.706 -> 0.815 (0.866 uncut)
    considered: int = Field(default=1500, ge=0, le=20_000)
    select_bm25: float = Field(default=2.0, ge=0, le=100)
    select_body: float = Field(default=1.0, ge=0, le=100)
    select_name: float = Field(default=1.0, ge=0, le=100)
    select_file: float = Field(default=0.5, ge=0, le=100)
    # the evidence: the model's first `lead` items, then the best item of each file not yet
    # listed, then the rest (`controller.learned_rank.spread`): the model's first places go
    # to few files, and a file-level reader (the history benchmark) found the answering file
    # past them unlisted. 5 (with keep_text): the history benchmark's tuning Acc@10 0.870 ->
    # 0.880, validation function Acc@5 0.431 kept, Acc@10 0.516 -> 0.460 (ranker_combine.json)
    lead: int = Field(default=5, ge=0, le=1000)
    # the hand order's first item kept first (`controller.learned_rank.keep_hand`): when it is
    # not a definition (`keep_text`: a module's or a document's text; the corpus's targets are
    # definitions, so the model never saw one answer), or when the model's best candidate
    # leads the best of the hand order's first file by at most `keep_file` (that candidate
    # first; negative: never). keep_text on: the history benchmark's tuning Acc@1 0.453 ->
    # 0.480 (the hand order's), keep_file off (benchmarks/results/ranker_combine.json)
    keep_text: bool = True
    keep_file: float = Field(default=-1.0, ge=-1.0, le=100)
    # ... and when it lies in a file the question's stack frames name (`keep_frame`): the
    # corpus's messages seldom hold a traceback, and the model put a long report's log words
    # before the frame where its error arose (tests/test_long_report.py)
    keep_frame: bool = True
    # a text of those routes that ends with a question mark is ordered by the model too. Off:
    # the model was trained on commit messages (3 of the corpus's 6,090 end with one), and a
    # long question the length rule sends down the `issue` route keeps the hand order; a
    # model whose manifest names no routes orders every text. SWE-QA dev, the learned
    # configuration: docs/ranker.md ("Questions keep the hand order")
    questions: bool = False
    # a second model trained on natural questions (`helix eval corpus train-qranker`), which
    # orders the texts of its manifest's routes the first model leaves in the hand order
    # (questions); named by its manifest (None: data/ranker_questions/) and pinned by its
    # digest. "": none (docs/ranker.md, "A question model": the A/B gate on SWE-QA dev)
    question_manifest: str | None = None
    question_digest: str = ""


class AnswerPolicy(_Frozen):
    """The deterministic answer's sections (they shape no evidence, only what is shown)."""

    max_list: int = Field(default=4, ge=1, le=100)  # claims under one heading
    max_docs: int = Field(default=2, ge=0, le=100)  # doc sections under "Documented in"
    min_code_claims: int = Field(default=3, ge=0, le=100)  # code spans an explanation shows
