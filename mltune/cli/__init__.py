"""The `mltune` command (`command`), its `runs` and `show` subcommands (`runs`); `main` is the console script."""

from mltune.cli.command import main

__all__ = ["main"]
