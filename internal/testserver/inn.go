package testserver

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// INNBin is where Debian's inn2 package installs innd, nnrpd, rnews and
// ctlinnd (not on $PATH).
const INNBin = "/usr/lib/news/bin"

// INN fixture identities: the server's path host and the domain it is set to.
const (
	INNPathHost = "fixture.example.net"
	INNDomain   = "example.net"
)

// INNArticle is one fixture article, as injected with rnews.
type INNArticle struct {
	MessageID string           // with angle brackets
	Groups    []string         // the Newsgroups header, in order
	Numbers   map[string]int64 // its article number in each group
	Subject   string
	From      string
	Date      time.Time
	Head      []string // header lines as injected (innd prepends to Path and adds Xref)
	Body      []string // body lines; stored and served byte for byte
}

// INNGroup is one fixture newsgroup.
type INNGroup struct {
	Name        string
	Description string
}

// INNGroups are the fixture groups, in active-file order.
var INNGroups = []INNGroup{
	{"local.test", "Fixture articles for urlget's tests"},
	{"comp.infosystems.www.servers.unix", "Web servers on Unix (fixture)"},
	{"local.empty", "A group with no articles"},
}

// Well-known fixture message-ids.
const (
	INNKnownID = "<urlget-known-1@example.net>" // local.test 1
	INNXpostID = "<urlget-xpost@example.net>"   // local.test 2, comp.infosystems.www.servers.unix 1
	INNDotsID  = "<urlget-dots@example.net>"    // body lines ".", "..", ".leading"
	INNOddID   = "<urlget/odd+chars$1@example.net>"
	INNLongID  = "<urlget-long@example.net>" // 3000 body lines
)

// INNFixtures returns the fixture articles in injection order: local.test
// gets 30 articles and comp.infosystems.www.servers.unix 21, 50 articles in
// all since one is cross-posted; local.empty gets none. Article numbers
// follow injection order.
func INNFixtures() []*INNArticle {
	const local, comp = "local.test", "comp.infosystems.www.servers.unix"
	base := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	var arts []*INNArticle
	add := func(id, subject string, groups []string, body []string) {
		a := &INNArticle{
			MessageID: id,
			Groups:    groups,
			Subject:   subject,
			From:      "Fixture Poster <poster@example.net>",
			Date:      base.Add(time.Duration(len(arts)) * time.Minute),
			Body:      body,
		}
		a.Head = []string{
			"Path: urlget-fixtures!not-for-mail",
			"From: " + a.From,
			"Newsgroups: " + strings.Join(groups, ","),
			"Subject: " + subject,
			"Date: " + a.Date.Format(time.RFC1123Z),
			"Message-ID: " + id,
			"Organization: urlget test fixtures",
		}
		arts = append(arts, a)
	}
	add(INNKnownID, "Known article one", []string{local}, []string{
		"This is the known article.",
		"It has exactly three lines,",
		"and this is the last.",
	})
	add(INNXpostID, "Cross-posted article", []string{local, comp}, []string{"Posted to two groups."})
	add(INNDotsID, "Dots at line starts", []string{local}, []string{
		".leading dot", "..two leading dots", ".", "after a lone dot line", "..", "end",
	})
	add(INNOddID, "Odd characters in the message-id", []string{local}, []string{"Message-ID with / + and $."})
	long := make([]string, 3000)
	for i := range long {
		long[i] = fmt.Sprintf("Line %04d of the long article: the quick brown fox jumps over the lazy dog.", i+1)
	}
	add(INNLongID, "A long article", []string{local}, long)
	for i := 6; i <= 30; i++ {
		add(fmt.Sprintf("<urlget-local-%d@example.net>", i), fmt.Sprintf("Filler %d in local.test", i),
			[]string{local}, []string{fmt.Sprintf("Filler article %d.", i)})
	}
	for i := 2; i <= 21; i++ {
		add(fmt.Sprintf("<urlget-comp-%d@example.net>", i), fmt.Sprintf("Filler %d in comp", i),
			[]string{comp}, []string{fmt.Sprintf("Filler article %d about web servers.", i)})
	}
	next := map[string]int64{}
	for _, a := range arts {
		a.Numbers = map[string]int64{}
		for _, g := range a.Groups {
			next[g]++
			a.Numbers[g] = next[g]
		}
	}
	return arts
}

