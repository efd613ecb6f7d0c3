package containers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/moby/moby/client"
)

// Node operations: Stop, Kill, Start, Pause, Unpause, Logs. Each takes the
// node's id (1..n) and is serialized with the node's other operations.

// op runs operation what (a verb: "stop") on node id, serialized with the
// node's other operations: nothing when the node is in one of the states
// done (it is done already), else fn with the node and its state. An error
// fn returns comes back as "containers: <what> node <id>: <error>".
func (c *Cluster) op(id int32, what string, done []NodeState, fn func(nd *node, st NodeState) error) error {
	nd, err := c.node(id)
	if err != nil {
		return err
	}
	nd.op.Lock()
	defer nd.op.Unlock()
	st := c.state(nd)
	if slices.Contains(done, st) {
		return nil
	}
	if err := fn(nd, st); err != nil {
		return fmt.Errorf("containers: %s node %d: %w", what, id, err)
	}
	return nil
}

// Stop stops node id: SIGTERM (Kafka's controlled shutdown), SIGKILL after
// StopTimeout. Its data and ports stay for Start. Stopping a stopped node
// does nothing.
func (c *Cluster) Stop(ctx context.Context, id int32) error {
	return c.op(id, "stop", []NodeState{NodeStopped}, func(nd *node, st NodeState) error {
		if st == NodePaused {
			if err := c.unpause(ctx, nd); err != nil {
				return err
			}
		}
		timeout := StopTimeout
		if err := nd.ctr.Stop(ctx, &timeout); err != nil {
			return err
		}
		c.setState(nd, NodeStopped)
		return nil
	})
}

// Kill stops node id at once (SIGKILL: no controlled shutdown, as a crash).
// Its data and ports stay for Start; the controller fences it after
// broker.session.timeout.ms. Killing a stopped node does nothing.
func (c *Cluster) Kill(ctx context.Context, id int32) error {
	return c.op(id, "kill", []NodeState{NodeStopped}, func(nd *node, _ NodeState) error {
		// A paused node is killed as it is (Docker thaws it to deliver SIGKILL).
		if _, err := c.docker.ContainerKill(ctx, nd.ctr.GetContainerID(), client.ContainerKillOptions{Signal: "KILL"}); err != nil {
			return err
		}
		// Wait until Docker reports the container exited, so Start can start it.
		for {
			st, err := nd.ctr.State(ctx)
			if err != nil {
				return err
			}
			if !st.Running {
				break
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
		c.setState(nd, NodeStopped)
		return nil
	})
}

// Start starts stopped node id again (same data directory, same ports) and
// returns once it serves and every running broker lists every running
// broker, within Options.StartupTimeout. Starting a running node does
// nothing; a paused node is unpaused.
func (c *Cluster) Start(ctx context.Context, id int32) error {
	return c.op(id, "start", []NodeState{NodeRunning}, func(nd *node, st NodeState) error {
		if st == NodePaused {
			return c.unpause(ctx, nd)
		}
		sctx, cancel := context.WithTimeout(ctx, c.timeout)
		defer cancel()
		// DockerContainer.Start runs the wait strategy (serving) again.
		if err := nd.ctr.Start(sctx); err != nil {
			return fmt.Errorf("%w%s", err, c.logTail(nd))
		}
		c.setState(nd, NodeRunning)
		return waitView(sctx, c.runningAddrs())
	})
}

// Pause freezes node id's processes (docker pause): connections stay open
// and nothing answers, as with a hung broker. Pausing a paused node does
// nothing; a stopped node cannot be paused.
func (c *Cluster) Pause(ctx context.Context, id int32) error {
	return c.op(id, "pause", []NodeState{NodePaused}, func(nd *node, st NodeState) error {
		if st == NodeStopped {
			return errors.New("it is stopped")
		}
		if _, err := c.docker.ContainerPause(ctx, nd.ctr.GetContainerID(), client.ContainerPauseOptions{}); err != nil {
			return err
		}
		c.setState(nd, NodePaused)
		return nil
	})
}

// Unpause resumes paused node id and returns once it serves again (it may
// have been fenced while frozen), within Options.StartupTimeout. Unpausing a
// node that is not paused does nothing.
func (c *Cluster) Unpause(ctx context.Context, id int32) error {
	return c.op(id, "unpause", []NodeState{NodeRunning, NodeStopped}, func(nd *node, _ NodeState) error {
		return c.unpause(ctx, nd)
	})
}

// unpause resumes paused node nd and returns once it serves again, within
// Options.StartupTimeout; the caller holds nd.op.
func (c *Cluster) unpause(ctx context.Context, nd *node) error {
	if _, err := c.docker.ContainerUnpause(ctx, nd.ctr.GetContainerID(), client.ContainerUnpauseOptions{}); err != nil {
		return fmt.Errorf("unpause: %w", err)
	}
	c.setState(nd, NodeRunning)
	sctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return (serving{node: nd.id, addr: nd.addr}).WaitUntilReady(sctx, nd.ctr)
}

// Logs returns node id's container log (stdout and stderr) so far.
func (c *Cluster) Logs(ctx context.Context, id int32) (string, error) {
	nd, err := c.node(id)
	if err != nil {
		return "", err
	}
	rc, err := nd.ctr.Logs(ctx)
	if err != nil {
		return "", fmt.Errorf("containers: logs of node %d: %w", id, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	return string(b), err
}
