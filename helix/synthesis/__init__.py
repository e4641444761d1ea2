"""Synthesis: redaction, the prompt, the one LLM call, and the tool-result contract."""
