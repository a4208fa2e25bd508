package main

import (
	"context"
	"os"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/telnet"
	"github.com/urlget/urlget/urlparse"
)

// The interactive sessions (telnet, rlogin, tn3270): the command owns the
// terminal and lends it (a telnet.Console, which does raw mode, the window
// size and the escape prompt) to the sessions whose output is the
// terminal. This is the one place the command imports a scheme package
// other than fetch/all: the terminal hand-over.

// isSessionScheme reports whether u opens an interactive session.
func isSessionScheme(s string) bool { return fetch.HasCaps(s, fetch.Session) }

// lendTerminal gives the command, when stdin is a terminal, the Client
// that lends it to the sessions (Client.Terminal), a copy of c.client:
// session chooses it when a session is to have the terminal.
func (c *fetchCmd) lendTerminal() {
	if in, ok := c.e.stdin.(*os.File); ok && telnet.IsTerminal(in) {
		c.tty = telnet.NewConsole(in, c.e.stdout, c.e.stderr)
		lent := *c.client
		lent.Terminal = c.tty
		c.lent = &lent
	}
}

// session prepares req for an interactive session: stdin becomes its Body.
// When stdin and stdout are both the terminal (and the output is stdout),
// the terminal is lent to the session: the Client to fetch with is then
// c.lent. It returns the context and the Client to fetch with, and a
// function to call with the fetch's error when it is over: it restores the
// terminal and turns the user's "quit" at the escape prompt into success.
func (c *fetchCmd) session(ctx context.Context, u *urlparse.URL, req *fetch.Request, out *output) (context.Context, *fetch.Client, func(error) error, error) {
	same := func(err error) error { return err }
	if !isSessionScheme(u.Scheme) || c.o.head {
		return ctx, c.client, same, nil
	}
	req.Body, req.BodySize = c.e.stdin, -1
	if c.lent == nil || out.path != "" || !c.isTerminal(c.e.stdout) {
		return ctx, c.client, same, nil
	}
	ctx, typed, err := c.tty.Begin(ctx, u.Host, c.o.options.String(telnet.OptEscape))
	if err != nil {
		return ctx, c.client, same, err
	}
	req.Body = typed
	return ctx, c.lent, func(err error) error {
		if c.tty.End() {
			return nil
		}
		return err
	}, nil
}
