package wire

import (
	"encoding/binary"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// requestFrame encodes req at version v with kmsg's own request formatter
// (header v1 or v2 as kmsg writes it), client id id (nil: null).
func requestFrame(req kmsg.Request, v int16, corr int32, id *string) []byte {
	req.SetVersion(v)
	f := kmsg.NewRequestFormatter()
	if id != nil {
		f = kmsg.NewRequestFormatter(kmsg.FormatterClientID(*id))
	}
	return f.AppendRequest(nil, req, corr)
}

// rawFrame builds a request frame by hand: header v1 fields (clientIDLen
// written as given; id's bytes after it) and an arbitrary body, so tests can
// write what kmsg never would.
func rawFrame(key kmsg.Key, version int16, corr int32, clientIDLen int16, id string, body []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint16(b, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(version))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	b = binary.BigEndian.AppendUint16(b, uint16(clientIDLen))
	b = append(b, id...)
	b = append(b, body...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func ptr(s string) *string { return &s }
