package config

import (
	"fmt"
	"math"
	"net"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/kreactor/kreactor/internal/mutant"
)

// maxWireDuration is the longest duration a setting kept as int32
// milliseconds can hold (about 24.8 days).
const maxWireDuration = time.Duration(math.MaxInt32) * time.Millisecond

// maxInstanceIDLen is the longest group.instance.id Kafka accepts (Java's
// JoinGroupRequest.validateGroupInstanceId: the topic name rules).
const maxInstanceIDLen = 249

// Validate checks every field against its check tag, in declaration order,
// and returns an *Error naming the first invalid one (consumer.New calls
// it). A nil error means consumer.New accepts c.
func (c Consumer) Validate() error { return validate(reflect.ValueOf(c)) }

// Validate checks every field against its check tag (the rules Consumer's
// fields of the same names have) and returns an *Error naming the first
// invalid one (consumer.NewShare calls it).
func (s Share) Validate() error { return validate(reflect.ValueOf(s)) }

func validate(cfg reflect.Value) error {
	for _, f := range fields(cfg.Type()) {
		if err := f.validate(cfg); err != nil {
			return err
		}
	}
	return nil
}

func (f Field) validate(cfg reflect.Value) error {
	v := cfg.FieldByIndex(f.Index)
	for i, r := range f.rules {
		value, reason := r.check(f, v, cfg)
		if reason == "" {
			continue
		}
		if i == 0 && f.why != "" {
			reason += ": " + f.why
		}
		return &Error{Field: f.Name, Java: f.Java, Value: value, Reason: reason}
	}
	if v.Type() == durationType && time.Duration(v.Int()) > maxWireDuration {
		return &Error{Field: f.Name, Java: f.Java, Value: v.Interface(),
			Reason: fmt.Sprintf("must be <= %s: it travels as int32 milliseconds", maxWireDuration)}
	}
	return nil
}

// parse checks r's parameter against the field's type t.
func (r rule) parse(t reflect.Type) error {
	switch r.name {
	case "required", "hostport", "trimmed":
		if r.param != "" {
			return fmt.Errorf("takes no parameter")
		}
	case "oneof", "gte", "instanceid":
		if r.param == "" {
			return fmt.Errorf("needs a parameter")
		}
	case "min":
		if t == durationType {
			if r.param == "0" {
				return nil
			}
			_, err := time.ParseDuration(r.param)
			return err
		}
		_, err := strconv.ParseInt(r.param, 10, 64)
		return err
	default:
		return fmt.Errorf("unknown rule")
	}
	return nil
}

// check applies r to v (field f of cfg): the value to report and why it is
// refused, or "" when v passes.
func (r rule) check(f Field, v, cfg reflect.Value) (any, string) {
	if r.when != "" && !cfg.FieldByName(r.when).Bool() {
		return nil, ""
	}
	switch r.name {
	case "required":
		if v.Len() == 0 && v.Kind() == reflect.Slice {
			return v.Interface(), "at least one value is required"
		}
		if v.Len() == 0 {
			return v.Interface(), "must not be empty"
		}
	case "hostport":
		return hostPorts(v.Interface().([]string))
	case "trimmed":
		if s := v.String(); strings.TrimSpace(s) != s {
			return s, "must not have leading or trailing spaces"
		}
	case "oneof":
		return oneOf(v.String(), strings.Fields(r.param))
	case "min":
		return r.min(f, v)
	case "gte":
		if low := cfg.FieldByName(r.param); v.Int() < low.Int() {
			return v.Interface(), fmt.Sprintf("must be >= %s (%v)", r.param, low.Interface())
		}
	case "instanceid":
		return instanceID(v.String(), cfg.FieldByName(r.param).String(), r.param)
	}
	return nil, ""
}

// min checks a duration's lower bound, or an integer's range
// min..math.MaxInt32.
func (r rule) min(f Field, v reflect.Value) (any, string) {
	if v.Type() == durationType {
		low := time.Duration(0)
		if r.param != "0" {
			low, _ = time.ParseDuration(r.param)
		}
		if f.Name == "RetryBackoff" && v.Int() == 0 && mutant.On("zero-backoff-accepted") {
			return nil, ""
		}
		if time.Duration(v.Int()) < low {
			reason := "must be >= " + r.param
			if r.when != "" {
				reason += " when " + r.when + " is true"
			}
			return v.Interface(), reason
		}
		return nil, ""
	}
	low, _ := strconv.ParseInt(r.param, 10, 64)
	if v.Int() < low || v.Int() > math.MaxInt32 {
		return v.Interface(), fmt.Sprintf("must be in %d..%d", low, math.MaxInt32)
	}
	return nil, ""
}

// hostPorts checks each address is host:port with a port in 1..65535.
func hostPorts(addrs []string) (any, string) {
	for _, a := range addrs {
		host, port, err := net.SplitHostPort(a)
		if err != nil || host == "" {
			return a, "not a host:port address"
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return a, "port must be a number in 1..65535"
		}
	}
	return nil, ""
}

// oneOf checks s is one of the values: "must be a, b or c".
func oneOf(s string, values []string) (any, string) {
	for _, v := range values {
		if s == v {
			return nil, ""
		}
	}
	last := len(values) - 1
	return s, "must be " + strings.Join(values[:last], ", ") + " or " + values[last]
}

// instanceID checks group.instance.id as Java's
// JoinGroupRequest.validateGroupInstanceId does (not empty when set, at
// most 249 characters of [a-zA-Z0-9._-]) and that it comes with a group
// (the field groupField, value group).
func instanceID(id, group, groupField string) (any, string) {
	switch {
	case id == "":
		return nil, ""
	case group == "":
		return id, "needs a " + groupField + " (group.id): static membership is membership of a group"
	case len(id) > maxInstanceIDLen:
		return id, fmt.Sprintf("must be at most %d characters", maxInstanceIDLen)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return id, "may contain only ASCII letters, digits, '.', '_' and '-'"
		}
	}
	return nil, ""
}
