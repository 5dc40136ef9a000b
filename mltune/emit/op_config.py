"""A candidate's configuration as the text the appliers take: the attributes IREE reads on the root op.

Most ops read one attribute, `compilation_info`, so their configuration is that attribute's text.
Attention reads a second one, `decomposition_config` (the MMA intrinsic and subgroup layout of its
two matmuls), so its configuration is a dictionary holding both. The loop and the builder pass the
text along unchanged; only the appliers look inside, through `op_attributes` and `config_flags`.

A configuration a spec cannot carry (llvm-cpu's data-tiled lowering: the op it configures does not exist yet
when specs are applied) is `iree-compile` flags instead: a dictionary whose `COMPILE_FLAGS` entry lists them,
which the appliers hand to the compiler instead of setting on the op.
"""

from __future__ import annotations

import re

from iree.compiler import ir

COMPILATION_INFO = "compilation_info"
COMPILE_FLAGS = "mltune.compile_flags"
TILE_LIST = re.compile(r"(\w+) = \[([0-9, ]*)\]")  # `name = [8, 16, 0]` in a lowering config's text


def config_levels(config: str) -> dict[str, list[int]]:
    """The tile lists a config's text holds (`distribution = [64, 64, 0], ...` of an `#iree_cpu.lowering_config`, or
    an `#iree_gpu` one's `workgroup`, `reduction`, ...), by name; empty lists and nested (scalable) ones are left out."""
    return {
        name: [int(tile) for tile in tiles.split(",")] for name, tiles in TILE_LIST.findall(config) if tiles.strip()
    }


def attribute_dictionary(attributes: dict[str, str], context: ir.Context) -> str:
    """One configuration text for several root-op attributes (name: attribute text), checked by parsing."""
    with context:
        return str(ir.DictAttr.get({name: ir.Attribute.parse(text) for name, text in attributes.items()}))


def flags_config(flags: tuple[str, ...], context: ir.Context) -> str:
    """A configuration that is compile flags only."""
    with context:
        return str(ir.DictAttr.get({COMPILE_FLAGS: ir.ArrayAttr.get([ir.StringAttr.get(f) for f in flags])}))


def op_attributes(config: str, context: ir.Context) -> dict[str, str]:
    """The root-op attributes a configuration sets, by name: a dictionary's entries (its compile flags aside),
    else `compilation_info`."""
    if not config.startswith("{"):
        return {COMPILATION_INFO: config}
    with context:
        dictionary = ir.DictAttr(ir.Attribute.parse(config))
        return {named.name: str(named.attr) for named in dictionary if named.name != COMPILE_FLAGS}


def config_flags(config: str, context: ir.Context) -> tuple[str, ...]:
    """The compile flags a configuration asks for (none for a configuration set on the op)."""
    if not config.startswith("{"):
        return ()
    with context:
        dictionary = ir.DictAttr(ir.Attribute.parse(config))
        if COMPILE_FLAGS not in dictionary:
            return ()
        return tuple(ir.StringAttr(flag).value for flag in ir.ArrayAttr(dictionary[COMPILE_FLAGS]))
