package prospero

import "github.com/urlget/urlget/fetch/prospero/ardp"

// SetTransport makes every transaction start from c (short timers for
// tests); the returned function restores the default.
func SetTransport(c *ardp.Config) (restore func()) {
	old := transportConfig
	transportConfig = c
	return func() { transportConfig = old }
}
