// Package jlaffayecheck shows, test by test, what github.com/jlaffaye/ftp
// (v0.2.4) lacks for urlget's job, beside package ftp doing it: the claims
// of fetch/ftp's "Why not github.com/jlaffaye/ftp". Each test fails if the
// claim it checks were untrue.
//
// It is a module of its own, so that urlget's go.mod does not carry
// jlaffaye/ftp. scripts/test runs it:
//
//	cd fetch/ftp/internal/jlaffayecheck && go test ./...
package jlaffayecheck
