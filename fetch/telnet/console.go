package telnet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/urlget/urlget/fetch"
)

// NewConsole is the Console on in (a terminal), writing the session to out
// and its own lines to errw.
func NewConsole(in *os.File, out, errw io.Writer) *Console {
	return &Console{in: in, out: out, errw: errw}
}

// IsTerminal reports whether f is a terminal, which a Console needs.
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// Begin prepares the console for a session with host, escape being the
// OptEscape value (""; the default): it returns what is typed, the
// session's Request.Body, and the context to open the session with, which
// the prompt's quit ends. Call End when the session is over.
func (t *Console) Begin(ctx context.Context, host, escape string) (context.Context, io.Reader, error) {
	esc, err := ParseEscape(escape)
	if err != nil {
		return ctx, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	*t = Console{in: t.in, out: t.out, errw: t.errw, escape: esc, host: host, cancel: cancel, typed: pw}
	return ctx, pr, nil
}

// End restores the terminal after the session Begin prepared, and reports
// whether the user ended it at the prompt (quit: a success).
func (t *Console) End() (quit bool) {
	t.finish()
	t.cancel()
	t.typed.Close()
	return t.quit.Load()
}

// ParseEscape reads OptEscape (--telnet-escape): "^]" (default), "^X", one character,
// or "none".
func ParseEscape(s string) (byte, error) {
	switch {
	case s == "":
		return 0x1d, nil
	case s == "none":
		return 0, nil
	case s == "^?":
		return 0x7f, nil
	case len(s) == 2 && s[0] == '^' && s[1] >= '@' && s[1] <= '_':
		return s[1] - '@', nil
	case len(s) == 2 && s[0] == '^' && s[1] >= 'a' && s[1] <= 'z':
		return s[1] - 'a' + 1, nil
	case len(s) == 1:
		return s[0], nil
	}
	return 0, fetch.NewError(fetch.ErrMalformed, "--"+OptEscape+": want ^X, one character or \"none\", not "+fmt.Sprintf("%q", s), nil)
}

// Console is the user's terminal as a fetch.Terminal, for a program that
// owns one (urlget's command) to lend to sessions (fetch.Config.Terminal):
// raw mode while a session runs, the window size (and SIGWINCH), local echo
// when the server does not echo, and an escape character that opens a
// prompt (quit, send NAME, status, escape, help). Begin prepares it for
// each session, End gives it back.
type Console struct {
	in     *os.File
	out    io.Writer
	errw   io.Writer
	escape byte
	host   string
	cancel context.CancelFunc
	typed  *io.PipeWriter // what is typed, to the session's Request.Body

	mu       sync.Mutex
	saved    *term.State // the terminal's mode before raw, while raw
	nonblock bool        // stdin was set non-blocking (to stop the reader at the end)
	reader   *os.File    // stdin, through the poller
	winch    chan os.Signal
	stopped  chan struct{}
	once     sync.Once
	quit     atomic.Bool
	sess     fetch.SessionControl
}

func (t *Console) fd() int { return int(t.in.Fd()) }

// Size is the window's size.
func (t *Console) Size() (int, int) {
	w, h, err := term.GetSize(t.fd())
	if err != nil {
		return 0, 0
	}
	return w, h
}

// Type is $TERM.
func (t *Console) Type() string { return os.Getenv("TERM") }

// Notice prints one line before the session starts.
func (t *Console) Notice(line string) { fmt.Fprintf(t.errw, "urlget: %s\r\n", line) }

// Run runs c3270 on the terminal, in its normal mode.
func (t *Console) Run(cmd *exec.Cmd) error {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = t.in, os.Stdout, os.Stderr
	// c3270 owns the terminal until it exits: the interrupt is its.
	signal.Ignore(os.Interrupt)
	defer signal.Reset(os.Interrupt)
	return cmd.Run()
}

// Attach puts the terminal in raw mode and starts passing what is typed
// to the session, watching window-size changes and the escape character.
func (t *Console) Attach(s fetch.SessionControl) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sess = s
	t.stopped = make(chan struct{})
	if err := t.rawLocked(); err != nil {
		fmt.Fprintf(t.errw, "urlget: cannot put the terminal in raw mode: %v\r\n", err)
	}
	if t.escape != 0 {
		fmt.Fprintf(t.errw, "urlget: connected to %s; escape character is '%s'\r\n", fetch.SanitizeLine(t.host, 80), escName(t.escape))
	}
	// Reading stdin through the poller (a non-blocking duplicate) lets
	// finish stop the reader; the flag is the terminal's, shared with the
	// shell, and finish clears it.
	t.reader = t.in
	if dup, err := syscall.Dup(t.fd()); err == nil {
		if syscall.SetNonblock(dup, true) == nil {
			t.nonblock = true
			t.reader = os.NewFile(uintptr(dup), "stdin")
		} else {
			syscall.Close(dup)
		}
	}
	t.winch = make(chan os.Signal, 1)
	signal.Notify(t.winch, syscall.SIGWINCH)
	go t.watchSize(s)
	go t.readInput(s)
}

func escName(b byte) string {
	switch {
	case b < 0x20:
		return "^" + string(rune(b+'@'))
	case b == 0x7f:
		return "^?"
	}
	return string(rune(b))
}

