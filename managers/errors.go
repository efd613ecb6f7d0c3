package managers

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrUnexpectedResponse is wrapped by ResponseError when a broker answers
// with a response of the wrong type or shape.
var ErrUnexpectedResponse = errors.New("unexpected response")

// ResponseError reports a malformed broker response: which API, from which
// node, and what was wrong. It unwraps to ErrUnexpectedResponse.
type ResponseError struct {
	Key    kmsg.Key
	Node   int32
	Detail string
}

func (e *ResponseError) Error() string {
	return fmt.Sprintf("%s response from node %d: %s", kmsg.NameForKey(int16(e.Key)), e.Node, e.Detail)
}

func (e *ResponseError) Unwrap() error { return ErrUnexpectedResponse }

// As converts resp to the concrete response type T, or returns a
// ResponseError naming the API and node.
func As[T kmsg.Response](key kmsg.Key, node int32, resp any) (T, error) {
	r, ok := resp.(T)
	if !ok {
		var zero T
		return zero, &ResponseError{Key: key, Node: node, Detail: fmt.Sprintf("got %T", resp)}
	}
	return r, nil
}

// Reply is the response to a request that completed with resp and err
// (the transport's error): err itself, a ResponseError when resp is not a
// T (As), or the response's top-level error code (code reads it) as a
// kerr error, nil for 0. The response is returned whenever it is a T.
func Reply[T kmsg.Response](key kmsg.Key, node int32, resp any, err error, code func(T) int16) (T, error) {
	if err != nil {
		var zero T
		return zero, err
	}
	r, err := As[T](key, node, resp)
	if err != nil {
		return r, err
	}
	return r, kerr.ErrorForCode(code(r))
}
