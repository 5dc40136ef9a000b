"""The packages to install: mltune's own, found in mltune/, and the repository's top-level models/ (the shipped
models, models/ARCH/KIND/{forest.npz,model.json}) installed as the data package `mltune.models`, which
`mltune.system.paths` reads through importlib.resources. Everything else is in pyproject.toml."""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["mltune*"]), "mltune.models"], package_dir={"mltune.models": "models"})
