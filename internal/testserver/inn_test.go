package testserver

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nntpDialog sends each command and returns the first reply line to each.
func nntpDialog(t *testing.T, addr string, cmds ...string) (greeting string, replies []string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	greeting, err = r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range cmds {
		fmt.Fprintf(c, "%s\r\n", cmd)
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		replies = append(replies, strings.TrimRight(line, "\r\n"))
	}
	return strings.TrimRight(greeting, "\r\n"), replies
}

func TestINNFixtures(t *testing.T) {
	s := StartINN(t, INNConfig{AuthUser: "urlget", AuthPassword: "s3cret pw"})
	greet, replies := nntpDialog(t, s.Addr,
		"GROUP local.test",
		"GROUP comp.infosystems.www.servers.unix",
		"GROUP local.empty",
		"STAT "+INNKnownID,
		"STAT <no-such-article@example.net>",
		"QUIT")
	if !strings.HasPrefix(greet, "200 ") {
		t.Errorf("greeting %q", greet)
	}
	counts := map[string]int{}
	for _, a := range s.Articles {
		for _, g := range a.Groups {
			counts[g]++
		}
	}
	want := []string{
		fmt.Sprintf("211 %d 1 %d local.test", counts["local.test"], counts["local.test"]),
		fmt.Sprintf("211 %d 1 %d comp.infosystems.www.servers.unix", counts["comp.infosystems.www.servers.unix"], counts["comp.infosystems.www.servers.unix"]),
		"211 0 1 0 local.empty",
		"223 0 " + INNKnownID + " ",
	}
	for i, w := range want {
		if replies[i] != w && !(strings.HasSuffix(w, " ") && strings.HasPrefix(replies[i], w)) {
			t.Errorf("reply %d = %q, want %q", i, replies[i], w)
		}
	}
	if !strings.HasPrefix(replies[4], "430 ") {
		t.Errorf("missing article: %q", replies[4])
	}
	if counts["local.test"] != 30 || counts["comp.infosystems.www.servers.unix"] != 21 {
		t.Errorf("fixture counts %v", counts)
	}

	// The authenticating reader: nothing before AUTHINFO, reading after.
	_, replies = nntpDialog(t, s.AuthAddr,
		"GROUP local.test",
		"AUTHINFO USER urlget",
		"AUTHINFO PASS wrong",
		"AUTHINFO USER urlget",
		"AUTHINFO PASS s3cret pw",
		"GROUP local.test")
	codes := []string{"480", "381", "481", "381", "281", "211"}
	for i, c := range codes {
		if !strings.HasPrefix(replies[i], c+" ") {
			t.Errorf("auth reader reply %d = %q, want %s", i, replies[i], c)
		}
	}
	// Every path is inside the test's directory.
	for _, f := range []string{"run/innd.pid", "db/history", "etc/inn.conf"} {
		if _, err := os.Stat(filepath.Join(s.Dir, f)); err != nil {
			t.Error(err)
		}
	}
	conf, _ := os.ReadFile(s.Conf)
	if strings.Contains(string(conf), "\npathspool: /var") {
		t.Errorf("inn.conf still points at /var:\n%s", conf)
	}
}