// INNConfig describes an INN test server.
type INNConfig struct {
	// Dir holds etc, db, spool, run and log (default t.TempDir()).
	Dir string
	// AuthUser and AuthPassword, when set, also start a standalone nnrpd
	// (-D) whose readers.conf lets nobody read until AUTHINFO USER/PASS
	// gives them (checked by INN's ckpasswd).
	AuthUser, AuthPassword string
}

// INNServer is a running innd (which hands reader connections to nnrpd),
// holding the fixtures.
type INNServer struct {
	Addr    string // 127.0.0.1:PORT
	Port    int
	Dir     string
	Conf    string // INNCONF of innd
	Process *Process
	// Articles are the fixtures, as injected.
	Articles []*INNArticle
	// AuthAddr is the standalone nnrpd requiring authentication, when
	// INNConfig.AuthUser was set.
	AuthAddr    string
	AuthProcess *Process
}

// INN starts INN with the fixtures on 127.0.0.1 for the rest of the test.
// The test is skipped (failed with CI set) if INN is not installed; INN
// needs root, to run as user news.
func INN(t testing.TB) *INNServer {
	t.Helper()
	return StartINN(t, INNConfig{})
}

// StartINN is INN with a config.
func StartINN(t testing.TB, cfg INNConfig) *INNServer {
	t.Helper()
	innd := Require(t, filepath.Join(INNBin, "innd"))
	RequireRoot(t, "INN tests need root (innd runs as user news, started with setpriv)")
	news, err := user.Lookup("news")
	if err != nil {
		t.Fatalf("testserver: INN: no user news: %v", err)
	}
	uid, _ := strconv.Atoi(news.Uid)
	gid, _ := strconv.Atoi(news.Gid)
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
		// user news must be able to reach the directory.
		if err := os.Chmod(filepath.Dir(cfg.Dir), 0o711); err != nil {
			t.Fatal(err)
		}
	}
	s := &INNServer{Dir: cfg.Dir, Articles: INNFixtures()}
	if err := innLayout(cfg.Dir, cfg, uid, gid); err != nil {
		t.Fatalf("testserver: INN: %v", err)
	}
	s.Conf = filepath.Join(cfg.Dir, "etc", "inn.conf")
	env := append(os.Environ(), "INNCONF="+s.Conf)
	asNews := func(bin string, args ...string) *exec.Cmd {
		cmd := exec.Command("setpriv", append([]string{"--reuid=news", "--regid=news", "--init-groups", bin}, args...)...)
		cmd.Env = env
		cmd.Dir = cfg.Dir
		return cmd
	}
	opt := Options{
		Name:        "innd",
		StopTimeout: 10 * time.Second,
		LogFiles:    []string{filepath.Join(cfg.Dir, "log", "news.notice"), filepath.Join(cfg.Dir, "log", "errlog")},
		// innd notices SIGTERM only when its select() times out (minutes).
		Terminate: func(p *Process) error {
			out, err := asNews(filepath.Join(INNBin, "ctlinnd"), "-t", "5", "shutdown", "urlget tests done").CombinedOutput()
			if err != nil {
				return fmt.Errorf("ctlinnd shutdown: %v: %s", err, out)
			}
			return nil
		},
	}
	s.Process = StartOnFreePort(t, opt, func(port int) (*exec.Cmd, string, error) {
		os.Remove(filepath.Join(cfg.Dir, "run", "innd.pid")) // a stale one makes innd exit silently
		if err := writeINNConf(cfg.Dir, "etc", port, uid, gid); err != nil {
			return nil, "", err
		}
		s.Port = port
		return asNews(innd, "-f", "-c", "0", "-N"), fmt.Sprintf("127.0.0.1:%d", port), nil
	})
	s.Addr = s.Process.Addr

	// Inject the fixtures through innd's local socket, as a UUCP batch.
	rnews := asNews(filepath.Join(INNBin, "rnews"), "-N", "-a")
	rnews.Stdin = bytes.NewReader(INNBatch(s.Articles))
	if out, err := rnews.CombinedOutput(); err != nil {
		t.Fatalf("testserver: INN: rnews: %v: %s\n%s", err, out, s.Process.Logs())
	}
	want := map[string]int64{}
	for _, a := range s.Articles {
		for g, n := range a.Numbers {
			want[g] = max(want[g], n)
		}
	}
	if err := waitINNGroups(s.Addr, want, 15*time.Second); err != nil {
		t.Fatalf("testserver: INN: fixtures not visible: %v\n%s", err, s.Process.Logs())
	}

	if cfg.AuthUser != "" {
		nnrpd := filepath.Join(INNBin, "nnrpd")
		authConf := filepath.Join(cfg.Dir, "etc-auth", "inn.conf")
		authEnv := append(os.Environ(), "INNCONF="+authConf)
		s.AuthProcess = StartOnFreePort(t, Options{Name: "nnrpd-auth"}, func(port int) (*exec.Cmd, string, error) {
			if err := writeINNConf(cfg.Dir, "etc-auth", s.Port, uid, gid); err != nil {
				return nil, "", err
			}
			cmd := asNews(nnrpd, "-D", "-f", "-b", "127.0.0.1", "-p", strconv.Itoa(port), "-n")
			cmd.Env = authEnv
			return cmd, fmt.Sprintf("127.0.0.1:%d", port), nil
		})
		s.AuthAddr = s.AuthProcess.Addr
	}
	return s
}

