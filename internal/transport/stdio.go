package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// Stdio is the stdio transport: a launched server process whose stdin takes one
// JSON-RPC message per line and whose stdout gives one back per line.
type Stdio struct {
	p      *proc
	limits Limits

	in      chan Frame
	stdoutR *os.File
	stderrR *os.File
	stderr  *capBuffer

	sem chan struct{} // one writer at a time, acquired with a context

	mu      sync.Mutex
	closing bool          // Close has begun
	closeCh chan struct{} // closed when Close begins: readers discard from then on
	err     error
	done    chan struct{}
	doneMu  sync.Once

	writers   sync.WaitGroup
	readers   sync.WaitGroup
	pipesOnce sync.Once
}

var _ Transport = (*Stdio)(nil)

// StartStdio launches cfg.Argv in its own process group and speaks newline-delimited
// JSON-RPC over its stdin and stdout. stderr is captured (bounded by
// cfg.Limits.MaxStderr). ctx bounds only the start.
func StartStdio(ctx context.Context, cfg ProcessConfig) (*Stdio, error) {
	cfg.Limits = cfg.Limits.WithDefaults()
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start stdio server: stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("start stdio server: stderr pipe: %w", err)
	}
	t := &Stdio{
		limits:  cfg.Limits,
		in:      make(chan Frame, inboundBuffer),
		stdoutR: outR,
		stderrR: errR,
		stderr:  newCapBuffer(cfg.Limits.MaxStderr),
		sem:     make(chan struct{}, 1),
		closeCh: make(chan struct{}),
		done:    make(chan struct{}),
	}
	p, err := startProc(ctx, cfg, outW, errW, t.onExit)
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	t.p = p
	t.readers.Add(2)
	go t.readStdout()
	go func() {
		defer t.readers.Done()
		_, _ = io.Copy(t.stderr, errR) // ends at EOF or when Close closes errR
	}()
	return t, nil
}

// onExit runs on the reaper goroutine when the process has exited.
func (t *Stdio) onExit(info ExitInfo) {
	t.mu.Lock()
	if t.err == nil {
		if t.closing {
			t.err = fmt.Errorf("%w: server process ended: %s", ErrClosed, info)
		} else {
			t.err = fmt.Errorf("server process exited: %s", info)
		}
	}
	t.mu.Unlock()
	t.closeDone()
}

func (t *Stdio) closeDone() { t.doneMu.Do(func() { close(t.done) }) }

// Kind returns "stdio".
func (t *Stdio) Kind() string { return "stdio" }

// Inbound yields one Frame per non-empty stdout line. It is closed after stdout
// reaches EOF and every frame has been delivered, or once Close has begun.
func (t *Stdio) Inbound() <-chan Frame { return t.in }

// Done is closed when the process has exited or Close has finished.
func (t *Stdio) Done() <-chan struct{} { return t.done }

// Err says why the transport ended, e.g. "server process exited: exit status 3";
// nil while the process runs.
func (t *Stdio) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Pid returns the server's process id (also its process group id).
func (t *Stdio) Pid() int { return t.p.pid }

// Stderr returns a copy of the kept head of the server's stderr.
func (t *Stdio) Stderr() []byte { return t.stderr.Bytes() }

// StderrDropped returns how many stderr bytes were counted but not kept.
func (t *Stdio) StderrDropped() int64 { return t.stderr.Dropped() }

// ExitState describes how the process ended ("" while it runs); see ExitInfo.String.
func (t *Stdio) ExitState() string { return t.p.exitInfo().String() }

// Exit returns how the process ended; its Ending is Running while it runs.
func (t *Stdio) Exit() ExitInfo { return t.p.exitInfo() }

// Send writes msg and a newline to the server's stdin. Writes are serialised. A server
// that does not read its stdin fills the pipe: Send then returns ctx's error, and the
// message is still written, whole, if the server reads later (before Close). msg must
// not contain a newline. After the process has exited or Close has begun, Send
// returns an error wrapping ErrClosed.
func (t *Stdio) Send(ctx context.Context, msg []byte) error {
	if bytes.IndexByte(msg, '\n') >= 0 {
		return errors.New("stdio send: message contains a newline, which would split it into two lines")
	}
	select {
	case t.sem <- struct{}{}:
	case <-t.done:
		return t.closedErr()
	case <-ctx.Done():
		return fmt.Errorf("stdio send: waiting for an earlier write: %w", ctx.Err())
	}
	t.mu.Lock()
	if t.closing || t.err != nil {
		t.mu.Unlock()
		<-t.sem
		return t.closedErr()
	}
	t.writers.Add(1)
	t.mu.Unlock()

	line := make([]byte, len(msg)+1)
	copy(line, msg)
	line[len(msg)] = '\n'
	res := make(chan error, 1)
	go func() {
		defer t.writers.Done()
		_, err := t.p.stdin.Write(line)
		<-t.sem
		res <- err
	}()
	select {
	case err := <-res:
		if err == nil {
			return nil
		}
		if errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) {
			// The process is exiting; its reaper may not have reported yet.
			return fmt.Errorf("stdio send: %w: %w", ErrClosed, err)
		}
		return fmt.Errorf("stdio send: write to server stdin: %w", err)
	case <-ctx.Done():
		return fmt.Errorf("stdio send: server is not reading its stdin: %w", ctx.Err())
	}
}

