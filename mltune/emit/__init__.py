"""Handing configs back to the compiler: tuning specs, and `compilation_info` annotations on source ops."""
