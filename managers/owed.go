package managers

// maxOwed bounds the errors owed to the application (invariant 8): past
// it, the oldest is dropped and counted, so a manager reporting on every
// retry cannot grow memory while nobody polls.
const maxOwed = 64

// Owed is a bounded queue of errors owed to the application: what a
// manager reports here is returned by the application's next Poll (or the
// baseline's next iteration). The zero value is ready. Loop goroutine only.
type Owed struct {
	errs    []error
	dropped int
}

// Report queues err (nil is ignored). Reporting the error already last in
// the queue again does nothing: a retry that fails the same way owes the
// application one error, not one per attempt.
func (o *Owed) Report(err error) {
	if err == nil {
		return
	}
	if n := len(o.errs); n > 0 && o.errs[n-1] == err {
		return
	}
	if len(o.errs) == maxOwed {
		copy(o.errs, o.errs[1:])
		o.errs = o.errs[:maxOwed-1]
		o.dropped++
	}
	o.errs = append(o.errs, err)
}

// Take returns the queued errors in report order and empties the queue.
func (o *Owed) Take() []error {
	errs := o.errs
	o.errs = nil
	return errs
}

// Len is the number of errors queued.
func (o *Owed) Len() int { return len(o.errs) }

// Dropped is the number of errors dropped because the queue was full.
func (o *Owed) Dropped() int { return o.dropped }
