package mockapi

import (
	"fmt"
	"strings"
	"testing"
)

// The helper's own failure paths; example_test.go covers a working server.

func TestBinaryMissing(t *testing.T) {
	t.Setenv("NODELET_MOCKAPI", "/nonexistent/nodelet-mockapi")
	if _, err := Binary(); err == nil || !strings.Contains(err.Error(), "NODELET_MOCKAPI=/nonexistent") {
		t.Fatalf("Binary() error = %v, want one naming NODELET_MOCKAPI", err)
	}
	t.Setenv("NODELET_MOCKAPI", "")
	t.Setenv("PATH", t.TempDir())
	if _, err := Binary(); err == nil || !strings.Contains(err.Error(), "put it on PATH or set NODELET_MOCKAPI") {
		t.Fatalf("Binary() error = %v, want how to provide it", err)
	}
}

// A flag the server refuses: Start must report the server's own message,
// not hang on a ready line that never comes.
func TestStartBadFlag(t *testing.T) {
	ft := &fakeT{TB: t}
	func() {
		defer func() { recover() }() // fakeT.Fatalf panics to stop Start
		Start(ft, "--no-such-flag")
	}()
	if !strings.Contains(ft.msg, "exited before it was ready") || !strings.Contains(ft.msg, "no-such-flag") {
		t.Fatalf("Start failure = %q", ft.msg)
	}
}

// fakeT records a fatal message instead of ending the real test.
type fakeT struct {
	testing.TB
	msg string
}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f.msg)
}