func (t *Console) rawLocked() error {
	if t.saved != nil {
		return nil
	}
	st, err := term.MakeRaw(t.fd())
	if err != nil {
		return err
	}
	t.saved = st
	return nil
}

func (t *Console) restoreLocked() {
	if t.saved != nil {
		term.Restore(t.fd(), t.saved)
		t.saved = nil
	}
}

// watchSize sends the new size on every SIGWINCH.
func (t *Console) watchSize(s fetch.SessionControl) {
	for {
		select {
		case <-t.winch:
			if w, h := t.Size(); w > 0 && h > 0 {
				s.SetWindowSize(w, h)
			}
		case <-t.stopped:
			return
		}
	}
}

// readInput passes what is typed to the session, echoing it when the
// server does not, and opens the prompt on the escape character.
func (t *Console) readInput(s fetch.SessionControl) {
	defer func() {
		if p := recover(); p != nil {
			t.finish()
			panic(p)
		}
	}()
	buf := make([]byte, 1024)
	for {
		n, err := t.reader.Read(buf)
		p := buf[:n]
		for len(p) > 0 {
			i := -1
			if t.escape != 0 {
				i = bytes.IndexByte(p, t.escape)
			}
			chunk := p
			if i >= 0 {
				chunk = p[:i]
			}
			if len(chunk) > 0 {
				if !s.RemoteEcho() {
					t.out.Write(bytes.ReplaceAll(chunk, []byte("\r"), []byte("\r\n")))
				}
				if _, err := t.typed.Write(chunk); err != nil {
					return
				}
			}
			if i < 0 {
				break
			}
			p = p[i+1:]
			if !t.prompt(s, &p) {
				return
			}
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, os.ErrClosed) {
				return
			}
			if err == io.EOF {
				t.typed.Close()
			}
			return
		}
	}
}

// prompt reads one command line in the terminal's normal mode; rest holds
// bytes already read after the escape character. It returns false when
// the session is to end.
func (t *Console) prompt(s fetch.SessionControl, rest *[]byte) bool {
	t.mu.Lock()
	t.restoreLocked()
	t.mu.Unlock()
	fmt.Fprint(t.out, "\r\nurlget> ")
	line, err := t.readLine(rest)
	if err != nil {
		return false
	}
	cmd, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	arg = strings.TrimSpace(arg)
	switch cmd {
	case "quit", "q", "close", "exit":
		t.quit.Store(true)
		t.cancel()
		return false
	case "send":
		if arg == "" {
			fmt.Fprintln(t.out, "usage: send "+sendNames(s))
		} else if err := s.Send(arg); err != nil {
			fmt.Fprintf(t.out, "%v\n", err)
		}
	case "status":
		echo := "the server echoes"
		if !s.RemoteEcho() {
			echo = "local echo"
		}
		w, h := t.Size()
		fmt.Fprintf(t.out, "connected to %s; %s; window %dx%d; escape character '%s'\n", fetch.SanitizeLine(t.host, 80), echo, w, h, escName(t.escape))
	case "escape":
		if len(arg) > 0 {
			t.escape = arg[0]
		}
		fmt.Fprintf(t.out, "escape character is '%s'\n", escName(t.escape))
	case "", "continue", "c":
	case "help", "?":
		fmt.Fprintln(t.out, "quit           end the session")
		fmt.Fprintln(t.out, "send NAME      send a protocol command: "+sendNames(s))
		fmt.Fprintln(t.out, "status         show the session's state")
		fmt.Fprintln(t.out, "(empty line)   back to the session")
	default:
		fmt.Fprintf(t.out, "unknown command %q (try help)\n", cmd)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.saved == nil && t.stopped != nil {
		select {
		case <-t.stopped:
			return false
		default:
		}
		t.rawLocked()
	}
	return true
}

func sendNames(s fetch.SessionControl) string {
	var names []string
	for _, c := range s.Commands() {
		names = append(names, c[0])
	}
	if len(names) == 0 {
		return "(none for this protocol)"
	}
	return strings.Join(names, ", ")
}

// readLine reads up to a newline, starting with what rest holds.
func (t *Console) readLine(rest *[]byte) (string, error) {
	var line []byte
	for {
		if i := bytes.IndexAny(*rest, "\r\n"); i >= 0 {
			line = append(line, (*rest)[:i]...)
			*rest = (*rest)[i+1:]
			return string(line), nil
		}
		line = append(line, *rest...)
		*rest = nil
		if len(line) > 4096 {
			return string(line), nil
		}
		buf := make([]byte, 256)
		n, err := t.reader.Read(buf)
		*rest = buf[:n]
		if err != nil && n == 0 {
			return "", err
		}
	}
}

// finish restores the terminal and stops the reader and the size watch;
// called on every way out of the session (End).
func (t *Console) finish() {
	t.once.Do(func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.restoreLocked()
		if t.winch != nil {
			signal.Stop(t.winch)
		}
		if t.stopped != nil {
			close(t.stopped)
		}
		if t.nonblock {
			t.reader.SetReadDeadline(time.Now())
			syscall.SetNonblock(t.fd(), false)
			go func(f *os.File) { time.Sleep(100 * time.Millisecond); f.Close() }(t.reader)
		}
		if t.sess != nil {
			fmt.Fprint(t.errw, "\r\nurlget: connection closed\n")
		}
	})
}
