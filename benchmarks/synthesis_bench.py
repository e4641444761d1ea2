"""What synthesis adds around the one LLM call, and what `helix ask` costs end to end.

    python benchmarks/synthesis_bench.py [--repeat N]

Measures, on this repository (index built without embeddings in a temporary HELIX_HOME):
redaction + prompt + contract per answer on the real envelope; `service.ask` with no model
(deterministic), as a dry run, and with a mocked litellm model (the first mocked call includes
importing litellm, reported separately). Writes benchmarks/results/synthesis_bench.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _result import show, write_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUESTION = "where is the tool-result contract checked?"
MOCK = "The contract is checked in check_answer [E1]."


def _ms(samples: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(samples) * 1000, 3),
            "max_ms": round(max(samples) * 1000, 3), "n": len(samples)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/synthesis_bench.json"))
    args = parser.parse_args()
    os.environ["HELIX_HOME"] = tempfile.mkdtemp(prefix="helix-synth-bench-")
    os.environ["HELIX_INDEX__EMBED_ENABLED"] = "false"
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

    from helix.core.config import load_config
    from helix.service import ask
    from helix.synthesis.contract import check_answer
    from helix.synthesis.llm import LiteLLMClient
    from helix.synthesis.prompt import build_prompt
    from helix.synthesis.redact import redact_envelope

    config = load_config(ROOT)
    started = time.perf_counter()
    first = ask(QUESTION, root=ROOT, config=config, dry_run=True)
    result: dict[str, object] = {"repo": "helix (this repository)", "question": QUESTION,
                                 "first_dry_run_with_index_build_s":
                                     round(time.perf_counter() - started, 3),
                                 "evidence_items": len(first.envelope.evidence)}
    env = first.envelope
    guard: list[float] = []
    for _ in range(args.repeat * 10):
        t = time.perf_counter()
        prompt = build_prompt(redact_envelope(env)[0])
        check_answer(MOCK, prompt.refs)
        guard.append(time.perf_counter() - t)
    result["redact_prompt_contract"] = _ms(guard)
    result["prompt_chars"] = sum(len(m["content"]) for m in prompt.messages)

    def timed(**kwargs: object) -> list[float]:
        samples = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            ask(QUESTION, root=ROOT, **kwargs)  # type: ignore[arg-type]
            samples.append(time.perf_counter() - t)
        return samples

    result["ask_dry_run"] = _ms(timed(config=config, dry_run=True))
    result["ask_no_model"] = _ms(timed(config=config, dry_run=False))
    model_config = load_config(ROOT, flags={"synthesis.model": "gpt-4o-mini"})
    t = time.perf_counter()
    ask(QUESTION, root=ROOT, config=model_config, dry_run=False,
        llm=LiteLLMClient(mock_response=MOCK))
    result["ask_mocked_model_first_call_incl_litellm_import_s"] = round(
        time.perf_counter() - t, 3)
    result["ask_mocked_model"] = _ms(timed(config=model_config, dry_run=False,
                                           llm=LiteLLMClient(mock_response=MOCK)))
    write_result(args.out, result)
    show(result)


if __name__ == "__main__":
    main()
