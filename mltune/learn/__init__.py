"""Learning from dataset records: grouping records into samples, the forest cost model, `train` and `evaluate`."""
