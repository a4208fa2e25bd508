package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
)

const (
	exitCodesBegin = "<!-- exit-codes: made from cmd/urlget/exitcodes.go by go test ./cmd/urlget -run TestExitStatuses -update-docs -->\n"
	exitCodesEnd   = "<!-- /exit-codes -->\n"
)

// TestExitStatuses: the exit status table has every code a fetch kind
// maps to, every code the fetch package doc's table and --help's summary
// name, each once and in order; docs/exit-codes.md's table is made from it.
func TestExitStatuses(t *testing.T) {
	inTable := map[int]bool{}
	last := -1
	var b strings.Builder
	b.WriteString("| code | meaning |\n|---|---|\n")
	for _, s := range exitStatuses {
		var codes []string
		for _, c := range s.Codes {
			if c <= last || inTable[c] {
				t.Errorf("exit status %d out of order or listed twice", c)
			}
			last, inTable[c] = c, true
			codes = append(codes, strconv.Itoa(c))
		}
		fmt.Fprintf(&b, "| %s | %s |\n", strings.Join(codes, " / "), s.Meaning)
	}
	for _, k := range fetch.Kinds() {
		if c := k.ExitCode(); !inTable[c] {
			t.Errorf("fetch's kind %q exits %d, which the exit status table lacks", k.Error(), c)
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "fetch", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	docCodes := map[int]bool{}
	for _, m := range regexp.MustCompile(`(?m)^//\t +(\d+)  `).FindAllStringSubmatch(string(doc), -1) {
		c, _ := strconv.Atoi(m[1])
		docCodes[c] = true
		if !inTable[c] {
			t.Errorf("fetch's package doc names exit %d, which the exit status table lacks", c)
		}
	}
	for _, k := range fetch.Kinds() {
		if !docCodes[k.ExitCode()] {
			t.Errorf("fetch's package doc lacks exit %d (kind %q)", k.ExitCode(), k.Error())
		}
	}
	for _, m := range regexp.MustCompile(`\b(\d+) [a-z]`).FindAllStringSubmatch(helpTail, -1) {
		if c, _ := strconv.Atoi(m[1]); !inTable[c] {
			t.Errorf("--help names exit %d, which the exit status table lacks", c)
		}
	}
	if len(docCodes) == 0 || !slices.Contains(exitStatuses[0].Codes, 0) {
		t.Fatal("no codes read from fetch's doc, or the table does not start at 0")
	}
	docBlock(t, "docs/exit-codes.md", exitCodesBegin, exitCodesEnd, b.String(), "TestExitStatuses")
}
