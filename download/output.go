package download

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/owner"
	"github.com/urlget/urlget/urlparse"
)

// Output files.
//
// A file named by a Target is never written in place. The body goes to
// NAME.part in the same directory, created only once the server has
// answered, and NAME.part is renamed over NAME when the transfer is
// complete, so an existing NAME is never destroyed or truncated and nothing
// half-written ever sits under NAME. The new file takes the permissions of
// the file it replaces (else 0666 less the umask). A symbolic link is
// followed: its target is replaced. An existing NAME that is not a regular
// file (/dev/null, a FIFO) is written directly.
//
// A transfer that fails or is interrupted after bytes arrived keeps them in
// NAME.part (its modification time set to the resource's when known), and
// Result.Kept names it; a rerun with Resume continues NAME.part from its
// end and renames it to NAME when complete. A NAME.part that is a symbolic
// link or not a regular file is refused.
//
// Resume asks the server whether the resource changed since the part held
// was fetched (If-Range, MDTM) only when urlget knows where the part came
// from: a NAME.part it created carries the extended attribute
// user.urlget.part, "SECONDS URL", the resource's modification time (Unix
// seconds) and URL (without credentials) as the reply that started it gave
// them; it is written as the file is created, so that a part left by a kill
// has it too, and removed when the part becomes NAME. A part without it, or
// of another URL (one curl, a browser or another program wrote; a file
// system without extended attributes), is resumed as curl resumes: the
// plain offset (Range, REST), the bytes it holds taken as they are; its
// modification time proves nothing, so it is never sent as If-Range. NAME
// itself is always resumed that way.
//
// Resume without a NAME.part resumes NAME itself, as curl does: NAME is opened
// for appending only after the server has confirmed it sends the rest
// (Meta.Offset equal to the offset asked for). A failure then leaves the
// bytes appended so far at the end of NAME, and a rerun with Resume continues
// from there; the bytes NAME held before are never touched. When the server
// sends the whole resource instead (Meta.Offset 0), it goes through
// NAME.part as above, and a warning says why. A local file larger than the
// resource is left as it is (ErrResume, curl's 36): an HTTP server answers
// the offset 416 with the resource's size, an FTP server's SIZE is smaller.
type output struct {
	path       string      // final file; "" for stdout
	stdout     io.Writer   // where stdout-bound data goes
	resumeFrom int64       // Resume: 0 none, ResumeAtEnd, else the offset
	perm       fs.FileMode // the permissions of the file replaced, if replaces
	replaces   bool        // path is an existing regular file
	direct     bool        // path exists and is not a regular file: write it in place
	remoteTime bool
	origin     string // the URL, as a part's mark records it (markPart)

	f         *os.File
	tmp       string // the .part file, while writing one
	partFrom  int64  // ResumeAtEnd: the size of the .part file found, to continue (0: none)
	appending bool   // f is path opened for appending (resume)
	base      int64  // resource offset of the first byte written (stdout, append)
	written   int64  // bytes written since base
	started   bool
	modTime   time.Time // the resource's, for RemoteTime
	untouched bool      // not modified (a condition): nothing to write
	inPlace   bool      // path is another user's or group's: NAME.part is copied into it, not renamed over it
	files     *Files    // shared with transfers run at once; nil otherwise
	d         *Downloader

	headerName    bool // Target.HeaderName: the reply may rename path before it is started
	noClobber     bool // an existing path is not replaced (see Clobber)
	numbered      bool // with noClobber, NAME.1 ... NAME.100 are tried (ClobberNever)
	removeOnError bool // abort removes what was written
}

// newOutput resolves where a URL goes; it creates nothing yet, except the
// directories CreateDirs asks for.
func (d *Downloader) newOutput(u *urlparse.URL, t Target) (*output, error) {
	o := &output{stdout: d.Stdout, remoteTime: d.RemoteTime, files: d.Files, d: d,
		headerName: t.Remote && t.HeaderName, removeOnError: d.RemoveOnError, origin: publicURL(*u)}
	if d.Resume {
		o.resumeFrom = d.ResumeFrom
	}
	o.noClobber = d.Clobber == ClobberNever || d.Clobber == ClobberDefault && o.headerName
	o.numbered = d.Clobber == ClobberNever
	name := t.Name
	if t.Remote {
		n, err := RemoteName(u)
		if err != nil {
			return nil, err
		}
		name = n
	} else if name == "-" {
		if t.Implicit && d.IsTerminal != nil && d.IsTerminal(d.Stdout) && !fetch.HasCaps(u.Scheme, fetch.Session) {
			o.stdout = &binaryGuard{w: o.stdout}
		}
		return o, nil
	}
	if name == "" {
		return nil, fetch.NewError(fetch.ErrWrite, "empty output file name", nil)
	}
	return o, o.place(name)
}

