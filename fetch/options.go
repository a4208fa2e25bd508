package fetch

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// OptionKind is the type of an option's value.
type OptionKind uint8

const (
	// Bool is a flag without an argument. It stores Option.Set under the
	// key ("1" when Set is empty); Options.Bool reads 1/0, true/false,
	// yes/no and on/off in any case.
	Bool OptionKind = iota + 1
	// String is any text.
	String
	// Int is a decimal integer.
	Int
	// Duration is a Go duration ("1.5s", "200ms") or plain seconds ("2.5").
	Duration
	// Strings is a repeatable flag: the values are joined with "\n" under
	// the key. Given once as "-", the values are read from standard input,
	// one a line.
	Strings
)

// Option declares one option that fetchers read from Request.Options. A
// scheme package declares its options once, in its Scheme record
// (Scheme.Options); the CLI builds its flags and the sections of its help
// from these declarations, so nothing else lists them.
type Option struct {
	Key   string // the Request.Options key: "<scheme>-<name>", or a shared key such as OptSearch
	Flag  string // the long flag name; "" means Key
	Short string // a one-letter flag, optional
	Kind  OptionKind
	// Set is, for a Bool, the value the flag stores under Key (default
	// "1"): several flags can share one key, as --disable-epsv stores "0"
	// under "ftp-epsv".
	Set     string
	Arg     string   // the argument's placeholder in help ("N", "HOST[:PORT]"); not for Bool
	Default string   // the default, as documentation
	Help    string   // one line, without a scheme prefix
	Schemes []string // the schemes it applies to
	// Values, for a String option that takes one of a few values, lists
	// them (shell completion offers them).
	Values []string
	// caps, for an option of this package, gives Schemes: Register adds
	// each scheme registered with these capabilities.
	caps Caps
}

// FlagName is the option's long flag name.
func (o Option) FlagName() string {
	if o.Flag != "" {
		return o.Flag
	}
	return o.Key
}

// SetValue is the value a Bool flag stores under the key.
func (o Option) SetValue() string {
	if o.Set != "" {
		return o.Set
	}
	return "1"
}

// AppliesTo reports whether the option means something for scheme.
func (o Option) AppliesTo(scheme string) bool { return slices.Contains(o.Schemes, scheme) }

// RegisteredOptions lists every declared option, grouped by its first
// scheme (in the order the schemes first declared one), in declaration
// order within a group.
func RegisteredOptions() []Option {
	regMu.RLock()
	defer regMu.RUnlock()
	var order []string
	for _, o := range options {
		if s := firstScheme(o); !slices.Contains(order, s) {
			order = append(order, s)
		}
	}
	out := make([]Option, 0, len(options))
	for _, s := range order {
		for _, o := range options {
			if firstScheme(o) == s {
				out = append(out, o)
			}
		}
	}
	return out
}

func firstScheme(o Option) string {
	if len(o.Schemes) == 0 {
		return ""
	}
	return o.Schemes[0]
}

// Options are a request's settings by key (Request.Options). The methods
// are the one parser of each kind of value; their errors are *Error of
// kind ErrMalformed naming the key, for a fetcher to return as they are.
type Options map[string]string

// With is a copy of o with key set to value; o is not changed (a nil o
// gives a new Options).
func (o Options) With(key, value string) Options {
	c := maps.Clone(o)
	if c == nil {
		c = Options{}
	}
	c[key] = value
	return c
}

// Has reports whether key is set (to any value, "" included).
func (o Options) Has(key string) bool {
	_, ok := o[key]
	return ok
}

// String is the value of key, "" when unset.
func (o Options) String(key string) string { return o[key] }

// Bool is the value of key as a boolean: false when unset or "".
func (o Options) Bool(key string) (bool, error) {
	v := o[key]
	switch strings.ToLower(v) {
	case "", "0", "false", "no", "off":
		return false, nil
	case "1", "true", "yes", "on":
		return true, nil
	}
	return false, badOption(key, v, "1 or 0 (true/false, yes/no, on/off)")
}

// Int is the value of key as a decimal integer, def when unset or "".
func (o Options) Int(key string, def int64) (int64, error) {
	v := o[key]
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return def, badOption(key, v, "a whole number")
	}
	return n, nil
}

// Duration is the value of key as a duration (a Go duration, or plain
// seconds), def when unset or "". A negative duration is refused.
func (o Options) Duration(key string, def time.Duration) (time.Duration, error) {
	v := o[key]
	if v == "" {
		return def, nil
	}
	d, err := ParseDuration(v)
	if err != nil {
		return def, badOption(key, v, "a duration such as 2.5 (seconds) or 500ms")
	}
	return d, nil
}

