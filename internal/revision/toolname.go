package revision

// The tool-name rule of 2025-11-25/server/tools.mdx (Tool Names): between 1 and 128
// characters, each an ASCII letter, a digit, '_', '-' or '.'. It is written out
// rather than as ^[A-Za-z0-9_.-]{1,128}$: that regexp compiled to 128 copies of its
// class, and every process of this binary compiled it twice at start-up (the suite's
// check and the reference server's own tools).

// MaxToolNameLen is the rule's most characters.
const MaxToolNameLen = 128

// ToolNameValid reports whether name keeps the rule.
func ToolNameValid(name string) bool {
	if len(name) == 0 || len(name) > MaxToolNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !ToolNameByte(name[i]) {
			return false
		}
	}
	return true
}

// ToolNameByte reports whether the rule allows the character: a byte of a name is
// allowed only if it is one of these ASCII characters, so a multi-byte character
// never is.
func ToolNameByte(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return b == '_' || b == '-' || b == '.'
}
