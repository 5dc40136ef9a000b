"""The result timed as the user will build it: the model with its weights inlined, where the run built and timed
it without them (`mltune.whole_model.weights`).

Without its weights a model compiles in a fraction of the time, which is why every candidate is built so. The two
builds do not always run alike: with the weights inlined IREE packs them into one constant buffer and a dispatch
reads its weight at an offset it does not know (`memref<2048x1024xf32, strided<[1024, 1], offset: ?>>`); without
them each weight is a buffer of its own, read at offset 0, and the code generated for one config differs, so a
result measured without the weights can keep only part of its speedup with them (docs/whole-model-tuning.md). So the
result is built once more from the user's model, with IREE's default build of it beside, and timed against it: a
result not surely faster there is withdrawn, and the speedup reported is this one."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from mltune.emit.apply import Applied
from mltune.execution.build import Builder
from mltune.execution.devices import RunnerPool
from mltune.execution.measurement import Measurement, TimingPlan
from mltune.execution.runner import Runner


@dataclass(frozen=True)
class AsBuilt:
    """Builds of the user's own model (`builder`) and how to run them (`runner`: the user's arguments and archives);
    `default_vmfb`: IREE's default build of it where one exists already (`mltune.input.tuning_input.dumped_build`)."""

    builder: Builder
    runner: Runner | RunnerPool
    default_vmfb: Path | None = None

    def in_folder(self, work_dir: Path) -> AsBuilt:
        return replace(self, builder=replace(self.builder, work_dir=work_dir))

    def measure(self, result: Applied, plan: TimingPlan) -> Measurement | str:
        """`result` built into the user's model and timed against IREE's default build of it; a build that fails:
        why, as the compiler said."""
        if self.default_vmfb is not None and self.default_vmfb.is_file():
            (built,) = self.builder.compile_named([(0, result, "recommended")])
            default_vmfb = self.default_vmfb
        else:
            default, built = self.builder.compile_named([(-1, None, "default"), (0, result, "recommended")])
            if default.status != "ok":
                return f"IREE default: {default.detail}"
            default_vmfb = default.vmfb
        if built.status != "ok":
            return f"the result: {built.detail}"
        return self.runner.measure(default_vmfb, [(0, built.vmfb)], plan)[0]
