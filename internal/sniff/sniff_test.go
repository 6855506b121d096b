package sniff

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

// onePixelPNG is a real 1×1 PNG, as servers typically send it.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

func TestDecodeBase64Strict(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string // decoded, when valid
		wantErr string // substring of the error; "" means valid
	}{
		{"empty", "", "", ""},
		{"no padding needed", "QUJD", "ABC", ""},
		{"one pad", "QUI=", "AB", ""},
		{"two pads", "QQ==", "A", ""},
		{"all alphabet", "+/+/", "\xfb\xff\xbf", ""},
		{"missing padding", "QQ", "", "not a multiple of 4"},
		{"missing one pad", "QQ=", "", "not a multiple of 4"},
		{"truncated", "QUJDR", "", "not a multiple of 4"},
		{"three pads", "Q===", "", "3 padding characters at offset 1"},
		{"only padding", "====", "", "offset 0"},
		{"padding in the middle", "QQ==QUJD", "", "offset 2 is followed by data"},
		{"pad then data", "QQ=A", "", "offset 2 is followed by data"},
		{"trailing newline", "QUJD\n", "", `whitespace '\n' at offset 4`},
		{"MIME line break", "QUJD\r\nQUJD", "", `whitespace '\r' at offset 4`},
		{"inner space", "QU JD", "", "whitespace ' ' at offset 2"},
		{"leading tab", "\tQUJD", "", "offset 0"},
		{"URL-safe minus", "-_-_", "", "URL-safe character '-' at offset 0"},
		{"URL-safe underscore", "QU_D", "", "URL-safe character '_' at offset 2"},
		{"invalid character", "QU*D", "", "invalid character '*' at offset 2"},
		{"non-ASCII", "QUJ\xc3\xa9", "", "offset 3"},
		{"non-canonical bits", "QR==", "", "non-canonical"},
		{"real PNG", onePixelPNG, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeBase64Strict(tt.in)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("accepted, decoded %q", got)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %q lacks %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if tt.want != "" && string(got) != tt.want {
				t.Errorf("decoded %q, want %q", got, tt.want)
			}
			if got == nil {
				t.Error("nil slice for valid input")
			}
		})
	}
}