// INNBatch is the articles as one rnews batch ("#! rnews N" before each).
func INNBatch(arts []*INNArticle) []byte {
	var b bytes.Buffer
	for _, a := range arts {
		text := strings.Join(a.Head, "\n") + "\n\n" + strings.Join(a.Body, "\n") + "\n"
		fmt.Fprintf(&b, "#! rnews %d\n%s", len(text), text)
	}
	return b.Bytes()
}

// innLayout creates the directory tree, the configuration files that do
// not depend on the port, the active file and an empty history, all owned
// by news.
func innLayout(dir string, cfg INNConfig, uid, gid int) error {
	for _, d := range []string{"etc", "etc-auth", "db", "run", "log", "http", "tmp",
		"spool/articles", "spool/overview", "spool/incoming/tmp", "spool/incoming/bad",
		"spool/outgoing", "spool/archive"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	// Start from the packaged files, then override what matters.
	ents, err := os.ReadDir("/etc/news")
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/etc/news", e.Name()))
		if err != nil {
			continue // unreadable extras are not needed
		}
		for _, etc := range []string{"etc", "etc-auth"} {
			if err := os.WriteFile(filepath.Join(dir, etc, e.Name()), data, 0o644); err != nil {
				return err
			}
		}
	}
	files := map[string]string{
		"etc/readers.conf": `auth "local" {
    hosts: "*"
    default: "<local>"
}
access "local" {
    users: "<local>"
    newsgroups: "*"
    access: RPA
}
`,
		"etc/incoming.conf":      "# no peers: every connection is a reader, handed to nnrpd\n",
		"etc/newsfeeds":          "ME:*::\n",
		"etc/storage.conf":       "method tradspool {\n    newsgroups: *\n    class: 0\n}\n",
		"etc-auth/incoming.conf": "\n",
		"etc-auth/newsfeeds":     "ME:*::\n",
		"etc-auth/storage.conf":  "method tradspool {\n    newsgroups: *\n    class: 0\n}\n",
		"etc-auth/readers.conf": `auth "password" {
    hosts: "*"
    auth: "ckpasswd -f ` + filepath.Join(dir, "etc-auth", "newsusers") + `"
}
access "users" {
    users: "*"
    newsgroups: "*"
    access: R
}
`,
		"db/history": "",
	}
	if cfg.AuthUser != "" {
		hash, err := cryptPassword(cfg.AuthPassword)
		if err != nil {
			return err
		}
		files["etc-auth/newsusers"] = cfg.AuthUser + ":" + hash + "\n"
	}
	var active, times, groups strings.Builder
	for _, g := range []INNGroup{{"control", "Various control messages."}, {"control.cancel", "Cancel messages."}, {"junk", "Unfiled articles."}} {
		fmt.Fprintf(&active, "%s 0000000000 0000000001 n\n", g.Name)
		fmt.Fprintf(&groups, "%s\t%s\n", g.Name, g.Description)
	}
	for _, g := range INNGroups {
		fmt.Fprintf(&active, "%s 0000000000 0000000001 y\n", g.Name)
		fmt.Fprintf(&times, "%s %d urlget-tests\n", g.Name, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix())
		fmt.Fprintf(&groups, "%s\t%s\n", g.Name, g.Description)
	}
	files["db/active"] = active.String()
	files["db/active.times"] = times.String()
	files["db/newsgroups"] = groups.String()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			return err
		}
	}
	// A placeholder port: only makedbz reads this inn.conf before the real one.
	if err := writeINNConf(dir, "etc", 1, uid, gid); err != nil {
		return err
	}
	if err := chownR(dir, uid, gid); err != nil {
		return err
	}
	cmd := exec.Command("setpriv", "--reuid=news", "--regid=news", "--init-groups",
		filepath.Join(INNBin, "makedbz"), "-i", "-o")
	cmd.Dir = filepath.Join(dir, "db")
	cmd.Env = append(os.Environ(), "INNCONF="+filepath.Join(dir, "etc", "inn.conf"))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("makedbz: %v: %s", err, out)
	}
	return nil
}

