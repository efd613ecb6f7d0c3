package client

import (
	"context"
	"time"

	"github.com/kreactor/kreactor/consumer/config"
	"github.com/kreactor/kreactor/internal/mutant"
	"github.com/kreactor/kreactor/managers"
)

// Backoff is the retry backoff of a consumer with these settings
// (retry.backoff.ms doubling to retry.backoff.max.ms, managers.BackoffJitter).
func Backoff(initial, maxBackoff time.Duration) managers.Backoff {
	if mutant.On("backoff-never-doubles") {
		return managers.NewBackoff(initial, initial)
	}
	return managers.NewBackoff(initial, maxBackoff)
}

// coordinatorAndMetadata builds the managers every consumer kind has over
// its common settings c: coordinator discovery for groupID and the
// metadata (rebootstrapping as c says), each retrying on its own copy of
// backoff jittered from rnd.
func coordinatorAndMetadata(c *config.Common, groupID string, rnd *randoms, backoff managers.Backoff) (*managers.Coordinator, *managers.Metadata) {
	coord := managers.NewCoordinator(groupID, managers.KeyTypeGroup, rnd.backoff("coordinator", backoff))
	meta := managers.NewMetadata(c.BootstrapServers, c.MetadataMaxAge, rnd.backoff("metadata", backoff))
	meta.SetRebootstrap(c.MetadataRecoveryStrategy == "rebootstrap", c.MetadataRecoveryRebootstrapTrigger)
	return coord, meta
}

// DefaultCloseTimeout is Close's budget when ctx has no deadline (Java's
// close(): 30000 ms).
const DefaultCloseTimeout = 30 * time.Second

// CloseDeadline is Close's deadline as Java's close timer sets it:
// min(ctx's deadline, now + request.timeout.ms) (Java's
// createTimerForCloseRequests: min(timeout, requestTimeoutMs)), now + 30 s
// (DefaultCloseTimeout) capped the same way when ctx has none, and now for
// a ctx already done (Close(0): what is outstanding fails at once; the
// leave is still sent, see CloseLeaveFloor).
func CloseDeadline(ctx context.Context, requestTimeout time.Duration) time.Time {
	now := time.Now()
	if ctx.Err() != nil {
		return now
	}
	d, ok := ctx.Deadline()
	if !ok {
		d = now.Add(DefaultCloseTimeout)
	}
	if requestTimeout > 0 && now.Add(requestTimeout).Before(d) {
		d = now.Add(requestTimeout)
	}
	return d
}

// CtxResult maps a passed deadline to "no records, no error", as Java's
// poll(timeout).
func CtxResult(err error) error {
	if err == context.DeadlineExceeded {
		return nil
	}
	return err
}
