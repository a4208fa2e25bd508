//go:build !race

package fuzzcheck

const raceEnabled = false
