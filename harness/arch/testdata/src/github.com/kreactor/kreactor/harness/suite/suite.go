package suite
