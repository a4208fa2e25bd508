package fetch

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// NewCookieJar is an empty CookieJar.
func NewCookieJar() *CookieJar {
	j, _ := cookiejar.New(nil)
	return &CookieJar{jar: j, now: time.Now}
}

// AddText adds the cookies of a Cookie header's text ("NAME=VALUE;
// NAME2=VALUE2"), sent to every URL as they are: after the jar's, the
// texts joined by ";" as given (curl's -b NAME=VALUE, CookieHeader).
func (c *CookieJar) AddText(s string) {
	c.texts = append(c.texts, s)
	for _, kv := range strings.Split(s, ";") {
		name, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if ok && name != "" {
			c.fixed = append(c.fixed, &http.Cookie{Name: name, Value: val})
		}
	}
}

// CookieJar is an http.CookieJar (Client.Jar) that reads and writes
// Netscape cookie files, as curl's -b FILE and -c FILE: net/http/cookiejar
// for the rules (domain, path, expiry, secure), plus what cookiejar cannot
// give back, a record of every cookie stored, to write the file (Save);
// and cookies given as text (AddText, curl's -b "NAME=VALUE"), sent after
// the jar's as curl sends them.
type CookieJar struct {
	// NewSession, set before Load, leaves out the session cookies (expiry
	// 0) of what is loaded, as a new browser session would not have them:
	// curl's -j/--junk-session-cookies. Cookies received later are kept.
	NewSession bool

	jar   *cookiejar.Jar
	fixed []*http.Cookie // AddText's, parsed
	texts []string       // AddText's, as given

	mu   sync.Mutex
	kept []keptCookie // every cookie stored, in order
	now  func() time.Time
}

type keptCookie struct {
	domain   string // host, or for a domain cookie the domain
	hostOnly bool
	path     string
	secure   bool
	httpOnly bool
	expires  time.Time // zero: a session cookie
	name     string
	value    string
}

// Load reads a Netscape cookie file: tab-separated domain, include
// subdomains, path, secure, expiry (Unix seconds, 0 for a session cookie),
// name, value; "#HttpOnly_" before the domain marks an HttpOnly cookie;
// other lines starting with "#", and blank lines, are comments. Fields
// are split at each run of tabs, as curl splits them (an empty field is
// none); a line of 6 fields has an empty value; a line of another number
// (a stray header line) is skipped, as curl skips a line it cannot read.
func (c *CookieJar) Load(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		k := keptCookie{}
		if rest, ok := strings.CutPrefix(line, "#HttpOnly_"); ok {
			line, k.httpOnly = rest, true
		}
		if line == "" || line[0] == '#' {
			continue
		}
		// Empty fields do not count: curl splits at each run of tabs.
		f := strings.FieldsFunc(line, func(r rune) bool { return r == '\t' })
		if len(f) == 6 {
			f = append(f, "") // an empty value
		}
		if len(f) != 7 {
			continue
		}
		exp, err := strconv.ParseInt(f[4], 10, 64)
		if err != nil {
			return fmt.Errorf("line %d: expiry %q is not a number", n, f[4])
		}
		k.domain = strings.TrimLeft(f[0], ".") // "..x" too: saved, it must read back
		k.hostOnly = !strings.EqualFold(f[1], "TRUE")
		k.path, k.secure, k.name, k.value = f[2], strings.EqualFold(f[3], "TRUE"), f[5], f[6]
		if exp > 0 {
			k.expires = time.Unix(exp, 0)
			if !k.expires.After(c.now()) {
				continue
			}
		} else if c.NewSession {
			continue
		}
		c.store(k)
	}
	return sc.Err()
}

// LoadFile loads the Netscape cookie file name (Load). An error is an
// *fs.PathError naming the file ("cannot read cookie file NAME: line 3:
// ..."; PathCause gives the reason alone); for a missing file it is one
// errors.Is(err, fs.ErrNotExist) recognises, which a program may take
// for an empty jar, as curl does a -b file that -c has not written yet.
func (c *CookieJar) LoadFile(name string) error {
	f, err := os.Open(name)
	if err == nil {
		err = c.Load(f)
		f.Close()
	}
	if err != nil {
		return &fs.PathError{Op: "cannot read cookie file", Path: name, Err: PathCause(err)}
	}
	return nil
}