// place makes name (in OutputDir when relative) the output's file, as it
// stands now: an existing one to replace, or to write in place.
func (o *output) place(name string) error {
	d := o.d
	if d.OutputDir != "" && !filepath.IsAbs(name) {
		name = filepath.Join(d.OutputDir, name)
	}
	if d.CreateDirs {
		if err := os.MkdirAll(filepath.Dir(name), 0o777); err != nil {
			return fetch.NewError(fetch.ErrWrite, "cannot create the directory for "+name, err)
		}
	}
	o.path, o.perm, o.replaces, o.inPlace, o.direct = name, 0, false, false, false
	fi, err := os.Lstat(name)
	if err != nil {
		return nil
	}
	if o.noClobber {
		// Refused before anything is fetched when no name is free; commit
		// still takes the first free one, whoever makes one meanwhile.
		if err := o.nameFree(); err != nil {
			return err
		}
	}
	if fi.Mode()&fs.ModeSymlink != 0 && !o.noClobber {
		// Followed to the file it names, which is replaced; a link is a
		// name taken for noClobber, NAME.1 going beside it.
		if t, err := filepath.EvalSymlinks(name); err == nil {
			o.path = t
			fi, err = os.Stat(t)
			if err != nil {
				return fetch.NewError(fetch.ErrWrite, "cannot use output file "+name, err)
			}
		}
	}
	switch {
	case fi.IsDir() && !o.noClobber:
		return fetch.NewError(fetch.ErrWrite, "output file "+name+" is a directory", nil)
	case fi.Mode().IsRegular() && o.noClobber, fi.IsDir():
		// Not replaced: commit finds a free name beside it.
	case fi.Mode().IsRegular():
		// A file the user cannot write is not replaced (curl opens it
		// and fails: 23), and one that is another's is written in
		// place, keeping its owner, not renamed over.
		if err := owner.CanWrite(os.OpenFile, o.path); err != nil {
			return fetch.NewError(fetch.ErrWrite, "cannot write "+o.path+" (left as it is)", err)
		}
		o.perm, o.replaces, o.inPlace = fi.Mode().Perm(), true, owner.Others(fi)
	case fi.Mode()&fs.ModeSymlink == 0:
		o.direct = true
	}
	return nil
}

// nameFromReply is HeaderName: the file name m's Content-Disposition
// gives, its directory part dropped, "" when it gives none. A name that
// CheckRemoteName refuses (an empty one too) is an error, as in curl.
func nameFromReply(m *fetch.Meta) (string, error) {
	v := m.Header.Get("Content-Disposition")
	if v == "" {
		return "", nil
	}
	_, params, err := mime.ParseMediaType(v)
	name, ok := params["filename"]
	if err != nil || !ok {
		return "", nil
	}
	if i := strings.LastIndexAny(name, "/\\"); i >= 0 {
		name = name[i+1:]
	}
	if err := CheckRemoteName(name); err != nil {
		return "", fetch.NewError(fetch.ErrWrite, fmt.Sprintf("-J: refusing file name %q from the reply's Content-Disposition", name), nil)
	}
	return name, nil
}

// RemoteName is the file name a Remote Target takes (curl's -O): the name
// the URL's scheme gives it (fetch.FileName), else the URL's last path
// segment as written (not percent-decoded, as curl), without an FTP
// ";type=" suffix. A name that is empty, "." or "..", or holds "/", "\", a
// control byte or invalid UTF-8, is refused (CheckRemoteName): a server or
// a URL must never choose a path outside the current (or OutputDir)
// directory. The error is a *fetch.Error (ErrWrite, curl's 23).
func RemoteName(u *urlparse.URL) (string, error) {
	if name := fetch.FileName(u); name != "" {
		// The scheme knows the name (a wais document's file name), and
		// has made it safe.
		return name, CheckRemoteName(name)
	}
	p := u.RawPath
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", fetch.NewError(fetch.ErrWrite, "-O: the URL has no path to name the file after; use -o", nil)
	}
	name := p[i+1:]
	if u.FTP.Type != 0 {
		if j := strings.LastIndex(name, ";type="); j >= 0 {
			name = name[:j]
		}
	}
	if err := CheckRemoteName(name); err != nil {
		return "", err
	}
	return name, nil
}

