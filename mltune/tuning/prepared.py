"""A run's input as its builds compile it: dumped (`prepare_input`: IREE's default compile of the whole model, which
writes its dispatches), lowered to the input form where candidates annotate the source, and without its weights
where they are worth moving out (`mltune.model.weights`). The split is a compile of the same file with the same
flags, so it runs beside the dump's compile rather than after it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from iree.compiler import ir

from mltune.input.model import TuningInput, prepare_input
from mltune.model.input_form import in_input_form
from mltune.model.weights import start_split, without_weights
from mltune.system.progress import display

if TYPE_CHECKING:
    from mltune.tuning.request import TuneRequest


def prepared_input(request: TuneRequest, context: ir.Context) -> tuple[TuningInput, TuningInput]:
    """The input as given, dumped, and the input every build compiles from."""
    weights_dir = request.run_dir / "weights"
    with display().phase("dump the input's dispatches and move the model's weights out of every build (iree-compile, "
                         "side by side)"), ThreadPoolExecutor(max_workers=1) as pool:
        started = start_split(request.input_path, request.target, request.compile_flags, context, weights_dir, pool)
        prepared = prepare_input(request.input_path, request.target, request.run_dir, context, request.function,
                                 request.seed, request.compile_flags, request.call_inputs)
        if started is not None:
            started.result()  # made beside the dump: `without_weights` finds it
        return prepared, without_weights(in_input_form(prepared, request.target.kind, request.run_dir),
                                          request.target.kind, weights_dir)
