"""The search's defaults that the command line shows before it loads the search (`LoopSettings` uses them)."""

BATCH_SIZE = 8  # candidates compiled together and timed by one runtime process; adaptive rankers learn between batches
SCREENS = ("auto", "none", "dispatch", "one-op")  # what a model's candidates are first timed on: `mltune.search.screen`
DEFAULT_FINALISTS = 4  # per dispatch, the screen's best timed in the whole model
