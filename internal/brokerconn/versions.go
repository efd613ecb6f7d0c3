package brokerconn

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// versions is a broker's supported version range per api key, from its
// ApiVersions answer; max -1 for a key it does not support.
type versions struct {
	min, max [maxKey + 1]int16
}

// maxKey is the largest api key kmsg knows.
const maxKey = kmsg.MaxKey

// pick returns the version req goes at: the highest both kmsg and the broker
// support. Errors: *UnsupportedError when there is none.
func (v *versions) pick(req kmsg.Request) (int16, error) {
	k := req.Key()
	if k < 0 || int(k) > maxKey || v.max[k] < 0 {
		return 0, &UnsupportedError{Key: kmsg.Key(k), BrokerMin: -1, BrokerMax: -1, OurMax: req.MaxVersion()}
	}
	ver := min(req.MaxVersion(), v.max[k])
	if ver < v.min[k] {
		return 0, &UnsupportedError{Key: kmsg.Key(k), BrokerMin: v.min[k], BrokerMax: v.max[k], OurMax: req.MaxVersion()}
	}
	return ver, nil
}

// UnsupportedError is a request the broker cannot take: it does not support
// the key (BrokerMax -1), or its lowest version is above the highest kmsg
// knows.
type UnsupportedError struct {
	Key                  kmsg.Key
	BrokerMin, BrokerMax int16 // -1 when the broker does not list the key
	OurMax               int16
}

func (e *UnsupportedError) Error() string {
	if e.BrokerMax < 0 {
		return fmt.Sprintf("brokerconn: broker does not support %s (key %d)", e.Key.Name(), int16(e.Key))
	}
	return fmt.Sprintf("brokerconn: broker supports %s v%d-v%d, kmsg at most v%d", e.Key.Name(), e.BrokerMin, e.BrokerMax, e.OurMax)
}

// softwareVersion is ClientSoftwareVersion in ApiVersions (KIP-511): the
// module version this binary was built from, or "unknown" when the build has
// none that fits the field's pattern ([a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?).
var softwareVersion = func() string {
	if bi, ok := debug.ReadBuildInfo(); ok && validSoftware(bi.Main.Version) {
		return bi.Main.Version
	}
	return "unknown"
}()

func validSoftware(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || i == len(s)-1 || c != '-' && c != '.') {
			return false
		}
	}
	return true
}

// handshake sends ApiVersions on nc and reads the broker's versions, by
// deadline. A broker too old for kmsg's ApiVersions version answers
// UNSUPPORTED_VERSION with its own range for ApiVersions (KIP-511); the
// request is sent once more at the highest version both support. Errors:
// the socket's, a malformed or mismatched answer, the answer's error code.
func handshake(nc net.Conn, f *kmsg.RequestFormatter, deadline time.Time, maxFrame int32) (*versions, error) {
	if err := nc.SetDeadline(deadline); err != nil {
		return nil, err
	}
	defer nc.SetDeadline(time.Time{})
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName = "kreactor"
	req.ClientSoftwareVersion = softwareVersion
	req.SetVersion(req.MaxVersion())
	for corr := int32(0); ; corr++ {
		resp, err := roundTrip(nc, f, req, corr, maxFrame)
		if err != nil {
			return nil, err
		}
		if resp.ErrorCode == kerr.UnsupportedVersion.Code && corr == 0 && req.Version > 0 {
			// KIP-511: the answer names the broker's ApiVersions range; a
			// broker that names none (or an empty one) gets v0, which every
			// broker takes, as Java's NetworkClient sends.
			retry := int16(0)
			for _, k := range resp.ApiKeys {
				if k.ApiKey == int16(kmsg.ApiVersions) && k.MaxVersion >= 0 && k.MaxVersion < req.Version {
					retry = k.MaxVersion
				}
			}
			req.SetVersion(retry)
			continue
		}
		if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
			return nil, fmt.Errorf("brokerconn: ApiVersions v%d: %w", req.Version, err)
		}
		v := &versions{}
		for k := range v.max {
			v.min[k], v.max[k] = -1, -1
		}
		for _, k := range resp.ApiKeys {
			if k.ApiKey >= 0 && int(k.ApiKey) <= maxKey {
				v.min[k.ApiKey], v.max[k.ApiKey] = k.MinVersion, k.MaxVersion
			}
		}
		return v, nil
	}
}

// roundTrip writes one ApiVersions request and reads its answer. The answer's
// header is always v0 (KIP-511); a broker answering UNSUPPORTED_VERSION
// writes a v0 body, which is read as such.
func roundTrip(nc net.Conn, f *kmsg.RequestFormatter, req *kmsg.ApiVersionsRequest, corr, maxFrame int32) (*kmsg.ApiVersionsResponse, error) {
	if _, err := nc.Write(f.AppendRequest(nil, req, corr)); err != nil {
		return nil, err
	}
	frame, _, err := wire.ReadFrame(nc, wire.MinResponseSize, maxFrame)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // the broker closed the connection during ApiVersions
		}
		return nil, err
	}
	if got := int32(binary.BigEndian.Uint32(frame[wire.SizeLen:])); got != corr {
		return nil, fmt.Errorf("brokerconn: ApiVersions answer has correlation id %d, want %d: %w", got, corr, wire.ErrMalformed)
	}
	body := frame[wire.SizeLen+wire.MinResponseSize:]
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.SetVersion(req.Version)
	if err := resp.ReadFrom(body); err != nil || resp.ErrorCode == kerr.UnsupportedVersion.Code {
		v0 := kmsg.NewPtrApiVersionsResponse()
		if err0 := v0.ReadFrom(body); err0 == nil && v0.ErrorCode == kerr.UnsupportedVersion.Code {
			return v0, nil
		}
		if err != nil {
			return nil, fmt.Errorf("brokerconn: ApiVersions v%d answer of %d bytes: %w (%w)", req.Version, len(body), err, wire.ErrMalformed)
		}
	}
	return resp, nil
}
