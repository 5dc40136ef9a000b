"""What mltune needs of the system it runs on: where files go, child processes, the terminal."""
