// Package wire speaks raw JSON-RPC 2.0 for mcp-conform: message decoding that keeps
// the exact bytes, request ids that keep their JSON type, a client connection that
// correlates replies, answers server→client requests and records a transcript.
//
// No MCP SDK is used on purpose: SDKs normalise away exactly the violations a
// conformance suite must see (an id echoed as a string, an extra field, a bad type).
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/mcp-conform/mcp-conform/internal/rawjson"
)

// Standard JSON-RPC 2.0 error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// ID is a JSON-RPC request id that remembers its JSON type. MCP allows strings and
// integers; the zero ID is "absent".
type ID struct {
	raw json.RawMessage // compact JSON: a string literal, a number literal or null
}

// StringID returns a string id.
func StringID(s string) ID {
	b, _ := json.Marshal(s)
	return ID{raw: b}
}

// NumberID returns an integer id.
func NumberID(n int64) ID { return ID{raw: json.RawMessage(strconv.FormatInt(n, 10))} }

// ParseID wraps the raw JSON of an id as received. It fails on JSON that is not a
// string, number or null.
func ParseID(raw json.RawMessage) (ID, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ID{}, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return ID{}, fmt.Errorf("id %s: %w", raw, err)
	}
	switch v.(type) {
	case string, json.Number, nil:
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return ID{}, fmt.Errorf("id %s: %w", raw, err)
		}
		return ID{raw: buf.Bytes()}, nil
	default:
		return ID{}, fmt.Errorf("id %s is neither a string nor a number", raw)
	}
}

// decodeID is ParseID for the value of a member of valid JSON: a lone string or
// number literal is already compact, so it is the id as it is; anything else goes
// through ParseID.
func decodeID(v json.RawMessage) (ID, error) {
	if len(v) > 0 {
		switch c := v[0]; {
		case c == '"', c == '-', c >= '0' && c <= '9':
			return ID{raw: v}, nil
		}
	}
	return ParseID(v)
}

// IsZero reports whether the id is absent.
func (id ID) IsZero() bool { return len(id.raw) == 0 }

// IsNull reports whether the id is the JSON literal null.
func (id ID) IsNull() bool { return string(id.raw) == "null" }

// IsString reports whether the id is a JSON string.
func (id ID) IsString() bool { return len(id.raw) > 0 && id.raw[0] == '"' }

// IsNumber reports whether the id is a JSON number.
func (id ID) IsNumber() bool { return !id.IsZero() && !id.IsNull() && !id.IsString() }

// Raw returns the id's JSON.
func (id ID) Raw() json.RawMessage { return id.raw }

// String returns the id as JSON text, or "<absent>".
func (id ID) String() string {
	if id.IsZero() {
		return "<absent>"
	}
	return string(id.raw)
}

// Key is the exact-match key: equal keys mean the same value and the same JSON type.
// Numbers are normalised (7, 7.0 and 7e0 are the same number).
func (id ID) Key() string {
	switch {
	case id.IsZero():
		return ""
	case id.IsString():
		return "s:" + string(id.raw)
	case id.IsNull():
		return "null"
	default:
		return "n:" + normalNumber(string(id.raw))
	}
}

// LooseKey ignores the JSON type: the id 7 and the id "7" share a loose key. It is used
// only to attribute a reply whose id came back with the wrong type.
func (id ID) LooseKey() string {
	switch {
	case id.IsZero() || id.IsNull():
		return id.Key()
	case id.IsString():
		var s string
		_ = json.Unmarshal(id.raw, &s)
		return "v:" + normalNumber(s)
	default:
		return "v:" + normalNumber(string(id.raw))
	}
}

// TypeName names the id's JSON type for messages.
func (id ID) TypeName() string {
	switch {
	case id.IsZero():
		return "absent"
	case id.IsNull():
		return "null"
	case id.IsString():
		return "string"
	default:
		return "number"
	}
}

// MarshalJSON writes the id as it is.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.IsZero() {
		return []byte("null"), nil
	}
	return id.raw, nil
}

// normalNumber is the canonical text of a JSON number, so that ids equal in value
// (7, 7.0, 7e0) share a key. A small canonical integer, the id of almost every
// message, is its own canonical text (what the general path below prints for it), so
// it skips the arbitrary-precision parse.
func normalNumber(s string) string {
	if smallCanonicalInt(s) {
		return s
	}
	f, ok := new(big.Float).SetPrec(256).SetString(s)
	if !ok {
		return s
	}
	return f.Text('g', -1)
}

