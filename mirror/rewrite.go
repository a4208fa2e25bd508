package mirror

import (
	"bytes"
	"path"
	"strings"

	"github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/urlparse"
)

// rewriteMenus writes, beside every menu read this run, a "gophermap"
// whose items point at the local copies: the browsable mirror. Items that
// were mirrored get the selector "/" + their local path (a menu: its
// directory and "/") and no host or port, which gophernicus and pygopherd
// fill in with their own when they serve DIR as their root; every other
// line (info lines, searches, links, items on other hosts, lines that are
// not items) is kept as it was received. The saved menu itself is not
// touched.
func (e *engine) rewriteMenus() {
	recs := e.man.all()
	local := make(map[string]Record, len(recs))
	for _, r := range recs {
		if r.Status == StatusOK && r.Path != "" && (r.Type == TypeFile || r.Type == TypeMenu) {
			local[ownerKey(r.URL)] = r
		}
	}
	e.mu.Lock()
	listed := e.listedOK
	e.mu.Unlock()
	for _, r := range recs {
		if r.Type != TypeMenu || r.Status != StatusOK || !listed[r.URL] {
			continue
		}
		u, err := urlparse.Parse(r.URL)
		if err != nil {
			continue
		}
		raw, err := e.fs.readFile(r.Path, maxMenu)
		if err != nil {
			continue
		}
		port := u.PortOrDefault()
		out := RewriteMenu(raw, func(it gopher.Item) (string, bool) {
			scheme := "gopher"
			if strings.EqualFold(it.Host, u.Host) && it.Port == port {
				scheme = u.Scheme
			}
			url := it.URLWithScheme(scheme)
			if url == "" {
				return "", false
			}
			lr, ok := local[ownerKey(url)]
			if !ok {
				return "", false
			}
			if lr.Type == TypeMenu {
				d := path.Dir(lr.Path)
				if d == "." {
					return "/", true
				}
				return "/" + d + "/", true
			}
			return "/" + lr.Path, true
		})
		dst := path.Join(path.Dir(r.Path), rewrittenMenu)
		if old, err := e.fs.readFile(dst, maxMenu+1); err == nil && bytes.Equal(old, out) {
			continue
		}
		t, err := e.fs.create(dst)
		if err != nil {
			e.markIncomplete("cannot write " + dst + ": " + err.Error())
			continue
		}
		if _, err := t.Write(out); err != nil {
			t.discard()
			continue
		}
		if err := t.commit(dst, fetchedTime(r)); err != nil {
			e.markIncomplete("cannot write " + dst + ": " + err.Error())
		}
	}
}

// RewriteMenu rewrites a menu (as received) into a gophermap: every item
// for which local returns a selector gets "TYPE display TAB selector"
// (host and port left to the serving server), with control bytes in the
// display string replaced by "?"; every other line is kept byte for byte.
// Lines end with LF; the menu ends at its "." line, which is kept.
func RewriteMenu(raw []byte, local func(gopher.Item) (string, bool)) []byte {
	var out bytes.Buffer
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if string(line) == "." {
			out.WriteString(".\n")
			break
		}
		it, err := gopher.ParseItem(line)
		if err == nil && it.Type != gopher.TypeInfo && it.Type != gopher.TypeError {
			if sel, ok := local(it); ok {
				out.WriteByte(it.Type)
				for _, c := range []byte(it.Display) {
					if c < 0x20 || c == 0x7f {
						c = '?'
					}
					out.WriteByte(c)
				}
				out.WriteByte('\t')
				out.WriteString(sel)
				out.WriteByte('\n')
				continue
			}
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}
