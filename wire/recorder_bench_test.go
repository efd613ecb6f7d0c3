package wire

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// BenchmarkRecorderMemory measures the live heap of a Recorder holding 1 M
// requests (the default capacity of kreactor broker's log), without
// bodies: each with its own client id string, as the sources parse one per
// request. Figures: MB (heap for 1 M), B/request; ns/op is one Add.
func BenchmarkRecorderMemory(b *testing.B) {
	const n = 1_000_000
	ids := make([]string, 16)
	for i := range ids {
		ids[i] = fmt.Sprintf("consumer-client-%02d", i)
	}
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r := NewRecorder(n)
		now := time.Now()
		for i := range n {
			r.Add(Request{Key: kmsg.Fetch, Version: 17, CorrelationID: int32(i), ClientID: strings.Clone(ids[i%len(ids)]), Node: int32(i % 3), Conn: uint64(i % 64), Size: 120, At: now})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		b.ReportMetric(heap/(1<<20), "MB")
		b.ReportMetric(heap/n, "B/request")
		runtime.KeepAlive(r)
	}
}
