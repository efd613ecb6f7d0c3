package tracepath

import (
	"bytes"
	"errors"
	"net"
	"runtime/trace"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// chainTrace traces n one-byte answers crossing a loopback socket to a
// reader goroutine, which hands each to midHop, which hands it to the
// goroutine blocked in appPoll: the shape the bench's clients have.
func chainTrace(t *testing.T, n int) []byte {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	defer server.Close()

	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	toMid, toApp := make(chan byte), make(chan byte)
	go readHop(client, toMid)
	go midHop(toMid, toApp)
	for i := range n {
		if _, err := server.Write([]byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		appPoll(toApp)
		time.Sleep(time.Millisecond) // every goroutine parks between answers
	}
	server.Close() // the reader sees EOF and closes toMid; midHop ends
	for range toApp {
	}
	trace.Stop()
	return buf.Bytes()
}

//go:noinline
func readHop(c net.Conn, out chan<- byte) {
	defer close(out)
	b := make([]byte, 1)
	for {
		if _, err := c.Read(b); err != nil {
			return
		}
		out <- b[0]
	}
}

//go:noinline
func midHop(in <-chan byte, out chan<- byte) {
	defer close(out)
	for b := range in {
		out <- b
	}
}

//go:noinline
func appPoll(in <-chan byte) byte { return <-in }

func TestReadFollowsEachAnswer(t *testing.T) {
	defer goleak.VerifyNone(t)
	const answers = 40
	paths, err := Read(bytes.NewReader(chainTrace(t, answers)), "tracepath.appPoll")
	if err != nil {
		t.Fatal(err)
	}
	const want = "tracepath.midHop > tracepath.appPoll"
	got := 0
	for _, p := range paths {
		if p.Shape() != want {
			continue
		}
		got++
		if p.Read <= 0 {
			t.Errorf("path %+v: read %v, want > 0 (the reader's read syscall)", p, p.Read)
		}
		sum := p.Read
		for _, h := range p.Hops {
			if h.Work < 0 || h.Wait < 0 {
				t.Errorf("path %+v: negative part", p)
			}
			sum += h.Work + h.Wait
		}
		if sum != p.Total {
			t.Errorf("path %+v: read and hops add to %v, total is %v", p, sum, p.Total)
		}
	}
	// Each answer is one path unless the tracer lost its start; most are
	// whole on a busy machine too.
	if got < answers/2 || got > answers {
		t.Fatalf("%d paths of shape %q, want between %d and %d (all: %v)", got, want, answers/2, answers, Summarize(paths))
	}
	s := Summarize(paths)
	if s[0].Shape != want || len(s[0].Hops) != 2 {
		t.Fatalf("most common shape %q with %d hops, want %q with 2", s[0].Shape, len(s[0].Hops), want)
	}
	var out strings.Builder
	if err := Write(&out, s[0], len(paths)); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	for _, row := range []string{"read", "reader work", "wait for tracepath.midHop", "tracepath.midHop work", "wait for tracepath.appPoll", "total"} {
		if !strings.Contains(out.String(), row) {
			t.Errorf("table lacks row %q:\n%s", row, out.String())
		}
	}
}

func TestReadWithoutApplicationGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t)
	_, err := Read(bytes.NewReader(chainTrace(t, 5)), "tracepath.noSuchFunction")
	if !errors.Is(err, ErrNoPaths) {
		t.Fatalf("err %v, want ErrNoPaths", err)
	}
}

func TestReadNotATrace(t *testing.T) {
	_, err := Read(strings.NewReader("not a trace at all"), "")
	if err == nil || !strings.Contains(err.Error(), "not a Go execution trace") {
		t.Fatalf("err %v, want one saying it is not a Go execution trace", err)
	}
}

func TestStdFunc(t *testing.T) {
	for fn, want := range map[string]bool{
		"runtime.selectgo":                                         true,
		"internal/poll.(*FD).Read":                                 true,
		"github.com/twmb/franz-go/pkg/kgo.(*source).fetch":         false,
		"github.com/kreactor/kreactor/reactor.(*Driver[...]).wait": false,
	} {
		if got := stdFunc(fn); got != want {
			t.Errorf("stdFunc(%q) = %v, want %v", fn, got, want)
		}
	}
}
