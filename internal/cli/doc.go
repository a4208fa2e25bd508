// Package cli is what urlget's commands add to spf13/pflag, which parses
// their flags, to be curl-like commands: flag values read as curl reads
// them (seconds, byte counts with a k, M or G suffix, bounded counts) with
// errors in our words; help grouped in sections by the topics a flag is
// annotated with; the flags of a roff manual page; static completion
// scripts for bash, zsh and fish; curl's config-file syntax
// (-K/--config FILE, ~/.curlrc), read into arguments; and curl's progress
// meters on a terminal (Meter for one transfer, MultiMeter for transfers
// at once).
//
// It knows no scheme and no command of urlget's: a command gives its
// FlagSets, and the words its help and completions put around them.
//
// spf13/cobra, which builds on pflag, offers help, man pages and
// completions too, but its completions call the program back at every
// <Tab> (the scripts here are static: they work with no urlget on the
// PATH of the machine that completes) and it brings a command tree and a
// help layout of its own; the layout here (flags grouped by scheme) is
// urlget's.
package cli