// store puts a recorded cookie into the jar.
func (c *CookieJar) store(k keptCookie) {
	scheme := "http"
	if k.secure {
		scheme = "https"
	}
	u := &url.URL{Scheme: scheme, Host: k.domain, Path: k.path}
	hc := &http.Cookie{Name: k.name, Value: k.value, Path: k.path, Secure: k.secure, HttpOnly: k.httpOnly, Expires: k.expires}
	if !k.hostOnly {
		hc.Domain = k.domain
	}
	c.jar.SetCookies(u, []*http.Cookie{hc})
	c.mu.Lock()
	c.kept = append(c.kept, k)
	c.mu.Unlock()
}

// SetCookies stores the cookies of a reply from u (http.CookieJar). A
// Secure cookie from an origin that is no secure context is dropped, as
// curl drops it (RFC 6265bis §5.6 step 14: a network attacker on plain
// http could otherwise plant cookies that https requests send); curl's
// secure contexts are https and the loopback names. So is a "__Secure-"
// or "__Host-" cookie without what its prefix asks for (prefixAllowed).
//
// An Expires net/http cannot read (it takes RFC 1123 dates only) is read
// by RFC 6265's cookie-date algorithm (cookieDate), as curl reads any date
// it can: "Thu Jan  1 00:00:00 GMT 1970" has expired, not made a session
// cookie.
//
// From such an origin a cookie is also dropped when it would replace or
// shadow a Secure cookie the jar holds (RFC 6265bis §5.6 step 15, as curl
// 7.88 applies it: overlaysSecure).
func (c *CookieJar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	secure := secureContext(u)
	drop := func(hc *http.Cookie) bool {
		return hc.Secure && !secure || !prefixAllowed(hc) || !secure && c.overlaysSecure(u, hc)
	}
	if slices.ContainsFunc(cookies, drop) {
		cookies = slices.DeleteFunc(slices.Clone(cookies), drop)
	}
	cloned := false
	for i, hc := range cookies {
		if hc.Expires.IsZero() && hc.RawExpires != "" {
			if t, ok := cookieDate(hc.RawExpires); ok {
				if !cloned {
					cookies, cloned = slices.Clone(cookies), true
				}
				read := *hc
				read.Expires = t
				cookies[i] = &read
			}
		}
	}
	c.jar.SetCookies(u, cookies)
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, hc := range cookies {
		k := keptCookie{domain: u.Hostname(), hostOnly: true, path: hc.Path, secure: hc.Secure, httpOnly: hc.HttpOnly,
			name: hc.Name, value: hc.Value}
		if hc.Domain != "" {
			k.domain, k.hostOnly = strings.TrimPrefix(strings.ToLower(hc.Domain), "."), false
			host := strings.ToLower(u.Hostname())
			addr := net.ParseIP(host) != nil
			if host != k.domain && !strings.HasSuffix(host, "."+k.domain) || addr && host != k.domain {
				// The jar refused it (RFC 6265 §5.3 step 6): written to
				// the -c file it would be loaded for that domain next time.
				continue
			}
			// An address is no domain: its cookie is the host's alone, as
			// the jar keeps it and curl writes it (no leading dot, FALSE).
			k.hostOnly = addr
		}
		if k.path == "" || k.path[0] != '/' {
			k.path = defaultCookiePath(u.Path)
		}
		switch {
		case hc.MaxAge < 0:
			k.expires = time.Unix(1, 0) // deleted
		case hc.MaxAge > 0:
			k.expires = now.Add(time.Duration(hc.MaxAge) * time.Second)
		case !hc.Expires.IsZero():
			k.expires = hc.Expires
		}
		c.kept = append(c.kept, k)
	}
}

