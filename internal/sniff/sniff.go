// Package sniff checks binary payloads of MCP content blocks: strict base64 decoding
// (the schemas mark image and audio data and resource blobs as format "byte") and
// media-type detection from magic bytes, to compare against a declared mimeType.
package sniff

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
)

// DecodeBase64Strict decodes s as base64 in the standard alphabet with padding
// (RFC 4648 §4). Unlike encoding/base64, it rejects whitespace and line breaks
// anywhere, the URL-safe characters '-' and '_', missing or misplaced padding, and
// non-zero bits in the last quantum's padding (a non-canonical encoding). The error
// names the problem and, for a bad character, its byte offset. "" decodes to an empty
// slice.
func DecodeBase64Strict(s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '+', c == '/':
			continue
		case c == '=':
			// Padding: a run of at most two '=' that ends the input.
			n := len(s) - i
			if strings.Trim(s[i:], "=") != "" {
				return nil, fmt.Errorf("base64: padding '=' at offset %d is followed by data", i)
			}
			if n > 2 {
				return nil, fmt.Errorf("base64: %d padding characters at offset %d (at most 2)", n, i)
			}
			i = len(s) // the rest is valid padding
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			return nil, fmt.Errorf("base64: whitespace %q at offset %d", c, i)
		case c == '-' || c == '_':
			return nil, fmt.Errorf("base64: URL-safe character %q at offset %d (standard alphabet expected)", c, i)
		default:
			return nil, fmt.Errorf("base64: invalid character %q at offset %d", c, i)
		}
	}
	if len(s)%4 != 0 {
		return nil, fmt.Errorf("base64: length %d is not a multiple of 4 (missing padding or truncated)", len(s))
	}
	out, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		// Only non-canonical trailing bits remain possible here.
		return nil, fmt.Errorf("base64: non-zero padding bits in the final quantum (non-canonical encoding): %w", err)
	}
	return out, nil
}

// Media types Sniff can report.
const (
	PNG  = "image/png"
	JPEG = "image/jpeg"
	GIF  = "image/gif"
	WebP = "image/webp"
	BMP  = "image/bmp"
	WAV  = "audio/wav"
	MPEG = "audio/mpeg"
	AAC  = "audio/aac"
	Ogg  = "audio/ogg"
	FLAC = "audio/flac"
)

// Sniff identifies b by its magic bytes and returns its media type (one of the
// constants above), or "" when it recognises none. An ID3v2 tag is skipped and the
// audio behind it identified (MP3, AAC/ADTS or FLAC); a tag with nothing
// recognisable behind it is reported as audio/mpeg.
func Sniff(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return PNG
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return JPEG
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return GIF
	case riff(b, "WEBP"):
		return WebP
	case riff(b, "WAVE"):
		return WAV
	case bytes.HasPrefix(b, []byte("OggS")):
		return Ogg
	case bytes.HasPrefix(b, []byte("fLaC")):
		return FLAC
	case bytes.HasPrefix(b, []byte("ID3")):
		if t := sniffAfterID3(b); t != "" {
			return t
		}
		return MPEG
	case isADTS(b):
		return AAC
	case isMPEGFrame(b):
		return MPEG
	case isBMP(b):
		return BMP
	}
	return ""
}

// riff reports a RIFF container of the given form type ("WAVE", "WEBP").
func riff(b []byte, form string) bool {
	return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == form
}

// sniffAfterID3 skips an ID3v2 tag (10-byte header, syncsafe size, optional 10-byte
// footer) and sniffs the audio that follows.
func sniffAfterID3(b []byte) string {
	if len(b) < 10 || b[3] == 0xFF || b[4] == 0xFF {
		return ""
	}
	for _, x := range b[6:10] {
		if x&0x80 != 0 {
			return "" // not a syncsafe integer
		}
	}
	size := int(b[6])<<21 | int(b[7])<<14 | int(b[8])<<7 | int(b[9])
	end := 10 + size
	if b[5]&0x10 != 0 { // footer present
		end += 10
	}
	if end >= len(b) {
		return ""
	}
	rest := b[end:]
	switch {
	case bytes.HasPrefix(rest, []byte("fLaC")):
		return FLAC
	case isADTS(rest):
		return AAC
	case isMPEGFrame(rest):
		return MPEG
	}
	return ""
}

// isMPEGFrame reports an MPEG audio frame header: 11 sync bits, a valid version and
// layer (layer bits 00 are reserved, which keeps AAC/ADTS out) and, when present, a
// valid bitrate and sample-rate index.
func isMPEGFrame(b []byte) bool {
	if len(b) < 2 || b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
		return false
	}
	if (b[1]>>3)&0x3 == 1 || (b[1]>>1)&0x3 == 0 {
		return false // reserved version or layer
	}
	if len(b) >= 3 && (b[2]>>4 == 0xF || (b[2]>>2)&0x3 == 0x3) {
		return false // bad bitrate or sample-rate index
	}
	return true
}

// isADTS reports an AAC ADTS header: 12 sync bits and layer 00.
func isADTS(b []byte) bool {
	return len(b) >= 2 && b[0] == 0xFF && b[1]&0xF6 == 0xF0
}

// isBMP reports a Windows bitmap: "BM", a full file header, zero reserved bytes.
func isBMP(b []byte) bool {
	return len(b) >= 14 && b[0] == 'B' && b[1] == 'M' && bytes.Equal(b[6:10], []byte{0, 0, 0, 0})
}

// aliases maps non-canonical spellings to the types Sniff reports.
var aliases = map[string]string{
	"image/jpg":      JPEG,
	"image/pjpeg":    JPEG,
	"image/x-png":    PNG,
	"image/x-bmp":    BMP,
	"image/x-ms-bmp": BMP,
	"audio/x-wav":    WAV,
	"audio/wave":     WAV,
	"audio/vnd.wave": WAV,
	"audio/mp3":      MPEG,
	"audio/mpeg3":    MPEG,
	"audio/x-mp3":    MPEG,
	"audio/x-mpeg":   MPEG,
	"audio/x-aac":    AAC,
	"audio/x-flac":   FLAC,
}

// sniffable is the set of canonical types Sniff can report.
var sniffable = map[string]bool{PNG: true, JPEG: true, GIF: true, WebP: true, BMP: true,
	WAV: true, MPEG: true, AAC: true, Ogg: true, FLAC: true}

// NormalizeMIME lowercases a media type, drops its parameters ("; charset=…") and
// maps known aliases to the canonical spelling ("audio/x-wav" → "audio/wav",
// "audio/mp3" → "audio/mpeg", "image/jpg" → "image/jpeg").
func NormalizeMIME(mime string) string {
	if i := strings.IndexByte(mime, ';'); i >= 0 {
		mime = mime[:i]
	}
	mime = strings.ToLower(strings.TrimSpace(mime))
	if c, ok := aliases[mime]; ok {
		return c
	}
	return mime
}

// MatchesMIME compares a declared media type with what b sniffs as. It reports a
// mismatch (ok false) only when it is proven: the declared type (normalised) is one
// Sniff can recognise, and b sniffs as a different type. Bytes Sniff does not
// recognise, and declared types it cannot recognise (image/svg+xml, audio/opus,
// application/octet-stream, image/apng, …) are accepted. sniffed is what b sniffed as
// ("" if unknown).
func MatchesMIME(declared string, b []byte) (ok bool, sniffed string) {
	sniffed = Sniff(b)
	if sniffed == "" {
		return true, ""
	}
	d := NormalizeMIME(declared)
	if !sniffable[d] {
		return true, sniffed
	}
	return d == sniffed, sniffed
}