// smallCanonicalInt reports whether s is an integer of at most six digits written
// canonically (no sign but a leading minus, no leading zero, not -0): big.Float's
// shortest %g prints exactly such numbers unchanged.
func smallCanonicalInt(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	if len(digits) == 0 || len(digits) > 6 || (digits[0] == '0' && (len(digits) > 1 || len(s) > 1)) {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// Error is a JSON-RPC error object. Fields are kept raw where a server may get their
// type wrong, so that the checks can say so.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// Kind classifies a decoded message.
type Kind int

// The kinds of JSON-RPC message.
const (
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResult
	KindError
)

func (k Kind) String() string {
	return [...]string{"invalid", "request", "notification", "result", "error"}[k]
}

// Message is one decoded JSON-RPC message with its exact bytes.
type Message struct {
	Raw     []byte          // the bytes as received or sent
	JSONRPC string          // the "jsonrpc" member
	ID      ID              // absent for notifications
	Method  string          // requests and notifications
	Params  json.RawMessage // requests and notifications
	Result  json.RawMessage // successful responses
	Error   *Error          // error responses (nil when the member is absent)
	Kind    Kind
	// Problem says why the message is KindInvalid, or notes a shape fault such as
	// both result and error being present.
	Problem string
	// Members holds which top-level members were present.
	Members map[string]bool
}

// ErrNotObject is returned by Decode for JSON that is not an object (arrays included).
var ErrNotObject = errors.New("not a JSON object")

// Decode parses one JSON-RPC message. Malformed JSON is an error; well-formed JSON
// that is not a valid JSON-RPC message decodes with Kind == KindInvalid and a Problem.
//
// The message keeps one copy of the bytes (Raw); Params and Result are slices of it,
// not copies of their own, so a megabyte reply costs a megabyte.
func Decode(raw []byte) (*Message, error) {
	trimmed := bytes.TrimSpace(raw)
	if !rawjson.Valid(trimmed) {
		return nil, fmt.Errorf("invalid JSON: %.120q", trimmed)
	}
	return decodeValid(raw, trimmed, false)
}

// decodeValid is Decode of bytes known to be one JSON value; trimmed is raw without
// surrounding white space. With own, raw is the caller's to give (a frame's bytes,
// which nothing else changes): the message keeps it instead of a copy.
func decodeValid(raw, trimmed []byte, own bool) (*Message, error) {
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("%w: %.120s", ErrNotObject, trimmed)
	}
	m := &Message{Raw: raw, Members: map[string]bool{}}
	if !own {
		m.Raw = append([]byte(nil), raw...)
	}
	// The members of the copy, in order (the last of duplicate keys wins, as with
	// json.Unmarshal into a map).
	fields, err := rawjson.ObjectOfValid(m.Raw)
	if err != nil {
		return nil, fmt.Errorf("decode message: %w", err)
	}
	for k := range fields {
		m.Members[k] = true
	}
	if v, ok := fields["jsonrpc"]; ok {
		m.JSONRPC, _ = rawjson.StringOfValid(v)
	}
	if v, ok := fields["id"]; ok {
		id, err := decodeID(v)
		if err != nil {
			m.Problem = err.Error()
			return m, nil
		}
		m.ID = id
	}
	if v, ok := fields["method"]; ok {
		method, err := rawjson.StringOfValid(v)
		if err != nil {
			m.Problem = "method is not a string"
			return m, nil
		}
		m.Method = method
	}
	m.Params = fields["params"]
	m.Result = fields["result"]
	if v, ok := fields["error"]; ok {
		var e Error
		if err := json.Unmarshal(v, &e); err != nil {
			m.Problem = fmt.Sprintf("error member is malformed: %v", err)
		}
		m.Error = &e
	}
	switch {
	case m.Problem != "":
	case m.Members["method"] && m.Members["id"]:
		m.Kind = KindRequest
	case m.Members["method"]:
		m.Kind = KindNotification
	case m.Members["result"] && m.Members["error"]:
		m.Kind = KindResult
		m.Problem = "response carries both result and error"
	case m.Members["result"]:
		m.Kind = KindResult
	case m.Members["error"]:
		m.Kind = KindError
	default:
		m.Problem = "neither a request, a notification nor a response"
	}
	if m.Problem == "" && m.JSONRPC != "2.0" {
		m.Problem = fmt.Sprintf("jsonrpc member is %q, want \"2.0\"", m.JSONRPC)
	}
	return m, nil
}

// IsResponse reports whether the message answers a request.
func (m *Message) IsResponse() bool { return m.Kind == KindResult || m.Kind == KindError }

// EncodeRequest builds a request's bytes. params may be nil (omitted).
func EncodeRequest(id ID, method string, params any) ([]byte, error) {
	env := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		env["params"] = params
	}
	b, err := json.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("encode %s request: %w", method, err)
	}
	return b, nil
}

// EncodeNotification builds a notification's bytes. params may be nil (omitted).
func EncodeNotification(method string, params any) ([]byte, error) {
	env := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		env["params"] = params
	}
	b, err := json.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("encode %s notification: %w", method, err)
	}
	return b, nil
}

// EncodeResult builds a successful response's bytes.
func EncodeResult(id ID, result any) ([]byte, error) {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return b, nil
}

// EncodeError builds an error response's bytes. A zero id is written as null.
func EncodeError(id ID, code int, message string, data any) ([]byte, error) {
	e := map[string]any{"code": code, "message": message}
	if data != nil {
		e["data"] = data
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	if err != nil {
		return nil, fmt.Errorf("encode error: %w", err)
	}
	return b, nil
}