// overlaysSecure tells whether hc, set by u, would overlay a Secure
// cookie the jar holds, by curl 7.88's rule for RFC 6265bis §5.6 step 15:
// one of its name, for the same domain (or host), whose path's first
// segment ("/a" of "/a/b") starts hc's path, both without a trailing
// slash. A cookie that is itself Secure is not asked about.
func (c *CookieJar) overlaysSecure(u *url.URL, hc *http.Cookie) bool {
	if hc.Secure {
		return false
	}
	domain := strings.TrimPrefix(hc.Domain, ".")
	if domain == "" {
		domain = u.Hostname()
	}
	p := hc.Path
	if p == "" || p[0] != '/' {
		p = defaultCookiePath(u.Path)
	}
	trim := func(p string) string {
		if len(p) > 1 {
			return strings.TrimSuffix(p, "/")
		}
		return p
	}
	p = trim(p)
	now := c.now()
	for _, k := range c.latest() {
		if !strings.EqualFold(k.name, hc.Name) || !k.secure || !strings.EqualFold(k.domain, domain) || k.expired(now) {
			continue
		}
		kp := trim(k.path)
		n := len(kp)
		if i := strings.IndexByte(kp[min(1, n):], '/'); i >= 0 {
			n = i + 1
		}
		if len(p) >= n && strings.EqualFold(p[:n], kp[:n]) {
			return true
		}
	}
	return false
}

// latest is the jar's cookies, each (domain, path and name) as it was
// last stored, in the order first stored.
func (c *CookieJar) latest() []keptCookie {
	type key struct{ domain, path, name string }
	c.mu.Lock()
	defer c.mu.Unlock()
	at := map[key]int{}
	var out []keptCookie
	for _, k := range c.kept {
		id := key{k.domain, k.path, k.name}
		if i, seen := at[id]; seen {
			out[i] = k
			continue
		}
		at[id] = len(out)
		out = append(out, k)
	}
	return out
}

// expired says k's expiry has passed (a session cookie has none).
func (k keptCookie) expired(now time.Time) bool {
	return !k.expires.IsZero() && !k.expires.After(now)
}

// prefixAllowed is RFC 6265bis §4.1.3's rule for a cookie whose name
// starts with a prefix (in any case, as the draft's later versions say;
// curl 7.88 compares it exactly): a "__Secure-" cookie must be Secure, a
// "__Host-" one Secure too, with no Domain and Path "/", so that only its
// own host over a secure origin can have set it. A cookie that breaks it
// is dropped, as curl drops it.
func prefixAllowed(hc *http.Cookie) bool {
	switch n := hc.Name; {
	case len(n) >= 9 && strings.EqualFold(n[:9], "__Secure-"):
		return hc.Secure
	case len(n) >= 7 && strings.EqualFold(n[:7], "__Host-"):
		return hc.Secure && hc.Domain == "" && hc.Path == "/"
	}
	return true
}

// Cookies gives the cookies to send to u: the jar's, then AddText's.
func (c *CookieJar) Cookies(u *url.URL) []*http.Cookie {
	return append(c.jar.Cookies(u), c.fixed...)
}

// maxSentCookies bounds the jar's cookies sent in one request, as curl's
// (its MAX_COOKIE_SEND_AMOUNT): the first stored that match.
const maxSentCookies = 150

