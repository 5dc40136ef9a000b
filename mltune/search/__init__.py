"""Search: configuration spaces, candidates, tuning specs, building, running and the budgeted loop."""
