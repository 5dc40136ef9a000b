"""A mkdocs hook: `<!-- tune-options -->` in a page becomes the table of `mltune tune`'s options, generated from
their one declaration (`mltune.tuning.options.TuneOptions`), so that the site never lists an option differently."""

from mltune.tuning.option_forms import options_table

PLACE = "<!-- tune-options -->"


def on_page_markdown(markdown: str, **_: object) -> str:
    return markdown.replace(PLACE, options_table()) if PLACE in markdown else markdown
