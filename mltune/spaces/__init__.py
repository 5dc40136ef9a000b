"""Configuration spaces: for each root op kind and target, the Z3 space of configs IREE can compile, and the
configurators that turn a solution into IREE attributes."""
