// Package transport moves raw JSON-RPC messages between mcp-conform and one MCP server
// session: over a launched process's stdio, over Streamable HTTP, or over the legacy
// 2024-11-05 HTTP+SSE pair. It knows nothing of JSON-RPC semantics beyond framing;
// internal/wire correlates and judges.
//
// Every transport is bounded: reads have deadlines, frames and buffers have size caps,
// and Close always releases the process or connections it owns.
package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Frame is one message-sized unit read from the server: a JSON value, or the bytes of
// something that was not one (Err says what was wrong).
type Frame struct {
	Data []byte
	// Err is set when the bytes are not a usable frame: not JSON, over the size cap,
	// not UTF-8. The frame is still delivered so the transcript keeps the evidence.
	Err error
	// Source names the channel: "stdout", "post" (a POST's reply), "get" (the GET
	// stream of Streamable HTTP) or "sse" (the HTTP+SSE event stream).
	Source string
	// EventID is the SSE event id, when the frame came from an SSE event that had one.
	EventID string
	// Stream is, for a frame read from a POST's SSE reply, the raw JSON id of the
	// request that POST carried ("" otherwise): in 2026-07-28 a subscriptions/listen
	// stream is known only by the POST it answers.
	Stream string
	At     time.Time
	// JSON is set when the transport found Data to be exactly one JSON value (Err is
	// nil then): a reader need not check the bytes again.
	JSON bool
}

// Transport is one session's channel to the server.
type Transport interface {
	// Send delivers one JSON-RPC message (a complete JSON value). Over HTTP the POST's
	// reply (JSON body or SSE stream) feeds Inbound; a non-2xx status is returned as
	// *HTTPStatusError after its body has been read (bounded).
	Send(ctx context.Context, msg []byte) error
	// Inbound yields every frame the server sends, in arrival order. It is closed once
	// the transport has ended and every frame has been delivered.
	Inbound() <-chan Frame
	// Done is closed when the peer is gone: the process exited, or Close was called.
	Done() <-chan struct{}
	// Err says why the transport ended (nil while it runs).
	Err() error
	// Close ends the session: for stdio, stdin is closed, then SIGTERM and SIGKILL go
	// to the process group after grace periods; for HTTP, an open session is DELETEd
	// and every stream is closed. Close is idempotent and bounded by ctx.
	Close(ctx context.Context) error
	// Kind is "stdio", "http" (Streamable HTTP) or "sse" (HTTP+SSE).
	Kind() string
}

// FrameCounter is implemented by transports whose Send puts the reply on Inbound
// before it returns (Streamable HTTP: the reply is the POST's answer). Delivered is
// how many frames have been put on Inbound so far: once the reader has taken that
// many, every reply a returned Send carried has been read.
type FrameCounter interface {
	Delivered() uint64
}

// HTTPSession is implemented by the Streamable HTTP transport.
type HTTPSession interface {
	// SetProtocolVersion makes every later request carry MCP-Protocol-Version: v.
	// The empty string turns the header off (revisions before 2025-06-18).
	SetProtocolVersion(v string)
	// SessionID is the Mcp-Session-Id the server assigned, or "".
	SessionID() string
	// OpenGetStream opens the optional GET SSE stream. A 405 answer is not an error:
	// it returns (false, nil). Frames from the stream arrive on Inbound with Source "get".
	OpenGetStream(ctx context.Context) (bool, error)
	// Exchanges returns a record of every HTTP exchange so far, for the checks.
	Exchanges() []Exchange
	// ExchangeCount is how many exchanges the record holds so far.
	ExchangeCount() int
	// ExchangesFrom returns the record of the exchanges after the first n, as
	// Exchanges does: a probe reads what its own requests did without copying the
	// session's whole record (hundreds of exchanges) each time.
	ExchangesFrom(n int) []Exchange
}

