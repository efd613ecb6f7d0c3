package consume

import (
	"bytes"
	"runtime"
	"strconv"
)

// GoroutineID is the calling goroutine's id, parsed from the "goroutine N
// [" header of runtime.Stack (test harness only: Go offers no other way,
// and no code may depend on it beyond telling two goroutines apart, e.g.
// whether a listener call ran on Poll's goroutine). 0 if
// the header cannot be parsed.
func GoroutineID() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, ok := bytes.CutPrefix(b, []byte("goroutine "))
	if !ok {
		return 0
	}
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0
	}
	return id
}
