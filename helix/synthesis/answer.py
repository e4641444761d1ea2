"""`synthesize`: the controller's envelope in, the answered envelope out.

    clarify envelope (dominance_split)  -> no call; answer_mode "clarify"
    no model configured / no LLM        -> no call; the deterministic answer, labelled as such
    no evidence                         -> no call; a bounded deterministic answer saying what
                                           was searched (fallback_reason "no_evidence")
    otherwise                           -> redact -> prompt -> redact the whole prompt ->
                                           `before_call(prompt)` -> at most one successful
                                           completion (transient errors retried at most
                                           `max_retries` times, everything within one total
                                           deadline, `deadline_s`) -> the contract
                                           -> answer_mode "llm", or "fallback" + reason

The request runs in a worker thread so the deadline holds whatever the endpoint does: after
`WAIT_NOTICE_S` without an answer `notify` says once that the model is being waited for, and at
the deadline the answer falls back with reason "timeout". `llm_steps` counts successful
completions (0 or 1); `attempts` counts requests, retries included. The deterministic answer is
the controller's extractive answer (`envelope.answer`); when that is empty it is rebuilt here
from the evidence list.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from helix.core.config import SynthesisSettings
from helix.core.envelope import AnswerCut, Citation, Envelope
from helix.core.errors import HelixError, LLMError, LLMServerError, LLMTimeoutError
from helix.core.hashing import hash_obj
from helix.core.ports import LLM, Clock, Completion, Embedder, Waiting
from helix.core.schemas import Frozen
from helix.core.visible import visible_field
from helix.synthesis.absence_head import AbsenceHead
from helix.synthesis.absence_meaning import AbsenceMeaning
from helix.synthesis.contract import ContractResult, check_answer, extract_citations
from helix.synthesis.prompt import (
    PROMPT_VERSION,
    CitationRef,
    Prompt,
    build_prompt,
    citation_refs,
)
from helix.synthesis.redact import RedactionReport, redact_envelope, redact_messages

DETERMINISTIC_HEADER = ("Deterministic answer (no model configured: extracted from the evidence, "
                        "not written by a model; set --model or HELIX_MODEL for a written answer)")
FALLBACK_HEADER = "Deterministic answer (the model's answer was not used: {reason})"
NO_EVIDENCE_HEADER = ("Deterministic answer (no model was called: the searches found nothing in "
                      "the repository to answer from)")
NO_EVIDENCE = "no_evidence"
MAX_EXTRACT_ITEMS = 8
MAX_EXTRACT_LINES = 3
MAX_SEARCHED = 8  # terms and channels named by the no-evidence answer
WAIT_NOTICE_S = 1.5  # say that the model is being waited for after this long
Notify = Callable[[str], None]


class SynthesisResult(Frozen):
    envelope: Envelope
    prompt_messages: tuple[dict[str, str], ...] = ()
    prompt_hash: str | None = None
    attempts: int = 0  # completion requests made, retries included
    redactions: RedactionReport = RedactionReport(counts={})
    removed_citations: tuple[str, ...] = ()
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str | None = None  # the last LLM error message, when one occurred


def _bounded(values: Any, limit: int = MAX_SEARCHED) -> str:
    shown = [str(v) for v in values][:limit]
    more = len(list(values)) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def searched_summary(envelope: Envelope) -> str:
    """What the controller searched for, bounded: its terms and the channels it ran."""
    terms = envelope.items.intent.terms
    channels = sorted({c for step in envelope.controller_steps for c in step.channels})
    scope = envelope.items.intent.scope
    lines = [f"Searched for: {_bounded(terms) if terms else envelope.question[:200]}"]
    lines.append(f"Channels: {_bounded(channels) if channels else 'none ran'}"
                 + (f" (only under {scope})" if scope else ""))
    return "\n".join(lines)


def extractive_answer(envelope: Envelope) -> str:
    """A plain evidence list, for envelopes whose controller left `answer` empty."""
    if not envelope.evidence:
        return ("No evidence was found in the repository for this question.\n"
                + searched_summary(envelope))
    lines = [f"Evidence for: {envelope.question}"]
    for rank, item in enumerate(envelope.evidence[:MAX_EXTRACT_ITEMS], start=1):
        label = item.symbol or item.heading or item.kind
        lines.append(f"[E{rank}] {visible_field(item.path)}:{item.start_line}-{item.end_line}"
                     f" ({label})")
        excerpt = [ln.strip() for ln in item.text.splitlines() if ln.strip()]
        lines += [f"    {ln}" for ln in excerpt[:MAX_EXTRACT_LINES]]
    return "\n".join(lines)


def deterministic_citations(text: str, refs: tuple[CitationRef, ...]) -> tuple[Citation, ...]:
    """Citations the deterministic text names; all sent evidence when it names none."""
    _, citations, _ = extract_citations(text, refs)
    if citations:
        return citations
    return tuple(Citation(ref=r.ref, evidence_id=r.evidence_id, path=r.path,
                          start_line=r.start_line, end_line=r.end_line) for r in refs)


def _deterministic(envelope: Envelope, *, mode: str, header: str | None,
                   reason: str | None = None, **extra: Any) -> Envelope:
    body = envelope.answer.strip() or extractive_answer(envelope)
    if not envelope.evidence and "Channels:" not in body:
        body = f"{body}\n{searched_summary(envelope)}"
    text = f"{header}\n\n{body}" if header else body
    refs = citation_refs(envelope.evidence)
    update: dict[str, Any] = {"answer_mode": mode, "answer": text, "fallback_reason": reason,
                              "citations": deterministic_citations(body, refs)}
    update.update(extra)
    return envelope.model_copy(update=update)


def _with_timing(envelope: Envelope, name: str, ms: float) -> Envelope:
    timings = dict(envelope.timings_ms)
    timings[name] = round(ms, 3)
    return envelope.model_copy(update={"timings_ms": timings})


def backoff_s(settings: SynthesisSettings, retry: int) -> float:
    return float(min(settings.retry_backoff_max_s, settings.retry_backoff_s * (2 ** retry)))


def _request_within(request: Callable[[], Completion], limit_s: float, notice_s: float,
                    notice: Callable[[], None],
                    tick: Callable[[float], None] | None = None) -> Completion | None:
    """`request()` in a daemon thread, waited for at most `limit_s` seconds (None when it did
    not finish: the thread is abandoned, the process does not wait for it at exit). Its error,
    if any, is raised here. `notice()` runs once if the wait passes `notice_s`; then `tick`
    (seconds waited) about once a second until it ends."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["completion"] = request()
        except BaseException as exc:  # handed to the waiting thread
            box["error"] = exc

    worker = threading.Thread(target=run, name="helix-llm", daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(max(0.0, min(notice_s, limit_s)))
    if worker.is_alive() and notice_s < limit_s:
        notice()
        while worker.is_alive() and time.monotonic() - started < limit_s:
            if tick is not None:
                tick(time.monotonic() - started)
            worker.join(max(0.0, min(1.0, limit_s - (time.monotonic() - started))))
    if worker.is_alive():
        return None
    if "error" in box:
        raise box["error"]
    completion: Completion = box["completion"]
    return completion


def _call(llm: LLM, prompt: Prompt, settings: SynthesisSettings, model: str,
          sleep: Callable[[float], None], notify: Notify | None,
          notice_s: float, waiting: Waiting | None = None,
          on_text: Callable[[str], None] | None = None
          ) -> tuple[Completion | None, int, LLMError | None]:
    """One successful completion, retrying transient errors, all within `deadline_s`;
    (completion, attempts, error)."""
    deadline = time.monotonic() + settings.deadline_s
    attempts = 0
    noticed = False

    def notice() -> None:
        nonlocal noticed
        if not noticed and waiting is None and notify is not None:
            notify(f"waiting for {model} (up to {settings.deadline_s:g} s)...")
        noticed = True

    def tick(elapsed: float) -> None:
        if waiting is not None:
            waiting(model, elapsed, settings.deadline_s)

    def late() -> LLMTimeoutError:
        return LLMTimeoutError(f"{model}: no answer within the {settings.deadline_s:g} s "
                               "deadline (synthesis.deadline_s)")

    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None, attempts, late()
        attempts += 1
        timeout_s = min(settings.timeout_s, remaining)

        def request(timeout_s: float = timeout_s) -> Completion:
            streaming = {"on_text": on_text} if on_text is not None else {}
            return llm.complete(list(prompt.messages), model=model, timeout_s=timeout_s,
                                max_tokens=settings.max_tokens,
                                temperature=settings.temperature, api_base=settings.api_base,
                                **streaming)

        if attempts > 1 and on_text is not None and notify is not None:
            notify(f"asking {model} again (attempt {attempts}): what was shown so far is "
                   "replaced by this answer")

        try:
            completion = _request_within(request, remaining, notice_s if not noticed else
                                         0.0, notice, tick)
        except LLMError as exc:
            if not exc.transient or attempts > settings.max_retries:
                return None, attempts, exc
            wait = backoff_s(settings, attempts - 1)
            if wait >= deadline - time.monotonic():
                return None, attempts, late()
            sleep(wait)
            continue
        if completion is None:
            return None, attempts, late()
        return completion, attempts, None


def _preflight(llm: LLM, settings: SynthesisSettings) -> tuple[None, int, LLMError | None]:
    """The port's own check before any request (LiteLLMClient: import litellm, a missing API
    key), outside the deadline and before the waiting notice."""
    check = getattr(llm, "preflight", None)
    if check is None:
        return None, 0, None
    try:
        check(settings.model, api_base=settings.api_base)
    except LLMError as exc:
        return None, 0, exc
    return None, 0, None


def redacted_prompt(envelope: Envelope) -> tuple[Prompt, RedactionReport]:
    """The prompt from the redacted envelope, then every message redacted whole (paths,
    headers, the question): what is stored and sent is the same and holds no secret."""
    clean, report = redact_envelope(envelope)
    prompt = build_prompt(clean)
    messages, found = redact_messages(prompt.messages)
    if not found:
        return prompt, report
    merged = Counter(report.counts)
    merged.update(found)
    prompt = prompt.model_copy(update={"messages": messages,
                                       "hash": hash_obj([PROMPT_VERSION, list(messages)])})
    return prompt, report.model_copy(update={"counts": dict(sorted(merged.items()))})


_FIXES = {
    "auth_error": "set the provider's API key ({keys}), or check that it is valid",
    "rate_limited": "the provider is limiting requests: try again later",
    "timeout": "the model did not answer in time: raise synthesis.deadline_s or check "
               "--api-base",
    "transport_error": "the model could not be reached: check the network and --api-base",
    "abstain": "the model returned an empty answer",
}


def _key_names(model: str) -> str:
    provider = model.split("/", 1)[0] if "/" in model else (
        "anthropic" if model.startswith("claude") else "gemini" if model.startswith("gemini")
        else "openai")
    return f"{provider.upper().replace('-', '_')}_API_KEY for {provider}"


SERVER_FIX = ("the model's server was reached and answered with an error: try again later, "
              "or see the server's status or logs")


def failure_line(error: LLMError, model: str) -> str:
    """One line for a failed model call: what failed, how to fix it, and that the
    deterministic answer is shown instead (`helix ask` then exits with 3). A server that
    answered with an error status is not told to check the network."""
    fix = SERVER_FIX if isinstance(error, LLMServerError) else _FIXES.get(
        error.reason, "see `helix show last`").format(keys=_key_names(model))
    return (f"the model call failed ({error.reason}: {error}); {fix}. Showing the "
            "deterministic answer")


def _checked(text: str, envelope: Envelope, refs: tuple[CitationRef, ...],
             settings: SynthesisSettings, embedder: Embedder | None,
             exemplar_embedder: Embedder | None, notify: Notify | None) -> ContractResult:
    """The contract on the model's answer, told the question (a claim about a side detail is a
    note); with an embedder, absence claims by meaning too (when the encoder cannot be
    loaded: the phrase rules alone, and the user told)."""
    question = envelope.question
    if embedder is None or not settings.absence.enabled:
        return check_answer(text, refs, evidence=envelope.evidence, question=question)
    meaning = AbsenceMeaning(embedder, settings.absence, exemplar_embedder)
    try:
        return check_answer(text, refs, evidence=envelope.evidence, meaning=meaning,
                            question=question, head=AbsenceHead.load())
    except (HelixError, ImportError, OSError) as exc:
        if notify is not None:
            notify(f"absence claims checked by phrase only (the sentence encoder failed: {exc})")
        return check_answer(text, refs, evidence=envelope.evidence, question=question)


def _answer_cut(completion: Completion, settings: SynthesisSettings,
                notify: Notify | None) -> AnswerCut | None:
    """What the envelope says of an answer cut at the character cap (and the user is told)."""
    if not completion.cut:
        return None
    if notify is not None:
        notify(f"the model's answer was cut at {len(completion.text):,} characters "
               f"(synthesis.max_answer_chars); reading stopped after "
               f"{completion.read_chars:,}")
    return AnswerCut(kept_chars=len(completion.text), read_chars=completion.read_chars)


def synthesize(envelope: Envelope, *, llm: LLM | None, settings: SynthesisSettings,
               clock: Clock, before_call: Callable[[Prompt], None] | None = None,
               sleep: Callable[[float], None] = time.sleep, notify: Notify | None = None,
               notice_s: float | None = None, waiting: Waiting | None = None,
               on_text: Callable[[str], None] | None = None,
               embedder: Embedder | None = None,
               exemplar_embedder: Embedder | None = None) -> SynthesisResult:
    """Fill `answer`, `answer_mode`, `citations`, `fallback_reason`, `llm_steps`, `model`.

    `before_call` runs after the prompt is built and before the first request (the run log
    stores the prompt there, so a crash in the call loses nothing). `notify` gets one-line
    notices for the user, without the `helix: ` prefix its printer adds: waiting for the model,
    and why its answer was not used when that is the user's to fix (a missing key, the
    deadline); with `waiting`, the wait for the model is reported to it instead (about once a
    second, then once with -1 when over: a live timer). `on_text` receives the model's answer
    as it streams, before the contract has checked it (the caller says so when the checked
    answer differs). `embedder` (the sentence encoder; `exemplar_embedder`, when given, a
    cached one for the exemplars) lets the contract find absence claims in any wording
    (`helix.synthesis.absence_meaning`); without it, by the phrase rules only.
    UnknownModelError (a user error) propagates; every LLMError becomes a fallback.
    """
    started = clock.monotonic()
    if envelope.clarify is not None or envelope.stop_reason == "dominance_split":
        out = _deterministic(envelope, mode="clarify", header=None, llm_steps=0)
        return SynthesisResult(envelope=_with_timing(out, "synthesis", 0.0))
    if llm is None or not settings.model:
        out = _deterministic(envelope, mode="deterministic", header=DETERMINISTIC_HEADER,
                             llm_steps=0, model=None)
        return SynthesisResult(envelope=_with_timing(out, "synthesis", 0.0))
    if not envelope.evidence:  # nothing to ground an answer in: the model is not asked
        out = _deterministic(envelope, mode="deterministic", header=NO_EVIDENCE_HEADER,
                             reason=NO_EVIDENCE, llm_steps=0, model=None)
        return SynthesisResult(envelope=_with_timing(out, "synthesis", 0.0))

    prompt, redactions = redacted_prompt(envelope)
    if before_call is not None:
        before_call(prompt)
    completion, attempts, error = _preflight(llm, settings)
    if error is None:
        try:
            completion, attempts, error = _call(
                llm, prompt, settings, settings.model, sleep, notify,
                WAIT_NOTICE_S if notice_s is None else notice_s, waiting, on_text)
        finally:
            if waiting is not None:
                waiting(settings.model, -1.0, settings.deadline_s)  # the wait is over
    common: dict[str, Any] = {"prompt_messages": prompt.messages, "prompt_hash": prompt.hash,
                              "attempts": attempts, "redactions": redactions}

    def timed(out: Envelope, ms: float) -> Envelope:
        """The synthesis time, and apart from it the model client's own: importing litellm
        (once per process), waiting for the model helper to be ready (its import, in another
        process) and the calls (`model_import`, `model_wait`, `model_call`, in ms)."""
        out = _with_timing(out, "synthesis", ms)
        for name, attr in (("model_import", "import_s"), ("model_wait", "wait_s"),
                           ("model_call", "call_s")):
            seconds = getattr(llm, attr, None)
            if isinstance(seconds, float):
                out = _with_timing(out, name, seconds * 1000)
        return out

    if completion is None:
        assert error is not None
        if notify is not None:
            notify(failure_line(error, settings.model))
        out = _deterministic(envelope, mode="fallback",
                             header=FALLBACK_HEADER.format(reason=error.reason),
                             reason=error.reason, llm_steps=0, model=settings.model)
        ms = (clock.monotonic() - started) * 1000
        return SynthesisResult(envelope=timed(out, ms), error=str(error), **common)

    tokens: dict[str, Any] = {"prompt_tokens": completion.prompt_tokens,
                              "completion_tokens": completion.completion_tokens}
    completion = completion.capped(settings.max_answer_chars)  # whatever the port read
    cut = _answer_cut(completion, settings, notify)
    verdict = _checked(completion.text, envelope, prompt.refs, settings, embedder,
                       exemplar_embedder, notify)
    ms = (clock.monotonic() - started) * 1000
    if not verdict.ok:
        assert verdict.reason is not None
        out = _deterministic(envelope, mode="fallback",
                             header=FALLBACK_HEADER.format(reason=verdict.reason),
                             reason=verdict.reason, llm_steps=1, model=completion.model)
        out = out.model_copy(update={"answer_cut": cut})
        return SynthesisResult(envelope=timed(out, ms),
                               removed_citations=verdict.removed, **common, **tokens)
    out = envelope.model_copy(update={
        "answer_mode": "llm", "answer": verdict.answer, "citations": verdict.citations,
        "fallback_reason": None, "llm_steps": 1, "model": completion.model,
        "answer_cut": cut, "answer_limits": verdict.limits,
    })
    return SynthesisResult(envelope=timed(out, ms),
                           removed_citations=verdict.removed, **common, **tokens)
