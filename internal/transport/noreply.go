package transport

import (
	"errors"
	"io"
	"syscall"
)

// ErrNoReply is wrapped by an HTTP transport's Send when the server took the request
// and ended it without any reply: the connection closed or was reset before a
// complete response arrived. The server was reached and said nothing, which is the
// HTTP form of a stdio server's silence on one request; it is a verdict about the
// server, so the checks judge it as they judge silence (a refused connection, by
// contrast, is a server that is gone, and stays a plain error).
var ErrNoReply = errors.New("the server closed the connection without a reply")

// ErrGone is wrapped by an HTTP transport's Send when the server refuses the
// connection: it can no longer be reached at all, the HTTP form of a stdio server
// whose process ended (wire.ErrClosed).
var ErrGone = errors.New("the server is gone (the connection was refused)")

// classifiedError keeps the client's error for the message while matching kind.
type classifiedError struct{ kind, err error }

func (e *classifiedError) Error() string        { return e.kind.Error() + " (" + e.err.Error() + ")" }
func (e *classifiedError) Unwrap() error        { return e.err }
func (e *classifiedError) Is(target error) bool { return target == e.kind }

// asNoReply wraps err as ErrNoReply when it says the connection ended without a
// response (EOF, an unexpected EOF, a reset), as ErrGone when the connection was
// refused, and returns it unchanged otherwise.
func asNoReply(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET):
		return &classifiedError{kind: ErrNoReply, err: err}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &classifiedError{kind: ErrGone, err: err}
	}
	return err
}
