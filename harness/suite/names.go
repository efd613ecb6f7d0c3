package suite

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/onsi/ginkgo/v2"
)

var nameSeq atomic.Uint64

// UniqueName returns prefix followed by the Ginkgo parallel process, a
// sequence number and the start time's low bits, so group ids, client ids
// and topics never collide between specs, processes or runs against one
// long-lived cluster (a real-Kafka target).
func UniqueName(prefix string) string {
	prefix = strings.TrimSuffix(prefix, "-")
	return fmt.Sprintf("%s-p%d-%d-%x", prefix, ginkgo.GinkgoParallelProcess(), nameSeq.Add(1), time.Now().UnixNano()&0xffffff)
}
