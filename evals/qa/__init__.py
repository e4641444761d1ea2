"""`helix eval qa`: natural repository questions with reference answers (SWE-QA's format)."""
