"""The exceptions that reach the user as a single line: bad input (exit code 2) and a failed run (exit code 1)."""


class UserError(Exception):
    """Bad input or an impossible request: the CLI prints the message alone and exits 2."""


class RunFailure(Exception):
    """A run that could do nothing with good input (every candidate failed): one line and exit code 1."""
