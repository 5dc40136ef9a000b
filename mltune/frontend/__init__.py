"""The IR front end: IR read through IREE's bindings, the problems of root ops, one-op models."""
