"""`synthesize`: the controller's envelope in, the answered envelope out.

    clarify envelope (dominance_split)  -> no call; answer_mode "clarify"
    no model configured / no LLM        -> no call; the deterministic answer, labelled as such
    otherwise                           -> redact -> prompt -> `before_call(prompt)` -> exactly
                                           one successful completion (transient errors retried
                                           at most `max_retries` times) -> the contract
                                           -> answer_mode "llm", or "fallback" + reason

`llm_steps` counts successful completions (0 or 1); `attempts` counts requests, retries included.
The deterministic answer is the controller's extractive answer (`envelope.answer`); when that
is empty it is rebuilt here from the evidence list.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from helix.core.config import SynthesisSettings
from helix.core.envelope import Citation, Envelope
from helix.core.errors import LLMError
from helix.core.ports import LLM, Clock, Completion
from helix.core.schemas import Frozen
from helix.synthesis.contract import check_answer, extract_citations
from helix.synthesis.prompt import CitationRef, Prompt, build_prompt, citation_refs
from helix.synthesis.redact import RedactionReport, redact_envelope

DETERMINISTIC_HEADER = ("Deterministic answer (no model configured: extracted from the evidence, "
                        "not written by a model; set --model or HELIX_MODEL for a written answer)")
FALLBACK_HEADER = "Deterministic answer (the model's answer was not used: {reason})"
MAX_EXTRACT_ITEMS = 8
MAX_EXTRACT_LINES = 3


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


def extractive_answer(envelope: Envelope) -> str:
    """A plain evidence list, for envelopes whose controller left `answer` empty."""
    if not envelope.evidence:
        return f"No evidence was found in the repository for: {envelope.question}"
    lines = [f"Evidence for: {envelope.question}"]
    for rank, item in enumerate(envelope.evidence[:MAX_EXTRACT_ITEMS], start=1):
        label = item.symbol or item.heading or item.kind
        lines.append(f"[E{rank}] {item.path}:{item.start_line}-{item.end_line} ({label})")
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


def _call(llm: LLM, prompt: Prompt, settings: SynthesisSettings, model: str,
          sleep: Callable[[float], None]) -> tuple[Completion | None, int, LLMError | None]:
    """One successful completion, retrying transient errors; (completion, attempts, error)."""
    attempts = 0
    while True:
        attempts += 1
        try:
            return llm.complete(list(prompt.messages), model=model, timeout_s=settings.timeout_s,
                                max_tokens=settings.max_tokens,
                                temperature=settings.temperature,
                                api_base=settings.api_base), attempts, None
        except LLMError as exc:
            if not exc.transient or attempts > settings.max_retries:
                return None, attempts, exc
            sleep(backoff_s(settings, attempts - 1))


def synthesize(envelope: Envelope, *, llm: LLM | None, settings: SynthesisSettings,
               clock: Clock, before_call: Callable[[Prompt], None] | None = None,
               sleep: Callable[[float], None] = time.sleep) -> SynthesisResult:
    """Fill `answer`, `answer_mode`, `citations`, `fallback_reason`, `llm_steps`, `model`.

    `before_call` runs after the prompt is built and before the first request (the run log
    stores the prompt there, so a crash in the call loses nothing). UnknownModelError (a user
    error) propagates; every LLMError becomes a fallback.
    """
    started = clock.monotonic()
    if envelope.clarify is not None or envelope.stop_reason == "dominance_split":
        out = _deterministic(envelope, mode="clarify", header=None, llm_steps=0)
        return SynthesisResult(envelope=_with_timing(out, "synthesis", 0.0))
    if llm is None or not settings.model:
        out = _deterministic(envelope, mode="deterministic", header=DETERMINISTIC_HEADER,
                             llm_steps=0, model=None)
        return SynthesisResult(envelope=_with_timing(out, "synthesis", 0.0))

    clean, redactions = redact_envelope(envelope)
    prompt = build_prompt(clean)
    if before_call is not None:
        before_call(prompt)
    completion, attempts, error = _call(llm, prompt, settings, settings.model, sleep)
    common: dict[str, Any] = {"prompt_messages": prompt.messages, "prompt_hash": prompt.hash,
                              "attempts": attempts, "redactions": redactions}
    if completion is None:
        assert error is not None
        out = _deterministic(envelope, mode="fallback",
                             header=FALLBACK_HEADER.format(reason=error.reason),
                             reason=error.reason, llm_steps=0, model=settings.model)
        ms = (clock.monotonic() - started) * 1000
        return SynthesisResult(envelope=_with_timing(out, "synthesis", ms), error=str(error),
                               **common)

    tokens: dict[str, Any] = {"prompt_tokens": completion.prompt_tokens,
              "completion_tokens": completion.completion_tokens}
    verdict = check_answer(completion.text, prompt.refs)
    ms = (clock.monotonic() - started) * 1000
    if not verdict.ok:
        assert verdict.reason is not None
        out = _deterministic(envelope, mode="fallback",
                             header=FALLBACK_HEADER.format(reason=verdict.reason),
                             reason=verdict.reason, llm_steps=1, model=completion.model)
        return SynthesisResult(envelope=_with_timing(out, "synthesis", ms),
                               removed_citations=verdict.removed, **common, **tokens)
    out = envelope.model_copy(update={
        "answer_mode": "llm", "answer": verdict.answer, "citations": verdict.citations,
        "fallback_reason": None, "llm_steps": 1, "model": completion.model,
    })
    return SynthesisResult(envelope=_with_timing(out, "synthesis", ms),
                           removed_citations=verdict.removed, **common, **tokens)