// CookieHeader is the value of the Cookie field to send to u, as curl
// makes it: the jar's cookies that match (at most maxSentCookies, the
// first stored), longest path first, then longest domain, longest name,
// the newest first; "NAME=VALUE" joined by "; "; then AddText's texts as
// given, joined by ";". Empty: no field.
func (c *CookieJar) CookieHeader(u *url.URL) string {
	type sent struct {
		k   keptCookie
		age int // its place in kept: the newest is the highest
	}
	matched := c.jar.Cookies(u)
	c.mu.Lock()
	last := map[[3]string]int{} // each cookie's latest record
	for i, k := range c.kept {
		last[[3]string{k.domain, k.path, k.name}] = i
	}
	host := strings.ToLower(u.Hostname())
	var list []sent
	used := make([]bool, len(c.kept))
	for _, m := range matched {
		best := -1
		for i, k := range c.kept {
			if used[i] || k.name != m.Name || k.value != m.Value || last[[3]string{k.domain, k.path, k.name}] != i {
				continue
			}
			if !(host == k.domain || !k.hostOnly && strings.HasSuffix(host, "."+k.domain)) || !pathMatch(u.Path, k.path) {
				continue
			}
			if best < 0 || len(k.path) > len(c.kept[best].path) {
				best = i
			}
		}
		if best < 0 {
			list = append(list, sent{k: keptCookie{name: m.Name, value: m.Value}, age: -1})
			continue
		}
		used[best] = true
		list = append(list, sent{k: c.kept[best], age: best})
	}
	c.mu.Unlock()
	// The first stored are those sent, then in curl's order.
	slices.SortStableFunc(list, func(a, b sent) int { return a.age - b.age })
	list = list[:min(len(list), maxSentCookies)]
	slices.SortStableFunc(list, func(a, b sent) int {
		switch {
		case len(a.k.path) != len(b.k.path):
			return len(b.k.path) - len(a.k.path)
		case len(a.k.domain) != len(b.k.domain):
			return len(b.k.domain) - len(a.k.domain)
		case len(a.k.name) != len(b.k.name):
			return len(b.k.name) - len(a.k.name)
		}
		return b.age - a.age
	})
	var b strings.Builder
	for _, s := range list {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(s.k.name + "=" + s.k.value)
	}
	if len(c.texts) > 0 {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(strings.Join(c.texts, ";"))
	}
	return b.String()
}

// cookieDate reads a cookie's Expires by RFC 6265 §5.1.1: the tokens
// between delimiters give, each first found, the time (h:m:s), the day of
// the month (one or two digits), the month (its name's first three
// letters) and the year (two to four digits: 70-99 is 19xx, 0-69 20xx),
// in any order; anything else is ignored. The date is UTC. It is not
// ParseDate (curl's -z grammar): that one refuses a word it does not know
// and a year before 1970, as a date the user typed must be refused, where
// a server's Expires is read for what it gives and a 1969 date has
// expired.
func cookieDate(s string) (time.Time, bool) {
	delim := func(r rune) bool {
		return r == '\t' || r >= 0x20 && r <= 0x2f || r >= 0x3b && r <= 0x40 || r >= 0x5b && r <= 0x60 || r >= 0x7b && r <= 0x7e
	}
	// digits reads the lo to hi leading digits of t (what follows them
	// is no digit): their value and the rest of t.
	digits := func(t string, lo, hi int) (int, string, bool) {
		n := 0
		for n < len(t) && t[n] >= '0' && t[n] <= '9' {
			n++
		}
		if n < lo || n > hi {
			return 0, "", false
		}
		v, _ := strconv.Atoi(t[:n])
		return v, t[n:], true
	}
	var hour, minute, sec, day, month, year int
	var haveTime, haveDay, haveMonth, haveYear bool
	for _, tok := range strings.FieldsFunc(s, delim) {
		if !haveTime {
			if h, rest, ok := digits(tok, 1, 2); ok && strings.HasPrefix(rest, ":") {
				if m, rest, ok := digits(rest[1:], 1, 2); ok && strings.HasPrefix(rest, ":") {
					if sc, _, ok := digits(rest[1:], 1, 2); ok {
						hour, minute, sec, haveTime = h, m, sc, true
						continue
					}
				}
			}
		}
		if !haveDay {
			if d, _, ok := digits(tok, 1, 2); ok {
				day, haveDay = d, true
				continue
			}
		}
		if !haveMonth && len(tok) >= 3 {
			if i := strings.Index("janfebmaraprmayjunjulaugsepoctnovdec", strings.ToLower(tok[:3])); i >= 0 && i%3 == 0 {
				month, haveMonth = i/3+1, true
				continue
			}
		}
		if !haveYear {
			if y, _, ok := digits(tok, 2, 4); ok {
				year, haveYear = y, true
				continue
			}
		}
	}
	switch {
	case year >= 70 && year <= 99:
		year += 1900
	case year <= 69:
		year += 2000
	}
	if !haveTime || !haveDay || !haveMonth || !haveYear || day < 1 || day > 31 || year < 1601 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC), true
}

