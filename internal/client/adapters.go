package client

import (
	"time"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// coordinatorManager adapts the shared coordinator manager to a consumer
// kind's view V: needed says, per view, whether outstanding work needs the
// coordinator. LocalTimer passes through for the baseline.
type coordinatorManager[V any] struct {
	coord  *managers.Coordinator
	meta   *managers.Metadata
	needed func(v V) bool
}

func (m *coordinatorManager[V]) Name() string { return m.coord.Name() }
func (m *coordinatorManager[V]) Poll(tx *reactor.Tx, v V) reactor.Result {
	return m.coord.Poll(tx, m.needed(v), m.meta.Addrs())
}
func (m *coordinatorManager[V]) LocalTimer() (time.Time, bool) { return m.coord.LocalTimer() }

// metadataManager adapts the shared metadata manager to a consumer kind's
// view V: topics says, per view, which topics it must know.
type metadataManager[V any] struct {
	meta   *managers.Metadata
	topics func(v V) []string
}

func (m *metadataManager[V]) Name() string { return m.meta.Name() }
func (m *metadataManager[V]) Poll(tx *reactor.Tx, v V) reactor.Result {
	return m.meta.Poll(tx, m.topics(v))
}
