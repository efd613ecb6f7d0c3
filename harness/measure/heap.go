package measure

import (
	"runtime"
	"time"
)

// HeapSample is one reading of the process heap after two forced garbage
// collections, so it counts live memory: not garbage awaiting collection,
// and not sync.Pool caches (a pool's objects survive one collection in its
// victim cache; compression libraries pool megabyte-sized tables, which
// would otherwise dominate the reading).
type HeapSample struct {
	At        time.Time
	HeapInuse uint64 // bytes in in-use heap spans (runtime.MemStats.HeapInuse)
	HeapAlloc uint64 // bytes of live heap objects (runtime.MemStats.HeapAlloc)
}

// SampleHeap forces two garbage collections and reads the heap. It stops
// the world briefly; call it a few times a second at most.
func SampleHeap() HeapSample {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return HeapSample{At: time.Now(), HeapInuse: ms.HeapInuse, HeapAlloc: ms.HeapAlloc}
}

// HeapGrowth is the ratio of the last sample's HeapInuse to the first's (1
// means flat); 0 with fewer than two samples.
func HeapGrowth(samples []HeapSample) float64 {
	if len(samples) < 2 || samples[0].HeapInuse == 0 {
		return 0
	}
	return float64(samples[len(samples)-1].HeapInuse) / float64(samples[0].HeapInuse)
}