// CheckRemoteName refuses a file name from a server or a URL that could
// leave the directory it is written in, or mislead (RemoteName's rules).
func CheckRemoteName(name string) error {
	bad := func(why string) error {
		return fetch.NewError(fetch.ErrWrite, fmt.Sprintf("-O: refusing file name %q from the URL: %s; use -o", name, why), nil)
	}
	switch {
	case name == "":
		return bad("the URL's last path segment is empty")
	case name == "." || name == "..":
		return bad("a directory, not a file")
	case strings.ContainsAny(name, "/\\"):
		return bad("it holds a path separator")
	case !utf8.ValidString(name):
		return bad("not valid UTF-8")
	case len(name) > 255:
		return bad("longer than 255 bytes")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return bad("it holds a control character")
		}
	}
	return nil
}

// want is the offset and modification time to ask the next attempt for.
func (o *output) want() (int64, time.Time, error) {
	switch {
	case o.appending, o.path == "" && o.started:
		return o.base + o.written, time.Time{}, nil
	case o.tmp != "":
		return o.base + o.written, time.Time{}, nil // continue the .part file
	case o.path == "" || o.direct:
		if o.resumeFrom > 0 {
			return o.resumeFrom, time.Time{}, nil
		}
		return 0, time.Time{}, nil
	case o.resumeFrom == -1:
		if fi, err := os.Lstat(partName(o.path)); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
			o.partFrom = fi.Size()
			return fi.Size(), o.partSince(partName(o.path)), nil
		}
		fi, err := os.Stat(o.path)
		if err != nil || !fi.Mode().IsRegular() {
			return 0, time.Time{}, nil
		}
		return fi.Size(), time.Time{}, nil // whose bytes, nobody knows: curl's plain offset
	case o.resumeFrom > 0:
		return o.resumeFrom, time.Time{}, nil
	}
	return 0, time.Time{}, nil
}

