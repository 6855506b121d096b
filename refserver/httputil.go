package refserver

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// maxBodyBytes caps one POST body.
const maxBodyBytes = 4 << 20

// maxSessions caps the live sessions of one HTTP handler.
const maxSessions = 1024

// newSessionID returns a crypto-random id of 43 visible-ASCII characters.
func newSessionID() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("session id: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// originAllowed accepts requests without Origin and requests from a loopback origin
// (http or https on localhost, 127.0.0.1 or [::1], any port); anything else is a
// possible DNS-rebinding attack.
func originAllowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// accepts reports whether the Accept header allows the media type. A request without
// Accept accepts anything (RFC 9110 §12.5.1); a range with q=0 is a refusal.
func accepts(r *http.Request, want string) bool {
	values := r.Header.Values("Accept")
	if len(values) == 0 {
		return true
	}
	major, _, _ := strings.Cut(want, "/")
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, ps, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if q, has := ps["q"]; has {
				if f, err := strconv.ParseFloat(q, 64); err == nil && f == 0 {
					continue
				}
			}
			if mt == want || mt == "*/*" || mt == major+"/*" {
				return true
			}
		}
	}
	return false
}

// isJSONContent reports whether a request's Content-Type, if any, is application/json.
func isJSONContent(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// writeJSON writes a JSON body with a status.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeHTTPError writes a transport-level rejection: an HTTP status with a JSON-RPC
// error body that has no id (the message was not processed).
func writeHTTPError(w http.ResponseWriter, status int, code int, message string) {
	writeJSON(w, status, encodeErrorResponse(wire.ID{}, &rpcError{Code: code, Message: message}, true))
}

// sseStream writes Server-Sent Events to one response. Writes from several
// goroutines are serialised; after close every write fails instead of touching a
// finished response.
type sseStream struct {
	mu     sync.Mutex
	w      http.ResponseWriter
	rc     *http.ResponseController
	closed bool
}

// startSSE sends the headers of an event stream and flushes them.
func startSSE(w http.ResponseWriter) *sseStream { return startSSEWith(w, true) }

// startSSEWith is startSSE; accel false leaves out X-Accel-Buffering: no (the fault
// r5-no-x-accel-buffering).
func startSSEWith(w http.ResponseWriter, accel bool) *sseStream {
	st := prepareSSE(w, accel)
	_ = st.rc.Flush()
	return st
}

// prepareSSE writes an SSE response's status and headers without sending them: they
// go out with the first event, or the caller's flush.
func prepareSSE(w http.ResponseWriter, accel bool) *sseStream {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	if accel {
		h.Set("X-Accel-Buffering", "no")
	}
	w.WriteHeader(http.StatusOK)
	return &sseStream{w: w, rc: http.NewResponseController(w)}
}

// event writes one event: an optional id and name, then data split into data lines
// (an empty data field when data is empty).
func (st *sseStream) event(id, name string, data []byte) error {
	return st.eventRetry(id, name, data, 0)
}

// eventRetry is event with an SSE retry field (milliseconds) when retry > 0.
func (st *sseStream) eventRetry(id, name string, data []byte, retry int) error {
	var b bytes.Buffer
	if id != "" {
		fmt.Fprintf(&b, "id: %s\n", id)
	}
	if retry > 0 {
		fmt.Fprintf(&b, "retry: %d\n", retry)
	}
	if name != "" {
		fmt.Fprintf(&b, "event: %s\n", name)
	}
	if len(data) == 0 {
		b.WriteString("data:\n")
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(data) > 0 {
			fmt.Fprintf(&b, "data: %s\n", bytes.TrimRight(line, "\r"))
		}
	}
	b.WriteString("\n")
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return errSessionClosed
	}
	if _, err := st.w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("sse: write: %w", err)
	}
	if err := st.rc.Flush(); err != nil {
		return fmt.Errorf("sse: flush: %w", err)
	}
	return nil
}

// close ends writing; the handler that owns the response calls it before returning.
func (st *sseStream) close() {
	st.mu.Lock()
	st.closed = true
	st.mu.Unlock()
}
