"""The search's defaults that the command line shows before it loads the search (`LoopSettings` uses them)."""

BATCH_SIZE = 8  # candidates compiled together and timed by one runtime process; adaptive rankers learn between batches