// start readies the output for a body that starts at resource offset got,
// when asked was requested; it returns how many leading body bytes to
// discard because an earlier attempt already wrote them.
func (o *output) start(got, asked int64) (skip int64, err error) {
	defer func() { o.started = err == nil || o.started }()
	resumeErr := func() error {
		return fetch.NewError(fetch.ErrResume, fmt.Sprintf("asked for byte %d on, the server sent from byte %d", asked, got), nil)
	}
	switch {
	case o.path == "" || o.direct:
		if o.direct && o.f == nil {
			f, err := os.OpenFile(o.path, os.O_WRONLY, 0)
			if err != nil {
				return 0, fetch.NewError(fetch.ErrWrite, "cannot open "+o.path, err)
			}
			o.f = f
		}
		if !o.started || o.written == 0 {
			o.base, o.written = got, 0
			return 0, nil
		}
		// A retry after a partial transfer: the stream must go on exactly
		// where it stopped.
		if got > asked {
			return 0, resumeErr()
		}
		return asked - got, nil
	case o.appending:
		if got == asked {
			return 0, nil
		}
		if got != 0 {
			return 0, resumeErr()
		}
		// The server sends it whole after all: what was appended stays,
		// the whole resource goes through a temporary file.
		o.f.Close()
		o.f, o.appending = nil, false
		return 0, o.openTemp()
	case o.tmp != "":
		if got == asked {
			return 0, nil
		}
		if got != 0 {
			return 0, resumeErr()
		}
		if err := o.f.Truncate(0); err != nil {
			return 0, writeError(err)
		}
		if _, err := o.f.Seek(0, io.SeekStart); err != nil {
			return 0, writeError(err)
		}
		o.base, o.written = 0, 0
		o.markPart()
		return 0, nil
	}
	// The first answer for a file.
	if o.partFrom > 0 && asked == o.partFrom && got == asked {
		// -C -: NAME.part goes on from its end.
		f, err := openPart(partName(o.path), os.O_WRONLY|os.O_APPEND)
		if err != nil {
			return 0, fetch.NewError(fetch.ErrWrite, "cannot open "+partName(o.path)+" to resume", err)
		}
		if fi, err := f.Stat(); err == nil && fi.Size() != asked {
			f.Close()
			return 0, fetch.NewError(fetch.ErrResume, fmt.Sprintf("%s changed size during the transfer", partName(o.path)), nil)
		}
		o.f, o.tmp, o.base, o.written = f, partName(o.path), asked, 0
		return 0, nil
	}
	if asked > 0 && got == asked {
		f, err := os.OpenFile(o.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
		if err != nil {
			return 0, fetch.NewError(fetch.ErrWrite, "cannot open "+o.path+" to resume", err)
		}
		if fi, err := f.Stat(); err == nil && o.resumeFrom == -1 && fi.Size() != asked {
			f.Close()
			return 0, fetch.NewError(fetch.ErrResume, fmt.Sprintf("%s changed size during the transfer", o.path), nil)
		}
		o.f, o.appending, o.base, o.written = f, true, asked, 0
		return 0, nil
	}
	if got != 0 {
		return 0, resumeErr()
	}
	return 0, o.openTemp()
}

// held is the file a resume continues: NAME.part when there is one, else
// NAME.
func (o *output) held() string {
	if o.partFrom > 0 {
		return partName(o.path)
	}
	return o.path
}

// fresh reports whether nothing of the output exists yet (neither NAME
// nor NAME.part): a resume then starts a NAME.part of its own.
func (o *output) fresh() bool {
	if o.path == "" || o.direct {
		return false
	}
	for _, n := range []string{o.path, partName(o.path)} {
		if _, err := os.Lstat(n); err == nil {
			return false
		}
	}
	return true
}

// partName is where a file's body is written until it is complete.
func partName(path string) string { return path + ".part" }

// openPart opens a .part file, never through a symbolic link.
func openPart(name string, flag int) (*os.File, error) {
	f, err := os.OpenFile(name, flag|syscall.O_NOFOLLOW, 0o666)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	return f, nil
}

// openTemp creates (or empties) NAME.part for the whole resource.
func (o *output) openTemp() error {
	part := partName(o.path)
	unlock := o.files.lockDir(part)
	f, err := openPart(part, os.O_RDWR|os.O_CREATE|os.O_TRUNC)
	unlock()
	if err != nil {
		return fetch.NewError(fetch.ErrWrite, "cannot create "+part, err)
	}
	if o.replaces {
		f.Chmod(o.perm)
	}
	o.f, o.tmp, o.base, o.written = f, part, 0, 0
	o.markPart()
	return nil
}

// partMark is the extended attribute of a NAME.part that urlget created:
// see output.
const partMark = "user.urlget.part"

// markPart records, on the NAME.part now started from the resource's
// first byte, the resource it comes from: its modification time (as the
// reply gave it) and URL. Without a modification time a mark left by an
// earlier transfer is removed.
func (o *output) markPart() {
	if o.modTime.IsZero() {
		removeXattr(o.tmp, partMark)
		return
	}
	setXattr(o.tmp, partMark, strconv.FormatInt(o.modTime.Unix(), 10)+" "+o.origin)
}

// partSince is the modification time of the resource that the part name
// was fetched from, as its mark records it: zero when it has no mark, or
// one of another URL.
func (o *output) partSince(name string) time.Time {
	v, err := getXattr(name, partMark)
	if err != nil {
		return time.Time{}
	}
	sec, url, _ := strings.Cut(v, " ")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || url != o.origin {
		return time.Time{}
	}
	return time.Unix(n, 0)
}

// writer is where the body goes: the file itself (so that its ReadFrom is
// reached), or stdout, whose write errors are typed ErrWrite when it is not
// a file (a file's are typed by the Client's Body).
func (o *output) writer() io.Writer {
	if o.f != nil {
		return o.f
	}
	if _, ok := o.stdout.(*os.File); ok {
		return o.stdout
	}
	return typedWriter{o.stdout}
}

// binaryGuard is a terminal that stdout goes to when no file was asked
// for: data whose
// first bytes hold a NUL is binary, refused as curl refuses it, before
// anything of it is written.
type binaryGuard struct {
	w       io.Writer
	checked bool
}

func (g *binaryGuard) Write(p []byte) (int, error) {
	if !g.checked && len(p) > 0 {
		g.checked = true
		if bytes.IndexByte(p, 0) >= 0 {
			return 0, fetch.NewError(fetch.ErrWrite, "binary output can mess up your terminal: use -o - (--output -) to print it anyway, or -o FILE to save it", nil)
		}
	}
	return g.w.Write(p)
}

// typedWriter types the errors of w as ErrWrite.
type typedWriter struct{ w io.Writer }

func (t typedWriter) Write(p []byte) (int, error) {
	if tw, ok := t.w.(typedWriter); ok {
		t = tw
	}
	n, err := t.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return n, writeError(err)
	}
	return n, nil
}

