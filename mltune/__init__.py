"""mltune: an ML-guided autotuner for IREE dispatches."""

__version__ = "0.1.0"
