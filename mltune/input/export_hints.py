"""Known ways a frontend's export fails in IREE 3.13, each with its fix, so that a refused model says what to do
rather than only relaying the compiler's message."""

from __future__ import annotations

# (what the compiler's message holds, the fix): the first that matches is named
HINTS: tuple[tuple[str, str], ...] = (
    (
        "torch.aten.diff",
        "a `transformers` decoder exported with input ids alone builds its causal mask with "
        "aten.diff, which IREE 3.13 cannot lower: pass a ready 4-D boolean mask, as "
        "`mltune export decoder` (mltune.export.decoder) does",
    ),
    (
        "torch.vtensor.literal",
        "a `transformers` model exported with a constant attention mask carries a boolean "
        "literal IREE 3.13 cannot lower: compute the 4-D mask from the input (a tril of ones), "
        "as `mltune export decoder` (mltune.export.decoder) does",
    ),
)


def export_hint(compiler_message: str) -> str:
    """The fix for a known export failure in the compiler's message ("" when none is known)."""
    return next((fix for marker, fix in HINTS if marker in compiler_message), "")
