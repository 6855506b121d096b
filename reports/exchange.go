package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Exchange is the transcript slice that decided one check: for every session the
// check used, the messages that crossed the wire while it ran, in order, with times.
// `mcp-conform replay` re-sends its client messages to a server.
type Exchange struct {
	Sessions []ExchangeSession `json:"sessions"`
}

// ExchangeSession is one session's part of an Exchange.
type ExchangeSession struct {
	// Session names the session's full transcript (transcripts/<Session>.jsonl).
	Session   string `json:"session"`
	Transport string `json:"transport,omitempty"`
	// Requested is the protocolVersion the session's initialize asked for, and
	// Negotiated what the server answered: a replay of a slice that starts after the
	// handshake first initializes the same way.
	Requested  string            `json:"requested"`
	Negotiated string            `json:"negotiated,omitempty"`
	Messages   []ExchangeMessage `json:"messages"`
	// Omitted counts the messages of the window that were not kept (the slice is
	// bounded, so a long paging walk cannot bloat the report).
	Omitted int `json:"omitted,omitempty"`
}

// ExchangeMessage is one message of a slice.
type ExchangeMessage struct {
	Seq    int       `json:"seq"`
	Dir    string    `json:"dir"` // "send" (the suite to the server) or "recv"
	At     time.Time `json:"at"`
	Source string    `json:"source,omitempty"` // the transport channel: stdout, post, get, sse
	// Message is the message as JSON; Raw holds bytes that are not valid JSON or not
	// valid UTF-8 (or were cut to the bound, with Problem saying so).
	Message json.RawMessage `json:"message,omitempty"`
	Raw     string          `json:"raw,omitempty"`
	Problem string          `json:"problem,omitempty"`
}

// Sent reports whether the suite sent the message.
func (m ExchangeMessage) Sent() bool { return m.Dir == "send" }

// Text is the message as it crossed the wire: compact JSON (a report re-indents it)
// or the raw bytes.
func (m ExchangeMessage) Text() string {
	if len(m.Message) > 0 {
		var b bytes.Buffer
		if json.Compact(&b, m.Message) == nil {
			return b.String()
		}
		return string(m.Message)
	}
	return m.Raw
}

// Method is the JSON-RPC method of a request or notification, or "".
func (m ExchangeMessage) Method() string {
	var probe struct {
		Method string `json:"method"`
	}
	if len(m.Message) == 0 || json.Unmarshal(m.Message, &probe) != nil {
		return ""
	}
	return probe.Method
}

// IsResponse reports whether the message is a JSON-RPC response (a result or an
// error): the suite's answers to server requests are not replayed.
func (m ExchangeMessage) IsResponse() bool {
	var probe map[string]json.RawMessage
	if len(m.Message) == 0 || json.Unmarshal(m.Message, &probe) != nil {
		return false
	}
	_, hasMethod := probe["method"]
	_, hasResult := probe["result"]
	_, hasError := probe["error"]
	return !hasMethod && (hasResult || hasError)
}

// Empty reports whether the slice holds no message.
func (e *Exchange) Empty() bool {
	if e == nil {
		return true
	}
	for _, s := range e.Sessions {
		if len(s.Messages) > 0 {
			return false
		}
	}
	return true
}

// WriteExchangeText writes the slice for people: per session a head line, then one
// line per message with its offset from the slice's first message, its direction
// and its text.
func WriteExchangeText(w io.Writer, e *Exchange) error {
	if e.Empty() {
		_, err := fmt.Fprintln(w, "(no message crossed the wire while the check ran)")
		return err
	}
	var first time.Time
	for _, s := range e.Sessions {
		for _, m := range s.Messages {
			if first.IsZero() || m.At.Before(first) {
				first = m.At
			}
		}
	}
	var b strings.Builder
	for _, s := range e.Sessions {
		fmt.Fprintf(&b, "session %s (%s, asked for %s", s.Session, dashIfEmpty(s.Transport), dashIfEmpty(s.Requested))
		if s.Negotiated != "" {
			fmt.Fprintf(&b, ", negotiated %s", s.Negotiated)
		}
		b.WriteString(")\n")
		for _, m := range s.Messages {
			arrow := "<-"
			if m.Sent() {
				arrow = "->"
			}
			fmt.Fprintf(&b, "  +%7.1fms %s %s", float64(m.At.Sub(first).Microseconds())/1000, arrow, strings.TrimSpace(m.Text()))
			if m.Problem != "" {
				fmt.Fprintf(&b, "   [%s]", m.Problem)
			}
			b.WriteByte('\n')
		}
		if s.Omitted > 0 {
			fmt.Fprintf(&b, "  … %d more messages not kept\n", s.Omitted)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
