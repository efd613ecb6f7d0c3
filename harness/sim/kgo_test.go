package sim

import (
	"testing"

	"github.com/kreactor/kreactor/consumer"
	kgosubject "github.com/kreactor/kreactor/harness/subjects/kgo"
)

func newKgo(cfg consumer.Config) (subject, error) { return kgosubject.Subject{}.New(cfg) }

// The kgo subject (franz-go's own KIP-848 consumer, through
// consumer.Config.Dial) runs in a bubble too, and its history passes the
// same checks. Its member id is kgo's (crypto/rand, which Run seeds).
func TestKgoSubjectOutageInBubble(t *testing.T) {
	h := outageInBubble(t, newKgo)
	t.Logf("virtual %s, wall %s; %d requests", h.Virtual, h.Wall, len(h.Requests))
}
