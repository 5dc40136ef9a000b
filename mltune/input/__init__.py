"""What the user hands in: the model, the arguments it is called with, and the checks on given values."""
