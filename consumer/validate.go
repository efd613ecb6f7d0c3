package consumer

// Validate checks cfg by the same rules New applies and returns the first
// invalid field as a *ConfigError (nil if cfg is valid). Other subjects
// (harness/subjects/kgo) call it so that every subject rejects the same
// configurations with the same error.
func (c Config) Validate() error { return c.validate() }

// Validate checks s by the same rules NewShare applies and returns the first
// invalid field as a *ConfigError (nil if s is valid).
func (s ShareConfig) Validate() error { return s.validate() }
