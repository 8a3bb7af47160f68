package mctest

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
)

// Favicon returns a 64x64 PNG server icon as a status data URI, a different
// one for every seed, so a test can tell whose icon an answer carries.
func Favicon(seed uint8) string {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			img.Set(x, y, color.NRGBA{R: uint8(x * 4), G: uint8(y * 4), B: seed, A: 255})
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}
