//go:build linux

package testserver

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestSquidConf(t *testing.T) {
	conf := SquidConf("/d", 3128, true, "ftp_passive on")
	for _, want := range []string{
		"http_port 127.0.0.1:3128\n", "http_access allow loopback\n", "http_access deny all\n",
		"cache deny all\n", "cache_log /d/cache.log\n", "pid_filename /d/squid.pid\n",
		"cache_effective_user proxy\n", "dns_nameservers 127.0.0.1\n", "ftp_passive on\n",
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("squid.conf lacks %q:\n%s", want, conf)
		}
	}
	// Access is granted before it is denied: the first match wins.
	if strings.Index(conf, "http_access allow") > strings.Index(conf, "http_access deny") {
		t.Errorf("deny before allow:\n%s", conf)
	}
	if strings.Contains(SquidConf("/d", 3128, false, ""), "cache_effective_user") {
		t.Error("cache_effective_user set for a Squid not run as root")
	}
}

// proxyGet sends "GET target" to the proxy at addr and returns the reply
// and its body.
func proxyGet(t *testing.T, addr, target string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, "GET "+target+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s through %s: %v", target, addr, err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s through %s: body: %v", target, addr, err)
	}
	return res, body
}

// Squid's ftp gateway reaches vsftpd on 127.0.0.1: a file comes through
// byte for byte, a directory as an HTML page; gopher gets 501.
func TestSquidFTPGateway(t *testing.T) {
	ftp := StartFTP(t, Vsftpd)
	sq := Squid(t)
	res, body := proxyGet(t, sq.Addr, ftp.URL+"/pub/binary.bin")
	if res.StatusCode != 200 || !bytes.Equal(body, FTPBinaryData) {
		t.Errorf("binary.bin through Squid: %s, %d bytes (want %d)", res.Status, len(body), len(FTPBinaryData))
	}
	res, body = proxyGet(t, sq.Addr, ftp.URL+"/pub/")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
		!bytes.Contains(body, []byte("binary.bin")) || !bytes.Contains(body, []byte("hello.txt")) {
		t.Errorf("pub/ through Squid: %s %q\n%.2000s", res.Status, res.Header.Get("Content-Type"), body)
	}
	res, _ = proxyGet(t, sq.Addr, "gopher://127.0.0.1:1/1/")
	if res.StatusCode != 501 {
		t.Errorf("gopher through Squid: %s, want 501 (Squid 5.7 has no gopher gateway)", res.Status)
	}
}
