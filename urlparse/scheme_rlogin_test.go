package urlparse

import "testing"

func TestSessionSchemes(t *testing.T) {
	cases := []struct {
		in         string
		user, host string
		port, def  int
	}{
		{"rlogin://h", "", "h", -1, 513},
		{"rlogin://joe@h.example/", "joe", "h.example", -1, 513},
		{"RLOGIN://joe@h:1513/", "joe", "h", 1513, 513},
		{"tn3270://mainframe.example/", "", "mainframe.example", -1, 23},
		{"tn3270://ibmuser@[::1]:3270", "ibmuser", "::1", 3270, 23},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		if u.User != c.user || u.Host != c.host || u.Port != c.port {
			t.Errorf("Parse(%q): %q %q %d; want %q %q %d", c.in, u.User, u.Host, u.Port, c.user, c.host, c.port)
		}
		if got := u.PortOrDefault(); c.port < 0 && got != c.def {
			t.Errorf("Parse(%q).PortOrDefault() = %d, want %d", c.in, got, c.def)
		}
		testRoundTrip(t, c.in)
	}
	testErrors(t, []errCase{
		{"rlogin://h/x", 11, "rloginurl"},
		{"rlogin://h?x", 10, "rloginurl"},
		{"rlogin:h", 7, "rloginurl"},
		{"tn3270://h/x", 11, "tn3270url"},
		{"tn3270://", 9, "host"},
	})
}
