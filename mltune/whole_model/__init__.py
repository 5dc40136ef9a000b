"""Whole-model tuning: where the model spends its time, which flags and configs make the whole model faster."""