// pathMatch is RFC 6265 §5.1.4's path-match of a request path p and a
// cookie path cp.
func pathMatch(p, cp string) bool {
	if p == "" || p[0] != '/' {
		p = "/"
	}
	return p == cp || strings.HasPrefix(p, cp) && (strings.HasSuffix(cp, "/") || p[len(cp)] == '/')
}

// defaultCookiePath is RFC 6265 §5.1.4's default path of a request path.
func defaultCookiePath(p string) string {
	if p == "" || p[0] != '/' || strings.Count(p, "/") == 1 {
		return "/"
	}
	return path.Dir(p)
}

// Save writes the jar as a Netscape cookie file: the last value of each
// cookie (domain, path, name), expired ones left out. The cookies given as
// text (AddText) are not written, as curl does not write them.
func (c *CookieJar) Save(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Netscape HTTP Cookie File\n# This file was generated by urlget. Edit at your own risk.\n\n")
	now := c.now()
	for _, k := range c.latest() {
		if k.expired(now) {
			continue
		}
		dom := k.domain
		if !k.hostOnly {
			dom = "." + dom
		} else if strings.HasPrefix(dom, "#") {
			continue // its line would read as a comment: no host is named so
		}
		if k.httpOnly {
			dom = "#HttpOnly_" + dom
		}
		exp := int64(0)
		if !k.expires.IsZero() {
			exp = k.expires.Unix()
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", dom, upperBool(!k.hostOnly), k.path, upperBool(k.secure), exp, k.name, k.value)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SaveFile writes the jar (Save) to the file name so that no one ever
// finds it half written: into a new temporary file beside it (mode 0600,
// or that of the file replaced), renamed over name once written and
// closed. On failure the temporary file is removed and a file already
// under name is left as it was; two saves at once each rename a whole
// file of their own, and the last one stays. The directory must be
// writable, even when name is: a file replaced in place could be left
// half written. A symbolic link is followed (the file it points to is
// replaced); a name that is no regular file (a device such as
// /dev/stdout, a named pipe) is written to directly. An error is an
// *fs.PathError naming the file ("cannot write cookie file NAME: ...";
// PathCause gives the reason alone).
func (c *CookieJar) SaveFile(name string) error {
	fail := func(err error) error {
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err
		}
		return &fs.PathError{Op: "cannot write cookie file", Path: name, Err: PathCause(err)}
	}
	target := name
	if t, err := filepath.EvalSymlinks(name); err == nil {
		target = t
	}
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(target); err == nil {
		switch {
		case fi.IsDir():
			return fail(errors.New("is a directory"))
		case !fi.Mode().IsRegular():
			f, err := os.OpenFile(target, os.O_WRONLY, 0)
			if err != nil {
				return fail(err)
			}
			err = c.Save(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fail(err)
			}
			return nil
		}
		mode |= fi.Mode().Perm()
	}
	dir := filepath.Dir(target)
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return fail(fmt.Errorf("cannot create a file in %s: %w", dir, PathCause(err)))
	}
	err = c.Save(f)
	if err == nil && mode != 0o600 {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), target)
	}
	if err != nil {
		os.Remove(f.Name())
		return fail(err)
	}
	return nil
}

func upperBool(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

// secureContext is curl's: https, or a host that is this machine by name
// (localhost, 127.0.0.1, ::1).
func secureContext(u *url.URL) bool {
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return u.Scheme == "https"
}
