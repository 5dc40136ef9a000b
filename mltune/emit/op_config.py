"""A candidate's configuration as the text the appliers take: the attributes IREE reads on the root op.

Most ops read one attribute, `compilation_info`, so their configuration is that attribute's text.
Attention reads a second one, `decomposition_config` (the MMA intrinsic and subgroup layout of its
two matmuls), so its configuration is a dictionary holding both. The loop and the builder pass the
text along unchanged; only the appliers look inside, through `op_attributes`.
"""

from __future__ import annotations

from iree.compiler import ir

COMPILATION_INFO = "compilation_info"


def attribute_dictionary(attributes: dict[str, str], context: ir.Context) -> str:
    """One configuration text for several root-op attributes (name: attribute text), checked by parsing."""
    with context:
        return str(ir.DictAttr.get({name: ir.Attribute.parse(text) for name, text in attributes.items()}))


def op_attributes(config: str, context: ir.Context) -> dict[str, str]:
    """The root-op attributes a configuration sets, by name: a dictionary's entries, else `compilation_info`."""
    if not config.startswith("{"):
        return {COMPILATION_INFO: config}
    with context:
        dictionary = ir.DictAttr(ir.Attribute.parse(config))
        return {named.name: str(named.attr) for named in dictionary}
