package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
)

// CommitSync commits what Poll returned (a share consumer: sends its
// acknowledgements) and waits until Timeout; name it to judge its error and
// duration. A share consumer's per-partition failures are its error.
type CommitSync struct {
	Timeout *Duration `yaml:"timeout,omitempty" sc:"max=call"`
}

func (a *CommitSync) validate(c *checker, st *Step) error {
	if cs := c.consumerOf(st); !cs.IsShare() && cs.Group == "" {
		return c.errf(st.Line, "commit_sync", "consumer %s has no group: there is nothing to commit to", cs.Name)
	}
	return nil
}

func (a *CommitSync) bound(_ *Scenario, _ *Step) time.Duration {
	return orDefault(a.Timeout, DefaultStepTimeout)
}

func (a *CommitSync) run(ctx context.Context, r *run, st *Step) error {
	m := r.member(st.Consumer)
	cctx, cancel := context.WithTimeout(ctx, orDefault(a.Timeout, DefaultStepTimeout))
	defer cancel()
	mk := r.marks[st.name()]
	if m.s != nil {
		res, err := m.s.CommitSync(cctx)
		if err == nil {
			for _, tp := range slices.SortedFunc(func(yield func(managers.TopicPartition) bool) {
				for tp := range res {
					if !yield(tp) {
						return
					}
				}
			}, managers.CompareTopicPartition) {
				if res[tp] != nil {
					err = errors.Join(err, fmt.Errorf("%s: %w", tp, res[tp]))
				}
			}
		}
		mk.err = err
		return nil
	}
	mk.err = m.c.CommitSync(cctx)
	return nil
}

// CommitAsync commits without waiting. A regular consumer's callback is
// logged under the step's name for `callbacks`; a share consumer's outcome
// reaches its acknowledgement commit callback (`ack_callbacks`).
type CommitAsync struct{}

func (a *CommitAsync) validate(c *checker, st *Step) error {
	if cs := c.consumerOf(st); !cs.IsShare() && cs.Group == "" {
		return c.errf(st.Line, "commit_async", "consumer %s has no group: there is nothing to commit to", cs.Name)
	}
	return nil
}

func (a *CommitAsync) run(_ context.Context, r *run, st *Step) error {
	m := r.member(st.Consumer)
	if m.s != nil {
		r.marks[st.name()].err = m.s.CommitAsync()
		return nil
	}
	log := r.callbackLog(st.name())
	m.c.CommitAsync(func(err error) { log.add(err) })
	return nil
}

// Acknowledge acknowledges records of the share consumer's last Poll batch
// that no earlier acknowledge took: Records "all" (the default) or the first
// N. Type is accept, release, reject or renew (KIP-932, KIP-1222). The
// first acknowledge puts the consumer in explicit mode.
type Acknowledge struct {
	Type    string     `yaml:"type" sc:"required"`
	Records AckRecords `yaml:"records,omitempty"`
}

// AckRecords is "all" (0) or a count.
type AckRecords int

// MarshalYAML writes all or the count.
func (n AckRecords) MarshalYAML() (any, error) {
	if n == 0 {
		return "all", nil
	}
	return int(n), nil
}

func (n *AckRecords) decodeNode(p *parser, node *yaml.Node) error {
	if node.Kind == yaml.ScalarNode && node.Value == "all" {
		*n = 0
		return nil
	}
	v, err := strconv.Atoi(node.Value)
	if node.Kind != yaml.ScalarNode || err != nil || v < 1 || v > MaxProduce {
		return p.errf(node.Line, "records", "want all or a count 1..%d, got %s", MaxProduce, describe(node))
	}
	*n = AckRecords(v)
	return nil
}

var ackTypes = map[string]consumer.AcknowledgeType{
	"accept": consumer.Accept, "release": consumer.Release, "reject": consumer.Reject, "renew": consumer.Renew,
}

func (a *Acknowledge) validate(c *checker, st *Step) error {
	if _, ok := ackTypes[a.Type]; !ok {
		return c.errf(st.line("type"), a.Type, "unknown acknowledge type (accept, release, reject, renew)")
	}
	return nil
}

func (a *Acknowledge) run(_ context.Context, r *run, st *Step) error {
	m := r.member(st.Consumer)
	m.mu.Lock()
	batch := m.lastBatch
	n := len(batch)
	if a.Records > 0 {
		n = min(int(a.Records), n)
	}
	take := batch[:n]
	m.lastBatch = batch[n:]
	m.mu.Unlock()
	if len(take) == 0 {
		return errors.New("no delivered record left to acknowledge (poll first)")
	}
	for _, rec := range take {
		if err := m.s.Acknowledge(rec, ackTypes[a.Type]); err != nil {
			return fmt.Errorf("acknowledge %s-%d@%d as %s: %w", rec.Topic, rec.Partition, rec.Offset, a.Type, err)
		}
	}
	r.marks[st.name()].records = len(take)
	return nil
}

// callbackLog is one commit_async's callback runs.
type callbackLog struct {
	runs []callbackRun // guarded by run.mu through add
	r    *run
}

type callbackRun struct {
	at  time.Time
	err error
}

func (l *callbackLog) add(err error) {
	l.r.mu.Lock()
	defer l.r.mu.Unlock()
	l.runs = append(l.runs, callbackRun{time.Now(), err})
}

// callbackLog returns the log of the commit_async named name.
func (r *run) callbackLog(name string) *callbackLog {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.callbacks == nil {
		r.callbacks = map[string]*callbackLog{}
	}
	l := r.callbacks[name]
	if l == nil {
		l = &callbackLog{r: r}
		r.callbacks[name] = l
	}
	return l
}
