"""A mkdocs hook: a page's placeholders become tables generated from the code, so that the site never lists
differently from what runs: `<!-- tune-options -->`, `mltune tune`'s options from their one declaration
(`mltune.tuning.options.TuneOptions`); `<!-- op-kinds -->`, each op kind's space, features and heuristic
(`mltune.tuning.op_kinds`)."""

from mltune.tuning.op_kinds import op_kinds_table
from mltune.tuning.option_forms import options_table

TABLES = {"<!-- tune-options -->": options_table, "<!-- op-kinds -->": op_kinds_table}


def on_page_markdown(markdown: str, **_: object) -> str:
    for place, table in TABLES.items():
        if place in markdown:
            markdown = markdown.replace(place, table())
    return markdown
