"""Importers: other tuners' exported measurements turned into mltune dataset records."""
