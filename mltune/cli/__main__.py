"""`python -m mltune.cli`: the `mltune` command."""

import sys

from mltune.cli.command import main

sys.exit(main())