// Exchange records one HTTP request and the head of its reply.
type Exchange struct {
	Method      string // POST, GET or DELETE
	Status      int
	ContentType string
	// Header holds the reply headers (request header values are never kept). The
	// record's own copy, made once: every snapshot (Exchanges) shares it, so read
	// it, never write it.
	Header http.Header
	At     time.Time
	// Carried says what a POST's body was: "request", "notification" or
	// "response" for one well-formed JSON-RPC 2.0 message (Carries), "" for anything
	// else (a batch, a malformed probe) and for GET and DELETE. The transport rules
	// of a POST depend on it (202 for a notification, JSON or SSE for a request).
	Carried string
	// Stream summarises the reply's SSE stream when it was one (nil otherwise). It is
	// updated while the stream runs; Exchanges returns a snapshot.
	Stream *StreamInfo
	// Request is, for a POST, the raw JSON id of the request its body carried ("" for
	// a notification, a response or a batch), and RPCMethod its method: the SSE stream
	// that answers a POST belongs to that request (SHTTP-POST-SSE-*).
	Request, RPCMethod string
	// LastEventID is the Last-Event-ID header the request carried: a GET that resumes
	// an earlier stream (SHTTP-RESUME-01) rather than opening one of its own.
	LastEventID string
	// Probe marks a stream a check read itself (OpenProbeStream): its messages were
	// handed to the check, not delivered to Inbound.
	Probe bool
	// Body is, for a POST answered with a non-2xx status, the start of the reply body
	// (at most 64 KiB, the bytes *HTTPStatusError carries, header values redacted):
	// a JSON-RPC error sent with an HTTP error status is a message of the server's,
	// never put on Inbound, and this record is where the checks and the evidence
	// find it.
	Body []byte
	// Overrides names the headers a probe set or removed on this request
	// (WithHeaders; names only, never values): a request without one carried the
	// headers the transport derives from its body.
	Overrides []string
}

// StreamInfo summarises an SSE stream that answered a request.
type StreamInfo struct {
	// Events counts the events dispatched, including ones with empty data.
	Events int
	// FirstHasID, FirstID and FirstEmpty describe the first event: an R4 priming event
	// has an id and empty data.
	FirstHasID bool
	FirstID    string
	FirstEmpty bool
	// Retry is the last retry value the server sent, in milliseconds, or -1.
	Retry int
	// IDs are the event ids the stream carried, in order (at most MaxStreamIDs;
	// IDsDropped counts the rest): ids must be unique across a session's streams
	// (SHTTP-EVENTID-01).
	IDs        []string
	IDsDropped int
	// Ended is when the stream ended; zero while it is open.
	Ended time.Time
	// EndReason is "eof" (the server ended it), "closed" (the client closed it) or the
	// read error.
	EndReason string
}

// HTTPStatusError is returned by Send when the server answered a POST with a non-2xx
// status. Body holds at most the first 64 KiB of the reply.
type HTTPStatusError struct {
	Status      int
	ContentType string
	Body        []byte
}

// Error reports the status and the start of the body.
func (e *HTTPStatusError) Error() string {
	return fmt.Sprintf("HTTP %d %s: %.200s", e.Status, http.StatusText(e.Status), e.Body)
}

// ErrClosed is returned by Send after the transport has ended.
var ErrClosed = errors.New("transport closed")

// Limits bounds what a transport buffers. Zero values take the defaults.
type Limits struct {
	// MaxFrame is the largest single message accepted (default 16 MiB). A longer line
	// or event is delivered as a Frame with Err set and its bytes truncated.
	MaxFrame int
	// MaxStderr is how much of a process's stderr is kept (default 1 MiB); the rest is
	// counted and dropped.
	MaxStderr int
}

// WithDefaults fills the zero fields.
func (l Limits) WithDefaults() Limits {
	if l.MaxFrame <= 0 {
		l.MaxFrame = 16 << 20
	}
	if l.MaxStderr <= 0 {
		l.MaxStderr = 1 << 20
	}
	return l
}
