package consumer

import "github.com/kreactor/kreactor/consumer/config"

// Config configures a Consumer: package config's Consumer, where each
// field is declared once with its Java setting, default and checks as
// struct tags (go doc ./consumer/config). Start from DefaultConfig (Java's
// defaults) and set BootstrapServers; New rejects any invalid field with a
// *ConfigError naming it and its Java setting.
type Config = config.Consumer

// ShareConfig configures a ShareConsumer (KIP-932): package config's Share.
// Start from DefaultShareConfig and set BootstrapServers and GroupID;
// NewShare rejects an invalid field with a *ConfigError naming it.
type ShareConfig = config.Share

// ConfigError names an invalid Config or ShareConfig field, its Java
// setting, its value and the rule broken.
type ConfigError = config.Error

// DefaultConfig returns Java's consumer defaults (without BootstrapServers).
func DefaultConfig() Config { return config.DefaultConsumer() }

// DefaultShareConfig returns Java's share consumer defaults (without
// BootstrapServers and GroupID).
func DefaultShareConfig() ShareConfig { return config.DefaultShare() }
