//go:build !race

package nntp

const raceEnabled = false
