package mailto

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/urlget/urlget/fetch"
)

// sendmail hands the message to a local sendmail program: argv
// "sendmail -t -oi -f FROM" (no shell), the message on its standard input
// with LF line ends (the local convention), blind copies in a Bcc field
// that sendmail -t removes. A failed body read kills the program before it
// sees the end of its input, so nothing truncated is queued.
func sendmail(ctx context.Context, cfg *fetch.Config, path string, msg *Message, r *rendered) ([]byte, error) {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(cctx, path, "-t", "-oi", "-f", msg.From.String())
	var stderr bytes.Buffer
	cmd.Stdout = &limitedBuffer{b: &stderr, max: 4096}
	cmd.Stderr = cmd.Stdout
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.ErrOther, Msg: "mailto: sendmail", Err: err}
	}
	if cfg.Verbose != nil {
		fetch.Logf(cfg.Verbose, "* Delivering with %s -t -oi -f %s", path, msg.From.String())
	}
	if err := cmd.Start(); err != nil {
		return nil, &fetch.Error{Kind: fetch.ErrOther, Msg: "mailto: starting " + path, Err: err}
	}
	withBcc := r
	if len(msg.Bcc) > 0 {
		c := *r
		bcc := make([]string, len(msg.Bcc))
		for i, a := range msg.Bcc {
			bcc[i] = a.String()
		}
		c.header = fold(nil, "Bcc", strings.Join(bcc, ", "))
		c.header = append(c.header, r.header...)
		withBcc = &c
	}
	werr := withBcc.writeTo(&lfWriter{w: in})
	var re *bodyReadError
	if errors.As(werr, &re) {
		cancel() // kill sendmail before it reads the end of its input
		cmd.Wait()
		return nil, &fetch.Error{Kind: fetch.ErrRead, Msg: "mailto: reading the message body failed; sendmail was stopped, nothing was sent", Err: re.err}
	}
	in.Close()
	err = cmd.Wait()
	if err == nil && werr != nil {
		err = werr // sendmail stopped reading yet said nothing was wrong
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fetch.ContextError(ctx)
		}
		return nil, &fetch.Error{Kind: fetch.ErrSendFailed,
			Msg: "mailto: " + path + " failed: " + fetch.SanitizeLine(stderr.String(), 300), Err: err}
	}
	var b bytes.Buffer
	for _, a := range msg.recipients() {
		fmt.Fprintf(&b, "%s: handed to %s\n", fetch.SanitizeLine(a.String(), 300), path)
	}
	return b.Bytes(), nil
}

// lfWriter turns CRLF into LF.
type lfWriter struct {
	w   io.Writer
	cr  bool
	buf []byte
}

func (l *lfWriter) Write(p []byte) (int, error) {
	l.buf = l.buf[:0]
	for _, c := range p {
		if l.cr && c != '\n' {
			l.buf = append(l.buf, '\r')
		}
		l.cr = c == '\r'
		if !l.cr {
			l.buf = append(l.buf, c)
		}
	}
	if _, err := l.w.Write(l.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
