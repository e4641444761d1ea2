"""litellm's import, in one place: the model helper runs it before anything else (its first
statement of work), `helix.synthesis.llm` runs it at a call made in process.

Only the standard library is imported here, so the helper's start-up is the interpreter and
litellm. The cyclic garbage collector is off during the import: litellm builds thousands of
pydantic classes and functions, and the collections that allocation triggers walk them again
and again without finding anything to free (measured on a loaded 2-core machine: `import
litellm` 2.4-2.7 instead of 3.2-3.4 user CPU s in three `/usr/bin/time` pairs; the bench's
`import_cpu_s`, which also builds the response models, 3.20 against 3.33 s,
benchmarks/results/ask_model_bench_helper.json); it is switched back on right after, and the
cycles the import left are collected then as usual.
"""

from __future__ import annotations

import gc
import os
import warnings
from typing import Any


def prepare_environment() -> None:
    """What litellm reads when imported: its bundled price map (the import never reaches the
    network), and its production mode, so that it never reads a `.env` file."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # litellm loads a `.env` on import ("DEV" mode), searching upward from its own package
    # directory: with a virtual environment inside a repository, the repository's `.env`
    # could set OPENAI_API_BASE and send the user's key to its server. Never any `.env`.
    os.environ["LITELLM_MODE"] = "PRODUCTION"


def import_litellm() -> Any:
    """litellm, imported (once per process) with its response models built."""
    prepare_environment()
    collecting = gc.isenabled()
    gc.disable()
    try:
        # litellm's response models finish building on first use and warn about their own
        # typing then (ReadOnly TypedDict items): litellm's business, not the user's. Build
        # them once here with warnings off, so no later call depends on the caller's filters.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import litellm

            if not getattr(litellm, "_helix_models_built", False):
                litellm.ModelResponse()
                litellm.ModelResponse(stream=True)  # the streamed answer's chunk models
                litellm.ModelResponseStream()
                litellm._helix_models_built = True
    finally:
        if collecting:
            gc.enable()
    litellm.suppress_debug_info = True  # no "Give Feedback" banners on our stdout
    return litellm
