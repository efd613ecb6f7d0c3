package config

import (
	"fmt"
	"reflect"
	"strconv"
)

// Error names an invalid field, its value and the rule broken
// (consumer.ConfigError; Validate returns it).
type Error struct {
	Field  string // Go field name
	Java   string // the Java setting, if any
	Value  any
	Reason string
}

func (e *Error) Error() string {
	name := e.Field
	if e.Java != "" {
		name += " (" + e.Java + ")"
	}
	return fmt.Sprintf("consumer: invalid %s = %s: %s", name, configValue(e.Value), e.Reason)
}

// configValue formats an Error's value: strings (and lists of them)
// quoted, so an empty or blank value shows ("", " g "), the rest with %v.
func configValue(v any) string {
	switch rv := reflect.ValueOf(v); {
	case rv.Kind() == reflect.String:
		return strconv.Quote(rv.String())
	case rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.String:
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprintf("%v", v)
}
