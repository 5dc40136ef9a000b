"""Running candidates: compiling them (builder), timing them against IREE's default (runner, timing worker,
verdict) and the devices they run on."""
