package refserver

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"sync"
)

// The binary payloads of the fixture tools, built from first principles so that they
// are real files: a PNG decoders accept and a WAV players accept. They are built on
// first use, not at init: the suite's binary carries this package too, and encoding
// them (zlib, JPEG) cost every start of it a few milliseconds and 2 MB of garbage.

// mediaSamples are the payloads, raw and base64-encoded.
type mediaSamples struct {
	pngPixel, pngIcon, wav, jpegPixel []byte

	pngPixelBase64  string // 1×1 image content
	pngIconDataURI  string // 16×16 data: icon
	wavSampleBase64 string // 16 samples of silence
	jpegPixelBase64 string // a real 1×1 JPEG: the payload of the faults that label a JPEG as a PNG
}

// media returns the payloads, built once.
var media = sync.OnceValue(func() *mediaSamples {
	m := &mediaSamples{
		pngPixel:  mustPNG(1, color.NRGBA{R: 0xd0, G: 0x30, B: 0x30, A: 0xff}),
		pngIcon:   mustPNG(16, color.NRGBA{R: 0x30, G: 0x60, B: 0xd0, A: 0xff}),
		wav:       tinyWAV(8000, 16),
		jpegPixel: mustJPEG(),
	}
	enc := base64.StdEncoding.EncodeToString
	m.pngPixelBase64, m.pngIconDataURI = enc(m.pngPixel), "data:image/png;base64,"+enc(m.pngIcon)
	m.wavSampleBase64, m.jpegPixelBase64 = enc(m.wav), enc(m.jpegPixel)
	return m
})

// mustPNG encodes a square PNG of one colour.
func mustPNG(size int, c color.NRGBA) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(fmt.Sprintf("fixtures: encode PNG: %v", err))
	}
	return buf.Bytes()
}

// tinyWAV builds a canonical 44-byte-header RIFF/WAVE file: mono, 16-bit PCM, at the
// given sample rate, holding n samples of silence.
func tinyWAV(sampleRate, n int) []byte {
	const channels, bitsPerSample = 1, 16
	dataLen := n * channels * bitsPerSample / 8
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + dataLen))
	b.WriteString("WAVE")
	b.WriteString("fmt ")
	w(uint32(16))                                        // fmt chunk size
	w(uint16(1))                                         // PCM
	w(uint16(channels))                                  //
	w(uint32(sampleRate))                                //
	w(uint32(sampleRate * channels * bitsPerSample / 8)) // byte rate
	w(uint16(channels * bitsPerSample / 8))              // block align
	w(uint16(bitsPerSample))                             //
	b.WriteString("data")
	w(uint32(dataLen))
	b.Write(make([]byte, dataLen))
	return b.Bytes()
}
