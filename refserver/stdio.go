package refserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// maxLineBytes caps one stdio message.
const maxLineBytes = 16 << 20

// eofGrace is how long in-flight calls may finish after stdin ends before they are
// cancelled.
const eofGrace = time.Second

// lineWriter writes newline-delimited messages, one Write per message, serialised.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (lw *lineWriter) send(msg []byte) error {
	if bytes.ContainsAny(msg, "\r\n") {
		return fmt.Errorf("stdio: message contains a newline: %.80q", msg)
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.closed {
		return errSessionClosed
	}
	line := make([]byte, 0, len(msg)+1)
	line = append(append(line, msg...), '\n')
	if _, err := lw.w.Write(line); err != nil {
		return fmt.Errorf("stdio: write: %w", err)
	}
	return nil
}

// sendRaw writes b as it is: the faults that break the framing use it.
func (lw *lineWriter) sendRaw(b []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.closed {
		return errSessionClosed
	}
	if _, err := lw.w.Write(b); err != nil {
		return fmt.Errorf("stdio: write: %w", err)
	}
	return nil
}

func (lw *lineWriter) close() {
	lw.mu.Lock()
	lw.closed = true
	lw.mu.Unlock()
}

// errLineTooLong marks an input line over maxLineBytes.
var errLineTooLong = errors.New("message too large")

// readLine reads one line without its terminator, bounded by maxLineBytes. An
// over-long line is consumed to its end and reported as errLineTooLong.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) > maxLineBytes {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		switch {
		case tooLong && (err == nil || errors.Is(err, io.EOF)):
			return nil, errLineTooLong
		case err != nil && errors.Is(err, io.EOF) && len(line) > 0:
			return bytes.TrimRight(line, "\r\n"), nil // a last line without its newline
		case err != nil:
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}

// ServeStdio serves one MCP session over newline-delimited JSON: messages are read
// from in and written to out, one per line; nothing else is ever written to out.
// Requests are handled concurrently enough that a notifications/cancelled (or the
// answer to a server request) is read while a tool runs. ServeStdio returns when in
// reaches EOF (after in-flight calls got up to one second to finish) or when ctx is
// cancelled. A Read on in that never returns is left to the caller (closing in ends
// it).
func ServeStdio(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	cfg, err := newConfig(opts)
	if err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	s := newSession(ctx, cfg)
	w := &lineWriter{w: out}
	mc := newModernConn(ctx, cfg)
	defer w.close()

	lines := make(chan []byte) // nil stands for an over-long line
	readErr := make(chan error, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := readLine(br)
			switch {
			case errors.Is(err, errLineTooLong):
				line = nil
			case err != nil:
				readErr <- err
				return
			case len(bytes.TrimSpace(line)) == 0:
				continue
			}
			select {
			case lines <- line:
			case <-stop:
				return
			}
		}
	}()

	for {
		select {
		case <-ctx.Done():
			mc.close()
			s.close()
			return nil
		case err := <-readErr:
			mc.drain(eofGrace, w)
			s.drain(eofGrace)
			if errors.Is(err, io.EOF) && cfg.faults.on(faultStdinEOFIgnored) {
				// LIFE-SHUTDOWN-STDIO-01, STDIO-EOF-EXIT-01: stay up after EOF
				// until stopped (SIGTERM cancels ctx).
				<-ctx.Done()
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("stdio: read: %w", err)
		case line := <-lines:
			if line == nil {
				s.sendLogged(w, s.errorResponse(wire.ID{}, errParse("message exceeds 16 MiB")))
				continue
			}
			mc.serveLine(line, s, w)
		}
	}
}
