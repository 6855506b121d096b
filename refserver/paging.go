package refserver

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// Cursors are opaque to clients: base64url of "page:<offset>:<listVersion>", where
// listVersion counts the session's tool-list changes. The same cursor on an unchanged
// list gives the same page.
const cursorPrefix = "page"

func encodeCursor(offset, version int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("%s:%d:%d", cursorPrefix, offset, version)))
}

// decodeCursor parses a cursor; it accepts only the exact form encodeCursor writes.
func decodeCursor(c string) (offset, version int, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, 0, false
	}
	parts := strings.Split(string(raw), ":")
	if len(parts) != 3 || parts[0] != cursorPrefix {
		return 0, 0, false
	}
	offset, err1 := strconv.Atoi(parts[1])
	version, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || encodeCursor(offset, version) != c {
		return 0, 0, false
	}
	return offset, version, true
}

// page selects one page of n items. A cursor is valid only if this session could have
// issued it: paging is on, the offset is a positive multiple of the page size, the
// version is not in the future, and on the current list the offset is inside it. A
// cursor from an earlier version of the list is served from its offset on the current
// list (the client is then expected to refetch after list_changed). hasNext reports
// whether the page carries next. served counts the earlier requests of the same cursor
// in the session; only a fault reads it.
func page(n, pageSize, version int, cursor string, hasCursor bool, fs faultSet, served int) (start, end int, next string, hasNext bool, e *rpcError) {
	step := pageSize
	if fs.on(faultToolAcrossPages) && pageSize > 1 {
		step = pageSize - 1 // the next page starts with this page's last tool
	}
	if hasCursor {
		off, v, ok := decodeCursor(cursor)
		switch {
		case cursor == "" && fs.on(faultEmptyNextCursor):
			return n, n, "", false, nil // "" is read as "past the end": an empty page
		case ok && pageSize > 0 && off > 0 && off%step == 0 && v <= version && (v < version || off < n):
			start = min(off, n)
		case fs.on(faultInvalidCursorFirst):
			start = 0
		case fs.on(faultInvalidCursorIntern):
			return 0, 0, "", false, errInternal(fmt.Errorf("cannot decode cursor %q", cursor))
		default:
			return 0, 0, "", false, errInvalidParams("invalid cursor %q", cursor)
		}
		if fs.on(faultUnstableCursor) {
			start = min(start+served, n)
		}
	}
	end = n
	if pageSize > 0 && start+pageSize < n {
		end = start + pageSize
		return start, end, encodeCursor(start+step, version), true, nil
	}
	switch {
	case start == 0: // the whole list fits one page: nothing to loop or mark
	case fs.on(faultCursorLoop):
		return start, end, encodeCursor(step, version), true, nil // the second page again
	case fs.on(faultEmptyNextCursor):
		return start, end, "", true, nil
	}
	return start, end, "", false, nil
}
