package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Error is the body of every 4xx and 5xx answer: what was wrong, the
// argument (JSON field, query parameter or path segment) and the value.
type Error struct {
	Status int    `json:"status" doc:"the HTTP status"`
	Field  string `json:"field,omitempty" doc:"the argument that was wrong (a JSON field, query parameter or path segment)"`
	Value  any    `json:"value,omitempty" doc:"the value given"`
	Msg    string `json:"error" doc:"what was wrong, naming the value"`
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return fmt.Sprintf("%s = %s: %s", e.Field, quote(e.Value), e.Msg)
}

func quote(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// badf is a 400 naming field and value.
func badf(field string, value any, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Field: field, Value: value, Msg: fmt.Sprintf(format, args...)}
}

// writeErr answers err: an *Error as itself, anything else as 400 (the
// backends' own errors are about the input: an unknown node, a key the
// proxy cannot answer) with the message, ErrUnsupported as 501.
func writeErr(w http.ResponseWriter, err error) {
	var e *Error
	if !errors.As(err, &e) {
		status := http.StatusBadRequest
		if errors.Is(err, ErrUnsupported) {
			status = http.StatusNotImplemented
		}
		e = &Error{Status: status, Msg: err.Error()}
	}
	if e.Msg == "" {
		e.Msg = http.StatusText(e.Status)
	}
	writeJSON(w, e.Status, e)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
