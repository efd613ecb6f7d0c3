package control

import (
	"reflect"
	"strings"
	"time"
)

// field is one JSON field of a struct type.
type field struct {
	name      string
	omitempty bool
	doc       string
	typ       reflect.Type
}

// fieldsOf lists the JSON fields of struct v (or *v).
func fieldsOf(v any) []field {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return structFields(t)
}

func structFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out = append(out, field{name: name, omitempty: strings.Contains(opts, "omitempty"), doc: f.Tag.Get("doc"), typ: f.Type})
	}
	return out
}

// schemaer is a type with a schema of its own (Node: an id or
// "coordinator").
type schemaer interface{ jsonSchema() map[string]any }

var (
	timeType     = reflect.TypeFor[time.Time]()
	schemaerType = reflect.TypeFor[schemaer]()
)

// schemaOf is t's JSON Schema; struct types go to defs (by Go name) and
// are referenced.
func schemaOf(t reflect.Type, defs map[string]any) map[string]any {
	if t.Kind() != reflect.Pointer && t.Implements(schemaerType) {
		return reflect.Zero(t).Interface().(schemaer).jsonSchema()
	}
	if t == timeType {
		return map[string]any{"type": "string", "format": "date-time"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return schemaOf(t.Elem(), defs)
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), defs)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem(), defs)}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		name := t.Name()
		if _, ok := defs[name]; !ok {
			defs[name] = nil // recursion guard
			props := map[string]any{}
			var required []string
			for _, f := range structFields(t) {
				s := schemaOf(f.typ, defs)
				if f.doc != "" {
					s = withDoc(s, f.doc)
				}
				props[f.name] = s
				if !f.omitempty {
					required = append(required, f.name)
				}
			}
			def := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
			if len(required) > 0 {
				def["required"] = required
			}
			defs[name] = def
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	return map[string]any{}
}

// withDoc adds a description; a $ref is wrapped (3.1 allows siblings, but
// some tools drop them).
func withDoc(s map[string]any, doc string) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	out["description"] = doc
	return out
}

// OpenAPI is the control API's OpenAPI 3.1 document, built from the route
// table and the Go types of each body and answer (GET /v1/openapi.json
// serves it; openapi.json in this package is a copy kept current by a
// test).
func OpenAPI() map[string]any {
	defs := map[string]any{}
	errRef := schemaOf(reflect.TypeFor[Error](), defs)
	paths := map[string]any{}
	for _, rt := range routes {
		op := map[string]any{"summary": rt.Summary, "operationId": operationID(rt)}
		var params []any
		for _, p := range rt.Params {
			params = append(params, map[string]any{"name": p.Name, "in": p.In, "required": p.Required, "description": p.Doc, "schema": map[string]any{"type": p.Type}})
		}
		if params != nil {
			op["parameters"] = params
		}
		if rt.Body != nil {
			op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
				"application/json": map[string]any{"schema": schemaOf(reflect.TypeOf(rt.Body), defs)}}}
		}
		media := "application/json"
		if rt.NDJSON {
			media = "application/x-ndjson"
		}
		responses := map[string]any{
			itoa(int64(rt.Status)): map[string]any{"description": "success", "content": map[string]any{media: map[string]any{"schema": schemaOf(reflect.TypeOf(rt.Resp), defs)}}},
		}
		for _, st := range append([]int{401}, rt.Errors...) {
			responses[itoa(int64(st))] = map[string]any{"description": statusDoc(st), "content": map[string]any{"application/json": map[string]any{"schema": errRef}}}
		}
		op["responses"] = responses
		path := rt.Path
		item, _ := paths[path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[path] = item
		}
		item[strings.ToLower(rt.Method)] = op
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "kreactor control API",
			"version":     "1",
			"description": "Faults, request log, group and topic state of a kreactor broker (a fake Kafka cluster) or proxy (in front of a real one). Faults use the scenario files' vocabulary (GET /v1/vocabulary).",
		},
		"paths":      paths,
		"components": map[string]any{"schemas": defs, "securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}}},
		"security":   []any{map[string]any{"bearer": []any{}}, map[string]any{}},
	}
}

func operationID(rt route) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(rt.Method))
	for _, seg := range strings.Split(strings.TrimPrefix(rt.Path, "/v1"), "/") {
		seg = strings.Trim(seg, "{}")
		seg = strings.ReplaceAll(seg, ".", "_")
		if seg != "" {
			b.WriteString(strings.ToUpper(seg[:1]) + seg[1:])
		}
	}
	return b.String()
}

func statusDoc(st int) string {
	switch st {
	case 400:
		return "bad input: the error names the field and the value"
	case 401:
		return "missing or wrong bearer token"
	case 404:
		return "no such thing (the error names it)"
	case 413:
		return "the body is larger than the limit"
	case 501:
		return "the backend cannot do this (e.g. stop a broker in proxy mode)"
	case 502:
		return "the cluster did not answer"
	}
	return "error"
}
