package proxy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DefaultMaxFrame is the largest frame (bytes after the 4-byte size prefix)
// the proxy accepts from a client or a broker unless Config.MaxFrame says
// otherwise: 100 MiB.
const DefaultMaxFrame = 100 << 20

// errMalformed wraps every frame the proxy cannot parse: a negative, too
// small or too large size, a truncated header, a body kmsg cannot read, or a
// response whose correlation id is not the one expected next.
var errMalformed = errors.New("proxy: malformed frame")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

// minRequestSize is the smallest request frame: api key, api version,
// correlation id.
const minRequestSize = 2 + 2 + 4

// readFrame reads one size-prefixed frame from r and returns it whole
// (prefix included) with the time its size prefix was read. A size below
// min or above max is errMalformed (without reading the body, so at most
// max+4 bytes are ever allocated per frame); io errors are returned as is.
func readFrame(r *bufio.Reader, min, max int32) ([]byte, time.Time, error) {
	var pre [4]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, time.Time{}, err
	}
	at := time.Now()
	size := int32(binary.BigEndian.Uint32(pre[:]))
	if size < min || size > max {
		return nil, at, malformed("frame size %d outside [%d, %d]", size, min, max)
	}
	raw := make([]byte, 4+int(size))
	copy(raw, pre[:])
	if _, err := io.ReadFull(r, raw[4:]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, at, err
	}
	return raw, at, nil
}

// request is one request frame read from a client.
type request struct {
	raw      []byte // whole frame, size prefix included
	bodyAt   int    // offset of the body in raw
	key      kmsg.Key
	version  int16
	corr     int32
	clientID string
	at       time.Time
	// req is the parsed body; nil when kmsg does not know the key or the
	// version (newer than kmsg's), in which case the frame is relayed as is
	// and only key-level faults (drop, hold, delay) apply.
	req kmsg.Request
}

// parseRequest parses a request frame's header (request header v1, or v2
// with tagged fields when the request version is flexible; ControlledShutdown
// v0 has no client id) and its body with kmsg. It returns errMalformed for a
// truncated header, a negative version or a body kmsg cannot read.
func parseRequest(raw []byte, at time.Time) (*request, error) {
	b := raw[4:]
	if len(b) < minRequestSize {
		return nil, malformed("request header truncated")
	}
	rq := &request{
		raw:     raw,
		key:     kmsg.Key(int16(binary.BigEndian.Uint16(b[0:]))),
		version: int16(binary.BigEndian.Uint16(b[2:])),
		corr:    int32(binary.BigEndian.Uint32(b[4:])),
		at:      at,
	}
	if rq.version < 0 {
		return nil, malformed("negative version %d for key %d", rq.version, rq.key)
	}
	r := kbin.Reader{Src: b[minRequestSize:]}
	if !(rq.key == kmsg.ControlledShutdown && rq.version == 0) {
		if id := r.NullableString(); id != nil {
			rq.clientID = *id
		}
	}
	if !r.Ok() {
		return nil, malformed("request client id truncated")
	}
	req := kmsg.RequestForKey(int16(rq.key))
	if req == nil || rq.version > req.MaxVersion() {
		// Unknown to kmsg: we cannot tell whether the header has tagged
		// fields, so the body offset is unknown; relay it untouched.
		rq.bodyAt = -1
		return rq, nil
	}
	req.SetVersion(rq.version)
	if req.IsFlexible() {
		kmsg.SkipTags(&r)
		if !r.Ok() {
			return nil, malformed("request header tags truncated")
		}
	}
	rq.bodyAt = len(raw) - len(r.Src)
	if err := req.ReadFrom(raw[rq.bodyAt:]); err != nil {
		return nil, malformed("key %d v%d body: %v", rq.key, rq.version, err)
	}
	rq.req = req
	return rq, nil
}

// expectsResponse is false only for Produce with acks=0, which brokers never
// answer.
func (rq *request) expectsResponse() bool {
	if p, ok := rq.req.(*kmsg.ProduceRequest); ok {
		return p.Acks != 0
	}
	return true
}

// reencode returns rq's frame with its body re-encoded from rq.req (after a
// change to it), keeping the header bytes.
func (rq *request) reencode() []byte {
	out := append([]byte(nil), rq.raw[:rq.bodyAt]...)
	out = rq.req.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out
}

// responseHeaderFlexible reports whether the response to rq has a header with
// tagged fields (header v1): flexible versions, except ApiVersions, whose
// response header is always v0.
func (rq *request) responseHeaderFlexible() bool {
	return rq.req != nil && rq.req.IsFlexible() && rq.key != kmsg.ApiVersions
}

// responseCorr returns a response frame's correlation id.
func responseCorr(raw []byte) (int32, error) {
	if len(raw) < 8 {
		return 0, malformed("response header truncated")
	}
	return int32(binary.BigEndian.Uint32(raw[4:])), nil
}

// parseResponse parses raw, the response to rq, with kmsg and returns the
// body and the body's offset in raw. rq.req must be non-nil.
func parseResponse(rq *request, raw []byte) (kmsg.Response, int, error) {
	r := kbin.Reader{Src: raw[8:]}
	if rq.responseHeaderFlexible() {
		kmsg.SkipTags(&r)
		if !r.Ok() {
			return nil, 0, malformed("response header tags truncated")
		}
	}
	at := len(raw) - len(r.Src)
	resp := rq.req.ResponseKind()
	resp.SetVersion(rq.version)
	if err := resp.ReadFrom(raw[at:]); err != nil {
		return nil, 0, malformed("key %d v%d response body: %v", rq.key, rq.version, err)
	}
	return resp, at, nil
}

// encodeResponse returns a frame holding header bytes hdr (correlation id and
// any header tags) followed by resp's body.
func encodeResponse(hdr []byte, resp kmsg.Response) []byte {
	out := make([]byte, 4, 4+len(hdr)+64)
	out = append(out, hdr...)
	out = resp.AppendTo(out)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out
}

// localResponse returns a frame answering rq with resp, built by the proxy.
func localResponse(rq *request, resp kmsg.Response) []byte {
	hdr := binary.BigEndian.AppendUint32(nil, uint32(rq.corr))
	if rq.responseHeaderFlexible() {
		hdr = append(hdr, 0) // no header tags
	}
	return encodeResponse(hdr, resp)
}
