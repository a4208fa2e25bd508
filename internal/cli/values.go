package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// A flag Value's Type is its argument's placeholder in help ("SECONDS")
// when its usage line names none in backquotes (pflag.UnquoteUsage).

// Seconds is a flag Value for a duration given in seconds, as curl reads
// its time options: a non-negative number, fractions allowed ("0.5").
func Seconds(p *time.Duration) pflag.Value { return secondsValue{p} }

type secondsValue struct{ p *time.Duration }

func (v secondsValue) Type() string { return "SECONDS" }
func (v secondsValue) String() string {
	if *v.p == 0 {
		return ""
	}
	return strconv.FormatFloat(v.p.Seconds(), 'f', -1, 64)
}
func (v secondsValue) Set(s string) error {
	d, err := ParseSeconds(s)
	if err == nil {
		*v.p = d
	}
	return err
}

// ParseSeconds reads a non-negative, possibly fractional, number of
// seconds.
func ParseSeconds(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f != f || f > 1e9 {
		return 0, fmt.Errorf("want a number of seconds, not %q", s)
	}
	return time.Duration(f * float64(time.Second)), nil
}

// Size is a flag Value for a byte count with an optional k, M or G suffix
// (powers of 1024, as curl reads them). With positive set, 0 is refused
// and the count is called a speed in bytes a second (curl's
// --limit-rate).
func Size(p *int64, positive bool) pflag.Value { return sizeValue{p, positive} }

type sizeValue struct {
	p        *int64
	positive bool
}

func (v sizeValue) Type() string { return "BYTES" }
func (v sizeValue) String() string {
	if *v.p == 0 {
		return ""
	}
	return strconv.FormatInt(*v.p, 10)
}
func (v sizeValue) Set(s string) error {
	n, err := ParseSize(s)
	if v.positive && (err != nil || n == 0) {
		return fmt.Errorf("want a speed > 0 in bytes a second (suffix k, M or G allowed), not %q", s)
	}
	if err == nil {
		*v.p = n
	}
	return err
}

// ParseSize reads a byte count with an optional k, M or G suffix (powers
// of 1024, as curl).
func ParseSize(s string) (int64, error) {
	mul := int64(1)
	num := s
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			mul, num = 1<<10, s[:n-1]
		case 'm', 'M':
			mul, num = 1<<20, s[:n-1]
		case 'g', 'G':
			mul, num = 1<<30, s[:n-1]
		}
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v < 0 || v > (1<<62)/mul {
		return 0, fmt.Errorf("want a byte count (suffix k, M or G allowed), not %q", s)
	}
	return v * mul, nil
}

// Int is a flag Value for a whole number that ok accepts; want says what
// it accepts ("a count >= 0"), for the error "want a count >= 0, not
// -1". A nil ok accepts any number.
func Int(p *int, want string, ok func(int) bool) pflag.Value { return intValue{p, want, ok} }

type intValue struct {
	p    *int
	want string
	ok   func(int) bool
}

func (v intValue) Type() string   { return "int" }
func (v intValue) String() string { return strconv.Itoa(*v.p) }
func (v intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a whole number, not %q", s)
	}
	if v.ok != nil && !v.ok(n) {
		return fmt.Errorf("want %s, not %d", v.want, n)
	}
	*v.p = n
	return nil
}

// Text is a string flag Value whose Type is arg, the placeholder of its
// argument in help ("FILE"), so that its usage line need not name it.
func Text(p *string, arg string) pflag.Value { return textValue{p, arg} }

type textValue struct {
	p   *string
	arg string
}

func (v textValue) String() string     { return *v.p }
func (v textValue) Type() string       { return v.arg }
func (v textValue) Set(s string) error { *v.p = s; return nil }

// Texts is Text for a flag that may be given again: each value is
// appended.
func Texts(p *[]string, arg string) pflag.Value { return textsValue{p, arg} }

type textsValue struct {
	p   *[]string
	arg string
}

