package arch

import "strings"

// ModulePath is the import path of this module.
const ModulePath = "github.com/kreactor/kreactor"

// Package paths the rules name.
const (
	ReactorPkg  = ModulePath + "/reactor"
	ManagersPkg = ModulePath + "/managers"
	GroupPkg    = ModulePath + "/managers/group"
	SharePkg    = ModulePath + "/managers/share"
	ConsumerPkg = ModulePath + "/consumer"
	HarnessPkg  = ModulePath + "/harness"
)

// protocolLibrary is the module path prefix of franz-go (kmsg, kgo, kerr,
// kfake, ...).
const protocolLibrary = "github.com/twmb/franz-go"

// InTree reports whether path is prefix or below it.
func InTree(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// isStandard reports whether path is a standard-library package: its first
// element has no dot (the rule the go command applies to module paths;
// std's vendored packages start with "vendor/").
func isStandard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
