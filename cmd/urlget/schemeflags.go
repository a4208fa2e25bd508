package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/fetch/nntp"
	"github.com/urlget/urlget/urlparse"
)

// optFlag is a command-line flag that sets one fetch.Request option, read
// by the scheme fetchers that know it.
type optFlag struct {
	name, short string
	key         string // the Request.Options key
	set         string // the value a boolean flag sets; "" for a flag with an argument
	arg         string // the argument's name, for the usage text
	usage       string
}

// optFlags lists the scheme flags; the fetch packages document each key.
var optFlags = []optFlag{
	{name: "data", short: "d", key: gopher.OptSearch, arg: "TEXT", usage: "gopher: the search string for a type 7 item"},
	{name: "gopher-allow-port", key: gopher.OptAllowPort, set: "1", usage: "gopher: allow ports of line-based services (21, 25, 119, 6379, ...)"},
	{name: "gopher-text", key: gopher.OptText, arg: "MODE", usage: "gopher: \"rfc1436\" ends text at the first lone \".\" and undoes dot-stuffing"},
	{name: "ftp-method", key: ftp.OptMethod, arg: "METHOD", usage: "ftp: multicwd (one CWD per segment, RFC 1738; the default), singlecwd or nocwd"},
	{name: "ftp-pasv-trust", key: ftp.OptPasvTrust, set: "1", usage: "ftp: connect to the address in a PASV reply (by default the control connection's address is used)"},
	{name: "ftp-port", short: "P", key: ftp.OptPort, arg: "ADDR", usage: "ftp: active mode (EPRT/PORT), listening on ADDR (\"-\": the control connection's address)"},
	{name: "disable-epsv", key: ftp.OptEPSV, set: "0", usage: "ftp: passive mode with PASV only"},
	{name: "disable-eprt", key: ftp.OptEPRT, set: "0", usage: "ftp: active mode with PORT only"},
	{name: "list-only", short: "l", key: ftp.OptListOnly, set: "1", usage: "ftp: list directories with NLST (names only)"},
	{name: "ftp-mlsd", key: ftp.OptMLSD, set: "1", usage: "ftp: list directories with MLSD where the server has it"},
	{name: "ftp-no-reuse", key: ftp.OptReuse, set: "0", usage: "ftp: a new connection for every URL"},
	{name: "ftp-email", key: ftp.OptEmail, arg: "ADDR", usage: "ftp: the anonymous password (default $USER@hostname)"},
	{name: "ftp-account", key: ftp.OptAccount, arg: "DATA", usage: "ftp: ACCT data when the server asks for an account"},
	{name: "use-ascii", short: "B", key: ftp.OptType, set: "a", usage: "ftp: ASCII transfers when the URL has no ;type="},
	{name: "ftp-binary", key: ftp.OptType, set: "i", usage: "ftp: binary transfers when the URL has no ;type= (no guessing from the name)"},
	{name: "nntp-server", key: nntp.OptServer, arg: "HOST[:PORT]", usage: "news: the server for news: URLs (else $NNTPSERVER)"},
	{name: "max-articles", key: nntp.OptMaxArticles, arg: "N", usage: "news: list a group's newest N articles (0: all; default 100)"},
	{name: "describe", key: nntp.OptDescribe, set: "1", usage: "news: add group descriptions to group lists"},
	{name: "body", key: nntp.OptBody, set: "1", usage: "news: fetch an article's body only (BODY)"},
	{name: "article-head", key: nntp.OptHead, set: "1", usage: "news: fetch an article's header block only (HEAD)"},
	{name: "ssl", key: nntp.OptSSL, set: "try", usage: "nntp: use STARTTLS when the server offers it"},
	{name: "ssl-reqd", key: nntp.OptSSL, set: "required", usage: "nntp: require STARTTLS"},
}

// schemeOpts holds the scheme flags' values.
type schemeOpts struct {
	values     []*string // one per optFlags entry: argument flags
	bools      []*bool   // one per optFlags entry: boolean flags
	askAnswers []string  // --ask-answer, in order
	raw        bool      // --raw
	json       bool      // --json
}

func addSchemeFlags(fs *pflag.FlagSet, s *schemeOpts) {
	s.values = make([]*string, len(optFlags))
	s.bools = make([]*bool, len(optFlags))
	for i, f := range optFlags {
		if f.set != "" {
			s.bools[i] = fs.BoolP(f.name, f.short, false, f.usage)
		} else {
			s.values[i] = fs.StringP(f.name, f.short, "", "`"+f.arg+"`: "+f.usage)
		}
	}
	fs.StringArrayVar(&s.askAnswers, "ask-answer", nil, "gopher: an `ANSWER` to the next +ASK question (repeat in order; \"-\": read answers from stdin)")
	fs.BoolVar(&s.raw, "raw", false, "print menus and listings exactly as the server sent them")
	fs.BoolVar(&s.json, "json", false, "print menus and listings as JSON objects, one per line")
}

