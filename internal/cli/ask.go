package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/urlget/urlget/fetch"
)

// ReadSecret prints prompt on stderr and reads a line from the terminal f
// without echo.
func ReadSecret(stderr io.Writer, f *os.File, prompt string) (string, bool) {
	fmt.Fprint(stderr, prompt)
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(stderr)
	return string(b), err == nil
}

// Ask answers, on the terminal stdin (prompts on stderr), what a fetcher
// said it needs (*fetch.InputNeededError): search words, a password, a confirmation, the
// answers to a form. It returns the options to retry with, or nil when
// there is nothing to ask or no terminal to ask on.
func Ask(stdin io.Reader, stderr io.Writer, err error) map[string]string {
	var ine *fetch.InputNeededError
	f, ok := Terminal(stdin)
	if !errors.As(err, &ine) || !ok {
		return nil
	}
	in := bufio.NewReader(f)
	ask := func(prompt string, secret bool) (string, bool) {
		if secret {
			return ReadSecret(stderr, f, prompt)
		}
		fmt.Fprint(stderr, prompt)
		line, err := in.ReadString('\n')
		return strings.TrimRight(line, "\r\n"), err == nil || line != ""
	}
	if len(ine.Questions) == 0 {
		if s, ok := ask(ine.Prompt, ine.Secret); ok {
			return map[string]string{ine.Key: s}
		}
		return nil
	}
	var answers []string
	for _, q := range ine.Questions {
		if q.Note {
			fmt.Fprintln(stderr, q.Prompt)
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
		a, ok := ask(prompt+": ", q.Secret)
		if !ok {
			return nil
		}
		if a == "" {
			a = q.Default
		}
		answers = append(answers, a)
	}
	return map[string]string{ine.Key: strings.Join(answers, "\n")}
}
