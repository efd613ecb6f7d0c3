// Package freeport picks the host ports the real-Kafka containers publish
// (containers' cluster and the broker image's module) before they start.
package freeport

import (
	"fmt"
	"net"
)

// Ports returns n distinct TCP ports free on 127.0.0.1 now. Another
// process may take one before Docker binds it; the start then fails with
// "port is already allocated".
func Ports(n int) ([]int, error) {
	ports := make([]int, 0, n)
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
