package vocab

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// whereField is one compiled selector entry.
type whereField struct {
	name  string // Go field name
	value any    // int64, string or bool
}

// snake is a Go field name in snake case ("MemberEpoch" -> "member_epoch",
// "MemberID" -> "member_id").
func snake(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// whereKeys lists the fields a selector may use for API key: its request's
// top-level integer, string and bool fields (and *string), by snake name.
func whereKeys(key kmsg.Key) map[string]reflect.StructField {
	req := kmsg.RequestForKey(int16(key))
	if req == nil {
		return nil
	}
	t := reflect.TypeOf(req).Elem()
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Name == "Version" {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.String, reflect.Bool:
			out[snake(f.Name)] = f
		case reflect.Pointer:
			if f.Type.Elem().Kind() == reflect.String {
				out[snake(f.Name)] = f
			}
		}
	}
	return out
}

// WhereFields lists, sorted, the body fields a selector may name for API
// key (its request's top-level integer, string and bool fields in snake
// case: ConsumerGroupHeartbeat's MemberEpoch is member_epoch).
func WhereFields(key kmsg.Key) []string {
	return slices.Sorted(maps.Keys(whereKeys(key)))
}

// CompileWhere checks selector w (body field in snake case -> the value it
// must have, written as text: "-1", "true", "my-group") against API key and
// returns its predicate, true for requests of key whose every named field
// has its value (a nil *string field never matches). Errors name the
// entry, and for an unknown field every field the API has.
func CompileWhere(key kmsg.Key, w map[string]string) (func(kmsg.Request) bool, error) {
	fields := whereKeys(key)
	var want []whereField
	for _, k := range slices.Sorted(maps.Keys(w)) {
		f, ok := fields[k]
		if !ok {
			return nil, fmt.Errorf("%s requests have no field %q (fields: %s)", key.Name(), k, strings.Join(WhereFields(key), ", "))
		}
		v := w[k]
		var val any
		kind := f.Type.Kind()
		if kind == reflect.Pointer {
			kind = f.Type.Elem().Kind()
		}
		switch kind {
		case reflect.String:
			val = v
		case reflect.Bool:
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("%s: want true or false, got %q", k, v)
			}
			val = b
		default:
			i, err := strconv.ParseInt(v, 10, f.Type.Bits())
			if err != nil {
				return nil, fmt.Errorf("%s: want an integer of %d bits, got %q", k, f.Type.Bits(), v)
			}
			val = i
		}
		want = append(want, whereField{name: f.Name, value: val})
	}
	return func(req kmsg.Request) bool {
		if req == nil || req.Key() != int16(key) {
			return false
		}
		rv := reflect.ValueOf(req).Elem()
		for _, wf := range want {
			f := rv.FieldByName(wf.name)
			if f.Kind() == reflect.Pointer {
				if f.IsNil() {
					return false
				}
				f = f.Elem()
			}
			switch x := wf.value.(type) {
			case string:
				if f.String() != x {
					return false
				}
			case bool:
				if f.Bool() != x {
					return false
				}
			case int64:
				if f.Int() != x {
					return false
				}
			}
		}
		return true
	}, nil
}

// BodyFields returns req's top-level scalar fields by snake name (the
// fields a selector can name), for logs: integers as int64, strings and
// bools as themselves, a nil *string as nil.
func BodyFields(req kmsg.Request) map[string]any {
	if req == nil {
		return nil
	}
	rv := reflect.ValueOf(req).Elem()
	out := map[string]any{}
	for name, f := range whereKeys(kmsg.Key(req.Key())) {
		v := rv.FieldByIndex(f.Index)
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() {
				out[name] = nil
			} else {
				out[name] = v.Elem().String()
			}
		case reflect.String:
			out[name] = v.String()
		case reflect.Bool:
			out[name] = v.Bool()
		default:
			out[name] = v.Int()
		}
	}
	return out
}
