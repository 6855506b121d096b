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

// noReplyError keeps the client's error for the message while matching ErrNoReply.
type noReplyError struct{ err error }

func (e *noReplyError) Error() string        { return ErrNoReply.Error() + " (" + e.err.Error() + ")" }
func (e *noReplyError) Unwrap() error        { return e.err }
func (e *noReplyError) Is(target error) bool { return target == ErrNoReply }

// asNoReply wraps err as ErrNoReply when it says the connection ended without a
// response (EOF, an unexpected EOF, a reset), and returns it unchanged otherwise.
func asNoReply(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
		return &noReplyError{err: err}
	}
	return err
}
