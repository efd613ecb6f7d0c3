package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/creasty/defaults"
)

// Field is one setting of Consumer or Share, read from its tags.
type Field struct {
	Name      string       // the Go field name (promoted fields of Common by their own name)
	Java      string       // the Java setting; "" for none
	OmitEmpty bool         // the Java driver leaves an empty value out
	Default   string       // the default tag; "" for none (the zero value)
	Type      reflect.Type // the field's type
	Index     []int        // for reflect.Value.FieldByIndex on the config struct
	rules     []rule
	why       string
}

// rule is one entry of a check tag.
type rule struct {
	name, param string
	when        string // "min=V if FIELD": the bool field that enables it
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	fieldsOf     sync.Map // reflect.Type -> []Field
)

// Fields lists the settings of T (Consumer or Share) in declaration order,
// Common's where Common is embedded. It panics on a tag that does not parse
// (TestTags checks both kinds).
func Fields[T Consumer | Share]() []Field { return fields(reflect.TypeFor[T]()) }

// Lookup is the field of T named name.
func Lookup[T Consumer | Share](name string) (Field, bool) {
	fs := Fields[T]()
	i := slices.IndexFunc(fs, func(f Field) bool { return f.Name == name })
	if i < 0 {
		return Field{}, false
	}
	return fs[i], true
}

func fields(t reflect.Type) []Field {
	if fs, ok := fieldsOf.Load(t); ok {
		return fs.([]Field)
	}
	var out []Field
	for _, sf := range reflect.VisibleFields(t) {
		if sf.Anonymous || !sf.IsExported() {
			continue
		}
		f, err := parseField(sf)
		if err != nil {
			panic(fmt.Sprintf("config: %s.%s: %v", t.Name(), sf.Name, err))
		}
		out = append(out, f)
	}
	fieldsOf.Store(t, out)
	return out
}

func parseField(sf reflect.StructField) (Field, error) {
	java, ok := sf.Tag.Lookup("java")
	if !ok || java == "" {
		return Field{}, fmt.Errorf(`no java tag (the Java setting, or java:"-")`)
	}
	f := Field{Name: sf.Name, Type: sf.Type, Index: sf.Index, Default: sf.Tag.Get("default"), why: sf.Tag.Get("why")}
	java, opt, _ := strings.Cut(java, ",")
	switch {
	case opt != "" && opt != "omitempty":
		return Field{}, fmt.Errorf("java tag option %q (only omitempty)", opt)
	case java != "-":
		f.Java, f.OmitEmpty = java, opt == "omitempty"
	}
	check := sf.Tag.Get("check")
	if check == "" {
		return f, nil
	}
	for _, r := range strings.Split(check, ",") {
		name, param, _ := strings.Cut(r, "=")
		param, when, _ := strings.Cut(param, " if ")
		ru := rule{name: name, param: param, when: when}
		if err := ru.parse(sf.Type); err != nil {
			return Field{}, fmt.Errorf("check %q: %w", r, err)
		}
		f.rules = append(f.rules, ru)
	}
	return f, nil
}

// withDefaults is a T with every default tag applied.
func withDefaults[T Consumer | Share]() T {
	var c T
	if err := defaults.Set(&c); err != nil {
		panic(fmt.Sprintf("config: a default tag does not parse: %v", err))
	}
	return c
}
