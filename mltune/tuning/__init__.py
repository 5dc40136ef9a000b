"""A tuning run: the request checked, the input read, each problem searched, the spec and the model checks."""