// ParseDuration reads a Go duration ("1.5s", "200ms") or plain seconds
// ("2.5"); negative values are refused.
func ParseDuration(v string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f < 0 || f > float64(1<<62)/float64(time.Second) {
			return 0, strconv.ErrRange
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err == nil && d < 0 {
		return 0, strconv.ErrRange
	}
	return d, err
}

// Strings is the value of key split into its lines, nil when unset.
func (o Options) Strings(key string) []string {
	v, ok := o[key]
	if !ok {
		return nil
	}
	return strings.Split(v, "\n")
}

func badOption(key, v, want string) error {
	return &Error{Kind: ErrMalformed, Msg: "option " + key + "=" + strconv.Quote(v) + ": want " + want}
}

// Options every scheme may read, declared by this package.
const (
	// OptSearch holds search words: a gopher type 7 item, a WAIS database
	// (--search WORDS; the CLI's -d/--data gives them too, for a gopher
	// search or a wais URL only, since -d is HTTP POST data elsewhere).
	OptSearch = "search"
	// OptRaw asks for a directory-like result exactly as the server sent
	// it, with nothing taken away (a gopher menu's closing "."), and for
	// network text (an ftp listing, a news article, a gopher text) with
	// its CRLF line ends (see TextReader).
	OptRaw = "raw"
	// OptIgnoreLength, "1", reads a body until its connection closes,
	// whatever size the server stated (an HTTP Content-Length, an ftp
	// SIZE or 150 reply), as curl's --ignore-content-length; package
	// http declares its flag.
	OptIgnoreLength = "ignore-content-length"
	// OptSSL asks for TLS on a plain connection (STARTTLS): "try" uses it
	// when the server offers it, "required" refuses a server without it.
	OptSSL = "ssl"
	// OptInteractive, set to "1" by a caller that can answer an
	// InputNeededError (the CLI when a person is at the terminal), lets a
	// fetcher ask instead of taking its non-interactive default (a WAIS
	// database without words lists its help records). It has no flag.
	OptInteractive = "interactive"
	// OptPassword is the answer to an InputNeededError for a password (an
	// ftp server asked for one for a user that came without): the Client
	// sends it as the password of the first URL's user. It has no flag.
	OptPassword = "password"
	// OptMethod is the request method of an HTTP request (curl's -X), read
	// by Request.Method; package http declares its flag.
	OptMethod = "http-method"
	// OptBodyMethod is the method a request with a Body is sent with
	// when OptMethod is not set (an upload's PUT; "": POST), read by
	// Request.Method. A redirect that drops the body drops it too: the
	// request after a 303 is a GET. It has no flag.
	OptBodyMethod = "http-body-method"
	// OptDryRun, for a scheme that sends a message (a mail, a news
	// article), makes the message as it would be sent the result, sent
	// nowhere (--dry-run). Package mailto declares its flag, for every
	// scheme that reads it.
	OptDryRun = "dry-run"
	// OptModTime, "1", asks for Meta.ModTime where it costs a command of
	// its own (ftp MDTM): a caller that keeps the time (the CLI's -R, a
	// resume) sets it. It has no flag.
	OptModTime = "modtime"
	// OptBodyHeader holds header lines that describe Request.Body
	// (Content-Type, Expect), one a line, for the protocols that carry a
	// header (HTTP): sent only with a body, and replaced by the caller's
	// own header lines of the same names. It has no flag: the CLI sets it
	// for -d, -F and -T.
	OptBodyHeader = "body-header"
	// OptLastHeader holds header lines sent as if the caller had given
	// them after its own header lines (with or without a body), each but
	// when one of the caller's names the field: curl's --json adds its
	// Content-Type and Accept so. It has no flag.
	OptLastHeader = "last-header"
)

// The options of this package apply to every scheme (OptRaw) or to the
// schemes registered with a capability (OptSearch, OptSSL).
func init() {
	declare([]Option{
		{Key: OptSearch, Kind: String, Arg: "WORDS", caps: Search,
			Help: "the search words for a gopher type 7 item or a WAIS database (-d WORDS too, for such URLs only)"},
		{Key: OptRaw, Kind: Bool, Help: "print menus, listings and texts exactly as the server sent them (CRLF line ends included)"},
		{Key: OptSSL, Kind: Bool, Set: "try", Help: "use STARTTLS when the server offers it", caps: StartTLS},
		{Key: OptSSL, Flag: "ssl-reqd", Kind: Bool, Set: "required", Help: "require STARTTLS", caps: StartTLS},
	})
}

// InputNeededError says that a request needs more from the user: search
// words, a password (OptPassword), a confirmation, the answers to a form
// (a Gopher+ +ASK block). It is the one such error: on a terminal the CLI
// asks with Prompt (without echo when Secret), or asks each of Questions
// in turn, and tries the request again with Options[Key] set to the answer
// (a form's answers one a line); elsewhere Err is reported.
type InputNeededError struct {
	Key       string
	Prompt    string
	Secret    bool
	Questions []Question
	Err       error
}

// A Question is one field of a form (InputNeededError.Questions).
type Question struct {
	Prompt  string
	Secret  bool     // the answer is not echoed
	Choices []string // the answer is one of these, when given
	Default string
	Note    bool // text to show, with no answer
}

func (e *InputNeededError) Error() string { return e.Err.Error() }
func (e *InputNeededError) Unwrap() error { return e.Err }
