// Package writes has managers whose fields are written by their owners, by
// another manager and by a helper.
package writes

import "github.com/kreactor/kreactor/reactor"

type Fetch struct{ parts map[string]int64 }

func NewFetch() *Fetch { f := &Fetch{}; f.parts = map[string]int64{}; return f }

func (f *Fetch) Name() string { return "fetch" }

func (f *Fetch) Poll(tx *reactor.Tx, v struct{}) reactor.Result {
	f.parts["a"]++
	return reactor.Result{}
}

type Commit struct {
	pending int
	fetch   *Fetch
}

func (c *Commit) Name() string { return "commit" }

func (c *Commit) Poll(tx *reactor.Tx, v struct{}) reactor.Result {
	c.fetch.parts["b"] = 1 // want `Commit.Poll writes Fetch.parts`
	_ = len(c.fetch.parts) // a read: allowed, in the result
	c.pending++
	return reactor.Result{}
}

func reset(c *Commit) { c.pending = 0 } // want `reset writes Commit.pending`
