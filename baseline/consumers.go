package baseline

import (
	"errors"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/internal/client"
)

// Consumer is the baseline regular consumer (New). It has
// consumer.Consumer's application methods (Subscribe, Assign, Pause, Resume,
// Poll, CommitSync, CommitAsync, Wakeup, Close, Assignment) and
// Diagnostics, with today's execution behind them.
type Consumer struct {
	*client.Group
}

// ShareConsumer is the baseline share consumer (NewShare). It has
// consumer.ShareConsumer's application methods and Diagnostics, with
// today's execution behind them.
type ShareConsumer struct {
	*client.Share
}

// zeroBackoffAccepted is the validation error err, unless the only problem
// is a zero retry.backoff.ms, which today's consumer accepts (KAFKA-21049).
func zeroBackoffAccepted(err error, retryBackoff time.Duration) error {
	var ce *consumer.ConfigError
	if err != nil && errors.As(err, &ce) && ce.Field == "RetryBackoff" && retryBackoff == 0 {
		return nil
	}
	return err
}
