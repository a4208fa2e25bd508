//go:build unix

package main

import (
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// refusedAddr is a 127.0.0.1 address whose port is bound by a socket that
// does not listen, until the test ends: a connection to it is refused,
// and no server the test's neighbours start can take the port meanwhile
// (a listener closed at once could hand it on).
func refusedAddr(t *testing.T) string {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return (&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: sa.(*syscall.SockaddrInet4).Port}).String()
}

// TestSOCKSExitBesideCurl: a SOCKS proxy that refuses or fails the
// connection — the target not reached (SOCKS5, SOCKS4), a reply in
// another protocol, a login too long to send — is exit 97 (curl's
// CURLE_PROXY); a proxy that cannot be connected to is 7.
func TestSOCKSExitBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	dead := refusedAddr(t)
	url := "http://" + dead + "/"
	socks5 := fetchtest.NewSOCKS5(t, false, nil)
	login := fetchtest.NewSOCKS5(t, true, nil)
	socks4 := socks4Server(t, dead, make(chan string, 8))
	garbage := fetchtest.CloseEarly(t, "", []byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
	long := strings.Repeat("A", 256)
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--socks5", socks5.Addr, url}, 97},
		{[]string{"--socks5-hostname", socks5.Addr, url}, 97},
		{[]string{"--socks4", socks4.Addr, url}, 97},
		{[]string{"--socks5", garbage.Addr, url}, 97},
		{[]string{"-x", "socks5://" + long + ":b@" + login.Addr, url}, 97},
		{[]string{"-x", "socks5h://u:" + long + "@" + login.Addr, url}, 97},
		{[]string{"--socks5", dead, url}, 7},
		{[]string{"--socks4", dead, url}, 7},
	} {
		ucode, ccode, uerr := exitBesideCurl(t, curl, append([]string{"-s", "-S"}, tc.args...)...)
		if ucode != tc.want || ccode != tc.want {
			t.Errorf("%.60q: urlget exit %d (%s), curl %d; want %d", tc.args, ucode, strings.TrimSpace(uerr), ccode, tc.want)
		}
	}
}

// TestConnectToThroughSOCKSFTP: an ftp session through a SOCKS proxy
// with --connect-to sends its data connections where the control
// connection went (the rule's host), not to the URL's host.
func TestConnectToThroughSOCKSFTP(t *testing.T) {
	ftp := newFTPServer(t)
	dead := refusedAddr(t)
	socks := fetchtest.NewSOCKS5(t, false, func(asked string) string {
		if strings.HasPrefix(asked, "127.0.0.1:") {
			return asked
		}
		return dead // no name is looked up
	})
	_, port, _ := net.SplitHostPort(ftp.Addr)
	code, out, errText := runOut(t, "-s", "-S", "--connect-to", "ftp.invalid:21:127.0.0.1:"+port,
		"--socks5-hostname", socks.Addr, "ftp://ftp.invalid/pub/hello.bin")
	asked := socks.Asked()
	if code != 0 || out != "hello\r\nworld\n" || len(asked) != 2 || asked[0] != ftp.Addr || !strings.HasPrefix(asked[1], "127.0.0.1:") {
		t.Errorf("exit %d (%s), %q; the SOCKS proxy was asked %q", code, strings.TrimSpace(errText), out, asked)
	}
}
