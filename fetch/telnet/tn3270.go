package telnet

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// TN3270Fetcher runs c3270 or s3270 for tn3270 URLs. It sends
// Request.Body (s3270's actions, in script mode). urlget has no 3270
// data-stream client of its own: it hands the session to c3270 on a
// terminal and to s3270 (its scripting twin) in scripts, both from the
// x3270 suite, run from an argv (never a shell) with the URL's host and
// port as the one argument after "--"-free options. The zero value is
// ready to use.
type TN3270Fetcher struct {
	// LookPath finds a program; exec.LookPath when nil (tests replace it).
	LookPath func(name string) (string, error)

	Config fetch.Config // the verbose log and the terminal
}

// NewTN3270 is the tn3270 Fetcher for cfg (fetch.Scheme.New).
func NewTN3270(cfg fetch.Config) fetch.Fetcher { return &TN3270Fetcher{Config: cfg} }

// SendsBody reports that a tn3270 session sends Request.Body.
func (*TN3270Fetcher) SendsBody(*urlparse.URL) bool { return true }

// Open runs the emulator: on a terminal (Config.Terminal) c3270 takes the
// terminal until it exits, and the Resource has an empty Body; otherwise
// s3270 reads Request.Body as its actions and its output is the Body.
func (f *TN3270Fetcher) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	u := req.URL
	host, err := x3270Host(u)
	if err != nil {
		return nil, err
	}
	term := f.Config.Terminal
	prog := "s3270"
	if term != nil {
		prog = "c3270"
	}
	look := f.LookPath
	if look == nil {
		look = exec.LookPath
	}
	path, err := look(prog)
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.ErrUnsupported,
			Msg: "tn3270: " + prog + " is not installed (install the Debian package " + prog + ")"}
	}
	if term != nil && u.User != "" {
		term.Notice("suggested login: " + fetch.SanitizeLine(u.User, 64))
	}
	if v := f.Config.Verbose; v != nil {
		io.WriteString(v, "* tn3270: running "+path+" "+host+"\n")
	}
	cmd := exec.CommandContext(ctx, path, host)
	if term != nil {
		if err := term.Run(cmd); err != nil {
			return nil, emulatorError(ctx, prog, err, "")
		}
		return &fetch.Resource{Meta: fetch.Meta{Size: -1}}, nil
	}
	cmd.Stdin = req.Body
	if req.Body == nil {
		cmd.Stdin = strings.NewReader("")
	}
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.ErrOther, Msg: "tn3270", Err: err}
	}
	if err := cmd.Start(); err != nil {
		return nil, emulatorError(ctx, prog, err, "")
	}
	return &fetch.Resource{Meta: fetch.Meta{Size: -1}, Body: &emulatorBody{ctx: ctx, cmd: cmd, out: out, stderr: stderr, prog: prog}}, nil
}

// x3270Host is the host argument: host:port, [IPv6]:port. A host that
// x3270's host syntax would read as something else (option dashes, LU@
// and prefix: forms) is refused.
func x3270Host(u *urlparse.URL) (string, error) {
	h := u.Host
	port := u.Port
	if port < 0 {
		port = 23
	}
	if ip := net.ParseIP(h); ip != nil {
		if ip.To4() == nil {
			return "[" + ip.String() + "]:" + strconv.Itoa(port), nil
		}
		return ip.String() + ":" + strconv.Itoa(port), nil
	}
	if h == "" || h[0] == '-' || h[0] == '.' {
		return "", &fetch.Error{Kind: fetch.ErrMalformed, Msg: "tn3270: unusable host name " + strconv.Quote(fetch.SanitizeLine(h, 64))}
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return "", &fetch.Error{Kind: fetch.ErrMalformed, Msg: "tn3270: unusable host name " + strconv.Quote(fetch.SanitizeLine(h, 64)) + " (letters, digits, '-' and '.' only)"}
		}
	}
	return h + ":" + strconv.Itoa(port), nil
}

func emulatorError(ctx context.Context, prog string, err error, stderr string) error {
	if ctx.Err() != nil {
		return fetch.ContextError(ctx)
	}
	msg := "tn3270: " + prog
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		msg += " exited with status " + strconv.Itoa(ee.ExitCode())
		if stderr != "" {
			msg += ": " + fetch.SanitizeLine(stderr, 200)
		}
		return &fetch.Error{Kind: fetch.ErrOther, Msg: msg}
	}
	return &fetch.Error{Kind: fetch.ErrOther, Msg: msg, Err: err}
}

// emulatorBody is s3270's output; its end waits for s3270 and reports a
// failed exit.
type emulatorBody struct {
	ctx    context.Context
	cmd    *exec.Cmd
	out    io.ReadCloser
	stderr *tailBuffer
	prog   string
	once   sync.Once
	err    error
}

func (b *emulatorBody) Read(p []byte) (int, error) {
	n, err := b.out.Read(p)
	if err == io.EOF {
		if werr := b.wait(); werr != nil {
			return n, werr
		}
	}
	return n, err
}

func (b *emulatorBody) wait() error {
	b.once.Do(func() {
		if err := b.cmd.Wait(); err != nil {
			b.err = emulatorError(b.ctx, b.prog, err, b.stderr.String())
		}
	})
	return b.err
}

func (b *emulatorBody) Close() error {
	b.out.Close()
	if b.cmd.ProcessState == nil && b.cmd.Process != nil {
		b.cmd.Process.Kill()
	}
	b.wait()
	return nil
}

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.b))
}
