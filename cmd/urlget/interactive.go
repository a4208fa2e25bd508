package main

import (
	"context"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/telnet"
	"github.com/urlget/urlget/internal/cli"
)

// The interactive sessions (telnet, rlogin, tn3270): the command owns the
// terminal and lends it (a telnet.Console, which does raw mode, the window
// size and the escape prompt) to the sessions whose output is the
// terminal. This is the one place the command imports a scheme package
// other than fetch/all: the terminal hand-over.

// lendTerminal gives the command, when stdin is a terminal, the Client
// that lends it to the sessions (Client.Terminal), a copy of c.client:
// session chooses it when a session is to have the terminal.
func (c *fetchCmd) lendTerminal() {
	if in, ok := cli.Terminal(c.e.stdin); ok {
		c.tty = telnet.NewConsole(in, c.e.stdout, c.e.stderr)
		lent := *c.client
		lent.Terminal = c.tty
		c.lent = &lent
	}
}

// session is the Downloader's Session: when stdin and stdout are both the
// terminal (and the output is stdout), the terminal is lent to the
// session, through c.lent. The function it returns restores the terminal
// and turns the user's "quit" at the escape prompt into success.
func (c *fetchCmd) session(ctx context.Context, req *fetch.Request) (context.Context, *fetch.Client, func(error) error, error) {
	same := func(err error) error { return err }
	if !c.isTerminal(c.e.stdout) {
		return ctx, c.client, same, nil
	}
	ctx, typed, err := c.tty.Begin(ctx, req.URL.Host, c.o.options.String(telnet.OptEscape))
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
