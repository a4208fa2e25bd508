package ftp

import (
	"net"
	"testing"
)

// TestDisableEPSVIPv6: ftp-epsv=0 turns EPSV off on IPv4 only: PASV
// cannot give an IPv6 address, and curl sends EPSV there whatever
// --disable-epsv says (its test 254).
func TestDisableEPSVIPv6(t *testing.T) {
	for _, tc := range []struct {
		ip   string
		want string
	}{{"127.0.0.1", "PASV"}, {"::1", "EPSV"}} {
		c := &Conn{remoteIP: net.ParseIP(tc.ip)}
		c.disableEPSV(true)
		if got := c.PassiveCommand(); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.ip, got, tc.want)
		}
	}
}
