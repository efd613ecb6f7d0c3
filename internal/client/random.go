package client

import (
	"hash/fnv"
	"math/rand/v2"
	"sync"

	"github.com/kreactor/kreactor/managers"
)

// randoms is what a consumer draws from Config.Rand when one is set: its
// member id, and the seeds of one generator per request manager and one
// for the transport. Separate streams keep one consumer of randomness from
// shifting another's: a manager that retries once more than in another run
// (because two answers arrived in the other order) does not move every
// other manager's jitter, and the transport's goroutines (reconnect and
// connection-setup jitter, drawn in whatever order concurrent dials
// happen) never move the loop's.
type randoms struct {
	memberID  string     // KIP-848 / KIP-932 member id
	seed      [2]uint64  // managers' generators derive from it and their name
	transport *rand.Rand // reconnect and setup jitter (transport goroutines)
}

// newRandoms draws from src in a fixed order: the member id, then the
// managers' seed, then the transport's. It returns nil for a nil src (the
// consumer then uses crypto/rand and the global source).
func newRandoms(src rand.Source) *randoms {
	if src == nil {
		return nil
	}
	r := &randoms{memberID: managers.NewMemberIDFrom(src)}
	r.seed = [2]uint64{src.Uint64(), src.Uint64()}
	r.transport = rand.New(&lockedSource{src: rand.NewPCG(src.Uint64(), src.Uint64())})
	return r
}

// backoff returns b drawing its jitter from the generator of the manager
// named name (b itself without r). Each call makes a new generator: call
// it once per manager.
func (r *randoms) backoff(name string, b managers.Backoff) managers.Backoff {
	if r != nil {
		h := fnv.New64a()
		_, _ = h.Write([]byte(name))
		b.Rand = rand.New(&lockedSource{src: rand.NewPCG(r.seed[0], r.seed[1]^h.Sum64())})
	}
	return b
}

// transportBackoff returns b drawing its jitter from r's transport
// generator (b itself without r).
func (r *randoms) transportBackoff(b managers.Backoff) managers.Backoff {
	if r != nil {
		b.Rand = r.transport
	}
	return b
}

// lockedSource makes a rand.Source safe for concurrent use.
type lockedSource struct {
	mu  sync.Mutex // guards src
	src rand.Source
}

func (s *lockedSource) Uint64() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.src.Uint64()
}
