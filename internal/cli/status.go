package cli

import (
	"io"
	"os"
	"sync"

	"golang.org/x/term"
)

// StatusLine is a line on a terminal drawn over and over (a progress
// line): each Draw replaces the one before, and Print clears it before it
// writes anything else, so that no message lands in the middle of it. Its
// methods may be called from several goroutines.
type StatusLine struct {
	W io.Writer
	// Width is the terminal's width (nil: 80); a line drawn is cut to one
	// column less.
	Width func() int

	mu    sync.Mutex
	drawn bool
}

// Draw writes line over the status line.
func (s *StatusLine) Draw(line string) { s.draw(line, "") }

// End draws line a last time and ends it: it stays on the screen.
func (s *StatusLine) End(line string) { s.draw(line, "\n") }

func (s *StatusLine) draw(line, end string) {
	width := 80
	if s.Width != nil {
		width = s.Width()
	}
	if r := []rune(line); len(r) > width-1 {
		line = string(r[:width-1])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	io.WriteString(s.W, "\r\x1b[K"+line+end)
	s.drawn = end == ""
}

// Clear erases the status line, if one is drawn.
func (s *StatusLine) Clear() { s.Print("") }

// Print clears the status line and writes text in its place.
func (s *StatusLine) Print(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drawn {
		text = "\r\x1b[K" + text
		s.drawn = false
	}
	io.WriteString(s.W, text)
}

// Terminal is v (a standard stream) as the terminal it is; false when it
// is no terminal.
func Terminal(v any) (*os.File, bool) {
	f, ok := v.(*os.File)
	return f, ok && term.IsTerminal(int(f.Fd()))
}

// TerminalWidth is the width of the terminal w: 80 when w is none, or one
// narrower than 21 columns.
func TerminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
			return cols
		}
	}
	return 80
}
