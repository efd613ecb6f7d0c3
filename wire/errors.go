package wire

import (
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every error for bytes that are not a valid
// Kafka frame: a size prefix out of bounds, a header shorter than its fields,
// a negative API version, a client id or header tags running past the frame,
// or a body kmsg cannot read. Match it with errors.Is.
var ErrMalformed = errors.New("wire: malformed frame")

// FrameError is a malformed frame, naming the field and its bad value. It
// unwraps to ErrMalformed and, for a body kmsg rejected, to kmsg's error.
type FrameError struct {
	// Field names what was bad: "size", "request header", "api version",
	// "client id length", "request header tags", "request body",
	// "response header", "response header tags", "response body".
	Field string
	// Value is the bad value (a size, a version, a length) or, for a
	// truncated field, the number of bytes there were.
	Value int64
	// Reason says why Value is bad, e.g. "outside [8, 104857600]".
	Reason string
	// Err is the underlying error (kmsg's, for a body), or nil.
	Err error
}

func (e *FrameError) Error() string {
	s := fmt.Sprintf("%v: %s %d: %s", ErrMalformed, e.Field, e.Value, e.Reason)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns ErrMalformed and Err (if set).
func (e *FrameError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrMalformed}
	}
	return []error{ErrMalformed, e.Err}
}

func malformed(field string, value int64, reason string, args ...any) *FrameError {
	return &FrameError{Field: field, Value: value, Reason: fmt.Sprintf(reason, args...)}
}
