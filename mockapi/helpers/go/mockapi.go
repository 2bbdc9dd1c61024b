// Package mockapi runs nodelet-mockapi, the fake kube-apiserver, for Go
// tests: Start launches the real binary on a free port and stops it when
// the test ends; Reset puts the store back to its seeded state between
// subtests. Standard library only, so any client (client-go, plain
// net/http) can use it.
//
// The binary is $NODELET_MOCKAPI when set, else nodelet-mockapi on PATH.
package mockapi

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readyPrefix starts the line the server prints on stdout once it serves.
const readyPrefix = "nodelet-mockapi listening on "

// startTimeout bounds the wait for the ready line; the server needs
// milliseconds, so reaching it means something is wrong.
const startTimeout = 30 * time.Second

// Server is one running nodelet-mockapi.
type Server struct {
	// URL is the API's base URL, e.g. http://127.0.0.1:40123: the Host of a
	// client-go rest.Config.
	URL string
	// Kubeconfig is the path of a kubeconfig pointing at the server
	// (written by --kubeconfig-out, inside the test's temporary directory).
	Kubeconfig string

	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd.Wait returned
}

// Binary returns the path of nodelet-mockapi: $NODELET_MOCKAPI, else the
// program on PATH. The error says how to provide it.
func Binary() (string, error) {
	if p := os.Getenv("NODELET_MOCKAPI"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("NODELET_MOCKAPI=%s: %v", p, err)
		}
		return p, nil
	}
	p, err := exec.LookPath("nodelet-mockapi")
	if err != nil {
		return "", fmt.Errorf("nodelet-mockapi not found: put it on PATH or set NODELET_MOCKAPI to the binary (%v)", err)
	}
	return p, nil
}

// Start runs nodelet-mockapi on a free port of 127.0.0.1 with extra flags
// args (e.g. "--fixtures", "objects.yaml"), waits until it prints its ready
// line and registers its stop with t.Cleanup. It fails the test when the
// binary is missing or the server does not start (with its stderr).
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := &Server{Kubeconfig: filepath.Join(dir, "kubeconfig"), exited: make(chan struct{})}
	errPath := filepath.Join(dir, "stderr")
	stderr, err := os.Create(errPath)
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	argv := append([]string{"--port", "0", "--kubeconfig-out", s.Kubeconfig}, args...)
	s.cmd = exec.Command(bin, argv...)
	s.cmd.Stderr = stderr
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("nodelet-mockapi: %v", err)
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, readyPrefix) {
				ready <- strings.TrimPrefix(line, readyPrefix)
				break
			}
		}
		io.Copy(io.Discard, stdout) // never let a full pipe block the server
		s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(s.stop)
	select {
	case s.URL = <-ready:
		return s
	case <-s.exited:
		t.Fatalf("nodelet-mockapi exited before it was ready (%v): %s", s.cmd.ProcessState, stderrOf(errPath))
	case <-time.After(startTimeout):
		t.Fatalf("nodelet-mockapi printed no ready line within %v: %s", startTimeout, stderrOf(errPath))
	}
	return nil
}

// Reset puts the server back to its seeded state (POST /mockapi/v1/reset:
// objects, faults and journal); call it at the start of each subtest.
func (s *Server) Reset(t testing.TB) {
	t.Helper()
	resp, err := http.Post(s.URL+"/mockapi/v1/reset", "application/json", nil)
	if err != nil {
		t.Fatalf("nodelet-mockapi reset: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("nodelet-mockapi reset: %s: %s", resp.Status, body)
	}
}

// stop sends SIGTERM (a clean stop) and waits; a server that has not gone
// after 15 s (past its 10 s shutdown grace) is killed.
func (s *Server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// stderrOf is the start of the server's stderr, where its error is (a
// usage text may follow), for failure messages.
func stderrOf(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[:2000]
	}
	return strings.TrimSpace(string(b))
}
