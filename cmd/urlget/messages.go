package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/urlget/urlget/internal/cli"
)

// warnPrefix begins every warning urlget prints.
const warnPrefix = "urlget: warning: "

// warnf prints one warning line.
func warnf(w io.Writer, format string, a ...any) {
	fmt.Fprintf(w, warnPrefix+format+"\n", a...)
}

// warnWriter prints each line written to it as a warning: the fetchers'
// warnings (Client.Warnings).
type warnWriter struct{ w io.Writer }

func (ww warnWriter) Write(p []byte) (int, error) {
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if len(line) > 0 {
			if _, err := io.WriteString(ww.w, warnPrefix+cli.InFlags(string(line))); err != nil {
				return 0, err
			}
		}
	}
	return len(p), nil
}

// silentArgs tells whether a command line, before it is parsed, asks for
// -s/--silent (alone or in a cluster of short flags such as -sS): what the
// warnings of the config files it reads heed.
func silentArgs(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--silent" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Trim(a[1:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:#") == "" && strings.Contains(a, "s") {
			return true
		}
	}
	return false
}