// samples are real, tiny media files (or real headers of them).
func samples(t *testing.T) map[string][]byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	encode := func(f func(*bytes.Buffer) error) []byte {
		var buf bytes.Buffer
		if err := f(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	pngB, err := base64.StdEncoding.DecodeString(onePixelPNG)
	if err != nil {
		t.Fatal(err)
	}
	riffHdr := func(form string, rest []byte) []byte {
		b := []byte("RIFF")
		b = binary.LittleEndian.AppendUint32(b, uint32(4+len(rest)))
		return append(append(b, form...), rest...)
	}
	// A 44-byte PCM WAVE header: 1 channel, 8 kHz, 8-bit, no samples.
	fmtChunk := []byte("fmt ")
	fmtChunk = binary.LittleEndian.AppendUint32(fmtChunk, 16)
	fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, 1)    // PCM
	fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, 1)    // channels
	fmtChunk = binary.LittleEndian.AppendUint32(fmtChunk, 8000) // sample rate
	fmtChunk = binary.LittleEndian.AppendUint32(fmtChunk, 8000) // byte rate
	fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, 1)    // block align
	fmtChunk = binary.LittleEndian.AppendUint16(fmtChunk, 8)    // bits per sample
	wav := riffHdr("WAVE", append(fmtChunk, "data\x00\x00\x00\x00"...))
	// A RIFF/WEBP header with a lossless ("VP8L") 1×1 image chunk.
	webp := riffHdr("WEBP", []byte("VP8L\x0a\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"))
	// MPEG-1 Layer III, 128 kbit/s, 44.1 kHz frame header.
	mp3Frame := []byte{0xFF, 0xFB, 0x90, 0x64, 0, 0, 0, 0}
	// An ID3v2.4 tag with a 0-byte body, then an MP3 frame.
	id3 := append([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), mp3Frame...)
	// BMP file header + BITMAPINFOHEADER start.
	bmp := []byte("BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00")
	return map[string][]byte{
		"png":        pngB,
		"png-stdlib": encode(func(b *bytes.Buffer) error { return png.Encode(b, img) }),
		"jpeg":       encode(func(b *bytes.Buffer) error { return jpeg.Encode(b, img, nil) }),
		"gif":        encode(func(b *bytes.Buffer) error { return gif.Encode(b, img, nil) }),
		"gif87a":     []byte("GIF87a\x01\x00\x01\x00\x80\x00\x00"),
		"webp":       webp,
		"bmp":        bmp,
		"wav":        wav,
		"id3":        id3,
		"id3-only":   []byte("ID3\x03\x00\x00\x00\x00\x00\x00"),
		"id3-flac":   []byte("ID3\x04\x00\x00\x00\x00\x00\x02\x00\x00fLaC\x00\x00\x00\x22"),
		"mp3":        mp3Frame,
		"adts":       []byte{0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC},
		"ogg":        []byte("OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00"),
		"flac":       []byte("fLaC\x00\x00\x00\x22"),
		"text":       []byte("hello, world"),
		"svg":        []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`),
		"avi":        riffHdr("AVI ", []byte("LIST")),
		"empty":      nil,
		"short-riff": []byte("RIFF\x00\x00"),
		"bm-text":    []byte("BMW is a car"),
	}
}

func TestSniff(t *testing.T) {
	s := samples(t)
	tests := []struct{ sample, want string }{
		{"png", PNG}, {"png-stdlib", PNG}, {"jpeg", JPEG}, {"gif", GIF}, {"gif87a", GIF},
		{"webp", WebP}, {"bmp", BMP}, {"wav", WAV}, {"id3", MPEG}, {"id3-only", MPEG},
		{"id3-flac", FLAC}, {"mp3", MPEG}, {"adts", AAC}, {"ogg", Ogg}, {"flac", FLAC},
		{"text", ""}, {"svg", ""}, {"avi", ""}, {"empty", ""}, {"short-riff", ""}, {"bm-text", ""},
	}
	for _, tt := range tests {
		t.Run(tt.sample, func(t *testing.T) {
			if got := Sniff(s[tt.sample]); got != tt.want {
				t.Errorf("Sniff = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMatchesMIME(t *testing.T) {
	s := samples(t)
	tests := []struct {
		declared, sample string
		ok               bool
		sniffed          string
	}{
		{"image/png", "png", true, PNG},
		{"IMAGE/PNG", "png", true, PNG},
		{"image/png; charset=binary", "png", true, PNG},
		{"image/jpeg", "png", false, PNG},
		{"image/jpg", "jpeg", true, JPEG},
		{"image/jpeg", "jpeg", true, JPEG},
		{"image/png", "jpeg", false, JPEG},
		{"image/gif", "gif", true, GIF},
		{"image/webp", "webp", true, WebP},
		{"image/png", "webp", false, WebP},
		{"audio/wav", "wav", true, WAV},
		{"audio/x-wav", "wav", true, WAV},
		{"audio/wave", "wav", true, WAV},
		{"audio/vnd.wave", "wav", true, WAV},
		{"audio/wav", "webp", false, WebP},
		{"audio/mpeg", "wav", false, WAV},
		{"audio/mp3", "id3", true, MPEG},
		{"audio/mpeg", "mp3", true, MPEG},
		{"audio/ogg", "ogg", true, Ogg},
		{"audio/flac", "flac", true, FLAC},
		{"audio/x-flac", "id3-flac", true, FLAC},
		{"audio/mpeg", "ogg", false, Ogg},
		{"audio/aac", "adts", true, AAC},
		{"audio/mpeg", "adts", false, AAC},
		// Unknown bytes are never a proven mismatch.
		{"image/png", "text", true, ""},
		{"audio/wav", "empty", true, ""},
		// Declared types the sniffer cannot recognise are accepted.
		{"image/svg+xml", "svg", true, ""},
		{"image/apng", "png", true, PNG},
		{"audio/opus", "ogg", true, Ogg},
		{"application/octet-stream", "wav", true, WAV},
		{"", "png", true, PNG},
	}
	for _, tt := range tests {
		t.Run(tt.declared+"/"+tt.sample, func(t *testing.T) {
			ok, sniffed := MatchesMIME(tt.declared, s[tt.sample])
			if ok != tt.ok || sniffed != tt.sniffed {
				t.Errorf("MatchesMIME = %v, %q; want %v, %q", ok, sniffed, tt.ok, tt.sniffed)
			}
		})
	}
}

func TestNormalizeMIME(t *testing.T) {
	for in, want := range map[string]string{
		"Audio/X-WAV":                "audio/wav",
		" audio/mp3 ":                "audio/mpeg",
		"image/jpg":                  "image/jpeg",
		"text/plain; charset=utf-8":  "text/plain",
		"audio/ogg;codecs=opus":      "audio/ogg",
		"application/vnd.custom+xml": "application/vnd.custom+xml",
	} {
		if got := NormalizeMIME(in); got != want {
			t.Errorf("NormalizeMIME(%q) = %q, want %q", in, got, want)
		}
	}
}

// The strict decoder and Sniff together, as the content checks use them.
func TestDecodeThenSniff(t *testing.T) {
	b, err := DecodeBase64Strict(onePixelPNG)
	if err != nil {
		t.Fatal(err)
	}
	if ok, sniffed := MatchesMIME("image/png", b); !ok || sniffed != PNG {
		t.Errorf("got %v, %q", ok, sniffed)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("sample is not a real PNG: %v", err)
	}
}