// Write writes bytes to the output (HeadText, HeaderBlock).
func (o *output) Write(p []byte) (int, error) {
	var w io.Writer = o.stdout
	if o.f != nil {
		w = o.f
	}
	n, err := w.Write(p)
	o.written += int64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	return n, err
}

// commit completes a successful transfer: the temporary file replaces path.
func (o *output) commit() error {
	if o.f == nil {
		if o.path != "" && !o.started && !o.untouched {
			// Nothing was ever written (cannot happen for a success, but
			// an output file must exist after one).
			if err := o.openTemp(); err != nil {
				return err
			}
		} else {
			return nil
		}
	}
	f := o.f
	o.f = nil
	if err := f.Close(); err != nil {
		o.removeTemp()
		return writeError(err)
	}
	if o.tmp != "" {
		removeXattr(o.tmp, partMark) // NAME is complete: no part any more
	}
	if o.tmp != "" && o.inPlace {
		if err := copyInto(o.path, o.tmp); err != nil {
			return fetch.NewError(fetch.ErrWrite, "cannot write "+o.path+" (the transfer is kept in "+o.tmp+")", err)
		}
		o.removeTemp()
	}
	if o.tmp != "" && o.noClobber {
		return o.commitBeside()
	}
	if o.tmp != "" {
		unlock := o.files.lockDir(o.path) // NAME.part is beside NAME
		err := os.Rename(o.tmp, o.path)
		unlock()
		if err != nil {
			o.removeTemp()
			return fetch.NewError(fetch.ErrWrite, "cannot rename the temporary file to "+o.path, err)
		}
		o.tmp = ""
	}
	o.setTime()
	return nil
}

// maxClobberSuffix is the last NAME.N that ClobberNever tries, as curl.
const maxClobberSuffix = 100

// names are the names an output that replaces nothing may take: NAME,
// and when numbered NAME.1 ... NAME.100.
func (o *output) names() []string {
	names := []string{o.path}
	for n := 1; o.numbered && n <= maxClobberSuffix; n++ {
		names = append(names, o.path+"."+strconv.Itoa(n))
	}
	return names
}

// nameFree is nil when one of names does not exist, else the error that
// says none is free.
func (o *output) nameFree() error {
	for _, name := range o.names() {
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	return o.takenError()
}

func (o *output) takenError() *fetch.Error {
	if !o.numbered {
		return fetch.NewError(fetch.ErrWrite, o.path+" exists: not replaced (--clobber replaces it)", nil)
	}
	return fetch.NewError(fetch.ErrWrite, fmt.Sprintf("%s and %s.1 to %s.%d exist: not replaced", o.path, o.path, o.path, maxClobberSuffix), nil)
}

// commitBeside is commit for an output that replaces nothing: NAME.part
// is linked to the first of names that does not exist (a link never
// replaces a file, whoever makes one meanwhile), and path becomes that
// name. When none is free the transfer stays in NAME.part.
func (o *output) commitBeside() error {
	unlock := o.files.lockDir(o.path)
	defer unlock()
	for _, name := range o.names() {
		err := os.Link(o.tmp, name)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return fetch.NewError(fetch.ErrWrite, "cannot create "+name+" (the transfer is kept in "+o.tmp+")", err)
		}
		os.Remove(o.tmp)
		o.tmp, o.path = "", name
		o.setTime()
		return nil
	}
	err := o.takenError()
	err.Msg += " (the transfer is kept in " + o.tmp + ")"
	return err
}

