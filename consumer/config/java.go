package config

import (
	"reflect"
	"strconv"
	"strings"
	"time"
)

// JavaProperties is c as Java consumer properties: every field with a Java
// setting (java tag), durations in milliseconds, lists joined with commas;
// an empty value of an omitempty field is left out. Fields with no Java
// setting (MaxBufferedRecords, Dial, Logger, Rand) are not mapped: the
// caller decides what a JVM cannot honour.
func (c Consumer) JavaProperties() map[string]string { return javaProperties(reflect.ValueOf(c)) }

// JavaProperties is s as Java share consumer properties (see
// Consumer.JavaProperties).
func (s Share) JavaProperties() map[string]string { return javaProperties(reflect.ValueOf(s)) }

func javaProperties(cfg reflect.Value) map[string]string {
	p := map[string]string{}
	for _, f := range fields(cfg.Type()) {
		v := cfg.FieldByIndex(f.Index)
		if f.Java == "" || f.OmitEmpty && v.IsZero() {
			continue
		}
		p[f.Java] = javaValue(v)
	}
	return p
}

// javaValue formats v as Java's config parser reads it.
func javaValue(v reflect.Value) string {
	if v.Type() == durationType {
		return strconv.FormatInt(time.Duration(v.Int()).Milliseconds(), 10)
	}
	switch v.Kind() {
	case reflect.Slice:
		return strings.Join(v.Interface().([]string), ",")
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	}
	return v.String()
}
