package control

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite openapi.json from the code")

// TestOpenAPIFile: openapi.json (for readers without a running broker) is
// the document the code generates; go test -update rewrites it.
func TestOpenAPIFile(t *testing.T) {
	want, err := json.MarshalIndent(OpenAPI(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile("openapi.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatalf("%v (go test ./fakebroker/control -run OpenAPIFile -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Error("openapi.json differs from OpenAPI(): run go test ./fakebroker/control -run OpenAPIFile -update")
	}
}

// TestOpenAPIMatchesHandlers calls every documented operation and checks
// each answer (status, media type, body) against the document the server
// itself serves: a handler answering a field the schema lacks, leaving out
// a required one, a wrong type or an undocumented status fails it, and so
// does a route the mux serves that the document does not list.
func TestOpenAPIMatchesHandlers(t *testing.T) {
	e := newEnv(t, Config{Verdict: nil})
	st, data := e.do(t, "GET", "/v1/openapi.json", nil)
	if st != 200 {
		t.Fatalf("GET /v1/openapi.json: %d", st)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	v := validator{doc: doc}
	paths := doc["paths"].(map[string]any)
	// A fault to get, list and delete.
	st, data = e.do(t, "POST", "/v1/faults", map[string]any{"kind": "delay", "key": "Fetch", "delay": "1ms", "expires": "1h"})
	if st != 201 {
		t.Fatalf("POST /v1/faults: %d %s", st, data)
	}
	var f FaultState
	_ = json.Unmarshal(data, &f)
	cl := e.client(t)
	findCoordinator(t, cl, "g") // something in the log, with a body
	calls := []struct {
		method, path, docPath string
		body                  any
	}{
		{"GET", "/v1", "/v1", nil},
		{"GET", "/v1/openapi.json", "/v1/openapi.json", nil},
		{"GET", "/v1/vocabulary", "/v1/vocabulary", nil},
		{"POST", "/v1/faults", "/v1/faults", map[string]any{"kind": "hold", "key": "JoinGroup", "node": 0, "expires": "1h"}},
		{"POST", "/v1/faults", "/v1/faults", map[string]any{"kind": "hold", "key": "Nope"}},
		{"GET", "/v1/faults", "/v1/faults", nil},
		{"GET", "/v1/faults/" + f.ID, "/v1/faults/{id}", nil},
		{"GET", "/v1/faults/f999", "/v1/faults/{id}", nil},
		{"DELETE", "/v1/faults/" + f.ID, "/v1/faults/{id}", nil},
		{"DELETE", "/v1/faults", "/v1/faults", nil},
		{"GET", "/v1/log?limit=5", "/v1/log", nil},
		{"GET", "/v1/log?limit=0", "/v1/log", nil},
		{"GET", "/v1/log/stats", "/v1/log/stats", nil},
		{"GET", "/v1/groups/g", "/v1/groups/{group}", nil},
		{"GET", "/v1/topics", "/v1/topics", nil},
		{"POST", "/v1/topics", "/v1/topics", map[string]any{"name": "u", "partitions": 2}},
		{"POST", "/v1/produce", "/v1/produce", map[string]any{"topic": "t", "count": 3}},
		{"POST", "/v1/produce", "/v1/produce", map[string]any{"topic": "none", "count": 3}},
		{"POST", "/v1/reset", "/v1/reset", nil},
		{"POST", "/v1/verdict", "/v1/verdict", nil},
	}
	seen := map[string]bool{}
	for _, c := range calls {
		name := c.method + " " + c.path
		op, ok := paths[c.docPath].(map[string]any)[strings.ToLower(c.method)].(map[string]any)
		if !ok {
			t.Errorf("%s: %s %s is not in the document", name, c.method, c.docPath)
			continue
		}
		seen[c.method+" "+c.docPath] = true
		st, data := e.do(t, c.method, c.path, c.body)
		resp, ok := op["responses"].(map[string]any)[fmt.Sprint(st)].(map[string]any)
		if !ok {
			t.Errorf("%s: status %d is not documented (%s)", name, st, data)
			continue
		}
		for media, m := range resp["content"].(map[string]any) {
			schema := m.(map[string]any)["schema"].(map[string]any)
			if media == "application/x-ndjson" {
				sc := bufio.NewScanner(bytes.NewReader(data))
				for sc.Scan() {
					v.check(t, name, sc.Bytes(), schema)
				}
				continue
			}
			v.check(t, name, data, schema)
		}
	}
	for _, r := range routes {
		if !seen[r.Method+" "+r.Path] {
			t.Errorf("route %s %s is served but this test does not call it", r.Method, r.Path)
		}
	}
	for p, item := range paths {
		for m := range item.(map[string]any) {
			if !slices.ContainsFunc(routes, func(r route) bool { return r.Path == p && strings.ToLower(r.Method) == m }) {
				t.Errorf("documented %s %s is not served", m, p)
			}
		}
	}
}

// validator checks JSON values against the document's schemas (the subset
// OpenAPI() writes: type, properties, required, additionalProperties,
// items, $ref, oneOf, const).
type validator struct{ doc map[string]any }

func (v validator) check(t *testing.T, name string, data []byte, schema map[string]any) {
	t.Helper()
	var val any
	if err := json.Unmarshal(data, &val); err != nil {
		t.Errorf("%s: answer is not JSON: %v: %s", name, err, data)
		return
	}
	for _, p := range v.problems("$", val, schema) {
		t.Errorf("%s: %s", name, p)
	}
}

func (v validator) resolve(s map[string]any) map[string]any {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		return v.doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
	}
	return s
}

func (v validator) problems(at string, val any, s map[string]any) []string {
	s = v.resolve(s)
	if alts, ok := s["oneOf"].([]any); ok {
		for _, a := range alts {
			if len(v.problems(at, val, a.(map[string]any))) == 0 {
				return nil
			}
		}
		return []string{fmt.Sprintf("%s = %v matches none of oneOf", at, val)}
	}
	if c, ok := s["const"]; ok {
		if val != c {
			return []string{fmt.Sprintf("%s = %v, want %v", at, val, c)}
		}
		return nil
	}
	typ, _ := s["type"].(string)
	if val == nil {
		return nil // nil slices and maps; optional pointers are omitted
	}
	var out []string
	switch typ {
	case "object":
		obj, ok := val.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, got %T", at, val)}
		}
		props, _ := s["properties"].(map[string]any)
		for _, r := range anyStrings(s["required"]) {
			if _, ok := obj[r]; !ok {
				out = append(out, fmt.Sprintf("%s: required field %q missing", at, r))
			}
		}
		for k, x := range obj {
			if ps, ok := props[k].(map[string]any); ok {
				out = append(out, v.problems(at+"."+k, x, ps)...)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					out = append(out, fmt.Sprintf("%s: field %q is not in the schema", at, k))
				}
			case map[string]any:
				out = append(out, v.problems(at+"."+k, x, ap)...)
			}
		}
	case "array":
		arr, ok := val.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an array, got %T", at, val)}
		}
		for i, x := range arr {
			out = append(out, v.problems(fmt.Sprintf("%s[%d]", at, i), x, s["items"].(map[string]any))...)
		}
	case "string":
		if _, ok := val.(string); !ok {
			out = append(out, fmt.Sprintf("%s: want a string, got %T", at, val))
		}
	case "integer":
		if n, ok := val.(float64); !ok || n != float64(int64(n)) {
			out = append(out, fmt.Sprintf("%s: want an integer, got %v", at, val))
		}
	case "number":
		if _, ok := val.(float64); !ok {
			out = append(out, fmt.Sprintf("%s: want a number, got %T", at, val))
		}
	case "boolean":
		if _, ok := val.(bool); !ok {
			out = append(out, fmt.Sprintf("%s: want a boolean, got %T", at, val))
		}
	}
	return out
}

func anyStrings(v any) []string {
	var out []string
	switch x := v.(type) {
	case []any:
		for _, s := range x {
			out = append(out, s.(string))
		}
	case []string:
		out = x
	}
	return out
}