// cryptPassword hashes a password for ckpasswd -f with crypt(3), through
// Perl (a dependency of inn2).
func cryptPassword(pw string) (string, error) {
	cmd := exec.Command("perl", "-e", `print crypt($ARGV[0], '$6$urlgettests$')`, pw)
	out, err := cmd.Output()
	if err != nil || !bytes.HasPrefix(out, []byte("$6$")) {
		return "", fmt.Errorf("hashing the test password with perl crypt: %v %q", err, out)
	}
	return string(out), nil
}

// writeINNConf writes DIR/ETC/inn.conf: the packaged inn.conf without the
// keys set here, with every path inside dir, the port, and the domain the
// Debian package needs.
func writeINNConf(dir, etc string, port, uid, gid int) error {
	keys := map[string]string{
		"domain":        INNDomain,
		"pathhost":      INNPathHost,
		"server":        "127.0.0.1",
		"port":          strconv.Itoa(port),
		"bindaddress":   "127.0.0.1",
		"pathetc":       filepath.Join(dir, etc),
		"pathdb":        filepath.Join(dir, "db"),
		"pathrun":       filepath.Join(dir, "run"),
		"pathlog":       filepath.Join(dir, "log"),
		"pathhttp":      filepath.Join(dir, "http"),
		"pathspool":     filepath.Join(dir, "spool"),
		"patharticles":  filepath.Join(dir, "spool", "articles"),
		"pathoverview":  filepath.Join(dir, "spool", "overview"),
		"pathincoming":  filepath.Join(dir, "spool", "incoming"),
		"pathoutgoing":  filepath.Join(dir, "spool", "outgoing"),
		"patharchive":   filepath.Join(dir, "spool", "archive"),
		"pathtmp":       filepath.Join(dir, "spool", "incoming", "tmp"),
		"ovmethod":      "tradindexed",
		"artcutoff":     "0",
		"pgpverify":     "false",
		"doinnwatch":    "false",
		"docnfsstat":    "false",
		"htmlstatus":    "false",
		"nnrpdcheckart": "true",
		// nnrpd refuses readers ("400 load at N, try later") above a
		// load average of 16 by default: a busy test machine is not a
		// reason to fail.
		"nnrpdloadlimit": "0",
	}
	var b strings.Builder
	if data, err := os.ReadFile("/etc/news/inn.conf"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			line := sc.Text()
			k, _, ok := strings.Cut(strings.TrimSpace(line), ":")
			if _, override := keys[strings.TrimSpace(k)]; ok && override {
				continue
			}
			b.WriteString(line + "\n")
		}
	}
	b.WriteString("\n# urlget test server\n")
	for _, k := range sortedKeys(keys) {
		fmt.Fprintf(&b, "%s: %s\n", k, keys[k])
	}
	p := filepath.Join(dir, etc, "inn.conf")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Chown(p, uid, gid)
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}

func chownR(dir string, uid, gid int) error {
	return filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// waitINNGroups polls GROUP over NNTP until each group's high-water mark is
// at least the one wanted.
func waitINNGroups(addr string, want map[string]int64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		if last = checkINNGroups(addr, want); last == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return last
}

func checkINNGroups(addr string, want map[string]int64) error {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "20") {
		return fmt.Errorf("greeting %q", line)
	}
	for g, n := range want {
		fmt.Fprintf(c, "GROUP %s\r\n", g)
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "211" {
			return fmt.Errorf("GROUP %s: %q", g, line)
		}
		if high, _ := strconv.ParseInt(f[3], 10, 64); high < n {
			return fmt.Errorf("GROUP %s: %q, want high %d", g, strings.TrimSpace(line), n)
		}
	}
	fmt.Fprintf(c, "QUIT\r\n")
	return nil
}
