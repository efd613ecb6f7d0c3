package fakebroker

import (
	"net"
)

// hostListen returns a listen function for kfake that listens on
// listenHost (default 127.0.0.1) at the port kfake asks for, whatever host
// it names, and whose listeners report advertiseHost (default: as bound)
// as their address: kfake advertises a listener's address to clients.
func hostListen(listenHost, advertiseHost string) func(network, address string) (net.Listener, error) {
	if listenHost == "" {
		listenHost = "127.0.0.1"
	}
	return func(network, address string) (net.Listener, error) {
		_, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen(network, net.JoinHostPort(listenHost, port))
		if err != nil || advertiseHost == "" {
			return ln, err
		}
		_, bound, _ := net.SplitHostPort(ln.Addr().String())
		return advertised{ln, advertisedAddr(net.JoinHostPort(advertiseHost, bound))}, nil
	}
}

// advertised is a listener reporting another address.
type advertised struct {
	net.Listener
	addr advertisedAddr
}

func (a advertised) Addr() net.Addr { return a.addr }

type advertisedAddr string

func (a advertisedAddr) Network() string { return "tcp" }
func (a advertisedAddr) String() string  { return string(a) }
