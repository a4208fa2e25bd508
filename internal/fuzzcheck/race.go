//go:build race

package fuzzcheck

// raceEnabled: under the race detector sync.Pool drops what it is given,
// so the standard library allocates more than the code under test asks.
const raceEnabled = true
