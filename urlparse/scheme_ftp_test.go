package urlparse

import (
	"reflect"
	"testing"
)

func TestFTP(t *testing.T) {
	cases := []struct {
		in         string
		user, pass string
		hasPass    bool
		host       string
		port       int
		want       FTP
	}{
		// RFC 1738 §3.2.2
		{"ftp://myname@host.dom/%2Fetc/motd", "myname", "", false, "host.dom", -1,
			FTP{CWD: []string{"/etc"}, Name: "motd"}},
		{"ftp://myname@host.dom//etc/motd", "myname", "", false, "host.dom", -1,
			FTP{CWD: []string{"", "etc"}, Name: "motd"}},
		{"ftp://@host.com/", "", "", false, "host.com", -1, FTP{}},
		{"ftp://host.com/", "", "", false, "host.com", -1, FTP{}},
		{"ftp://foo:@host.com/", "foo", "", true, "host.com", -1, FTP{}},
		{"ftp://host", "", "", false, "host", -1, FTP{}},
		{"ftp://host/a/b/", "", "", false, "host", -1, FTP{CWD: []string{"a", "b"}}},
		{"ftp://host//", "", "", false, "host", -1, FTP{CWD: []string{""}}},
		{"ftp://host/%2F", "", "", false, "host", -1, FTP{Name: "/"}},
		{"ftp://host/a%2fb/c", "", "", false, "host", -1, FTP{CWD: []string{"a/b"}, Name: "c"}},
		{"ftp://u:p%40ss@h:2121/a/b;type=i", "u", "p@ss", true, "h", 2121,
			FTP{CWD: []string{"a"}, Name: "b", Type: 'i'}},
		{"ftp://h/;type=d", "", "", false, "h", -1, FTP{Type: 'd'}},
		{"ftp://h/dir/;type=D", "", "", false, "h", -1, FTP{CWD: []string{"dir"}, Type: 'd'}},
		{"ftp://h/x;TYPE=A", "", "", false, "h", -1, FTP{Name: "x", Type: 'a'}},
		{"ftp://h/x;Type=i", "", "", false, "h", -1, FTP{Name: "x", Type: 'i'}},
		// ;type= only counts at the end of the last segment
		{"ftp://h/a;type=i/b", "", "", false, "h", -1, FTP{CWD: []string{"a;type=i"}, Name: "b"}},
		{"ftp://h/a%3Btype=i", "", "", false, "h", -1, FTP{Name: "a;type=i"}},
		{"ftp://h/a;b", "", "", false, "h", -1, FTP{Name: "a;b"}},
		{"ftp://h/a;type=b;type=i", "", "", false, "h", -1, FTP{Name: "a;type=b", Type: 'i'}},
		{"ftp://h/a;typo=i", "", "", false, "h", -1, FTP{Name: "a;typo=i"}},
		// "?" is an fsegment character: the query is part of the path
		{"ftp://h/what?", "", "", false, "h", -1, FTP{Name: "what?"}},
		{"ftp://h/a?b/c", "", "", false, "h", -1, FTP{CWD: []string{"a?b"}, Name: "c"}},
		{"ftp://h/a%20b/c%3F?d/e;type=a", "", "", false, "h", -1,
			FTP{CWD: []string{"a b", "c??d"}, Name: "e", Type: 'a'}},
		{"ftp://h/x/?y%2Fz;type=i", "", "", false, "h", -1, FTP{CWD: []string{"x"}, Name: "?y/z", Type: 'i'}},
		{"ftp://h/d/f#frag", "", "", false, "h", -1, FTP{CWD: []string{"d"}, Name: "f"}},
		{"ftp://h/%E2%82%AC/%00%0D", "", "", false, "h", -1, FTP{CWD: []string{"€"}, Name: "\x00\r"}},
		{"ftp://[::1]:2121/x", "", "", false, "::1", 2121, FTP{Name: "x"}},
		{"ftp://192.0.2.1/pub/", "", "", false, "192.0.2.1", -1, FTP{CWD: []string{"pub"}}},
		{"FTP://H/A", "", "", false, "H", -1, FTP{Name: "A"}},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		if u.Scheme != "ftp" || u.User != c.user || u.Password != c.pass || u.HasPassword != c.hasPass ||
			u.Host != c.host || u.Port != c.port {
			t.Errorf("Parse(%q): scheme %q user %q pass %q (%v) host %q port %d; want %q %q (%v) %q %d",
				c.in, u.Scheme, u.User, u.Password, u.HasPassword, u.Host, u.Port, c.user, c.pass, c.hasPass, c.host, c.port)
		}
		if !reflect.DeepEqual(u.FTP, c.want) {
			t.Errorf("Parse(%q).FTP = %#v; want %#v", c.in, u.FTP, c.want)
		}
		testRoundTrip(t, c.in)
	}
	if u := mustParse(t, "ftp://[::1]:2121/x"); u.HostKind != HostIPv6 || u.RawHost != "[::1]" {
		t.Errorf("ftp IPv6 host: kind %v raw %q", u.HostKind, u.RawHost)
	}
	if u := mustParse(t, "ftp://h/"); u.PortOrDefault() != 21 {
		t.Errorf("ftp default port %d", u.PortOrDefault())
	}
}

func TestFTPErrors(t *testing.T) {
	testErrors(t, []errCase{
		{"ftp://h/a;type=x", 15, "ftptype"},
		{"ftp://h/a;type=", 15, "ftptype"},
		{"ftp://h/a;type=ii", 16, "ftptype"},
		{"ftp://h/a;type=%61", 15, "ftptype"},
		{"ftp://h/;type=?", 14, "ftptype"},
		{"ftp://h/a;type=i?x", 16, "ftptype"},
		{"ftp://h:65536/", 8, "port"},
		{"ftp://h:021x/", 11, "port"},
		{"ftp:/h/x", 4, "ftpurl"},
		{"ftp:h", 4, "ftpurl"},
		{"ftp:///x", 6, "host"},
		{"ftp://u:p@/x", 10, "host"},
		{"ftp://h?x", 7, "ftpurl"},
		{"ftp://h/%zz", 9, "path"},
		{"ftp://h/a%2", 11, "path"},
		{"ftp://h/a\x00b", 9, "path"},
		{"ftp://u%@h/", 8, "userinfo"},
		{"ftp://[::1/x", 10, "IP-literal"},
		{"ftp://[::g]/x", 9, "IPv6address"},
	})
	// the fragment is not part of the path: ";type=" before it still counts
	if u := mustParse(t, "ftp://h/a;type=i#f;type=x"); u.FTP.Type != 'i' || u.FTP.Name != "a" {
		t.Errorf("fragment after ;type=: %#v", u.FTP)
	}
}
