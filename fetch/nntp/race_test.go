//go:build race

package nntp

// raceEnabled: the race detector slows streaming tests tenfold.
const raceEnabled = true