// options gives the Request.Options the scheme flags ask for (nil when none).
func (s *schemeOpts) options(stdin io.Reader) (map[string]string, error) {
	m := map[string]string{}
	for i, f := range optFlags {
		switch {
		case s.bools[i] != nil && *s.bools[i]:
			m[f.key] = f.set
		case s.values[i] != nil && *s.values[i] != "":
			m[f.key] = *s.values[i]
		}
	}
	if s.raw {
		m[gopher.OptRaw] = "1"
	}
	if len(s.askAnswers) > 0 {
		answers := s.askAnswers
		if len(answers) == 1 && answers[0] == "-" {
			var err error
			if answers, err = readLines(stdin); err != nil {
				return nil, fmt.Errorf("--ask-answer -: %v", err)
			}
		}
		m[gopher.OptAsk] = strings.Join(answers, "\n")
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

func readLines(r io.Reader) ([]string, error) {
	var lines []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		lines = append(lines, strings.TrimRight(sc.Text(), "\r"))
	}
	return lines, sc.Err()
}

// present turns a directory-like result into what the user sees: a gopher
// menu as a readable listing (or JSON with --json), any other listing as
// the server sent it (or JSON with --json). With --raw, and for every other
// result, the body passes through untouched. The renderers stream.
func (c *fetchCmd) present(u *urlparse.URL, res *fetch.Resource) io.ReadCloser {
	if !res.Dir || c.o.scheme.raw {
		return res.Body
	}
	var render func(w io.Writer) error
	switch {
	case u.Scheme == "gopher" || u.Scheme == "gophers":
		mode := gopher.Readable
		if c.o.scheme.json {
			mode = gopher.JSON
		}
		render = func(w io.Writer) error { return gopher.RenderFrom(w, res.Body, mode, u) }
	case !c.o.scheme.json:
		return res.Body
	case u.Scheme == "news" || u.Scheme == "nntp" || u.Scheme == "nntps":
		render = func(w io.Writer) error { return nntp.WriteJSON(w, res.Body) }
	default:
		render = func(w io.Writer) error { return writeEntriesJSON(w, res) }
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(render(pw)) }()
	return pr
}

// entryJSON is one listing entry as --json prints it.
type entryJSON struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Size     *int64 `json:"size,omitempty"`
	ModTime  string `json:"mtime,omitempty"`
	Target   string `json:"target,omitempty"`
	URL      string `json:"url,omitempty"`
	Raw      string `json:"raw,omitempty"`
	Unparsed bool   `json:"unparsed,omitempty"`
}

var entryTypes = [...]string{fetch.EntryUnknown: "unknown", fetch.EntryFile: "file", fetch.EntryDir: "dir", fetch.EntryLink: "link", fetch.EntryOther: "other"}

// writeEntriesJSON writes a listing's parsed entries, one JSON object a line.
func writeEntriesJSON(w io.Writer, res *fetch.Resource) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for e, err := range res.Entries() {
		if err != nil {
			return err
		}
		j := entryJSON{Name: e.Name, Type: entryTypes[e.Type], Target: e.Target, URL: e.URL, Unparsed: e.Unparsed}
		if e.Size >= 0 {
			j.Size = &e.Size
		}
		if !e.ModTime.IsZero() {
			j.ModTime = e.ModTime.UTC().Format(time.RFC3339)
		}
		if e.Unparsed {
			j.Raw = e.Raw
		}
		if err := enc.Encode(j); err != nil {
			return writeError(err)
		}
	}
	return nil
}

// askUser answers, on a terminal, what a fetcher said it needs: an ftp
// password, a gopher search string or a +ASK form. It returns the options to retry with, or
// nil when there is nothing to ask or no terminal to ask on.
func (c *fetchCmd) askUser(err error) map[string]string {
	f, ok := c.e.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	in := bufio.NewReader(f)
	ask := func(prompt string, secret bool) (string, bool) {
		fmt.Fprint(c.e.stderr, prompt)
		if secret {
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(c.e.stderr)
			return string(b), err == nil
		}
		line, err := in.ReadString('\n')
		return strings.TrimRight(line, "\r\n"), err == nil || line != ""
	}
	var pn *ftp.PasswordNeededError
	if errors.As(err, &pn) {
		// The answer goes to the Client; the empty map asks for a retry.
		pw, ok := ask("Enter host password for user '"+pn.User+"': ", true)
		if !ok {
			return nil
		}
		c.client.User, c.client.HasUser = pn.User, true
		c.client.Password, c.client.HasPassword = pw, true
		return map[string]string{}
	}
	if errors.Is(err, gopher.ErrNeedSearch) {
		if s, ok := ask("Search: ", false); ok {
			return map[string]string{gopher.OptSearch: s}
		}
		return nil
	}
	var ae *gopher.AskError
	if !errors.As(err, &ae) {
		return nil
	}
	var answers []string
	for _, q := range ae.Questions {
		if !q.NeedsAnswer() {
			fmt.Fprintln(c.e.stderr, q.Prompt)
			continue
		}
		prompt := q.Prompt
		if len(q.Choices) > 0 {
			for i, ch := range q.Choices {
				prompt += fmt.Sprintf("\n  %d) %s", i+1, ch)
			}
			prompt += "\n"
		}
		if q.Default != "" {
			prompt += " [" + q.Default + "]"
		}
		a, ok := ask(prompt+": ", q.Kind == "AskP")
		if !ok {
			return nil
		}
		if a == "" {
			a = q.Default
		}
		answers = append(answers, a)
	}
	return map[string]string{gopher.OptAsk: strings.Join(answers, "\n")}
}