func (t *Stdio) closedErr() error {
	if err := t.Err(); err != nil && !errors.Is(err, ErrClosed) {
		return fmt.Errorf("stdio send: %w (%v)", ErrClosed, err)
	}
	return fmt.Errorf("stdio send: %w", ErrClosed)
}

// Close stops the process (stdin closed, then SIGTERM, then SIGKILL to its group,
// each after KillGrace), then waits for the reader goroutines. Frames not yet
// consumed are dropped. Close is idempotent and bounded by ctx; past ctx the group is
// sent SIGKILL at once. An exit status other than 0 is not an error of Close: see
// ExitState.
func (t *Stdio) Close(ctx context.Context) error {
	t.mu.Lock()
	if !t.closing {
		t.closing = true
		close(t.closeCh)
	}
	t.mu.Unlock()
	err := t.p.stop(ctx)
	// The group is gone, but what it wrote last may still sit in the pipes: read on to
	// EOF, which comes once every writer has exited. Only a straggler that left the group
	// keeps a pipe open; past drainGrace we stop reading what it holds.
	_ = waitGroupsFor(ctx, drainGrace, &t.readers)
	t.pipesOnce.Do(func() {
		_ = t.stdoutR.Close()
		_ = t.stderrR.Close()
	})
	if werr := waitGroups(ctx, &t.readers, &t.writers); werr != nil && err == nil {
		err = fmt.Errorf("stdio close: %w", werr)
	}
	t.mu.Lock()
	if t.err == nil {
		t.err = fmt.Errorf("%w: server process stop incomplete", ErrClosed)
	}
	t.mu.Unlock()
	t.closeDone()
	return err
}

// drainGrace bounds how long Close and Stop read a stopped server's pipes to EOF
// before closing them, so that its last output is kept. EOF is immediate once every
// process holding the pipe has exited; the bound is for one that escaped the group.
const drainGrace = 500 * time.Millisecond

// waitGroupsFor is waitGroups bounded by d as well as ctx.
func waitGroupsFor(ctx context.Context, d time.Duration, wgs ...*sync.WaitGroup) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return waitGroups(ctx, wgs...)
}

// waitGroups waits for every group, bounded by ctx.
func waitGroups(ctx context.Context, wgs ...*sync.WaitGroup) error {
	ch := make(chan struct{})
	go func() {
		for _, wg := range wgs {
			wg.Wait()
		}
		close(ch)
	}()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for goroutines: %w", ctx.Err())
	}
}

// readStdout turns stdout lines into frames until EOF or Close.
func (t *Stdio) readStdout() {
	defer t.readers.Done()
	defer close(t.in)
	br := bufio.NewReaderSize(t.stdoutR, 64<<10)
	max := t.limits.MaxFrame
	for {
		line, long, total, err := readLine(br, max)
		if len(line) > 0 || long {
			f := Frame{Data: line, Source: "stdout", At: time.Now()}
			switch {
			case long:
				f.Err = tooLarge("a line", max, total, true)
				f.Data = headOf(line)
			case err != nil:
				f.Err = ErrNoNewline
				if verr := validateFrame(line); verr != nil {
					f.Err = fmt.Errorf("%w; %w", ErrNoNewline, verr)
				}
			default:
				checkFrame(&f)
			}
			select {
			case t.in <- f:
			case <-t.closeCh:
				// Close has begun: keep draining so the server is never blocked on
				// a full pipe, but deliver nothing more.
			}
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line, without its "\n" and a "\r" before it, keeping at most max
// bytes; long reports that the line was longer (the rest is read and discarded) and
// total counts every byte of it. At EOF a final unterminated line is returned with
// the error.
func readLine(br *bufio.Reader, max int) (line []byte, long bool, total int64, err error) {
	// A line longer than the reader's buffer comes in chunks: each is copied aside
	// and the line is put together once, at its size. Appending them to one slice
	// grew it by doubling, every step a copy of all before it, and left a quarter
	// of it spare on average, copied once more to trim (at 100,000 tools the one
	// 15 MB reply made 40 MB of buffers).
	var chunks [][]byte
	kept := 0 // bytes kept so far
	for {
		chunk, rerr := br.ReadSlice('\n')
		terminated := rerr == nil
		if terminated {
			chunk = chunk[:len(chunk)-1]
		}
		total += int64(len(chunk))
		// Keep max+1 bytes so a "\r" after exactly max bytes can still be stripped.
		if room := max + 1 - kept; room > 0 {
			take := min(room, len(chunk))
			if rerr == bufio.ErrBufferFull || chunks != nil {
				chunks = append(chunks, bytes.Clone(chunk[:take]))
			} else {
				line = append([]byte(nil), chunk[:take]...)
			}
			kept += take
			if take < len(chunk) {
				long = true
			}
		} else if len(chunk) > 0 {
			long = true
		}
		if rerr == bufio.ErrBufferFull {
			continue
		}
		if chunks != nil {
			line = make([]byte, 0, kept)
			for _, c := range chunks {
				line = append(line, c...)
			}
		}
		if !long && len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if len(line) > max {
			long = true
		}
		if long {
			line = line[:max]
		}
		if !terminated {
			return line, long, total, rerr
		}
		return line, long, total, nil
	}
}
