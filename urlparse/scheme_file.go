package urlparse

import "strings"

var _ = defScheme(schemeDef{rule: "fileurl", form: formFile, inText: true}, "file")

// parseFile: file://host/path (RFC 1738 §3.10); "file:/path" (no
// authority, RFC 8089) is local too. "?" is an ordinary path character.
func (u *URL) parseFile(s string) error {
	var v pview
	v.init(s, &u.Ref, true)
	if v.po == v.end || s[v.po] != '/' {
		return errAt(s, v.po, "fileurl", "a file URL's path must start with \"/\"")
	}
	u.File.Local = !u.HasAuth || u.RawHost == "" ||
		u.HostKind == HostRegName && strings.EqualFold(u.Host, "localhost")
	u.File.Path = v.dec(v.po, v.end)
	return nil
}

// checkFile is CheckLine for the fields of file URLs.
func (u *URL) checkFile() error {
	sc := u.Scheme
	if err := checkField(sc, "path", -1, u.File.Path, maskNUL); err != nil {
		return err
	}
	return nil
}

// FileURL returns file:///path for a local path ("/" is put in front of a
// path that does not start with one).
func FileURL(path string) string {
	b := start("file", len(path)+3)
	b = append(b, "//"...)
	if !strings.HasPrefix(path, "/") {
		b = append(b, '/')
	}
	return string(appendEscaped(b, path, keepPath))
}

func (u *URL) fileFields(w FieldWriter) {
	w.Bool("local", u.File.Local)
	w.String("path", u.File.Path)
}
