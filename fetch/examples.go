package fetch

import (
	"slices"
	"sync"
)

// Example is one command line shown in a scheme's help (urlget help
// SCHEME) and in the manual page.
type Example struct {
	Args string // the arguments after "urlget", as typed in a shell
	Help string // one line: what it does
}

var (
	exMu     sync.RWMutex
	examples = map[string][]Example{}
)

// RegisterExamples declares example command lines for a scheme; a scheme
// package calls it from its init, next to RegisterOptions, so that the
// examples live beside the options they show.
func RegisterExamples(scheme string, ex ...Example) {
	exMu.Lock()
	defer exMu.Unlock()
	examples[scheme] = append(examples[scheme], ex...)
}

// Examples gives the examples declared for scheme, in declaration order.
func Examples(scheme string) []Example {
	exMu.RLock()
	defer exMu.RUnlock()
	return slices.Clone(examples[scheme])
}
