"""The shipped models (ARCH/KIND/{forest.npz,model.json}), installed as the data package `mltune.models`."""
