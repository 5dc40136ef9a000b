"""Tuning runs: their directories and state, what a run found (report, summary, text), past runs read back."""