func (v textsValue) String() string     { return strings.Join(*v.p, ",") }
func (v textsValue) Type() string       { return v.arg }
func (v textsValue) Set(s string) error { *v.p = append(*v.p, s); return nil }

// NewFlagSet is a FlagSet for the command name whose parse errors the
// command reports itself (Error): pflag prints no usage, and help lists
// the flags in the order they are defined. pflag's rare messages go to
// stderr.
func NewFlagSet(name string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	fs.SortFlags = false
	return fs
}

// Func is a flag Value that calls fn with each value given; arg is its
// Type (the placeholder; "bool", with the Flag's NoOptDefVal "true", for
// a flag given without a value).
func Func(arg string, fn func(string) error) pflag.Value { return funcValue{arg, fn} }

type funcValue struct {
	arg string
	fn  func(string) error
}

func (v funcValue) String() string     { return "" }
func (v funcValue) Type() string       { return v.arg }
func (v funcValue) Set(s string) error { return v.fn(s) }

// Switch defines a flag given without a value that calls on each time it
// is given (with a value, each time that value is true).
func Switch(fs *pflag.FlagSet, name, short, usage string, on func()) {
	fs.VarPF(Func("bool", func(s string) error {
		b, err := strconv.ParseBool(s)
		if b {
			on()
		}
		return err
	}), name, short, usage).NoOptDefVal = "true"
}

// Name is how a message names a flag: "-d/--data", or "--search".
func Name(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand + "/--" + f.Name
	}
	return "--" + f.Name
}

// Error is a FlagSet's Parse error in our words: a value a flag refused
// is "-r/--retry: want a whole number, not "x"" (the Value's own error
// after the flag's name; pflag's own Values' strconv errors replaced),
// with the Value's error still in the chain (errors.As finds a typed
// one). A Value's error that names its flag already ("--resolve "x":
// ...", from a parser written for the flag) is left as it is. Other
// errors are pflag's, which say what they mean already ("unknown flag:
// --x", "flag needs an argument: --x").
func Error(err error) error {
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) {
		return err
	}
	cause := iv.Unwrap()
	var ne *strconv.NumError
	if errors.As(cause, &ne) {
		what := "a whole number"
		if ne.Func == "ParseBool" {
			what = "true or false"
		} else if ne.Func == "ParseFloat" {
			what = "a number"
		}
		cause = fmt.Errorf("want %s, not %q", what, iv.GetValue())
	}
	if strings.HasPrefix(cause.Error(), "--"+iv.GetFlag().Name) {
		return cause
	}
	return &flagError{Name(iv.GetFlag()), cause}
}

type flagError struct {
	flag string
	err  error
}

func (e *flagError) Error() string { return e.flag + ": " + e.err.Error() }
func (e *flagError) Unwrap() error { return e.err }

// AddNegations gives every boolean flag of fs curl's negation: --no-NAME
// sets --NAME false, and a flag named no-NAME is turned off by --NAME
// (curl's --buffer for --no-buffer), unless fs has a flag of that name.
// They are hidden: help, the manual and the completions show the flags
// themselves. A Switch is no boolean of this kind: it acts when given.
func AddNegations(fs *pflag.FlagSet) {
	var negs []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if _, isSwitch := f.Value.(funcValue); isSwitch || f.Value.Type() != "bool" {
			return
		}
		name := "no-" + f.Name
		if rest, ok := strings.CutPrefix(f.Name, "no-"); ok {
			name = rest
		}
		if fs.Lookup(name) != nil {
			return
		}
		target := f
		negs = append(negs, &pflag.Flag{Name: name, NoOptDefVal: "true", Hidden: true,
			Usage: "turn " + "--" + f.Name + " off",
			Value: Func("bool", func(s string) error {
				b, err := strconv.ParseBool(s)
				if err != nil {
					return err
				}
				if err := target.Value.Set(strconv.FormatBool(!b)); err != nil {
					return err
				}
				target.Changed = true
				return nil
			})})
	})
	for _, f := range negs {
		fs.AddFlag(f)
	}
}
