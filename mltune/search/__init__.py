"""The budgeted search: the loop that asks a ranker for candidates, has them built and timed, and resumes runs."""
