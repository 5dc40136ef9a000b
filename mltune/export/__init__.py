"""Exporting `transformers` models the way IREE 3.13 takes them (needs `pip install 'mltune[export]'`)."""
