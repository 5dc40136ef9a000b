"""A compiled module loaded into IREE's runtime with the parameter archives its globals name (IREE's
`--parameters=SCOPE=PATH`): the one way every mltune process that runs a model loads it.

Archives are memory-mapped once per process (`Parameters`); each module loaded gets its own context with the
`io_parameters` module in front of it, so the baseline and every candidate read the same mapped weights.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import iree.runtime as rt

from mltune.input.files import ScopedPath


@dataclass
class Parameters:
    """The `io_parameters` module over the given archives (None: the module needs none). The index and the
    providers are held here: the runtime module reads through them for as long as any context uses it."""

    config: rt.Config
    archives: Sequence[ScopedPath]
    _kept: list = field(default_factory=list, init=False, repr=False)
    module: rt.VmModule | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        providers = []
        for scope, path in self.archives:
            index = rt.ParameterIndex()
            index.load(path)
            providers.append(index.create_provider(scope=scope))
            self._kept.append(index)
        if providers:
            self._kept.extend(providers)
            self.module = rt.create_io_parameters_module(self.config.vm_instance, *providers)


@dataclass
class LoadedModule:
    """A module's context (kept alive as long as this object) and the function to call."""

    context: rt.SystemContext
    function: object
    parameters: Parameters


def load_module(parameters: Parameters, vmfb: str, function: str) -> LoadedModule:
    """`vmfb` in a context of its own, after the parameters module when it needs one."""
    config = parameters.config
    context = rt.SystemContext(config=config)
    if parameters.module is not None:
        context.add_vm_module(parameters.module)
    module = rt.VmModule.mmap(config.vm_instance, vmfb)
    context.add_vm_module(module)
    return LoadedModule(context, context.modules[module.name][function], parameters)  # `module`, or the source's
