package telnet

import (
	"context"
	"os/exec"
)

// A Terminal is the user's terminal, lent to a session by the program that
// owns it (urlget's CLI). Attach it to the context given to Open with
// WithTerminal; without one a session runs in script mode (see the package
// documentation).
type Terminal interface {
	// Size is the window size in character cells (0, 0 when unknown).
	Size() (cols, rows int)
	// Type is the terminal type sent in TTYPE and rlogin's handshake
	// ($TERM); "" for "dumb".
	Type() string
	// Notice shows the user one line before the connection is made (the
	// login suggested by the URL).
	Notice(line string)
	// Attach is called once the session is connected: from then until
	// the Resource's Body ends, the terminal is in raw mode, sends what is
	// typed through Request.Body, and drives s (window size, commands).
	Attach(s Session)
	// Run runs cmd (c3270 for a tn3270 URL) with the terminal as its
	// standard input, output and error, in the terminal's normal mode,
	// and waits for it.
	Run(cmd *exec.Cmd) error
}

// A Session is a connected interactive session, as its Terminal drives it.
type Session interface {
	// SetWindowSize tells the server the new window size (telnet NAWS,
	// rlogin's window-change message), when it asked for it.
	SetWindowSize(cols, rows int) error
	// RemoteEcho reports whether the server echoes what is typed; when it
	// does not, the terminal echoes locally.
	RemoteEcho() bool
	// Send sends a protocol command by name ("brk", "ayt", "ip", …).
	Send(name string) error
	// Commands lists the names Send takes, each with a short description.
	Commands() [][2]string
}

type terminalKey struct{}

// WithTerminal returns a context that lends t to the sessions opened with
// it.
func WithTerminal(ctx context.Context, t Terminal) context.Context {
	return context.WithValue(ctx, terminalKey{}, t)
}

// TerminalFrom returns the Terminal attached to ctx, or nil.
func TerminalFrom(ctx context.Context) Terminal {
	t, _ := ctx.Value(terminalKey{}).(Terminal)
	return t
}
