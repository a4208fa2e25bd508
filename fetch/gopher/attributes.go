package gopher

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"

	"github.com/urlget/urlget/fetch"
)

// attributes fetches an item's Gopher+ attributes ("selector TAB !",
// "selector TAB TAB !" for a search) on a connection of its own; what
// names what they are wanted for, in errors.
func (f Fetcher) attributes(ctx context.Context, req *fetch.Request, p *plan, what string) (Attributes, error) {
	line := p.selector
	if p.typ == TypeSearch {
		line += "\t"
	}
	line += "\t!\r\n"
	c, err := f.dial(ctx, req, p)
	if err != nil {
		return Attributes{}, err
	}
	defer c.close()
	fetch.Logf(c.verbose, "> %s", strings.TrimSuffix(line, "\r\n"))
	if err := c.send(line, nil); err != nil {
		return Attributes{}, err
	}
	h, ok, err := peekHeader(c)
	if err != nil {
		return Attributes{}, err
	}
	if !ok {
		return Attributes{}, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "gopher: the server sent no Gopher+ attributes for " + what + " (it does not support Gopher+)", Err: errNoPlusHeader}
	}
	if !h.OK {
		r, _ := framed(c, h, "error reply")
		data, _ := io.ReadAll(io.LimitReader(r, maxErrorReply))
		return Attributes{}, serverError(p, parsePlusError(h, data))
	}
	r, _ := framed(c, h, "attribute reply")
	attrs, err := NewAttributeReader(r).Next()
	if err == io.EOF {
		err = nil
	}
	return attrs, err
}

// askForm answers a Gopher+ +ASK form: it fetches the item's attributes,
// answers the +ASK questions from Options["gopher-ask"], and sends the
// answers as a data block (selector TAB + TAB 1, then "+-1", one line per
// answer and "."), as the UMN client does.
func (f Fetcher) askForm(ctx context.Context, req *fetch.Request, p *plan) (*fetch.Resource, error) {
	// 1. The form.
	attrs, err := f.attributes(ctx, req, p, "the +ASK form")
	if err != nil {
		return nil, err
	}
	blk, ok := attrs.Block("ASK")
	if !ok {
		return nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "gopher: the item has no +ASK form (its attributes hold no +ASK block)"}
	}
	qs := ParseAsk(blk)
	for _, q := range qs {
		fetch.Logf(f.Config.Verbose, "* +ASK %s: %s", q.Kind, q.Prompt)
	}

	// 2. The answers.
	var answers []string
	given, has := req.Options[OptAsk]
	if has && given != "" {
		answers = strings.Split(strings.TrimSuffix(given, "\n"), "\n")
		for i, a := range answers {
			a = strings.TrimSuffix(a, "\r")
			if err := checkOption(OptAsk, a, false); err != nil {
				return nil, err
			}
			answers[i] = a
		}
	}
	if !has {
		var missing []int
		for i, q := range qs {
			if q.NeedsAnswer() {
				missing = append(missing, i)
			}
		}
		if len(missing) > 0 {
			return nil, malformed("gopher: the item asks questions (+ASK); give the answers with Options[gopher-ask]", askInput(&AskError{Questions: qs, Missing: missing, Reason: "no answers given"}))
		}
	}
	lines, err := Answer(qs, answers)
	if ae := (*AskError)(nil); errors.As(err, &ae) {
		err = askInput(ae)
	}
	if err != nil {
		return nil, malformed("", err)
	}

	// 3. The request with the data block.
	q := *p
	q.plus = "+"
	line := p.selector
	if q.sendSearch() {
		line += "\t" + p.search
	}
	line += "\t+\t1\r\n"
	var data bytes.Buffer
	data.WriteString("+-1\r\n")
	logData := []string{"+-1"}
	k := 0
	for _, qq := range qs {
		if !qq.NeedsAnswer() {
			continue
		}
		n := 1
		if qq.Kind == "AskL" {
			n = 2
		}
		for j := 0; j < n && k < len(lines); j++ {
			data.WriteString(lines[k])
			data.WriteString("\r\n")
			if qq.Kind == "AskP" {
				logData = append(logData, "****")
			} else {
				logData = append(logData, lines[k])
			}
			k++
		}
	}
	data.WriteString(".\r\n")
	logData = append(logData, ".")
	return f.exchange(ctx, req, &q, line, data.Bytes(), logData)
}

// blockNames splits "+ABSTRACT+ADMIN" (or "+ABSTRACT +ADMIN") into names.
func blockNames(s string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == '+' || r == ' ' }) {
		m[f] = true
	}
	return m
}

// blockFilter passes on the lines of an attribute reply that belong to the
// wanted blocks (and +INFO), as they were received.
type blockFilter struct {
	br      *bufio.Reader
	want    map[string]bool
	keep    bool
	atStart bool
	pending []byte
	err     error
}

func newBlockFilter(r io.Reader, want map[string]bool) *blockFilter {
	return &blockFilter{br: bufio.NewReaderSize(r, 4096), want: want, atStart: true}
}

func (f *blockFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.br.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull {
			f.err = err
		}
		if f.atStart && len(line) > 0 && line[0] == '+' {
			name := line[1:]
			if i := bytes.IndexAny(name, ": \r\n"); i >= 0 {
				name = name[:i]
			}
			f.keep = string(name) == "INFO" || f.want[string(name)]
		}
		f.atStart = err == nil
		if f.keep {
			f.pending = line
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// filteredBody reads through a filter and closes the original body.
type filteredBody struct {
	r io.Reader
	c io.Closer
}

func (f *filteredBody) Read(p []byte) (int, error) { return f.r.Read(p) }

func (f *filteredBody) Close() error { return f.c.Close() }