// copyInto writes the bytes of the file src over those of the existing
// file dst, in place (its owner, group and mode stay), as curl writes an
// output file.
func copyInto(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_TRUNC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// setTime gives the file the resource's modification time, with
// RemoteTime, and always when resuming.
func (o *output) setTime() {
	if (o.remoteTime || o.resumeFrom != 0) && !o.modTime.IsZero() && !o.direct && o.path != "" {
		os.Chtimes(o.path, time.Time{}, o.modTime)
	}
}

// abort cleans up after a failed transfer: path is left as it was, except
// for data appended by a resume. The bytes received into NAME.part stay
// there for a Resume to continue; abort returns that file's name and size ("",
// 0 when nothing was kept).
func (o *output) abort() (kept string, size int64) {
	if o.f != nil {
		o.f.Close()
		o.f = nil
	}
	if o.removeOnError {
		// Asked for: nothing of the transfer stays, not even for a resume.
		if o.appending && o.written > 0 {
			os.Truncate(o.path, o.base)
		}
		o.removeTemp()
		return "", 0
	}
	if o.appending && o.written > 0 {
		o.setTime()
	}
	if o.tmp == "" {
		return "", 0
	}
	if n := o.base + o.written; n > 0 {
		if !o.modTime.IsZero() {
			os.Chtimes(o.tmp, time.Time{}, o.modTime)
		}
		kept, o.tmp = o.tmp, ""
		return kept, n
	}
	o.removeTemp()
	return "", 0
}

func (o *output) removeTemp() {
	if o.tmp != "" {
		os.Remove(o.tmp)
		o.tmp = ""
	}
}

// HeadText is what curl -I prints for a resource (Downloader.Head): for an HTTP response (a
// gateway's reply included) the header block of every reply, those of the
// redirects followed first, as received (like curl -I), each after the
// CONNECT reply of the proxy tunnel it came through and its interim (1xx)
// replies: an HTTP/1.x head byte for byte (Meta.Head, bare LF line ends
// kept), an HTTP/2 one as lines ended by CRLF; for every other scheme the
// fields the fetcher gave (Meta.Header: ftp, file), else the metadata, as
// header lines ended by CRLF, as curl prints them.
func HeadText(res *fetch.Meta) []byte { return headText(res, true) }

// headText is HeadText, the proxy tunnels' CONNECT replies left out
// unless tunnels (curl's --suppress-connect-headers).
func headText(res *fetch.Meta, tunnels bool) []byte {
	var b bytes.Buffer
	if hasHeads(res) {
		for _, m := range res.Replies() {
			if m.Tunnel != nil && tunnels {
				b.Write(m.Tunnel.Head)
			}
			b.Write(m.Interim)
			if !m.IsHTTP() {
				continue // a refused tunnel, a broken reply: nothing beyond
			}
			if m.Head != nil {
				b.Write(m.Head)
				continue
			}
			fmt.Fprintf(&b, "%s %03d", m.Proto, m.Status)
			if m.Reason != "" || m.Proto == "HTTP/2" { // curl's HTTP/2 status line: "HTTP/2 200 "
				b.WriteString(" " + m.Reason)
			}
			b.WriteString("\r\n")
			writeFields(&b, m.Header)
			b.WriteString("\r\n")
		}
		return b.Bytes()
	}
	fields := res.Header // the fetcher's own, as curl prints them (ftp, file)
	if len(fields) == 0 {
		fields = res.Fields()
	}
	writeFields(&b, fields)
	return b.Bytes()
}

// HeaderBlock is what curl writes as a result's headers (-D, -i): every
// HTTP reply's header block, the redirects' first, as received (HeadText);
// a file's header fields (Content-Length, Accept-ranges, Last-Modified)
// and an empty line; nil for other results.
func HeaderBlock(res *fetch.Meta) []byte { return headerBlock(res, true) }

// headerBlock is HeaderBlock, the tunnels' CONNECT replies left out
// unless tunnels.
func headerBlock(res *fetch.Meta, tunnels bool) []byte {
	if hasHeads(res) {
		return headText(res, tunnels)
	}
	if len(res.Header) == 0 {
		return nil
	}
	var b bytes.Buffer
	writeFields(&b, res.Header)
	b.WriteString("\r\n")
	return b.Bytes()
}

// hasHeads reports whether m brings HTTP heads to show: its own, a proxy
// tunnel's, interim ones, or those of the replies before it (an Error's
// Reply may have only these).
func hasHeads(m *fetch.Meta) bool {
	for _, r := range m.Replies() {
		if r.IsHTTP() || r.Tunnel != nil || r.Interim != nil {
			return true
		}
	}
	return false
}

// writeFields writes header fields as lines "Name: value" ended by CRLF.
func writeFields(b *bytes.Buffer, h fetch.Header) {
	for _, f := range h {
		fmt.Fprintf(b, "%s: %s\r\n", f.Name, f.Value)
	}
}
