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
//
// The menus are found in one pass over the manifest; an item's local copy
// is looked up by the URL that claimed its name this run (owner, by
// ownerKey: the same selector under another item type is one item), else
// its own: the records of its directory are read then, so that nothing
// holds the whole manifest.
func (e *engine) rewriteMenus(owner func(key string) string) {
	if err := e.man.flush(); err != nil {
		e.man.fail(err)
		return
	}
	e.mu.Lock()
	listed := e.listedOK
	e.mu.Unlock()
	e.man.each(false, func(r Record) bool {
		if r.Type == TypeMenu && r.Status == StatusOK && listed[r.URL] {
			e.rewriteMenu(r, owner)
		}
		return true
	})
}

// localCopy is the record of the local copy of the item at url, if any.
func (e *engine) localCopy(url string, owner func(key string) string) (Record, bool) {
	ok := func(r Record) bool {
		return r.Status == StatusOK && r.Path != "" && (r.Type == TypeFile || r.Type == TypeMenu)
	}
	if o := owner(ownerKey(url)); o != "" {
		if r, had := e.man.get(o); had && ok(r) {
			return r, true
		}
	}
	if r, had := e.man.get(url); had && ok(r) {
		return r, true
	}
	return Record{}, false
}

// rewriteMenu writes the gophermap beside the menu r.
func (e *engine) rewriteMenu(r Record, owner func(key string) string) {
	u, err := urlparse.Parse(r.URL)
	if err != nil {
		return
	}
	raw, err := e.fs.readFile(r.Path, maxMenu)
	if err != nil {
		return
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
		lr, ok := e.localCopy(url, owner)
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
		return
	}
	t, err := e.fs.create(dst)
	if err != nil {
		e.markIncomplete("cannot write " + dst + ": " + err.Error())
		return
	}
	if _, err := t.Write(out); err != nil {
		t.discard()
		return
	}
	if err := t.commit(dst, fetchedTime(r)); err != nil {
		e.markIncomplete("cannot write " + dst + ": " + err.Error())
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
